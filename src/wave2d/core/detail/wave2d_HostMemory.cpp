#include <wave2d/core/detail/wave2d_HostMemory.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

namespace wave2d::detail {

std::optional<double> host_available_bytes() {
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

}  // namespace wave2d::detail
