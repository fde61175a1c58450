// Every CUDA API call and launch is checked: a failure throws with the call named.
#ifndef WAVE2D_CUDA_CHECK_CUH
#define WAVE2D_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace wave2d::cuda {

inline void check(cudaError_t status, char const* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("wave2d: CUDA error in ") + what + ": " +
                             cudaGetErrorString(status));
  }
}

}  // namespace wave2d::cuda

#define WAVE2D_CUDA_CHECK(call) ::wave2d::cuda::check((call), #call)

#endif
