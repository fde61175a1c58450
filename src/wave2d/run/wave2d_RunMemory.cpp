#include <wave2d/run/wave2d_RunMemory.hpp>

#include <wave2d/io/wave2d_Picture.hpp>

namespace wave2d {

namespace {

// The checkpoint of the last finite pair adds 2; a speed map its κ per cell on both
// sides, and the scene's own copy.
double floats_per_cell(bool speed_map) { return speed_map ? 13.0 : 10.0; }

std::string grid_text(std::int64_t nx, std::int64_t ny, bool pictures = false) {
  return "the " + std::to_string(nx) + " x " + std::to_string(ny) + " grid" +
         (pictures ? " with its pictures" : "");
}

}  // namespace

MemoryEstimate estimated_bytes(Scene const& scene, bool pictures) {
  // In double: no step count (--steps takes any int64) can wrap it. The trace twice: its
  // host copy for the files is made while the run's own is held.
  return {double(scene.cells()) * floats_per_cell(!scene.speed.empty()) * sizeof(float) +
              (pictures ? picture_bytes(scene.nx, scene.ny) : 0.0),
          2.0 * (double(scene.steps) + 1.0) * double(scene.receivers.size()) * sizeof(float)};
}

std::optional<InsufficientMemory> memory_error(Scene const& scene, std::optional<double> available,
                                               std::string const& where, bool pictures) {
  MemoryEstimate const needed = estimated_bytes(scene, pictures);
  if (fits_in_memory(available, needed.grid + needed.trace)) return std::nullopt;
  std::string const grid = grid_text(scene.nx, scene.ny, pictures);
  if (!fits_in_memory(available, needed.grid)) {
    return insufficient_memory(grid, "needs", needed.grid, available, where);
  }
  std::size_t const receivers = scene.receivers.size();
  std::string const trace = "the receivers' trace (" + std::to_string(scene.steps) + " steps x " +
                            std::to_string(receivers) +
                            (receivers == 1 ? " receiver)" : " receivers)");
  if (!fits_in_memory(available, needed.trace)) {
    return insufficient_memory(trace, "needs", needed.trace, available, where);
  }
  return insufficient_memory(grid + " and " + trace, "need", needed.grid + needed.trace, available,
                             where);
}

void check_host_memory(std::int32_t nx, std::int32_t ny) {
  using Memory = Kokkos::DefaultExecutionSpace::memory_space;
  // Off the host: the scene, its coefficients and the host copies for output.
  double const host_floats = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible
                                 ? floats_per_cell(true)
                                 : 6.0;
  double const needed = double(nx) * double(ny) * host_floats * sizeof(float);
  std::optional<double> const available = detail::host_available_bytes();
  if (!fits_in_memory(available, needed)) {
    throw insufficient_memory(grid_text(nx, ny), "needs", needed, available, "the host");
  }
}

}  // namespace wave2d
