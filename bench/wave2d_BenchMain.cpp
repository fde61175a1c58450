// main() of the stencil suite, after Kokkos' core/perf_test/BenchmarkMain.cpp: Kokkos is
// initialized here, and the benchmark context records the Kokkos configuration, the
// devices, the compiler and the wave2d version, so that a JSON file explains itself.
#include "wave2d_Bench.hpp"
#include "wave2d_GitDescribe.hpp"  // generated at build time

#include <wave2d/wave2d_Config.hpp>

#include <benchmark/benchmark.h>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#if !defined(WAVE2D_GIT_DESCRIBE)
#define WAVE2D_GIT_DESCRIBE "unknown"
#endif

namespace wave2d::bench {

namespace {

std::int64_t parse_integer(std::string const& flag, std::string const& value) {
  std::size_t used = 0;
  std::int64_t result = 0;
  try {
    result = std::stoll(value, &used);
  } catch (std::exception const&) {
    used = 0;
  }
  if (value.empty() || used != value.size() || result < 0) {
    throw std::invalid_argument(flag + ": expected a non-negative integer, got '" + value + "'");
  }
  return result;
}

// A whole number (1e9 allowed), or a power of two written 2^k, below 2^63.
double parse_amount(std::string const& flag, std::string const& value) {
  std::size_t used = 0;
  double result = -1;
  try {
    if (value.rfind("2^", 0) == 0) {
      std::string const k = value.substr(2);
      int const exponent = k.empty() || k.size() > 2 ? -1 : std::stoi(k, &used);
      if (exponent >= 0 && used == k.size()) result = std::ldexp(1.0, exponent);
      used = value.size();
    } else {
      result = std::stod(value, &used);
    }
  } catch (std::exception const&) {
    used = 0;
  }
  if (value.empty() || used != value.size() || !(result >= 0) || result != std::floor(result) ||
      result >= 0x1p63) {
    throw std::invalid_argument(flag + ": expected a whole number below 2^63, or 2^k, got '" +
                                value + "'");
  }
  return result;
}

struct OptionSpec {
  std::string_view name;  // flag --wave2d_<name>, variable WAVE2D_BENCH_<NAME>
  void (*set)(Options&, std::string const& flag, std::string const& value);
};

OptionSpec const option_specs[] = {
    {"max_size", [](Options& o, std::string const& f,
                    std::string const& v) { o.max_size = std::int32_t(parse_integer(f, v)); }},
    {"steps",
     [](Options& o, std::string const& f, std::string const& v) { o.steps = parse_integer(f, v); }},
    {"host_cell_steps", [](Options& o, std::string const& f,
                           std::string const& v) { o.host_cell_steps = parse_amount(f, v); }},
    {"tuning_steps", [](Options& o, std::string const& f,
                        std::string const& v) { o.tuning_steps = parse_integer(f, v); }},
    {"sweep_cell_steps", [](Options& o, std::string const& f,
                            std::string const& v) { o.sweep_cell_steps = parse_amount(f, v); }},
    {"copy_mib", [](Options& o, std::string const& f,
                    std::string const& v) { o.copy_mib = parse_integer(f, v); }},
    {"tuning_scene",
     [](Options& o, std::string const&, std::string const& v) { o.tuning_scene = v; }},
    {"twin", [](Options& o, std::string const&, std::string const& v) { o.twin = v; }},
};

std::string environment_name(std::string_view name) {
  std::string result = "WAVE2D_BENCH_";
  for (char c : name) result += char(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

std::string compiler() {
  std::string result;
#if defined(__clang__)
  result = "Clang " __clang_version__;
#elif defined(__GNUC__)
  result = "GCC " __VERSION__;
#else
  result = "unknown C++ compiler";
#endif
#if defined(__NVCC__)
  result +=
      ", nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__);
#endif
  return result;
}

// As KokkosBenchmark::add_kokkos_configuration: each "key: value" line of Kokkos'
// configuration becomes a context entry.
void add_kokkos_configuration() {
  std::ostringstream text;
  Kokkos::print_configuration(text, false);
  std::istringstream lines(text.str());
  auto const trim = [](std::string s) {
    auto const first = s.find_first_not_of(" :\t");
    auto const last = s.find_last_not_of(" :\t");
    return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
  };
  for (std::string line; std::getline(lines, line);) {
    auto const colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto const key = trim(line.substr(0, colon));
    auto const value = trim(line.substr(colon + 1));
    if (!key.empty() && !value.empty()) benchmark::AddCustomContext(key, value);
  }
}

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100);
}

std::string enabled_spaces() {
  std::string result;
  auto const add = [&](char const* name) {
    result += (result.empty() ? "" : ",") + std::string(name);
  };
#if defined(KOKKOS_ENABLE_CUDA)
  add("Cuda");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  add("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  add("Serial");
#endif
  return result;
}

}  // namespace

Options parse_options(int& argc, char** argv) {
  Options options;
  for (auto const& spec : option_specs) {
    auto const variable = environment_name(spec.name);
    if (char const* value = std::getenv(variable.c_str()); value && *value) {
      spec.set(options, variable, value);
    }
  }
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view const arg = argv[i];
    if (arg.rfind("--wave2d_", 0) != 0) {
      argv[kept++] = argv[i];
      continue;
    }
    auto const equals = arg.find('=');
    auto const name = arg.substr(9, equals == std::string_view::npos ? arg.npos : equals - 9);
    bool found = false;
    for (auto const& spec : option_specs) {
      if (spec.name != name) continue;
      if (equals == std::string_view::npos) {
        throw std::invalid_argument(std::string(arg) + ": expected --wave2d_" + std::string(name) +
                                    "=VALUE");
      }
      spec.set(options, "--wave2d_" + std::string(name), std::string(arg.substr(equals + 1)));
      found = true;
    }
    if (!found) throw std::invalid_argument("unknown flag " + std::string(arg));
  }
  argc = kept;
  argv[argc] = nullptr;
  return options;
}

std::string usage() {
  return R"(wave2d stencil benchmarks: Google Benchmark's flags (--benchmark_filter=REGEX,
--benchmark_repetitions=N (default 5 here), --benchmark_out=FILE.json, ...), Kokkos'
flags (--kokkos-num-threads=N, ...), and these, also set by WAVE2D_BENCH_<NAME>:
  --wave2d_max_size=N          largest side of the size sweep (default 16384 on devices,
                               4096 on host spaces; 0: the default)
  --wave2d_steps=N             cap on the steps of scene and tuning runs (default: none;
                               device spaces run every scene to its end)
  --wave2d_host_cell_steps=W   host spaces cap the steps of scene and tuning runs at W
                               cells x steps, a number or 2^k, in whole passes of 32 steps,
                               32 at least (default 2^28; 0 = no cap)
  --wave2d_tuning_steps=N      cap on the steps of the tuning runs (default 1600)
  --wave2d_sweep_cell_steps=W  cells x steps of a size-sweep run, a number or 2^k
                               (default 2^34 on devices, 2^27 on host spaces; 0: the default)
  --wave2d_copy_mib=N          size of each array of the copy-bandwidth measurement
                               (default 1024 on devices, 256 on host spaces; 0: the default)
  --wave2d_tuning_scene=NAME   scene of the tuning families (default double-slit)
  --wave2d_twin=BACKEND        BACKEND again on the scenes and the size sweep, named
                               BACKEND-twin: the machine's noise between two entries of
                               one kernel (default: none)
Names: copy/SPACE, scene/SPACE/BACKEND/SCENE, sweep/SPACE/BACKEND/N,
receivers/SPACE/BACKEND/SCENE/COUNT, mdrange_tuning/SPACE/ORDER/TILE,
tiled_tuning/SPACE/..., stream_tuning/SPACE/EXCHANGE/segmentsROWS/...;
docs/benchmarks.md has the details.
)";
}

}  // namespace wave2d::bench

int main(int argc, char* argv[]) {
  namespace bench = wave2d::bench;
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help") std::cout << bench::usage() << '\n';
  }

  Kokkos::ScopeGuard guard(argc, argv);
  int status = 0;
  try {
    auto const options = bench::parse_options(argc, argv);

    // Defaults that the command line overrides: Google Benchmark reads flags in order.
    std::string repetitions = "--benchmark_repetitions=5";
    std::string display = "--benchmark_display_aggregates_only=true";
    std::vector<char*> args = {argv[0], repetitions.data(), display.data()};
    args.insert(args.end(), argv + 1, argv + argc);
    int count = int(args.size());
    args.push_back(nullptr);
    benchmark::Initialize(&count, args.data());
    if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 2;

    bench::add_kokkos_configuration();
    benchmark::AddCustomContext("wave2d_version", WAVE2D_VERSION);
    benchmark::AddCustomContext("wave2d_git", WAVE2D_GIT_DESCRIBE);
    benchmark::AddCustomContext("wave2d_command_line", command_line);
    benchmark::AddCustomContext("wave2d_compiler", bench::compiler());
    benchmark::AddCustomContext("wave2d_kokkos_version", bench::kokkos_version());
    benchmark::AddCustomContext("wave2d_kokkos_spaces", bench::enabled_spaces());
    auto const spaces = bench::register_benchmarks(options);
    for (auto const& space : spaces) {
      auto const add = [&](std::string const& key, std::string const& value) {
        benchmark::AddCustomContext("wave2d_" + key + ":" + space.name, value);
      };
      add("device", space.device);
      add("copy_bandwidth_GBps", std::to_string(space.copy_bandwidth_gbps));
      add("copy_bytes", std::to_string(space.copy_bytes));
      for (auto const& [key, value] : space.details) add(key, value);
    }

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (std::exception const& e) {
    std::cerr << "wave2d_bench: " << e.what() << "\n\n" << bench::usage();
    status = 2;
  }
  bench::release_benchmark_state();
  return status;
}
