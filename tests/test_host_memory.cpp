// The host's available memory: the least of what the system, the process's limits and
// its cgroups leave, read from a copy of /proc's and /sys/fs/cgroup's layout.
#include <wave2d/core/detail/wave2d_HostMemory.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;
using detail::host_available_bytes;
using detail::HostMemorySources;

class HostMemory : public testing::Test {
 protected:
  void SetUp() override {
    std::string name = (fs::temp_directory_path() / "wave2d-host-memory-XXXXXX").string();
    ASSERT_NE(::mkdtemp(name.data()), nullptr);
    root_ = name;
    sources_ = {root_ / "proc", root_ / "cgroup", false};
    write("proc/meminfo", "MemTotal:  4000000 kB\nMemAvailable:  1000000 kB\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(fs::path const& path, std::string const& text) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text;
  }

  fs::path root_;
  HostMemorySources sources_;
};

TEST_F(HostMemory, MemAvailableAloneWithoutCgroups) {
  EXPECT_EQ(host_available_bytes(sources_), 1000000.0 * 1024);
  fs::remove(root_ / "proc/meminfo");
  EXPECT_EQ(host_available_bytes(sources_), std::nullopt);
}

TEST_F(HostMemory, CgroupV2LimitsOfTheGroupAndItsAncestors) {
  write("proc/self/cgroup", "0::/a/b\n");
  write("cgroup/a/b/memory.max", "max\n");
  write("cgroup/a/b/memory.current", "100000000\n");
  write("cgroup/a/memory.max", "500000000\n");
  write("cgroup/a/memory.current", "200000000\n");
  EXPECT_EQ(host_available_bytes(sources_), 300000000.0);
  write("cgroup/a/b/memory.max", "250000000\n");
  EXPECT_EQ(host_available_bytes(sources_), 150000000.0);
  // Used beyond the limit: nothing left, not a negative figure.
  write("cgroup/a/b/memory.current", "300000000\n");
  EXPECT_EQ(host_available_bytes(sources_), 0.0);
}

TEST_F(HostMemory, CgroupV2InAHybridLayoutAndInANamespace) {
  write("proc/self/cgroup", "4:memory:/\n0::/elsewhere/unseen\n");
  write("cgroup/unified/memory.max", "400000000\n");
  write("cgroup/unified/memory.current", "100000000\n");
  EXPECT_EQ(host_available_bytes(sources_), 300000000.0);
}

TEST_F(HostMemory, CgroupV1MemoryController) {
  write("proc/self/cgroup", "5:cpu,cpuacct:/x\n4:memory:/x/y\n0::/\n");
  write("cgroup/memory/x/y/memory.limit_in_bytes", "9223372036854771712\n");
  write("cgroup/memory/x/y/memory.usage_in_bytes", "5000000\n");
  write("cgroup/memory/x/memory.limit_in_bytes", "300000000\n");
  write("cgroup/memory/x/memory.usage_in_bytes", "100000000\n");
  EXPECT_EQ(host_available_bytes(sources_), 200000000.0);
  // A path outside the namespace's view: the root's own limit.
  write("proc/self/cgroup", "4:memory:/../../other\n");
  write("cgroup/memory/memory.limit_in_bytes", "600000000\n");
  write("cgroup/memory/memory.usage_in_bytes", "500000000\n");
  EXPECT_EQ(host_available_bytes(sources_), 100000000.0);
}

TEST_F(HostMemory, MemAvailableWhenItIsTheLeast) {
  write("proc/self/cgroup", "0::/\n");
  write("cgroup/memory.max", "90000000000\n");
  write("cgroup/memory.current", "0\n");
  EXPECT_EQ(host_available_bytes(sources_), 1000000.0 * 1024);
}

TEST(HumanBytes, TwoDifferentSizesNeverReadTheSame) {
  EXPECT_EQ(detail::human_bytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
  double const gib = 1024.0 * 1024 * 1024;
  EXPECT_EQ(detail::human_bytes_apart(2.0 * gib, 1.0 * gib),
            (std::pair<std::string, std::string>("2.0 GiB", "1.0 GiB")));
  EXPECT_EQ(detail::human_bytes_apart(2.41 * gib, 2.404 * gib),
            (std::pair<std::string, std::string>("2.41 GiB", "2.40 GiB")));
  EXPECT_EQ(detail::human_bytes_apart(2.0 * gib + 1, 2.0 * gib),
            (std::pair<std::string, std::string>("2147483649 B", "2147483648 B")));
  EXPECT_EQ(detail::human_bytes_apart(1024.0, 1024.0),
            (std::pair<std::string, std::string>("1.0 KiB", "1.0 KiB")));
}

}  // namespace
}  // namespace wave2d::test
