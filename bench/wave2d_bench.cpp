// The stencil suite: every backend of the registry on every execution space enabled in
// Kokkos, on the built-in scenes and on a sweep of grid sizes, plus MDRange's iteration
// order and tile shapes, and the copy bandwidth every figure is compared with. Timed as
// Kokkos' own benchmarks are: the instance is fenced around the timed region.
// docs/benchmarks.md explains the byte model and how to read the results.
#include "wave2d_BenchSpace.hpp"

namespace wave2d::bench {

namespace suite {
// Each compiled in the source generated for its space (wave2d_BenchSpace.cpp.in).
#if defined(KOKKOS_ENABLE_CUDA)
extern template SpaceInfo register_space<Kokkos::Cuda>(Options const&);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
extern template SpaceInfo register_space<Kokkos::OpenMP>(Options const&);
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
extern template SpaceInfo register_space<Kokkos::Serial>(Options const&);
#endif
}  // namespace suite

std::vector<SpaceInfo> register_benchmarks(Options const& options) {
  bool known = false;
  for (auto const& info : builtin_scenes()) known = known || info.name == options.tuning_scene;
  if (!known) {
    throw std::invalid_argument("--wave2d_tuning_scene: no built-in scene '" +
                                options.tuning_scene + "'");
  }
  // The device first: its results are the headline.
  std::vector<SpaceInfo> spaces;
#if defined(KOKKOS_ENABLE_CUDA)
  spaces.push_back(suite::register_space<Kokkos::Cuda>(options));
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  spaces.push_back(suite::register_space<Kokkos::OpenMP>(options));
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  spaces.push_back(suite::register_space<Kokkos::Serial>(options));
#endif
  bool const twinned = std::ranges::any_of(spaces, [](SpaceInfo const& space) {
    return std::ranges::any_of(space.details, [](auto const& d) { return d.first == "twin"; });
  });
  if (!options.twin.empty() && !twinned) {
    throw std::invalid_argument("--wave2d_twin: no space has a backend '" + options.twin + "'");
  }
  return spaces;
}

void release_benchmark_state() { suite::cached = {}; }

}  // namespace wave2d::bench
