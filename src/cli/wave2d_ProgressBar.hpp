// A progress bar on stderr for long runs.
#ifndef WAVE2D_CLI_PROGRESS_BAR_HPP
#define WAVE2D_CLI_PROGRESS_BAR_HPP

#include <chrono>
#include <cstdint>

namespace wave2d::cli {

// Drawn only when stderr is a terminal and the run has lasted a second: short runs,
// pipes and logs stay clean. Its line is erased when it goes out of scope.
class ProgressBar {
 public:
  explicit ProgressBar(std::int64_t total_steps);
  ~ProgressBar();
  ProgressBar(ProgressBar const&) = delete;
  ProgressBar& operator=(ProgressBar const&) = delete;

  void update(std::int64_t steps_done);

 private:
  std::int64_t total_steps_;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace wave2d::cli

#endif
