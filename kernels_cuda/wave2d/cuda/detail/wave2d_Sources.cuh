// Hard sources in the hand-written CUDA kernels.
#ifndef WAVE2D_CUDA_SOURCES_CUH
#define WAVE2D_CUDA_SOURCES_CUH

#include <wave2d/core/wave2d_CellRule.hpp>

#include <cuda_runtime.h>

namespace wave2d::cuda {

// A hard source's value at time t: a handful of cells, and large inline (sinf, expf), so
// kept out of the kernels' unrolled code, which must fit the instruction cache.
__device__ __noinline__ inline float source_value(Waveform const* sources, float code, float t) {
  return sources[cell_code::source_index(code)].value(t);
}

}  // namespace wave2d::cuda

#endif
