// Whether a scene's grid fits in memory, asked before allocating: a clear error
// instead of an allocation failure deep in a run, or the system's OOM killer.
#ifndef WAVE2D_RUN_MEMORY_HPP
#define WAVE2D_RUN_MEMORY_HPP

#include <wave2d/core/detail/wave2d_HostMemory.hpp>
#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/simulation/wave2d_AvailableMemory.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <optional>
#include <string>

namespace wave2d {

// What a run may need at its peak, generously, in bytes: for the grid the field pair, a
// backend's scratch fields, the cell codes, host copies of the fields for output and, where
// it draws `pictures`, what drawing one holds (picture_bytes); for the receivers' trace a
// float per receiver and step, steps 0 .. scene.steps, and its copy for the files.
struct MemoryEstimate {
  double grid = 0.0;
  double trace = 0.0;
};
MemoryEstimate estimated_bytes(Scene const& scene, bool pictures = false);

// Throws InsufficientMemory when an nx x ny grid cannot fit in the host's available memory:
// asked as soon as a scene file gives its grid, before any per-cell buffer is made. It
// counts what the host holds at worst (a speed map; the fields too when the run is on
// the host).
void check_host_memory(std::int32_t nx, std::int32_t ny);

// The InsufficientMemory for a run that does not fit in `available` bytes (empty: unknown) of
// `where`'s memory, naming what is too large: the grid (with its pictures), the receivers'
// trace or both; none when it fits.
std::optional<InsufficientMemory> memory_error(Scene const& scene, std::optional<double> available,
                                               std::string const& where, bool pictures = false);

// Whether ExecutionSpace's memory is bounded by the host's limits, known before Kokkos
// starts; a device's free memory is known only once it has.
template <class ExecutionSpace>
inline constexpr bool uses_host_memory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                               typename ExecutionSpace::memory_space>::accessible;

// Throws InsufficientMemory when the scene (drawing `pictures` of it, on the host) does not
// fit in the memory space of the execution space, as far as that can be known.
template <class ExecutionSpace>
void check_memory(ExecutionSpace const& space, Scene const& scene, bool pictures = false) {
  if (auto error = memory_error(scene, available_bytes(space), ExecutionSpace::name(),
                                pictures && uses_host_memory<ExecutionSpace>)) {
    throw *error;
  }
}

// check_memory before Kokkos starts, for spaces that use host memory: a run refused there
// starts no backend (a GPU's runtime may not start at all under the address-space limit
// that refuses it). Nothing for other spaces.
template <class ExecutionSpace>
void check_memory_before_start(Scene const& scene, bool pictures = false) {
  if constexpr (uses_host_memory<ExecutionSpace>) {
    if (auto error =
            memory_error(scene, detail::host_available_bytes(), ExecutionSpace::name(), pictures)) {
      throw *error;
    }
  }
}

}  // namespace wave2d

#endif
