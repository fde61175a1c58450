// The update rule of one cell, shared by every backend that reads precomputed
// coefficients (Kokkos and CUDA). Plain C++: no Kokkos here, so kernels_cuda can use it.
#ifndef WAVE2D_CELL_RULE_HPP
#define WAVE2D_CELL_RULE_HPP

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define WAVE2D_HOST_DEVICE __host__ __device__
#else
#define WAVE2D_HOST_DEVICE
#endif

namespace wave2d {

// A hard source's value as a function of time.
struct Waveform {
  enum class Shape : std::int32_t { sine, ricker };
  Shape shape = Shape::sine;
  float amplitude = 1.0f;
  float frequency = 1.0f;  // cycles per unit time (sine), peak frequency (ricker)
  float delay = 0.0f;      // ricker: time of the peak; sine: ignored

  WAVE2D_HOST_DEVICE float value(float t) const {
    // Same float expression as the reference scenes: amplitude * sin(2 * pi * f * t).
    constexpr float pi = 3.14159265359f;
    if (shape == Shape::sine) {
      return amplitude * sinf(2.0f * pi * frequency * t);
    }
    float const a = pi * frequency * (t - delay);
    float const a2 = a * a;
    return amplitude * (1.0f - 2.0f * a2) * expf(-a2);
  }
};

// Per-cell code that replaces the scene's geometry in the kernels: a non-negative
// code is the damping d of a cell the stencil updates; negative codes mark cells
// whose next value is fixed (border, wall) or prescribed (hard source number i).
//
// The border rule: every cell on the outer ring of a grid (the global grid, or a
// window's local grid) has the code fixed_zero, whatever the scene puts there. So
// only inner cells read neighbours, and x - 1, x + 1, y - 1, y + 1 are always inside
// the grid: kernels read them without bounds checks. Whoever makes codes
// (precompute_coefficients) enforces the rule; kernels rely on it.
namespace cell_code {
inline constexpr float fixed_zero = -1.0f;
WAVE2D_HOST_DEVICE constexpr float source(std::int32_t i) { return -2.0f - float(i); }
WAVE2D_HOST_DEVICE constexpr std::int32_t source_index(float code) {
  return std::int32_t(-code) - 2;
}
}  // namespace cell_code

// u_next for one cell. `sum` is left + right + (y - 1) + (y + 1), added in that
// order, as the reference does.
WAVE2D_HOST_DEVICE inline float stencil(float damping, float kappa, float u_prev, float u,
                                        float sum) {
  return (2.0f - damping - 4.0f * kappa) * u - (1.0f - damping) * u_prev + kappa * sum;
}

// `next` where the cell is updated (code >= 0), +0 where its code is negative: a
// branch-free select for loops over rows. A bit mask, not `?:`: GCC sinks the stencil's
// arithmetic into the branch of a `?:` and then, under the default -ftrapping-math,
// cannot if-convert it, so the loop does not vectorize; the mask keeps the bits of
// `next` as they are (no arithmetic on them).
WAVE2D_HOST_DEVICE inline float updated_or_zero(float code, float next) {
  std::uint32_t bits;
  std::memcpy(&bits, &next, sizeof bits);
  bits &= 0u - std::uint32_t(code >= 0.0f);
  float result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}

// u_next for a cell whose code is negative.
WAVE2D_HOST_DEVICE inline float fixed_value(float code, Waveform const* sources, float t) {
  return code == cell_code::fixed_zero ? 0.0f : sources[cell_code::source_index(code)].value(t);
}

// Time of global step s (from 0): t0 + s * dt, in float, as the reference computes it.
WAVE2D_HOST_DEVICE inline float time_of_step(float t0, float dt, std::int64_t step) {
  return t0 + float(step) * dt;
}

}  // namespace wave2d

#endif
