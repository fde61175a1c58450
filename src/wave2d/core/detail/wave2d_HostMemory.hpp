// The host's available memory, and byte counts as people read them. Plain C++: no Kokkos.
#ifndef WAVE2D_HOST_MEMORY_HPP
#define WAVE2D_HOST_MEMORY_HPP

#include <filesystem>
#include <optional>
#include <string>
#include <utility>

namespace wave2d::detail {

// Where the host's memory figures are read: the system's by default, a copy of their
// layout elsewhere in tests.
struct HostMemorySources {
  std::filesystem::path proc = "/proc";  // meminfo, self/status, self/cgroup
  std::filesystem::path cgroup_root = "/sys/fs/cgroup";
  bool process_limits = true;  // RLIMIT_AS and RLIMIT_DATA of this process
};

// The bytes this process may still allocate: the least of MemAvailable, what RLIMIT_AS
// and RLIMIT_DATA leave above its address space and data (`ulimit -v`, `ulimit -d`), and
// what the memory limits of its cgroup and the cgroup's ancestors leave (v2 memory.max
// minus memory.current, v1 memory.limit_in_bytes minus memory.usage_in_bytes). Empty
// where none can be read.
std::optional<double> host_available_bytes(HostMemorySources const& sources = {});

// "1.5 GiB"
std::string human_bytes(double bytes, int decimals = 1);
// Both in human_bytes' form with the fewest decimals (one at least) that tell two different
// sizes apart: "2.41 GiB" and "2.40 GiB", not "2.4 GiB" twice.
std::pair<std::string, std::string> human_bytes_apart(double bytes, double other);

}  // namespace wave2d::detail

#endif
