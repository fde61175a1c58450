// What every kernel reads besides the fields, in one trivially copyable value that
// host and device code take alike (Kokkos functors, CUDA kernels, tuning programs).
#ifndef WAVE2D_KERNEL_PARAMS_HPP
#define WAVE2D_KERNEL_PARAMS_HPP

#include <core/wave2d_CellRule.hpp>

#include <cstdint>
#include <type_traits>

namespace wave2d {

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

  WAVE2D_HOST_DEVICE float time(std::int64_t step) const { return time_of_step(t0, dt, step); }

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

}  // namespace wave2d

#endif
