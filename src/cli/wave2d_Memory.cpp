#include <cli/wave2d_Memory.hpp>

namespace wave2d::cli {

namespace {

// The checkpoint of the last finite pair adds 2; a speed map its κ per cell on both
// sides, and the scene's own copy.
double floats_per_cell(bool speed_map) { return speed_map ? 13.0 : 10.0; }

}  // namespace

double estimated_bytes(Scene const& scene) {
  // The receivers' trace: a float per receiver and step (scene.steps: the run's).
  double const trace = double(scene.steps + 1) * double(scene.receivers.size());
  return (double(scene.cells()) * floats_per_cell(!scene.speed.empty()) + trace) * sizeof(float);
}

void check_host_memory(std::int32_t nx, std::int32_t ny) {
  using Memory = Kokkos::DefaultExecutionSpace::memory_space;
  // Off the host: the scene, its coefficients and the host copies for output.
  double const host_floats = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible
                                 ? floats_per_cell(true)
                                 : 6.0;
  double const needed = double(nx) * double(ny) * host_floats * sizeof(float);
  std::optional<double> const available = wave2d::detail::host_available_bytes();
  if (available && needed > *available) {
    throw InputError("the " + std::to_string(nx) + " x " + std::to_string(ny) +
                     " grid needs about " + wave2d::detail::human_bytes(needed) +
                     " of memory, more than the " + wave2d::detail::human_bytes(*available) +
                     " available to the host");
  }
}

}  // namespace wave2d::cli
