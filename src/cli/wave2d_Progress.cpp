#include <cli/wave2d_Progress.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace wave2d::cli {

std::optional<ProgressStyle> progress_style(std::string_view name) {
  if (name == "auto") {
    return ::isatty(STDERR_FILENO) == 1 ? ProgressStyle::bar : ProgressStyle::lines;
  }
  if (name == "bar") return ProgressStyle::bar;
  if (name == "lines") return ProgressStyle::lines;
  if (name == "none") return ProgressStyle::none;
  return std::nullopt;
}

std::string duration_text(double seconds) {
  auto const whole = static_cast<long long>(std::llround(std::fmax(seconds, 0.0)));
  char text[64];
  if (whole < 60) {
    std::snprintf(text, sizeof text, "%lld s", whole);
  } else if (whole < 3600) {
    std::snprintf(text, sizeof text, "%lld min %02lld s", whole / 60, whole % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld h %02lld min", whole / 3600, whole / 60 % 60);
  }
  return text;
}

Progress::Progress(ProgressStyle style, std::int64_t first_step, std::int64_t last_step,
                   std::int64_t cells, double line_seconds)
    : style_(style),
      first_step_(first_step),
      last_step_(last_step),
      cells_(cells),
      line_seconds_(line_seconds),
      next_line_(line_seconds) {}

Progress::~Progress() {
  if (drawn_) std::fputs("\r\033[2K", stderr);
}

void Progress::update(std::int64_t steps_done) {
  double const elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::int64_t const stepped = steps_done - first_step_;
  if (style_ == ProgressStyle::none || stepped <= 0 || ended_) return;
  // Told the last step again while the outputs are written (the video): the steps' rate and
  // the bar stay as they were.
  ended_ = steps_done >= last_step_;
  double const remaining = elapsed * double(last_step_ - steps_done) / double(stepped);
  if (style_ == ProgressStyle::bar && elapsed >= 1.0) draw_bar(steps_done, remaining);
  if (style_ == ProgressStyle::lines && elapsed >= next_line_) {
    print_line(steps_done, elapsed, remaining);
    // The next line a whole interval on, however long this chunk of steps took.
    next_line_ = elapsed + line_seconds_;
  }
}

void Progress::draw_bar(std::int64_t steps_done, double remaining_seconds) {
  int const width = 40;
  double const fraction = double(steps_done) / double(last_step_);
  auto const filled = std::size_t(fraction * width);
  std::fprintf(stderr, "\r[%s%s] %3d%%  %lld/%lld steps  %s left\033[K",
               std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
               int(fraction * 100.0), static_cast<long long>(steps_done),
               static_cast<long long>(last_step_), duration_text(remaining_seconds).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::print_line(std::int64_t steps_done, double elapsed, double remaining_seconds) {
  double const gcells = double(cells_) * double(steps_done - first_step_) / elapsed / 1e9;
  std::fprintf(stderr, "wave2d: step %lld of %lld (%d%%), %.3g GCells/s, ETA %s\n",
               static_cast<long long>(steps_done), static_cast<long long>(last_step_),
               int(double(steps_done) * 100.0 / double(last_step_)), gcells,
               duration_text(remaining_seconds).c_str());
  std::fflush(stderr);
}

}  // namespace wave2d::cli
