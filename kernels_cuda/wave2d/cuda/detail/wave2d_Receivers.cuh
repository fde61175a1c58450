// Recording receivers in the hand-written CUDA kernels: self-contained helpers that any
// kernel calls, whatever its tiling (params.receivers, core/wave2d_KernelParams.hpp).
#ifndef WAVE2D_CUDA_RECEIVERS_CUH
#define WAVE2D_CUDA_RECEIVERS_CUH

#include <wave2d/core/wave2d_KernelParams.hpp>

#include <cuda_runtime.h>

#include <cstdint>

namespace wave2d::cuda {

// For a fused kernel, once per sub-step, by every thread of the block, after the barrier
// that completes the sub-step: the receivers in the block's output tile (cells
// [tile_x0, tile_x0 + tile_nx) x [tile_y0, + tile_ny) of the local grid; halo copies are
// other blocks') <- read(x - tile_x0, y - tile_y0), u after `steps_done` steps, typically
// from shared memory. The block's threads share the loop over all receivers: a few
// compares each, nothing at all without receivers.
template <class Read>
__device__ __forceinline__ void record_tile_receivers(Receivers const& receivers, int tile_x0,
                                                      int tile_y0, int tile_nx, int tile_ny,
                                                      std::int64_t steps_done, Read const& read) {
  if (!receivers.active()) return;
  int const threads = int(blockDim.x * blockDim.y * blockDim.z);
  int const thread = int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  for (int r = thread; r < receivers.count; r += threads) {
    ReceiverCell const cell = receivers.cells[r];
    int const x = cell.x - tile_x0;
    int const y = cell.y - tile_y0;
    if (x >= 0 && x < tile_nx && y >= 0 && y < tile_ny) receivers.record(r, steps_done, read(x, y));
  }
}

// For a one-step kernel, by every thread of one block of the launch: the receivers <- u
// (global memory, the state after `steps_done` steps that the step reads and no thread
// writes). Records the step's input, so the launch sequence needs one more record of its
// last state (record_receivers).
__device__ __forceinline__ void record_receivers_from(Receivers const& receivers, float const* u,
                                                      std::int64_t pitch, std::int64_t steps_done) {
  int const threads = int(blockDim.x * blockDim.y * blockDim.z);
  int const thread = int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  for (int r = thread; r < receivers.count; r += threads) {
    ReceiverCell const cell = receivers.cells[r];
    receivers.record(r, steps_done, u[cell.y * pitch + cell.x]);
  }
}

// A launch of one block of record_receivers_from on `stream`, when there are receivers.
void record_receivers(Receivers const& receivers, float const* u, std::int64_t pitch,
                      std::int64_t steps_done, cudaStream_t stream);

}  // namespace wave2d::cuda

#endif
