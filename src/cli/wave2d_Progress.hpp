// The progress of a run on stderr: a bar redrawn in place on a terminal, or a plain line
// every few seconds for logs and batch jobs.
#ifndef WAVE2D_CLI_PROGRESS_HPP
#define WAVE2D_CLI_PROGRESS_HPP

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wave2d::cli {

enum class ProgressStyle { bar, lines, none };

// `--progress`: "auto" (a bar when stderr is a terminal, else lines), "bar", "lines" or
// "none"; nullopt for another name.
std::optional<ProgressStyle> progress_style(std::string_view name);

// "12 s", "4 min 05 s", "2 h 13 min".
std::string duration_text(double seconds);

// Nothing for the run's first second (bar) or `line_seconds` (lines): short runs stay
// quiet. The bar's line is erased when it goes out of scope.
class Progress {
 public:
  // The run goes from first_step (a resumed run's) to last_step; `cells` of the whole grid
  // give the rate.
  Progress(ProgressStyle style, std::int64_t first_step, std::int64_t last_step, std::int64_t cells,
           double line_seconds);
  ~Progress();
  Progress(Progress const&) = delete;
  Progress& operator=(Progress const&) = delete;

  void update(std::int64_t steps_done);

 private:
  void draw_bar(std::int64_t steps_done, double remaining_seconds);
  void print_line(std::int64_t steps_done, double elapsed, double remaining_seconds);

  ProgressStyle style_;
  std::int64_t first_step_;
  std::int64_t last_step_;
  std::int64_t cells_;
  double line_seconds_;
  double next_line_;  // seconds into the run
  bool drawn_ = false;
  bool ended_ = false;  // the last step was told
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace wave2d::cli

#endif
