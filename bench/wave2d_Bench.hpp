// The stencil benchmark suite: its options and what main() puts in the context.
#ifndef WAVE2D_BENCH_HPP
#define WAVE2D_BENCH_HPP

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wave2d::bench {

// Set by --wave2d_* flags or WAVE2D_BENCH_* environment variables (docs/benchmarks.md).
struct Options {
  // Largest grid side of the size sweep: 0 = 16384 on device spaces, 4096 on host spaces.
  std::int32_t max_size = 0;
  // Cap on the steps of scene and tuning runs on every space: 0 = none, so that
  // device spaces run each scene's full step count.
  std::int64_t steps = 0;
  // Host spaces cap the steps of scene and tuning runs at this many cells x steps, so
  // that the small scene runs to its end and the large ones for a few steps. 0 = no cap.
  double host_cell_steps = 268435456.0;  // 2^28
  // Cap on the steps of tuning runs (they compare configurations, not whole runs).
  std::int64_t tuning_steps = 1600;
  // Cells x steps of one size-sweep run: 0 = 2^34 on device spaces, 2^27 on host spaces.
  double sweep_cell_steps = 0;
  // Size of each of the two arrays of the copy-bandwidth measurement, in MiB:
  // 0 = 1024 on device spaces, 256 on host spaces.
  std::int64_t copy_mib = 0;
  // The scene of the tuning families.
  std::string tuning_scene = "double-slit";
  // A backend registered twice on the scenes and the size sweep, the second time as
  // BACKEND-twin: two entries of one kernel differ only by the machine's noise (an A/A
  // control). Empty: none.
  std::string twin;
};

// Reads the WAVE2D_BENCH_* variables, then removes the --wave2d_* flags from argv, which
// take precedence. Throws std::invalid_argument naming a bad flag or value.
Options parse_options(int& argc, char** argv);
std::string usage();

// What the suite learned about one execution space while registering its benchmarks.
struct SpaceInfo {
  std::string name;    // Kokkos' name of the space: Serial, OpenMP, Cuda
  std::string device;  // CPU model or GPU name
  std::vector<std::pair<std::string, std::string>> details;  // more context entries
  double copy_bandwidth_gbps = 0;                            // 0 when the measurement failed
  std::int64_t copy_bytes = 0;                               // of one of the two arrays
  // Host spaces: the threads' FMA peak and one-step sweep of a cached grid, summed (0: not
  // measured; wave2d_HostCeilings.hpp).
  double fma_peak_gflops = 0;
  double cached_sweep_gcells = 0;
};

// Measures each enabled space's copy bandwidth, then registers every benchmark family.
std::vector<SpaceInfo> register_benchmarks(Options const& options);

// Frees what the benchmarks keep between calls; before Kokkos is finalized.
void release_benchmark_state();

}  // namespace wave2d::bench

#endif
