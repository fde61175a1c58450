// How much memory an execution space may still allocate, asked before a large
// allocation: a clear error then, rather than a failure deep in a run or the OOM killer.
#ifndef WAVE2D_AVAILABLE_MEMORY_HPP
#define WAVE2D_AVAILABLE_MEMORY_HPP

#include <wave2d/core/detail/wave2d_HostMemory.hpp>
#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace wave2d {

// Bytes free in ExecutionSpace's memory space, as far as that can be known: for host
// spaces the least of what the system, the process's limits and its cgroup leave
// (detail::host_available_bytes), for CUDA the current device's free memory; empty
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

// Whether `bytes` can be allocated at all (a ptrdiff_t holds them) and fit in `available`.
inline bool fits_in_memory(std::optional<double> available, double bytes) {
  return bytes <= double(std::numeric_limits<std::ptrdiff_t>::max()) &&
         (!available || bytes <= *available);
}

// "<what> <needs> about 2.0 GiB of memory, more than the 1.0 GiB available to <where>" (or
// "than an allocation can hold"), for `bytes` that do not fit.
inline InsufficientMemory insufficient_memory(std::string const& what, char const* needs,
                                              double bytes, std::optional<double> available,
                                              std::string const& where) {
  auto const [needed, had] = detail::human_bytes_apart(bytes, available.value_or(0.0));
  std::string const limit = available && bytes > *available
                                ? "the " + had + " available to " + where
                                : std::string("an allocation can hold");
  return InsufficientMemory(what + " " + needs + " about " + needed + " of memory, more than " +
                            limit);
}

// Throws InsufficientMemory ("<what> needs about 2.0 GiB of memory, more than the 1.0 GiB
// available to OpenMP") when `bytes` do not fit in the space's memory.
template <class ExecutionSpace>
void require_memory(ExecutionSpace const& space, double bytes, std::string const& what) {
  std::optional<double> const available = available_bytes(space);
  if (fits_in_memory(available, bytes)) return;
  throw insufficient_memory(what, "needs", bytes, available, ExecutionSpace::name());
}

}  // namespace wave2d

#endif
