// cuda-onepass: one launch per step, like cuda-naive, but each thread updates four cells
// with 16-byte loads and stores, so a warp moves whole 512-byte lines. The grid is taken
// as one flat array of rows `pitch` apart, cut into aligned chunks of four cells whatever
// the row width (a chunk may span two rows: the border rule makes the cells at a row's
// ends fixed, so nothing reads across). The rows above and below are then misaligned by
// pitch % 4 cells: two aligned loads and a shift fixed at compile time make them.
#include <wave2d/cuda/wave2d_CudaKernels.hpp>
#include <wave2d/cuda/detail/wave2d_Receivers.cuh>
#include <wave2d/cuda/detail/wave2d_Sources.cuh>
#include <wave2d/cuda/detail/wave2d_StepPerLaunch.cuh>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wave2d::cuda {

namespace {

constexpr int block_threads = 256;
constexpr int cells = 4;  // per thread

__device__ __forceinline__ float4 load4(float const* p) {
  return __ldg(reinterpret_cast<float4 const*>(p));
}

// The four cells from p on, p at `Shift` past a 16-byte boundary.
template <int Shift>
__device__ __forceinline__ float4 load4_shifted(float const* p) {
  if constexpr (Shift == 0) {
    return load4(p);
  } else {
    float4 const lo = load4(p - Shift);
    float4 const hi = load4(p - Shift + 4);
    float const e[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    return {e[Shift], e[Shift + 1], e[Shift + 2], e[Shift + 3]};
  }
}

// PitchShift = pitch % 4. Chunk c holds cells 4c .. 4c + 3 of the flat array; those near
// its ends (the first and last row, where a neighbour row's loads would leave the
// array) take the per-cell path.
template <bool UniformKappa, int PitchShift>
__global__ void __launch_bounds__(block_threads)
    onepass_step(KernelParams params, float t, std::int64_t steps_done, std::int64_t flat_cells,
                 float* __restrict__ u_prev, float const* __restrict__ u) {
  if (params.receivers.active() && blockIdx.x == 0) {
    record_receivers_from(params.receivers, u, params.pitch, steps_done);
  }
  std::int64_t const pitch = params.pitch;
  std::int64_t const i = cells * (std::int64_t(blockIdx.x) * block_threads + threadIdx.x);
  if (i >= flat_cells) return;

  if (i >= pitch + cells && i + pitch + 2 * cells <= flat_cells) {
    constexpr int up_shift = (cells - PitchShift) % cells;
    float4 const code = load4(params.code + i);
    float4 const kappa = UniformKappa ? make_float4(params.kappa_uniform, params.kappa_uniform,
                                                    params.kappa_uniform, params.kappa_uniform)
                                      : load4(params.kappa + i);
    float4 const prev = load4(u_prev + i);
    float4 const mid = load4(u + i);
    float4 const up = load4_shifted<up_shift>(u + i - pitch);
    float4 const down = load4_shifted<PitchShift>(u + i + pitch);
    float const left = __ldg(u + i - 1);
    float const right = __ldg(u + i + cells);
    // left + right + (y - 1) + (y + 1), in that order, as every backend adds them.
    float4 next;
    next.x = stencil(code.x, kappa.x, prev.x, mid.x, left + mid.y + up.x + down.x);
    next.y = stencil(code.y, kappa.y, prev.y, mid.y, mid.x + mid.z + up.y + down.y);
    next.z = stencil(code.z, kappa.z, prev.z, mid.z, mid.y + mid.w + up.z + down.z);
    next.w = stencil(code.w, kappa.w, prev.w, mid.w, mid.z + right + up.w + down.w);
    next = {updated_or_zero(code.x, next.x), updated_or_zero(code.y, next.y),
            updated_or_zero(code.z, next.z), updated_or_zero(code.w, next.w)};
    if (fminf(fminf(code.x, code.y), fminf(code.z, code.w)) < cell_code::fixed_zero) {
      if (code.x < cell_code::fixed_zero) next.x = source_value(params.sources, code.x, t);
      if (code.y < cell_code::fixed_zero) next.y = source_value(params.sources, code.y, t);
      if (code.z < cell_code::fixed_zero) next.z = source_value(params.sources, code.z, t);
      if (code.w < cell_code::fixed_zero) next.w = source_value(params.sources, code.w, t);
    }
    *reinterpret_cast<float4*>(u_prev + i) = next;
    return;
  }
  for (std::int64_t p = i; p < i + cells && p < flat_cells; ++p) {
    u_prev[p] = params.next_value<UniformKappa>(p, u_prev[p], u, t);
  }
}

template <bool UniformKappa>
auto onepass_kernel(std::int64_t pitch) {
  switch (pitch % cells) {
    case 0: return onepass_step<UniformKappa, 0>;
    case 1: return onepass_step<UniformKappa, 1>;
    case 2: return onepass_step<UniformKappa, 2>;
    default: return onepass_step<UniformKappa, 3>;
  }
}

}  // namespace

FieldPointers advance_onepass(KernelParams const& params, FieldPointers fields,
                              std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream) {
  for (void const* p :
       {static_cast<void const*>(fields.previous), static_cast<void const*>(fields.current),
        static_cast<void const*>(params.code), static_cast<void const*>(params.kappa)}) {
    if (reinterpret_cast<std::uintptr_t>(p) % (cells * sizeof(float)) != 0) {
      throw std::invalid_argument("cuda-onepass: fields and coefficients must be 16-byte aligned");
    }
  }
  // Rows `pitch` apart, the last one nx long: the cells the fields hold.
  std::int64_t const flat_cells = (std::int64_t(params.ny) - 1) * params.pitch + params.nx;
  std::int64_t const chunks = (flat_cells + cells - 1) / cells;
  auto const blocks = unsigned((chunks + block_threads - 1) / block_threads);
  auto const kernel = params.uniform_kappa() ? onepass_kernel<true>(params.pitch)
                                             : onepass_kernel<false>(params.pitch);
  return advance_step_per_launch(params, fields, first_step, n_steps, stream,
                                 [&](float t, std::int64_t steps_done, FieldPointers const& pair) {
                                   kernel<<<blocks, block_threads, 0, stream>>>(
                                       params, t, steps_done, flat_cells, pair.previous,
                                       pair.current);
                                 });
}

std::string onepass_configuration() {
  return "block " + std::to_string(block_threads) + ", " + std::to_string(cells) +
         " cells/thread in 16-byte accesses";
}

}  // namespace wave2d::cuda
