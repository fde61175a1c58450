// The library's exceptions, in one place: what a caller may catch by type. Each message is
// one line naming the problem (and the file, where there is one).
#ifndef WAVE2D_ERRORS_HPP
#define WAVE2D_ERRORS_HPP

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wave2d {

// A scene that cannot be simulated (scene/wave2d_Scene.hpp).
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output file that cannot be written (io/wave2d_Output.hpp).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A checkpoint that cannot be read or does not belong to the run (io/wave2d_Checkpoint.hpp).
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An allocation refused before it was tried: it would not fit in the memory available.
class InsufficientMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A backend name that no backend of the execution space has.
class UnknownBackend : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A run whose field stopped being finite: u(t_step) is the first field that is not, first
// at cell (x, y) of the whole grid.
class NotFinite : public std::runtime_error {
 public:
  NotFinite(std::string const& message, std::int64_t step, std::int32_t x, std::int32_t y)
      : std::runtime_error(message), step_(step), x_(x), y_(y) {}
  std::int64_t step() const { return step_; }
  std::int32_t x() const { return x_; }
  std::int32_t y() const { return y_; }

 private:
  std::int64_t step_;
  std::int32_t x_;
  std::int32_t y_;
};

}  // namespace wave2d

#endif
