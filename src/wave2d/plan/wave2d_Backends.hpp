// The one place that maps a backend's name to its implementation. The CLI, the
// tests and the benches all choose backends here; the backends' folders
// (kernels_kokkos/, kernels_cuda/) are reached from src/ only through this file.
#ifndef WAVE2D_BACKENDS_HPP
#define WAVE2D_BACKENDS_HPP

#include <wave2d/detail/wave2d_Instantiation.hpp>
#include <wave2d/wave2d_Config.hpp>

#include <wave2d/backend/wave2d_DeviceCoefficients.hpp>
#include <wave2d/backend/wave2d_Stepper.hpp>
#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/kokkos/wave2d_MDRangeStepper.hpp>
#include <wave2d/kokkos/wave2d_StreamStepper.hpp>
#include <wave2d/kokkos/wave2d_TiledStepper.hpp>
#include <wave2d/reference/wave2d_ReferenceStepper.hpp>
#if defined(WAVE2D_HAVE_CUDA_BACKENDS)
#include <wave2d/cuda/wave2d_CudaSteppers.hpp>
#endif

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d {

template <class ExecutionSpace, class MemorySpace>
struct Backend {
  using Made = std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>>;
  std::string_view name;
  std::string_view summary;
  Made (*make)(ExecutionSpace const&, Scene const&, Coefficients<MemorySpace> const&);
  // The space's plain one-pass kernel, that reports compare the others with.
  bool baseline = false;
  // Steps per pass over the grid: a halo this deep lets it run a whole pass on a window.
  int fused_steps = 1;
  // Whether `auto` tries it: not the sequential reference, nor where a hand-written kernel
  // of its design outruns it.
  bool auto_candidate = true;
};

// The backends that run on ExecutionSpace with fields in MemorySpace.
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
std::vector<Backend<ExecutionSpace, MemorySpace>> backends() {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);
  using Made = typename Backend<ExecutionSpace, MemorySpace>::Made;
  using C = Coefficients<MemorySpace>;
#if defined(WAVE2D_HAVE_CUDA_BACKENDS)
  constexpr bool hand_written_cuda = std::is_same_v<ExecutionSpace, Kokkos::Cuda>;
#else
  constexpr bool hand_written_cuda = false;
#endif
  std::vector<Backend<ExecutionSpace, MemorySpace>> list;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    list.push_back(
        {"reference", "sequential reference (the oracle), evaluates the scene per cell",
         [](ExecutionSpace const&, Scene const& scene, C const& c) -> Made {
           return std::make_unique<reference::ReferenceStepper<ExecutionSpace, MemorySpace>>(
               scene, c.window());
         },
         false, 1, false});
  }
  list.push_back({"kokkos-mdrange", "portable Kokkos MDRangePolicy, one launch per step",
                  [](ExecutionSpace const&, Scene const&, C const& c) -> Made {
                    return std::make_unique<kokkos::MDRangeStepper<ExecutionSpace, MemorySpace>>(c);
                  },
                  !hand_written_cuda});
  list.push_back(
      {"kokkos-tiled", "portable Kokkos TeamPolicy, team-scratch windows fusing T steps per launch",
       [](ExecutionSpace const& space, Scene const&, C const& c) -> Made {
         return std::make_unique<kokkos::TiledStepper<ExecutionSpace, MemorySpace>>(space, c);
       },
       false, kokkos::tiled_fused_steps<ExecutionSpace>()});
  // On host spaces kokkos-tiled's wavefront outruns it; on a GPU with the hand-written
  // kernels cuda-stream does (1.5x), so there it is for comparison, not for auto.
  if constexpr (!wave2d::detail::runs_on_host<ExecutionSpace>) {
    list.push_back(
        {"kokkos-stream",
         "portable Kokkos TeamPolicy, warps walking down column strips, T steps in registers",
         [](ExecutionSpace const& space, Scene const&, C const& c) -> Made {
           return std::make_unique<kokkos::StreamStepper<ExecutionSpace, MemorySpace>>(space, c);
         },
         false, kokkos::StreamShape<ExecutionSpace>::steps, !hand_written_cuda});
  }
#if defined(WAVE2D_HAVE_CUDA_BACKENDS)
  if constexpr (hand_written_cuda) {
    list.push_back({"cuda-naive",
                    "hand-written CUDA, one thread per cell, one launch per step (the textbook's)",
                    [](ExecutionSpace const&, Scene const&, C const& c) -> Made {
                      return std::make_unique<cuda::StepPerLaunchStepper<MemorySpace>>(
                          c, "cuda-naive", cuda::advance_naive, cuda::naive_configuration());
                    }});
    list.push_back({"cuda-onepass",
                    "hand-written CUDA, one launch per step, 4 cells/thread in 16-byte accesses",
                    [](ExecutionSpace const&, Scene const&, C const& c) -> Made {
                      return std::make_unique<cuda::StepPerLaunchStepper<MemorySpace>>(
                          c, "cuda-onepass", cuda::advance_onepass, cuda::onepass_configuration());
                    },
                    true});
    list.push_back({"cuda-shmem",
                    "hand-written CUDA, shared-memory tiles fusing T steps, tile chosen per grid",
                    [](ExecutionSpace const& space, Scene const&, C const& c) -> Made {
                      return std::make_unique<cuda::ShmemStepper<MemorySpace>>(space, c,
                                                                               std::nullopt);
                    },
                    false, cuda::shmem_fused_steps});
    list.push_back({"cuda-stream",
                    "hand-written CUDA, warps walking down column strips, T steps in registers",
                    [](ExecutionSpace const& space, Scene const&, C const& c) -> Made {
                      return std::make_unique<cuda::StreamStepper<MemorySpace>>(space, c);
                    },
                    false, cuda::stream_fused_steps});
    list.push_back({"cuda-shmem-32x32",
                    "cuda-shmem in the textbook configuration: 32x32 tiles, 2x2 cells/thread",
                    [](ExecutionSpace const& space, Scene const&, C const& c) -> Made {
                      return std::make_unique<cuda::ShmemStepper<MemorySpace>>(
                          space, c, cuda::ShmemTile::tile_32x32);
                    },
                    false, cuda::shmem_fused_steps});
  }
#endif
  return list;
}

template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
bool has_backend(std::string_view name) {
  for (auto const& backend : backends<ExecutionSpace, MemorySpace>()) {
    if (backend.name == name) return true;
  }
  return false;
}

// Throws UnknownBackend, naming the backends there are, when `name` is not one.
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
Backend<ExecutionSpace, MemorySpace> find_backend(std::string_view name) {
  std::string known;
  for (auto const& backend : backends<ExecutionSpace, MemorySpace>()) {
    if (backend.name == name) return backend;
    known += (known.empty() ? "" : ", ") + std::string(backend.name);
  }
  throw UnknownBackend("unknown backend '" + std::string(name) + "' on " + ExecutionSpace::name() +
                       " (available: auto, " + known + ")");
}

template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> make_stepper(
    ExecutionSpace const& space, std::string_view name, Scene const& scene,
    Coefficients<MemorySpace> const& coefficients) {
  return find_backend<ExecutionSpace, MemorySpace>(name).make(space, scene, coefficients);
}

// The library's instantiations (detail/wave2d_Instantiation.hpp): every backend's stepper
// is compiled there, made by backends().
#define WAVE2D_BACKENDS_INSTANTIATIONS(PREFIX, SPACE)                                             \
  PREFIX std::vector<Backend<SPACE, SPACE::memory_space>> backends<SPACE, SPACE::memory_space>(); \
  PREFIX bool has_backend<SPACE, SPACE::memory_space>(std::string_view);                          \
  PREFIX Backend<SPACE, SPACE::memory_space> find_backend<SPACE, SPACE::memory_space>(            \
      std::string_view);                                                                          \
  PREFIX std::unique_ptr<Stepper<SPACE, SPACE::memory_space>>                                     \
  make_stepper<SPACE, SPACE::memory_space>(SPACE const&, std::string_view, Scene const&,          \
                                           Coefficients<SPACE::memory_space> const&);
WAVE2D_EXTERN_INSTANTIATIONS(WAVE2D_BACKENDS_INSTANTIATIONS)

}  // namespace wave2d

#endif
