// How much memory an execution space may still allocate, asked before a large
// allocation: a clear error then, rather than a failure deep in a run or the OOM killer.
#ifndef WAVE2D_AVAILABLE_MEMORY_HPP
#define WAVE2D_AVAILABLE_MEMORY_HPP

#include <wave2d/core/detail/wave2d_HostMemory.hpp>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

#include <optional>
#include <type_traits>

namespace wave2d {

// Bytes free in ExecutionSpace's memory space, as far as that can be known: MemAvailable
// of /proc/meminfo for host spaces, the current device's free memory for CUDA; empty
// where neither applies.
template <class ExecutionSpace>
std::optional<double> available_bytes(ExecutionSpace const&) {
  using MemorySpace = typename ExecutionSpace::memory_space;
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<MemorySpace, Kokkos::CudaSpace>) {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return std::nullopt;
    return double(free_bytes);
  }
#endif
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    return detail::host_available_bytes();
  }
  return std::nullopt;
}

}  // namespace wave2d

#endif
