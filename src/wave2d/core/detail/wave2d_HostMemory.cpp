#include <wave2d/core/detail/wave2d_HostMemory.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <vector>

#include <sys/resource.h>

namespace wave2d::detail {

namespace {

namespace fs = std::filesystem;

// The least of the figures given.
class Least {
 public:
  void add(std::optional<double> bytes) {
    if (bytes && (!least_ || *bytes < *least_)) least_ = std::max(*bytes, 0.0);
  }
  std::optional<double> get() const { return least_; }

 private:
  std::optional<double> least_;
};

// The number after "<key>" on a line of a /proc file ("MemAvailable:  123 kB"), in bytes.
std::optional<double> proc_field_bytes(fs::path const& file, std::string_view key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    double kib = 0.0;
    if (fields >> name >> kib && name == key) return kib * 1024.0;
  }
  return std::nullopt;
}

// A cgroup file's one number; empty for "max" (no limit) or a file that is not there.
std::optional<double> cgroup_number(fs::path const& file) {
  std::ifstream in(file);
  double value = 0.0;
  if (in >> value) return value;
  return std::nullopt;
}

// What a limit leaves: limit - used.
std::optional<double> headroom(std::optional<double> limit, std::optional<double> used) {
  if (!limit) return std::nullopt;
  return *limit - used.value_or(0.0);
}

// The process's cgroup paths: the v2 one ("0::/a/b") and the v1 memory controller's
// ("4:memory:/a/b"), relative to their hierarchy's root.
struct CgroupPaths {
  std::optional<fs::path> v2;
  std::optional<fs::path> v1_memory;
};

CgroupPaths cgroup_paths(fs::path const& proc_self_cgroup) {
  CgroupPaths paths;
  std::ifstream in(proc_self_cgroup);
  std::string line;
  while (std::getline(in, line)) {
    auto const first = line.find(':');
    auto const second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string const controllers = line.substr(first + 1, second - first - 1);
    // A path outside the namespace's root ("/../x") is the root as far as it can see.
    fs::path path = fs::path(line.substr(second + 1)).lexically_normal().relative_path();
    if (!path.empty() && *path.begin() == "..") path.clear();
    if (line.compare(0, first, "0") == 0 && controllers.empty()) paths.v2 = path;
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');) {
      if (name == "memory") paths.v1_memory = path;
    }
  }
  return paths;
}

// The limits of a cgroup and of its ancestors up to `root`, where their files are; a
// cgroup namespace shows the process's cgroup as the root itself, also handled so.
void add_cgroup_limits(Least& least, fs::path const& root, fs::path const& path,
                       char const* limit_file, char const* usage_file) {
  std::error_code error;
  fs::path directory = root / path;
  if (path.empty() || !fs::is_directory(directory, error)) directory = root;
  for (;;) {
    least.add(
        headroom(cgroup_number(directory / limit_file), cgroup_number(directory / usage_file)));
    if (directory == root || !directory.has_relative_path()) break;
    directory = directory.parent_path();
  }
}

std::optional<double> rlimit_headroom(int resource, fs::path const& status, std::string_view used) {
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return headroom(double(limit.rlim_cur), proc_field_bytes(status, used));
}

}  // namespace

std::optional<double> host_available_bytes(HostMemorySources const& sources) {
  Least least;
  least.add(proc_field_bytes(sources.proc / "meminfo", "MemAvailable:"));
  if (sources.process_limits) {
    fs::path const status = sources.proc / "self" / "status";
    least.add(rlimit_headroom(RLIMIT_AS, status, "VmSize:"));
    least.add(rlimit_headroom(RLIMIT_DATA, status, "VmData:"));
  }
  CgroupPaths const cgroups = cgroup_paths(sources.proc / "self" / "cgroup");
  if (cgroups.v2) {
    // Where v1 hierarchies are mounted too, v2's is at "unified".
    std::error_code error;
    fs::path const unified = sources.cgroup_root / "unified";
    fs::path const root = fs::is_directory(unified, error) ? unified : sources.cgroup_root;
    add_cgroup_limits(least, root, *cgroups.v2, "memory.max", "memory.current");
  }
  if (cgroups.v1_memory) {
    add_cgroup_limits(least, sources.cgroup_root / "memory", *cgroups.v1_memory,
                      "memory.limit_in_bytes", "memory.usage_in_bytes");
  }
  return least.get();
}

std::string human_bytes(double bytes, int decimals) {
  char const* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit + 1 < int(std::size(units))) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof(text), "%.*f %s", decimals, bytes, units[unit]);
  return text;
}

std::pair<std::string, std::string> human_bytes_apart(double bytes, double other) {
  for (int decimals = 1; decimals <= 6; ++decimals) {
    std::pair texts{human_bytes(bytes, decimals), human_bytes(other, decimals)};
    if (texts.first != texts.second || bytes == other) return texts;
  }
  char texts[2][48];
  std::snprintf(texts[0], sizeof(texts[0]), "%.0f B", bytes);
  std::snprintf(texts[1], sizeof(texts[1]), "%.0f B", other);
  return {texts[0], texts[1]};
}

}  // namespace wave2d::detail
