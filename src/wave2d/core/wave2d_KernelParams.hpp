// What every kernel reads besides the fields, in one trivially copyable value that
// host and device code take alike (Kokkos functors, CUDA kernels, tuning programs).
#ifndef WAVE2D_KERNEL_PARAMS_HPP
#define WAVE2D_KERNEL_PARAMS_HPP

#include <wave2d/core/wave2d_CellRule.hpp>

#include <cstdint>
#include <type_traits>

namespace wave2d {

// A receiver in a local grid: its cell and its column in the trace.
struct ReceiverCell {
  std::int32_t x = 0;
  std::int32_t y = 0;
  std::int32_t column = 0;
};

// Where a kernel records receivers: the `count` receivers of `cells` (those in the
// window's owned cells) into a row-major trace of `columns` floats per row, whose row 0
// holds u after `first_step` steps. Without a trace nothing is recorded.
struct Receivers {
  std::int32_t count = 0;
  ReceiverCell const* cells = nullptr;
  float* trace = nullptr;
  std::int32_t columns = 0;
  std::int64_t first_step = 0;

  WAVE2D_HOST_DEVICE bool active() const { return count > 0 && trace != nullptr; }

  // u of receiver r after `steps_done` steps.
  WAVE2D_HOST_DEVICE void record(std::int32_t r, std::int64_t steps_done, float value) const {
    trace[(steps_done - first_step) * columns + cells[r].column] = value;
  }
};

// A local grid (wave2d_Window.hpp) of nx x ny cells, cell (x, y) at y * pitch + x in the
// fields and in the per-cell arrays. Pointers are in the kernels' memory space.
struct KernelParams {
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  std::int64_t pitch = 0;
  float const* code = nullptr;   // cell codes (wave2d_CellRule.hpp)
  float const* kappa = nullptr;  // κ per cell; nullptr: kappa_uniform everywhere
  float kappa_uniform = 0.0f;
  Waveform const* sources = nullptr;  // indexed by the source codes
  float t0 = 0.0f;                    // time of global step 0
  float dt = 0.0f;
  Receivers receivers;  // no trace in the coefficients: a Simulation gives one

  WAVE2D_HOST_DEVICE float time(std::int64_t step) const { return time_of_step(t0, dt, step); }
  WAVE2D_HOST_DEVICE bool uniform_kappa() const { return kappa == nullptr; }

  // u(t + dt) of cell i = y * pitch + x, given its u(t - dt) and the field u(t).
  template <bool UniformKappa>
  WAVE2D_HOST_DEVICE float next_value(std::int64_t i, float u_prev, float const* u, float t) const {
    float const c = code[i];
    if (c < 0.0f) return fixed_value(c, sources, t);
    float const k = UniformKappa ? kappa_uniform : kappa[i];
    return stencil(c, k, u_prev, u[i], u[i - 1] + u[i + 1] + u[i - pitch] + u[i + pitch]);
  }
};

static_assert(std::is_trivially_copyable_v<KernelParams>);
static_assert(std::is_trivially_copyable_v<Receivers>);

}  // namespace wave2d

#endif
