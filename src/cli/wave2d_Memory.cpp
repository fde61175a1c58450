#include <cli/wave2d_Memory.hpp>

#include <cstdio>
#include <iterator>
#include <fstream>
#include <sstream>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace wave2d::cli {

double estimated_bytes(Scene const& scene) {
  // A speed map adds its κ per cell on both sides, and the scene's own copy.
  int const floats_per_cell = scene.speed.empty() ? 8 : 11;
  return double(scene.cells()) * floats_per_cell * sizeof(float);
}

std::optional<double> available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0.0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024.0;
  }
  return std::nullopt;
}

#if defined(KOKKOS_ENABLE_CUDA)
std::optional<double> available_cuda_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return std::nullopt;
  return double(free_bytes);
}
#endif

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
