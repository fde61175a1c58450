// Whether a scene's grid fits in memory, asked before allocating: a clear error
// instead of an allocation failure deep in a run, or the system's OOM killer.
#ifndef WAVE2D_CLI_MEMORY_HPP
#define WAVE2D_CLI_MEMORY_HPP

#include <cli/wave2d_Commands.hpp>
#include <scene/wave2d_Scene.hpp>

#include <Kokkos_Core.hpp>

#include <optional>
#include <string>
#include <type_traits>

namespace wave2d::cli {

// What a run may need at its peak, generously: the field pair, a backend's scratch
// fields, the cell codes, and host copies of the fields for output.
double estimated_bytes(Scene const& scene);

// MemAvailable of /proc/meminfo; empty where there is none.
std::optional<double> available_host_bytes();

#if defined(KOKKOS_ENABLE_CUDA)
// Free memory of the current device: the one Kokkos chose at its initialization.
std::optional<double> available_cuda_bytes();
#endif

// "1.5 GiB"
std::string human_bytes(double bytes);

// Throws InputError when the scene does not fit in the memory space of the execution
// space, as far as that can be known.
template <class ExecutionSpace>
void check_memory(ExecutionSpace const&, Scene const& scene) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  std::optional<double> available;
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<MemorySpace, Kokkos::CudaSpace>) available = available_cuda_bytes();
#endif
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    available = available_host_bytes();
  }
  double const needed = estimated_bytes(scene);
  if (available && needed > *available) {
    throw InputError("the " + std::to_string(scene.nx) + " x " + std::to_string(scene.ny) +
                     " grid needs about " + human_bytes(needed) + " of memory, more than the " +
                     human_bytes(*available) + " available to " + ExecutionSpace::name());
  }
}

}  // namespace wave2d::cli

#endif
