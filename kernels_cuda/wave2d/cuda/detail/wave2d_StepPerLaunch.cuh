// The launch loop of the one-step kernels (cuda-naive, cuda-onepass), and with it their
// part of the receivers' protocol: each launch records its input u(t) in its first block
// (record_receivers_from), and one small launch records the last state.
#ifndef WAVE2D_STEP_PER_LAUNCH_CUH
#define WAVE2D_STEP_PER_LAUNCH_CUH

#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>
#include <wave2d/cuda/wave2d_CudaKernels.hpp>
#include <wave2d/cuda/detail/wave2d_Receivers.cuh>

#include <cstdint>
#include <utility>

namespace wave2d::cuda {

// n_steps calls of launch(t, steps_done, fields), each launching the step from `fields`
// in place (u(t + dt) over u(t - dt)) on `stream`. Returns the pair after the steps.
template <class Launch>
FieldPointers advance_step_per_launch(KernelParams const& params, FieldPointers fields,
                                      std::int64_t first_step, std::int64_t n_steps,
                                      cudaStream_t stream, Launch const& launch) {
  for (std::int64_t s = first_step; s < first_step + n_steps; ++s) {
    launch(params.time(s), s, fields);
    WAVE2D_CUDA_CHECK(cudaGetLastError());
    std::swap(fields.previous, fields.current);
  }
  if (n_steps > 0) {
    record_receivers(params.receivers, fields.current, params.pitch, first_step + n_steps, stream);
  }
  return fields;
}

}  // namespace wave2d::cuda

#endif
