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

// `next` where `keep`, +0 elsewhere: a branch-free select for loops over rows. A bit
// mask, not `?:`: GCC sinks the stencil's arithmetic into the branch of a `?:` and then,
// under the default -ftrapping-math, cannot if-convert it, so the loop does not
// vectorize; the mask keeps the bits of `next` as they are (no arithmetic on them).
WAVE2D_HOST_DEVICE inline float kept_or_zero(bool keep, float next) {
  std::uint32_t bits;
  std::memcpy(&bits, &next, sizeof bits);
  bits &= 0u - std::uint32_t(keep);
  float result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}

// `next` where the cell is updated (code >= 0), +0 where its code is negative.
WAVE2D_HOST_DEVICE inline float updated_or_zero(float code, float next) {
  return kept_or_zero(code >= 0.0f, next);
}

// The folded form of a cell's coefficients: stencil()'s two subexpressions, evaluated
// once instead of per step, so that u_next = cu·u − cp·u_prev + κ·sum. On a fixed cell
// cp is a quiet NaN, the mark of fixed cells (cp == cp is false only there), and cu
// holds its code.
WAVE2D_HOST_DEVICE inline float fixed_cell_mark() {
  std::uint32_t const bits = 0x7fc00000u;
  float mark;
  std::memcpy(&mark, &bits, sizeof mark);
  return mark;
}
// Selected by bit masks, as in kept_or_zero, so that the loading loop vectorizes.
WAVE2D_HOST_DEVICE inline float either(bool first, float a, float b) {
  std::uint32_t a_bits, b_bits;
  std::memcpy(&a_bits, &a, sizeof a_bits);
  std::memcpy(&b_bits, &b, sizeof b_bits);
  std::uint32_t const mask = 0u - std::uint32_t(first);
  std::uint32_t const bits = (a_bits & mask) | (b_bits & ~mask);
  float result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}
WAVE2D_HOST_DEVICE inline float folded_cu(float code, float kappa) {
  return either(code >= 0.0f, 2.0f - code - 4.0f * kappa, code);
}
WAVE2D_HOST_DEVICE inline float folded_cp(float code) {
  return either(code >= 0.0f, 1.0f - code, fixed_cell_mark());
}
// The code of a cell from its folded coefficients (only sources matter to callers).
WAVE2D_HOST_DEVICE inline float folded_code(float cu, float cp) { return cp == cp ? 0.0f : cu; }

// u_next of the cells begin, begin + stride, ... < end into `prev` (which holds u(t - dt)),
// given u(t) in `cur`, rows `pitch` apart; cells of negative code get +0 (the caller sets
// sources afterwards). next_value's expression, in its order, without a branch: over
// restrict pointers with stride 1 a compiler vectorizes it. `kappa` is read only when
// UniformKappa is false.
template <bool UniformKappa, class Index>
WAVE2D_HOST_DEVICE inline void update_cells(float* __restrict__ prev, float const* __restrict__ cur,
                                            float const* __restrict__ code,
                                            float const* __restrict__ kappa, float kappa_uniform,
                                            Index pitch, Index begin, Index end, Index stride) {
  for (Index p = begin; p < end; p += stride) {
    float const c = code[p];
    float const k = UniformKappa ? kappa_uniform : kappa[p];
    float const next =
        stencil(c, k, prev[p], cur[p], cur[p - 1] + cur[p + 1] + cur[p - pitch] + cur[p + pitch]);
    prev[p] = updated_or_zero(c, next);
  }
}

// update_cells on folded coefficients (cu, cp): the same value, bit for bit.
template <bool UniformKappa, class Index>
WAVE2D_HOST_DEVICE inline void update_cells_folded(
    float* __restrict__ prev, float const* __restrict__ cur, float const* __restrict__ cu,
    float const* __restrict__ cp, float const* __restrict__ kappa, float kappa_uniform, Index pitch,
    Index begin, Index end, Index stride) {
  for (Index p = begin; p < end; p += stride) {
    float const k = UniformKappa ? kappa_uniform : kappa[p];
    float const next = cu[p] * cur[p] - cp[p] * prev[p] +
                       k * (cur[p - 1] + cur[p + 1] + cur[p - pitch] + cur[p + pitch]);
    prev[p] = kept_or_zero(cp[p] == cp[p], next);
  }
}

// update_cells_folded for cells of code 0 and a uniform κ, whose folded coefficients are
// folded_cu(0, κ) and 1: no coefficient read, nothing masked, the same bits.
template <class Index>
WAVE2D_HOST_DEVICE inline void update_cells_plain(float* __restrict__ prev,
                                                  float const* __restrict__ cur, float kappa,
                                                  Index pitch, Index begin, Index end,
                                                  Index stride) {
  float const cu = folded_cu(0.0f, kappa);
  for (Index p = begin; p < end; p += stride) {
    prev[p] =
        cu * cur[p] - prev[p] + kappa * (cur[p - 1] + cur[p + 1] + cur[p - pitch] + cur[p + pitch]);
  }
}

// update_cells over n cells of a row whose neighbours are separate rows: `next` gets
// u_next from u(t - dt) in `prev` and u(t) in up, mid (the cell's row) and down, as the
// wavefront's rings hold them; one coefficient read a cell (the code; κ too when per
// cell), not the folded form's two. The same expression in the same order: the same bits.
template <bool UniformKappa>
WAVE2D_HOST_DEVICE inline void update_coded_row_of_rows(
    float* __restrict__ next, float const* __restrict__ prev, float const* __restrict__ up,
    float const* __restrict__ mid, float const* __restrict__ down, float const* __restrict__ code,
    float const* __restrict__ kappa, float kappa_uniform, int n) {
  for (int i = 0; i < n; ++i) {
    float const c = code[i];
    float const k = UniformKappa ? kappa_uniform : kappa[i];
    float const value = stencil(c, k, prev[i], mid[i], mid[i - 1] + mid[i + 1] + up[i] + down[i]);
    next[i] = updated_or_zero(c, value);
  }
}

// update_cells_plain in the same form.
WAVE2D_HOST_DEVICE inline void update_plain_row_of_rows(
    float* __restrict__ next, float const* __restrict__ prev, float const* __restrict__ up,
    float const* __restrict__ mid, float const* __restrict__ down, float kappa, int n) {
  float const cu = folded_cu(0.0f, kappa);
  for (int i = 0; i < n; ++i) {
    next[i] = cu * mid[i] - prev[i] + kappa * (mid[i - 1] + mid[i + 1] + up[i] + down[i]);
  }
}

// The folded coefficients (cu, cp) of the cells first, first + stride, ... < n from their
// code (and κ, read only when per cell).
template <bool UniformKappa>
WAVE2D_HOST_DEVICE inline void fold_cells(float* __restrict__ cu, float* __restrict__ cp,
                                          float const* __restrict__ code,
                                          float const* __restrict__ kappa, float kappa_uniform,
                                          int first, int n, int stride) {
  for (int i = first; i < n; i += stride) {
    cu[i] = folded_cu(code[i], UniformKappa ? kappa_uniform : kappa[i]);
    cp[i] = folded_cp(code[i]);
  }
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
