#include <cli/wave2d_ProgressBar.hpp>

#include <cstdio>
#include <string>

#include <unistd.h>

namespace wave2d::cli {

ProgressBar::ProgressBar(std::int64_t total_steps)
    : total_steps_(total_steps), terminal_(::isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputs("\r\033[2K", stderr);
}

void ProgressBar::update(std::int64_t steps_done) {
  double const elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!terminal_ || elapsed < 1.0 || steps_done <= 0) return;
  int const width = 40;
  double const fraction = double(steps_done) / double(total_steps_);
  auto const filled = std::size_t(fraction * width);
  double const remaining = elapsed * (1.0 - fraction) / fraction;
  std::fprintf(stderr, "\r[%s%s] %3d%%  %lld/%lld steps  %.0f s left\033[K",
               std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
               int(fraction * 100.0), static_cast<long long>(steps_done),
               static_cast<long long>(total_steps_), remaining);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace wave2d::cli
