// cuda-naive: one thread per cell, a warp along a row (coalesced), one launch per step.
#include <wave2d/cuda/wave2d_CudaKernels.hpp>
#include <wave2d/cuda/detail/wave2d_Receivers.cuh>
#include <wave2d/cuda/detail/wave2d_StepPerLaunch.cuh>

#include <algorithm>
#include <string>

namespace wave2d::cuda {

namespace {

constexpr int block_x = 32;
constexpr int block_y = 8;

template <bool UniformKappa>
__global__ void __launch_bounds__(block_x* block_y)
    naive_step(KernelParams params, float t, std::int64_t steps_done, float* __restrict__ u_prev,
               float const* __restrict__ u) {
  // The receivers' u(t), in the first block: no launch of their own.
  if (params.receivers.active() && blockIdx.x == 0 && blockIdx.y == 0) {
    record_receivers_from(params.receivers, u, params.pitch, steps_done);
  }
  int const x = blockIdx.x * block_x + threadIdx.x;
  if (x >= params.nx) return;
  // Large grids have more rows than a launch may have blocks in y.
  for (int y = blockIdx.y * block_y + threadIdx.y; y < params.ny; y += gridDim.y * block_y) {
    std::int64_t const i = std::int64_t(y) * params.pitch + x;
    float const code = __ldg(params.code + i);
    float next;
    if (code >= 0.0f) {
      float const kappa = UniformKappa ? params.kappa_uniform : __ldg(params.kappa + i);
      next = stencil(code, kappa, u_prev[i], u[i],
                     u[i - 1] + u[i + 1] + u[i - params.pitch] + u[i + params.pitch]);
    } else {
      next = fixed_value(code, params.sources, t);
    }
    u_prev[i] = next;
  }
}

}  // namespace

FieldPointers advance_naive(KernelParams const& params, FieldPointers fields,
                            std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream) {
  dim3 const block(block_x, block_y);
  dim3 const blocks((params.nx + block_x - 1) / block_x,
                    std::min((params.ny + block_y - 1) / block_y, 65535));
  auto const kernel = params.uniform_kappa() ? naive_step<true> : naive_step<false>;
  return advance_step_per_launch(params, fields, first_step, n_steps, stream,
                                 [&](float t, std::int64_t steps_done, FieldPointers const& pair) {
                                   kernel<<<blocks, block, 0, stream>>>(
                                       params, t, steps_done, pair.previous, pair.current);
                                 });
}

std::string naive_configuration() {
  return "block " + std::to_string(block_x) + "x" + std::to_string(block_y) + ", 1 cell/thread";
}

}  // namespace wave2d::cuda
