#include <cli/wave2d_Memory.hpp>

#include <cstdio>
#include <iterator>

namespace wave2d::cli {

double estimated_bytes(Scene const& scene) {
  // The checkpoint of the last finite pair adds 2; a speed map its κ per cell on both
  // sides, and the scene's own copy.
  int const floats_per_cell = scene.speed.empty() ? 10 : 13;
  return double(scene.cells()) * floats_per_cell * sizeof(float);
}

std::string human_bytes(double bytes) {
  char const* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit + 1 < int(std::size(units))) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", bytes, units[unit]);
  return text;
}

}  // namespace wave2d::cli
