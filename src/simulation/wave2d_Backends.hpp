// The one place that maps a backend's name to its implementation. The CLI, the
// tests and the benches all choose backends here.
#ifndef WAVE2D_BACKENDS_HPP
#define WAVE2D_BACKENDS_HPP

#include <wave2d_Config.hpp>

#include <kernels_kokkos/wave2d_MDRangeStepper.hpp>
#include <simulation/detail/wave2d_ReferenceStepper.hpp>
#include <simulation/wave2d_DeviceCoefficients.hpp>
#include <simulation/wave2d_Stepper.hpp>
#if defined(WAVE2D_ENABLE_CUDA_BACKENDS)
#include <simulation/detail/wave2d_CudaSteppers.hpp>
#endif

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d {

class UnknownBackend : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

template <class ExecutionSpace, class MemorySpace>
struct Backend {
  std::string_view name;
  std::string_view summary;
  std::string configuration;  // tile shape, fused steps...: what a benchmark report shows
  std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> (*make)(Scene const&,
                                                                Coefficients<MemorySpace> const&);
};

// The backends that run on ExecutionSpace with fields in MemorySpace.
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
std::vector<Backend<ExecutionSpace, MemorySpace>> backends() {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);
  using Made = std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>>;
  using C = Coefficients<MemorySpace>;
  std::vector<Backend<ExecutionSpace, MemorySpace>> list;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    list.push_back({"reference", "sequential reference (the oracle), evaluates the scene per cell",
                    "sequential", [](Scene const& scene, C const&) -> Made {
                      return std::make_unique<Details::ReferenceStepper<ExecutionSpace, MemorySpace>>(scene);
                    }});
  }
  list.push_back({"kokkos-mdrange", "portable Kokkos MDRangePolicy, one launch per step",
                  kokkos::MDRangeTiling<ExecutionSpace>::describe(), [](Scene const&, C const& c) -> Made {
                    return std::make_unique<kokkos::MDRangeStepper<ExecutionSpace, MemorySpace>>(c);
                  }});
#if defined(WAVE2D_ENABLE_CUDA_BACKENDS)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    list.push_back({"cuda-naive", "hand-written CUDA, one thread per cell, one launch per step",
                    cuda::naive_configuration(), [](Scene const&, C const& c) -> Made {
                      return std::make_unique<Details::CudaNaiveStepper<MemorySpace>>(c);
                    }});
    list.push_back({"cuda-shmem", "hand-written CUDA, shared-memory tiles fusing T steps",
                    cuda::describe(cuda::shmem_shape(cuda::ShmemVariant::tuned)) +
                        "; grids of fewer tiles than SMs: the seed's shape",
                    [](Scene const&, C const& c) -> Made {
                      return std::make_unique<Details::CudaShmemStepper<MemorySpace>>(
                          c, cuda::ShmemVariant::tuned);
                    }});
    list.push_back({"cuda-shmem-seed", "cuda-shmem in the seed chapter's configuration",
                    cuda::describe(cuda::shmem_shape(cuda::ShmemVariant::seed)), [](Scene const&, C const& c) -> Made {
                      return std::make_unique<Details::CudaShmemStepper<MemorySpace>>(
                          c, cuda::ShmemVariant::seed);
                    }});
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
std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> make_stepper(
    std::string_view name, Scene const& scene, Coefficients<MemorySpace> const& coefficients) {
  std::string known;
  for (auto const& backend : backends<ExecutionSpace, MemorySpace>()) {
    if (backend.name == name) return backend.make(scene, coefficients);
    known += (known.empty() ? "" : ", ") + std::string(backend.name);
  }
  throw UnknownBackend("unknown backend '" + std::string(name) + "' on " +
                       ExecutionSpace::name() + " (available: " + known + ")");
}

}  // namespace wave2d

#endif
