// The host's available memory, and byte counts as people read them. Plain C++: no Kokkos.
#ifndef WAVE2D_HOST_MEMORY_HPP
#define WAVE2D_HOST_MEMORY_HPP

#include <optional>
#include <string>

namespace wave2d::detail {

// MemAvailable of /proc/meminfo, in bytes; empty where it cannot be read.
std::optional<double> host_available_bytes();

// "1.5 GiB"
std::string human_bytes(double bytes);

}  // namespace wave2d::detail

#endif
