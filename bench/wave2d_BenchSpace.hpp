// The stencil suite's cases and families (wave2d_bench.cpp says what it measures), and
// register_space, which registers one execution space's benchmarks. Instantiated for each space
// in translation units of their own (wave2d_BenchSpace.cpp.in), a device's stream tuning groups
// apart: the spaces' kernels, and that family's many kokkos-stream shapes, compile side by side.
#ifndef WAVE2D_BENCH_SPACE_HPP
#define WAVE2D_BENCH_SPACE_HPP

#include "wave2d_Bench.hpp"
#include "wave2d_HostCeilings.hpp"
#include "wave2d_PlainLoop.hpp"

#include <wave2d/kokkos/wave2d_MDRangeStepper.hpp>
#include <wave2d/kokkos/wave2d_StreamStepper.hpp>
#include <wave2d/kokkos/wave2d_TiledStepper.hpp>
#include <wave2d/simulation/wave2d_AvailableMemory.hpp>
#include <wave2d/wave2d.hpp>

#include <benchmark/benchmark.h>
#include <Kokkos_Timer.hpp>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace wave2d::bench::suite {

using Counters = std::vector<std::pair<std::string, benchmark::Counter>>;

using wave2d::detail::runs_on_host;

constexpr std::int64_t mib = std::int64_t(1) << 20;
constexpr double gib = double(std::int64_t(1) << 30);

// The byte model: the least traffic of an algorithm that makes one pass over the grid
// per step. Per cell and step it reads u(t - dt), u(t) and the cell code and writes
// u(t + dt), 4 bytes each; a per-cell speed adds a read of κ. Neighbours come from
// cache. A kernel fusing several steps moves less, so its effective GB/s can exceed the
// copy bandwidth: that is what fusing is for.
inline std::int64_t bytes_per_cell_step(Scene const& scene) {
  return scene.speed.empty() ? 16 : 20;
}

// The flops of a cell update: three multiplications and five additions (the folded form,
// core/wave2d_CellRule.hpp), for fma_fraction.
constexpr double flops_per_cell_step = 8;

// The sequential reference takes seconds per step on large grids: only on small
// scenes, and not in the size sweep (whose runs all do the same large work).
constexpr std::int64_t reference_max_cells = 512 * 512;

// Memory a case takes in its space, per cell: two fields, the cell code, κ, and the
// two scratch fields a fused-step backend may add; host spaces also hold the host copy
// of the coefficients. An estimate on the safe side.
template <class ExecutionSpace>
constexpr std::int64_t case_bytes_per_cell = runs_on_host<ExecutionSpace> ? 32 : 24;

// ---------------------------------------------------------------------------------------
// What the machine has.

inline std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto const colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

inline std::string format_gib(double bytes) {
  std::ostringstream out;
  out.precision(3);
  out << bytes / gib << " GiB";
  return out.str();
}

template <class ExecutionSpace>
void require_memory(ExecutionSpace const& space, double bytes) {
  auto const available = available_bytes(space);
  if (available && bytes > 0.9 * *available) {
    throw std::runtime_error("skipped: needs about " + format_gib(bytes) + ", " +
                             format_gib(*available) + " available on " + ExecutionSpace::name());
  }
}

template <class ExecutionSpace>
SpaceInfo describe_space(ExecutionSpace const& space) {
  SpaceInfo info;
  info.name = ExecutionSpace::name();
  info.details.emplace_back("concurrency", std::to_string(space.concurrency()));
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, space.cuda_device()) == cudaSuccess) {
      info.device = properties.name;
      info.details.emplace_back("compute_capability", std::to_string(properties.major) + "." +
                                                          std::to_string(properties.minor));
      info.details.emplace_back("sms", std::to_string(properties.multiProcessorCount));
      info.details.emplace_back("l2_MiB", std::to_string(properties.l2CacheSize / mib));
      info.details.emplace_back("memory_GiB",
                                std::to_string(double(properties.totalGlobalMem) / gib));
    } else {
      info.device = "unknown CUDA device";
    }
    int version = 0;
    if (cudaRuntimeGetVersion(&version) == cudaSuccess) {
      info.details.emplace_back("cuda_runtime", std::to_string(version / 1000) + "." +
                                                    std::to_string(version % 1000 / 10));
    }
    if (cudaDriverGetVersion(&version) == cudaSuccess) {
      info.details.emplace_back("cuda_driver", std::to_string(version / 1000) + "." +
                                                   std::to_string(version % 1000 / 10));
    }
    return info;
  }
#endif
  info.device = cpu_model() + ", " + std::to_string(space.concurrency()) +
                (space.concurrency() == 1 ? " thread" : " threads");
  return info;
}

// ---------------------------------------------------------------------------------------
// Cases: what one benchmark times, built once and run many times.

struct CaseBase {
  virtual ~CaseBase() = default;
};

template <class ExecutionSpace>
struct Case : CaseBase {
  // Back to the initial state, on the instance.
  virtual void reset(ExecutionSpace const& space) = 0;
  // The timed work, on the instance.
  virtual void advance(ExecutionSpace const& space, std::int64_t n_steps) = 0;

  std::int64_t steps_per_run = 1;
  std::string label;
  Counters counters;
  // For the fractions of the space's ceilings: the bytes one run moves by the byte model,
  // its cell-steps, and the ceilings (those at 0 give no fraction).
  double bytes_per_run = 0;
  double cell_steps_per_run = 0;
  SpaceInfo ceilings;
};

template <class ExecutionSpace>
class SimulationCase final : public Case<ExecutionSpace> {
 public:
  SimulationCase(ExecutionSpace const& space, Scene scene, std::string const& backend)
      : simulation_(space, std::move(scene), backend) {}
  // The receivers' trace (if any) sized for a run outside the timed region.
  void reset(ExecutionSpace const& space) override {
    simulation_.reset(space);
    simulation_.reserve_receivers(space, this->steps_per_run);
  }
  void advance(ExecutionSpace const& space, std::int64_t n_steps) override {
    simulation_.advance(space, n_steps);
  }
  std::string configuration() const { return simulation_.configuration(); }

 private:
  Simulation<ExecutionSpace> simulation_;
};

// kokkos-mdrange with an order and tile of our choosing, over the same coefficients
// and fields as the Simulation's.
// A stepper of our choosing (kokkos-mdrange's order and tile, kokkos-tiled's shape) over
// its own coefficients and fields.
template <class ExecutionSpace, class Stepper>
class StepperCase final : public Case<ExecutionSpace> {
  using MemorySpace = typename ExecutionSpace::memory_space;

 public:
  // `make(space, coefficients)` builds the stepper.
  template <class Make>
  StepperCase(ExecutionSpace const& space, Scene const& scene, Make const& make)
      : coefficients_(make_coefficients<ExecutionSpace>(space, scene)),
        stepper_(make(space, coefficients_)) {
    auto const field = [&](std::string const& name) {
      return wave2d::detail::allocate<Field<MemorySpace>>(space, name, scene.ny, scene.nx);
    };
    fields_.previous = field("wave2d::bench::previous");
    fields_.current = field("wave2d::bench::current");
  }
  void reset(ExecutionSpace const& space) override {
    Kokkos::deep_copy(space, fields_.previous, 0.0f);
    Kokkos::deep_copy(space, fields_.current, 0.0f);
    fields_.step = 0;
  }
  void advance(ExecutionSpace const& space, std::int64_t n_steps) override {
    stepper_.advance(space, fields_, n_steps, Receivers{});
  }
  std::string configuration() const { return stepper_.configuration(); }

 private:
  Coefficients<MemorySpace> coefficients_;
  Stepper stepper_;
  FieldPair<MemorySpace> fields_;
};

#if defined(_OPENMP)
// The hand-written comparator on as many OpenMP threads as the host space has.
template <class ExecutionSpace>
class PlainLoopCase final : public Case<ExecutionSpace> {
 public:
  PlainLoopCase(ExecutionSpace const& space, Scene const& scene)
      : loop_(scene, space.concurrency()) {}
  void reset(ExecutionSpace const&) override { loop_.reset(); }
  void advance(ExecutionSpace const&, std::int64_t n_steps) override { loop_.advance(n_steps); }
  std::string configuration() const { return loop_.configuration(); }

 private:
  PlainLoop loop_;
};
#endif

// 16 bytes a thread: scalar loads, one per thread, leave too few bytes in flight to
// saturate HBM (on an H200 they reach about 40% of it).
struct alignas(16) FourFloats {
  float v[4];
};

template <class MemorySpace>
struct CopyKernel {
  Kokkos::View<FourFloats*, MemorySpace> to;
  Kokkos::View<FourFloats const*, MemorySpace> from;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { to(i) = from(i); }
};

// y[i] = x[i] over two arrays far larger than the last-level cache: the bandwidth a
// kernel that streams its data once can reach.
template <class ExecutionSpace>
class CopyCase final : public Case<ExecutionSpace> {
  using MemorySpace = typename ExecutionSpace::memory_space;

 public:
  CopyCase(ExecutionSpace const& space, std::int64_t bytes)
      : x_(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "wave2d::bench::copy_x"),
           bytes / std::int64_t(sizeof(FourFloats))),
        y_(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "wave2d::bench::copy_y"),
           bytes / std::int64_t(sizeof(FourFloats))) {
    // Written once by the space itself, so that host pages are placed by the threads
    // that copy them.
    Kokkos::deep_copy(space, x_, FourFloats{{1.0f, 1.0f, 1.0f, 1.0f}});
    Kokkos::deep_copy(space, y_, FourFloats{{2.0f, 2.0f, 2.0f, 2.0f}});
  }
  void reset(ExecutionSpace const&) override {}
  void advance(ExecutionSpace const& space, std::int64_t times) override {
    Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>> const policy(
        space, 0, std::int64_t(x_.size()));
    for (std::int64_t i = 0; i < times; ++i) {
      Kokkos::parallel_for("wave2d::bench::copy", policy, CopyKernel<MemorySpace>{y_, x_});
    }
  }
  std::int64_t bytes_moved() const { return 2 * std::int64_t(x_.size() * sizeof(FourFloats)); }

 private:
  Kokkos::View<FourFloats*, MemorySpace> x_;
  Kokkos::View<FourFloats*, MemorySpace> y_;
};

// Google Benchmark calls a benchmark's function several times (to size the iteration
// count, then once per repetition). The case built on the first call serves the next
// ones, and is dropped when another benchmark starts: one grid lives at a time.
struct CachedCase {
  std::string key;
  std::unique_ptr<CaseBase> value;
  std::string error;
};
inline CachedCase cached;

template <class ExecutionSpace>
using Builder = std::function<std::unique_ptr<Case<ExecutionSpace>>(ExecutionSpace const&)>;

// Builds (or finds) the case and warms it up with one untimed run; throws what the
// builder throws, also on the calls after the first.
template <class ExecutionSpace>
Case<ExecutionSpace>& prepared_case(ExecutionSpace const& space, std::string const& key,
                                    Builder<ExecutionSpace> const& build) {
  if (cached.key != key) {
    cached = {};  // frees the previous benchmark's grid before the next is allocated
    cached.key = key;
    try {
      auto built = build(space);
      built->reset(space);
      built->advance(space, built->steps_per_run);
      wave2d::fence(space, "wave2d::bench: warm-up");
      cached.value = std::move(built);
    } catch (std::exception const& e) {
      cached.error = e.what();
    }
  }
  if (!cached.error.empty()) throw std::runtime_error(cached.error);
  return static_cast<Case<ExecutionSpace>&>(*cached.value);
}

template <class ExecutionSpace>
void run_case(benchmark::State& state, std::string const& key,
              Builder<ExecutionSpace> const& build) {
  ExecutionSpace const space;
  Case<ExecutionSpace>* run = nullptr;
  try {
    run = &prepared_case(space, key, build);
  } catch (std::exception const& e) {
    state.SkipWithError(e.what());
    return;
  }
  double timed_seconds = 0;
  std::int64_t runs = 0;
  for (auto _ : state) {
    try {
      run->reset(space);
      wave2d::fence(space, "wave2d::bench: reset");
      Kokkos::Timer timer;
      run->advance(space, run->steps_per_run);
      wave2d::fence(space, "wave2d::bench: timed region");
      double const seconds = timer.seconds();
      state.SetIterationTime(seconds);
      timed_seconds += seconds;
      ++runs;
    } catch (std::exception const& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
  state.SetLabel(run->label.c_str());
  for (auto const& [name, counter] : run->counters) state.counters[name] = counter;
  // A ratio, not a rate: computed here from the same manual time that Google Benchmark
  // divides the rate counters by.
  if (timed_seconds > 0) {
    SpaceInfo const& space = run->ceilings;
    double const per_second = double(runs) / timed_seconds / 1e9;
    auto const fraction = [&](char const* name, double amount, double ceiling) {
      if (ceiling > 0 && amount > 0) {
        state.counters[name] = benchmark::Counter(amount * per_second / ceiling);
      }
    };
    fraction("copy_fraction", run->bytes_per_run, space.copy_bandwidth_gbps);
    fraction("fma_fraction", run->cell_steps_per_run * flops_per_cell_step, space.fma_peak_gflops);
    fraction("sweep_fraction", run->cell_steps_per_run, space.cached_sweep_gcells);
  }
}

// ---------------------------------------------------------------------------------------
// The families.

struct Workload {
  Scene scene;
  std::int64_t steps;
  std::string steps_note;  // how `steps` relates to the scene's own step count
};

inline Counters stencil_counters(Workload const& work) {
  double const cell_steps = double(work.scene.cells()) * double(work.steps);
  double const bytes_per = double(bytes_per_cell_step(work.scene));
  using benchmark::Counter;
  Counters counters = {
      {"GCells/s", Counter(cell_steps / 1e9, Counter::kIsIterationInvariantRate)},
      {"GB/s", Counter(cell_steps * bytes_per / 1e9, Counter::kIsIterationInvariantRate)},
      {"nx", Counter(work.scene.nx)},
      {"ny", Counter(work.scene.ny)},
      {"steps", Counter(double(work.steps))},
      {"scene_steps", Counter(double(work.scene.steps))},
      {"bytes_per_cell_step", Counter(bytes_per)},
  };
  return counters;
}

inline double bytes_per_run(Workload const& work) {
  return double(work.scene.cells()) * double(work.steps) * double(bytes_per_cell_step(work.scene));
}

inline std::string stencil_label(std::string_view backend, SpaceInfo const& space,
                                 std::string const& configuration, Workload const& work) {
  return "backend=" + std::string(backend) + "; space=" + space.name + "; device=" + space.device +
         "; config=" + configuration + "; scene=" + work.scene.name +
         "; grid=" + std::to_string(work.scene.nx) + "x" + std::to_string(work.scene.ny) +
         "; steps=" + std::to_string(work.steps) + " " + work.steps_note;
}

struct SpacePlan {
  SpaceInfo info;
  bool host = false;
  Options options;

  std::int32_t max_size() const {
    return options.max_size > 0 ? options.max_size : (host ? 4096 : 16384);
  }
  double sweep_cell_steps() const {
    return options.sweep_cell_steps > 0 ? options.sweep_cell_steps
                                        : std::ldexp(1.0, host ? 27 : 34);
  }
  std::int64_t copy_bytes() const {
    return (options.copy_mib > 0 ? options.copy_mib : (host ? 256 : 1024)) * mib;
  }
  // Scenes: all the steps on device spaces, a cap on host spaces; `cap` and
  // --wave2d_steps cap both.
  Workload scene_workload(Scene scene, std::int64_t cap = 0,
                          std::string const& cap_name = "") const {
    std::int64_t steps = scene.steps;
    std::string note = "(all the scene's steps)";
    auto const limit = [&](std::int64_t most, std::string const& why) {
      if (most > 0 && most < steps) {
        steps = most;
        note = "of " + std::to_string(scene.steps) + " (" + why + ")";
      }
    };
    if (host && options.host_cell_steps > 0) {
      // Whole passes of the deepest fusion a host backend makes (kokkos-tiled's large
      // tiles): a cap below it would time one partial pass, not the run's.
      constexpr std::int64_t pass = kokkos::tiled_host_pass_steps;
      auto const capped = std::int64_t(options.host_cell_steps / double(scene.cells()));
      limit(std::max(pass, capped / pass * pass), "host cap");
    }
    limit(cap, cap_name);
    limit(options.steps, "--wave2d_steps cap");
    return {std::move(scene), steps, note};
  }
  // A fixed amount of work per size, in a power of two of steps (a multiple of any
  // fused step count), so that small grids run long enough to time.
  Workload sweep_workload(std::int32_t n) const {
    Scene scene = point_source_scene(n);
    double const wanted = sweep_cell_steps() / (double(n) * double(n));
    std::int64_t const steps = std::max<std::int64_t>(
        8, std::int64_t(1) << std::max(0, int(std::floor(std::log2(wanted)))));
    return {std::move(scene), steps, "(size sweep)"};
  }
};

// Refuses a name given before. Names key the results (and the filters that pick them), and
// Google Benchmark accepts two cases of one name.
inline void claim_name(std::string const& name) {
  static std::set<std::string> names;  // of every family: one set, not one a caller
  if (!names.insert(name).second) {
    throw std::logic_error("two benchmarks are named '" + name + "'");
  }
}

// Registers a case timed by its own clock, under a name no other case has.
template <class Run>
void register_case(std::string const& name, Run&& run) {
  claim_name(name);
  benchmark::RegisterBenchmark(name.c_str(), std::forward<Run>(run))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

template <class ExecutionSpace>
void register_copy(SpacePlan const& plan) {
  std::string const name = "copy/" + plan.info.name;
  std::int64_t const bytes = plan.copy_bytes();
  SpaceInfo const info = plan.info;
  register_case(name, [name, bytes, info](benchmark::State& state) {
    run_case<ExecutionSpace>(state, name, [&](ExecutionSpace const& space) {
      require_memory(space, 2.0 * double(bytes));
      auto copy = std::make_unique<CopyCase<ExecutionSpace>>(space, bytes);
      using benchmark::Counter;
      copy->counters = {
          {"GB/s", Counter(double(copy->bytes_moved()) / 1e9, Counter::kIsIterationInvariantRate)},
          {"bytes", Counter(double(copy->bytes_moved()))},
      };
      copy->label = "backend=copy; space=" + info.name + "; device=" + info.device +
                    "; config=y[i] = x[i], 2 x " + std::to_string(bytes / mib) + " MiB";
      return copy;
    });
  });
}

// `entry` names the entry in place of the backend (the twin's).
template <class ExecutionSpace>
void register_stencil(SpacePlan const& plan, std::string const& family,
                      Backend<ExecutionSpace, typename ExecutionSpace::memory_space> const& backend,
                      std::string const& case_name,
                      std::function<Workload(SpacePlan const&)> make_workload,
                      std::string_view entry = {}) {
  std::string const name = family + "/" + plan.info.name + "/" +
                           std::string(entry.empty() ? backend.name : entry) + "/" + case_name;
  std::string const backend_name(backend.name);
  register_case(name, [=](benchmark::State& state) {
    run_case<ExecutionSpace>(state, name, [&](ExecutionSpace const& space) {
      Workload const work = make_workload(plan);
      require_memory(space, double(work.scene.cells() * case_bytes_per_cell<ExecutionSpace>));
      auto run = std::make_unique<SimulationCase<ExecutionSpace>>(space, work.scene, backend_name);
      run->steps_per_run = work.steps;
      // What ran for this grid, as the backend reports it.
      run->label = stencil_label(backend_name, plan.info, run->configuration(), work);
      run->counters = stencil_counters(work);
      run->bytes_per_run = bytes_per_run(work);
      run->cell_steps_per_run = double(work.scene.cells()) * double(work.steps);
      run->ceilings = plan.info;
      return run;
    });
  });
}

// `count` receivers on a square lattice over the grid (tile edges, walls and all).
inline Scene with_receivers(Scene scene, int count) {
  int const side = int(std::ceil(std::sqrt(double(count))));
  for (int i = 0; i < count; ++i) {
    scene.receivers.push_back({std::int32_t(std::int64_t(scene.nx) * (1 + i % side) / (side + 1)),
                               std::int32_t(std::int64_t(scene.ny) * (1 + i / side) / (side + 1)),
                               ""});
  }
  return scene;
}

// plain-openmp on a scene, named like a backend so that reports set it beside them.
template <class ExecutionSpace>
void register_plain_loop(SpacePlan const& plan, std::string const& scene_name) {
#if defined(_OPENMP)
  std::string const name = "scene/" + plan.info.name + "/plain-openmp/" + scene_name;
  register_case(name, [=](benchmark::State& state) {
    run_case<ExecutionSpace>(state, name, [&](ExecutionSpace const& space) {
      Workload const work = plan.scene_workload(builtin_scene(scene_name));
      // Two fields and three coefficients.
      require_memory(space, double(work.scene.cells()) * 20.0);
      auto run = std::make_unique<PlainLoopCase<ExecutionSpace>>(space, work.scene);
      run->steps_per_run = work.steps;
      run->label = stencil_label("plain-openmp", plan.info, run->configuration(), work);
      run->counters = stencil_counters(work);
      run->bytes_per_run = bytes_per_run(work);
      run->cell_steps_per_run = double(work.scene.cells()) * double(work.steps);
      run->ceilings = plan.info;
      return run;
    });
  });
#else
  (void)plan;
  (void)scene_name;
#endif
}

// A stepper that `make` builds, on the tuning scene (with its speed given per cell where
// asked: the same values, read from an array), labelled and counted.
template <class ExecutionSpace, class Stepper, class Make>
std::unique_ptr<StepperCase<ExecutionSpace, Stepper>> tuning_case(ExecutionSpace const& space,
                                                                  SpacePlan const& plan,
                                                                  std::string const& backend,
                                                                  bool is_default, Make const& make,
                                                                  bool per_cell_speed = false) {
  Scene scene = builtin_scene(plan.options.tuning_scene);
  if (per_cell_speed) scene.speed.assign(std::size_t(scene.cells()), scene.c);
  Workload const work =
      plan.scene_workload(std::move(scene), plan.options.tuning_steps, "tuning cap");
  validate(work.scene);
  require_memory(space, double(work.scene.cells() * case_bytes_per_cell<ExecutionSpace>));
  auto run = std::make_unique<StepperCase<ExecutionSpace, Stepper>>(space, work.scene, make);
  run->steps_per_run = work.steps;
  run->label = stencil_label(backend, plan.info,
                             run->configuration() + (is_default ? " (default)" : ""), work);
  run->counters = stencil_counters(work);
  run->bytes_per_run = bytes_per_run(work);
  run->cell_steps_per_run = double(work.scene.cells()) * double(work.steps);
  run->ceilings = plan.info;
  return run;
}

// Tiles are in the order's own dimension order: (x, y) for XY, (y, x) for YX.
template <class ExecutionSpace, class Order>
void register_tuning(SpacePlan const& plan, std::array<int, 2> tile) {
  using Tiling = kokkos::MDRangeTiling<ExecutionSpace>;
  constexpr bool xy = std::is_same_v<Order, kokkos::XY>;
  bool const is_default = std::is_same_v<Order, typename Tiling::order> && tile == Tiling::tile;
  std::string const tile_name = std::to_string(tile[0]) + "x" + std::to_string(tile[1]);
  std::string const name =
      "mdrange_tuning/" + plan.info.name + "/" + (xy ? "xy" : "yx") + "/" + tile_name;
  register_case(name, [=](benchmark::State& state) {
    run_case<ExecutionSpace>(state, name, [&](ExecutionSpace const& space) {
      using MDRange =
          kokkos::MDRangeStepper<ExecutionSpace, typename ExecutionSpace::memory_space, Order>;
      auto run = tuning_case<ExecutionSpace, MDRange>(
          space, plan, "kokkos-mdrange", is_default,
          [&](ExecutionSpace const&, auto const& c) { return MDRange(c, tile); });
      using benchmark::Counter;
      run->counters.emplace_back("tile_x", Counter(xy ? tile[0] : tile[1]));
      run->counters.emplace_back("tile_y", Counter(xy ? tile[1] : tile[0]));
      run->counters.emplace_back("order_xy", Counter(xy ? 1 : 0));
      run->counters.emplace_back("default_config", Counter(is_default ? 1 : 0));
      return run;
    });
  });
}

template <class ExecutionSpace>
void register_tuning_family(SpacePlan const& plan) {
  using kokkos::XY;
  using kokkos::YX;
  if constexpr (runs_on_host<ExecutionSpace>) {
    // Host spaces sweep a tile's rows, one loop per row: (y, x) is rows x cells. OpenMP
    // deals tiles out one at a time (schedule(static, 1)): tiles of whole rows keep a
    // thread's rows together. 4096 covers the scenes' rows.
    for (auto tile :
         {std::array{1, 1024}, std::array{4, 512}, std::array{8, 256}, std::array{16, 64},
          std::array{64, 64}, std::array{4, 4096}, std::array{16, 4096}, std::array{64, 4096}}) {
      register_tuning<ExecutionSpace, YX>(plan, tile);
    }
    for (auto tile : {std::array{512, 4}, std::array{64, 16}}) {
      register_tuning<ExecutionSpace, XY>(plan, tile);
    }
  } else {
    // Dimension 0 is threadIdx.x: with (x, y) a warp reads along a row, with (y, x)
    // down a column.
    for (auto tile : {std::array{32, 4}, std::array{32, 8}, std::array{32, 16}, std::array{64, 4},
                      std::array{128, 2}, std::array{256, 1}, std::array{16, 16}}) {
      register_tuning<ExecutionSpace, XY>(plan, tile);
    }
    for (auto tile :
         {std::array{8, 32}, std::array{4, 64}, std::array{1, 256}, std::array{32, 8}}) {
      register_tuning<ExecutionSpace, YX>(plan, tile);
    }
  }
}

// kokkos-tiled's shapes on the tuning scene: tiled_tuning/<space>/<tile_x>x<tile_y>/T<steps>,
// with /codes, /folded or /wavefront appended where the form is not the space's default,
// /team<N> where the team size is not, and /speed where the scene's speed is given per cell
// (the default shape is then κ-per-cell's).
struct TiledVariant {
  std::optional<bool> folded;
  std::optional<bool> wavefront;
  std::optional<int> team_size;
  bool per_cell_speed = false;
};

template <class ExecutionSpace>
void register_tiled_tuning(SpacePlan const& plan, std::array<int, 2> tuning_grid, int tile_x,
                           int tile_y, int steps, TiledVariant const& variant = {}) {
  kokkos::TiledShape const default_shape = kokkos::tiled_shape_for(
      ExecutionSpace(), variant.per_cell_speed, tuning_grid[0], tuning_grid[1]);
  kokkos::TiledShape shape = default_shape;
  shape.tile_x = tile_x;
  shape.tile_y = tile_y;
  shape.steps = steps;
  shape.folded = variant.folded.value_or(default_shape.folded);
  shape.wavefront = variant.wavefront.value_or(default_shape.wavefront);
  shape.team_size = variant.team_size.value_or(default_shape.team_size);
  auto const form = [](kokkos::TiledShape const& s) {
    return s.wavefront ? "/wavefront" : s.folded ? "/folded" : "/codes";
  };
  bool const default_form = std::string(form(shape)) == form(default_shape);
  bool const is_default = tile_x == default_shape.tile_x && tile_y == default_shape.tile_y &&
                          steps == default_shape.steps && default_form &&
                          shape.team_size == default_shape.team_size;
  std::string const name =
      "tiled_tuning/" + plan.info.name + "/" + std::to_string(tile_x) + "x" +
      std::to_string(tile_y) + "/T" + std::to_string(steps) + (default_form ? "" : form(shape)) +
      (shape.team_size == default_shape.team_size ? ""
                                                  : "/team" + std::to_string(shape.team_size)) +
      (variant.per_cell_speed ? "/speed" : "");
  register_case(name, [=](benchmark::State& state) {
    run_case<ExecutionSpace>(state, name, [&](ExecutionSpace const& space) {
      using Tiled = kokkos::TiledStepper<ExecutionSpace, typename ExecutionSpace::memory_space>;
      auto run = tuning_case<ExecutionSpace, Tiled>(
          space, plan, "kokkos-tiled", is_default,
          [&](ExecutionSpace const& s, auto const& c) { return Tiled(s, c, shape); },
          variant.per_cell_speed);
      using benchmark::Counter;
      run->counters.emplace_back("tile_x", Counter(tile_x));
      run->counters.emplace_back("tile_y", Counter(tile_y));
      run->counters.emplace_back("fused_steps", Counter(steps));
      // The wavefront reads codes, whatever `folded` says.
      run->counters.emplace_back("folded", Counter(shape.folded && !shape.wavefront ? 1 : 0));
      run->counters.emplace_back("wavefront", Counter(shape.wavefront ? 1 : 0));
      run->counters.emplace_back("default_config", Counter(is_default ? 1 : 0));
      return run;
    });
  });
}

template <class ExecutionSpace>
void register_tiled_tuning_family(SpacePlan const& plan) {
  // The default shapes depend on the grid: the tuning scene's, made once.
  Scene const tuning_scene = builtin_scene(plan.options.tuning_scene);
  std::array<int, 2> const grid{tuning_scene.nx, tuning_scene.ny};
  if constexpr (runs_on_host<ExecutionSpace>) {
    // Windows of four arrays (folded, uniform κ): 256x128 T=16 is 720 KiB, T=8 610 KiB,
    // 512x64 T=16 870 KiB, 128x128 T=16 400 KiB, 256x256 T=8 1.1 MiB; codes take three
    // arrays: 256x192 T=16 790 KiB.
    // Windows swept a step at a time.
    for (auto [tx, ty, t] :
         {std::array{256, 128, 16}, std::array{256, 128, 8}, std::array{128, 128, 16}}) {
      register_tiled_tuning<ExecutionSpace>(plan, grid, tx, ty, t, {.wavefront = false});
    }
    register_tiled_tuning<ExecutionSpace>(plan, grid, 256, 128, 16,
                                          {.folded = false, .wavefront = false});
    // The wavefront: rings of 3 (T - 1) rows of tile + 2T cells; the defaults 512x128/T16
    // and 1024x256/T32, rings that fit L1 (256x128/T8), narrow tall tiles, other depths.
    std::array<int, 3> const wavefronts[] = {
        std::array{512, 128, 16},  std::array{1024, 256, 32}, std::array{256, 128, 8},
        std::array{128, 512, 8},   std::array{64, 512, 8},    std::array{128, 4096, 8},
        std::array{1024, 128, 16}, std::array{1024, 128, 24}, std::array{1024, 256, 16},
        std::array{512, 256, 32},  std::array{768, 256, 32},  std::array{2048, 256, 32},
        std::array{1024, 128, 32}, std::array{1024, 512, 32}, std::array{1024, 256, 48},
        std::array{1024, 256, 64}};
    for (auto [tx, ty, t] : wavefronts) {
      register_tiled_tuning<ExecutionSpace>(plan, grid, tx, ty, t, {.wavefront = true});
    }
    for (auto [tx, ty, t] : {std::array{512, 128, 16}, std::array{1024, 256, 32}}) {
      register_tiled_tuning<ExecutionSpace>(plan, grid, tx, ty, t, {.per_cell_speed = true});
    }
    // The default, equal tiles of the grid (816x247 on 3201²), against which the report
    // sets every shape, unless listed above.
    kokkos::TiledShape const fitted =
        kokkos::tiled_shape_for(ExecutionSpace(), false, grid[0], grid[1]);
    std::array<int, 3> const fitted_shape{fitted.tile_x, fitted.tile_y, fitted.steps};
    if (std::ranges::find(wavefronts, fitted_shape) == std::end(wavefronts)) {
      register_tiled_tuning<ExecutionSpace>(plan, grid, fitted.tile_x, fitted.tile_y, fitted.steps);
    }
  } else {
    // Windows of (tile + 2T) cells a side, rows padded to 16 cells; codes and two fields
    // (uniform κ) take 12 bytes a cell, 16 with κ per cell: 64x40 30 KiB (40 KiB per cell),
    // 64x44 33 KiB (44 KiB), 64x56 42 KiB, 64x60 45 KiB, 96x40 45 KiB. Kokkos gives a team at most
    // the 48 KiB a block gets unasked (sharedMemPerBlock): kokkos-tiled refuses larger windows when
    // it is made.
    for (auto [tx, ty, t, team] :
         {std::array{52, 44, 6, 8}, std::array{52, 44, 6, 4}, std::array{52, 48, 6, 8},
          std::array{52, 40, 6, 8}, std::array{48, 44, 8, 8}, std::array{56, 48, 4, 8},
          std::array{52, 28, 6, 8}, std::array{52, 28, 6, 4}, std::array{48, 24, 8, 8},
          std::array{80, 28, 6, 8}, std::array{56, 24, 4, 8}}) {
      register_tiled_tuning<ExecutionSpace>(plan, grid, tx, ty, t, {.team_size = team});
    }
    register_tiled_tuning<ExecutionSpace>(plan, grid, 52, 28, 6, {.folded = true, .team_size = 8});
    for (auto [tx, ty, t, team] :
         {std::array{52, 32, 6, 8}, std::array{52, 32, 6, 4}, std::array{52, 28, 6, 8},
          std::array{48, 28, 8, 8}, std::array{56, 32, 4, 8}}) {
      register_tiled_tuning<ExecutionSpace>(plan, grid, tx, ty, t,
                                            {.team_size = team, .per_cell_speed = true});
    }
  }
}

// kokkos-stream, the portable streaming kernel, on the tuning scene:
// stream_tuning/<space>/<exchange>/segments<rows> (segments0: the default), where the exchange
// is the space's own (`shuffle` on CUDA, `scratch` elsewhere) or the portable default
// (`scratch`), /blocks<N> where the registers are capped for N teams an SM, and
// /T<steps>xC<columns> where the shape is not the space's (fewer steps or columns a lane: fewer
// registers). Not a backend: the middle rung of the study between kokkos-tiled and cuda-stream.
template <class ExecutionSpace, bool Specialized, class Shape = kokkos::StreamShape<ExecutionSpace>>
void register_stream_tuning(SpacePlan const& plan, int segment_rows) {
  using Stream = kokkos::StreamStepper<ExecutionSpace, typename ExecutionSpace::memory_space,
                                       Specialized, Shape>;
  using Default = kokkos::StreamShape<ExecutionSpace>;
  constexpr bool shuffles =
      Specialized &&
      !std::is_same_v<kokkos::LaneExchange<ExecutionSpace, 1>, kokkos::ScratchExchange<1>>;
  std::string const name =
      "stream_tuning/" + plan.info.name + "/" + (shuffles ? "shuffle" : "scratch") + "/segments" +
      std::to_string(segment_rows) +
      (Shape::min_blocks > 0 ? "/blocks" + std::to_string(Shape::min_blocks) : "") +
      (Shape::steps != Default::steps || Shape::columns != Default::columns
           ? "/T" + std::to_string(Shape::steps) + "xC" + std::to_string(Shape::columns)
           : "");
  register_case(name, [=](benchmark::State& state) {
    run_case<ExecutionSpace>(state, name, [&](ExecutionSpace const& space) {
      auto run = tuning_case<ExecutionSpace, Stream>(
          space, plan, "kokkos-stream", false,
          [&](ExecutionSpace const& s, auto const& c) { return Stream(s, c, segment_rows); });
      run->counters.emplace_back("segment_rows", benchmark::Counter(segment_rows));
      run->counters.emplace_back("shuffles", benchmark::Counter(shuffles ? 1 : 0));
      return run;
    });
  });
}

// The family in three groups of kokkos-stream's shapes, so that a device space's many kernels
// compile apart (wave2d_BenchSpace.cpp.in): the space's shape, with each exchange and with its
// registers capped; then other steps and columns a lane, in two groups.
template <class ExecutionSpace, int Group>
void register_stream_tuning_group(SpacePlan const& plan) {
  constexpr bool shuffles =
      !std::is_same_v<kokkos::LaneExchange<ExecutionSpace, 1>, kokkos::ScratchExchange<1>>;
  using Shape = kokkos::StreamShape<ExecutionSpace>;
  constexpr int lanes = Shape::lanes;
  if constexpr (Group == 0) {
    for (int rows : {0, 32, 48, 64, 96, 128, 256}) {
      register_stream_tuning<ExecutionSpace, true>(plan, rows);
    }
    if constexpr (shuffles) {
      for (int rows : {0, 64}) register_stream_tuning<ExecutionSpace, false>(plan, rows);
      // Registers capped: 20 teams (warps) an SM leave 96 a lane, 24 leave 80.
      using Capped20 = kokkos::StreamShapeOf<Shape::steps, Shape::columns, lanes, 20>;
      using Capped24 = kokkos::StreamShapeOf<Shape::steps, Shape::columns, lanes, 24>;
      for (int rows : {0, 64}) {
        register_stream_tuning<ExecutionSpace, true, Capped20>(plan, rows);
        register_stream_tuning<ExecutionSpace, true, Capped24>(plan, rows);
      }
    }
  } else if constexpr (shuffles && Group == 1) {
    // Other steps and columns a lane: registers against recomputed sides and passes.
    register_stream_tuning<ExecutionSpace, true, kokkos::StreamShapeOf<4, 3, lanes>>(plan, 0);
    register_stream_tuning<ExecutionSpace, true, kokkos::StreamShapeOf<5, 3, lanes>>(plan, 0);
    register_stream_tuning<ExecutionSpace, true, kokkos::StreamShapeOf<8, 3, lanes>>(plan, 0);
  } else if constexpr (shuffles && Group == 2) {
    register_stream_tuning<ExecutionSpace, true, kokkos::StreamShapeOf<8, 3, lanes, 16>>(plan, 0);
    register_stream_tuning<ExecutionSpace, true, kokkos::StreamShapeOf<6, 2, lanes>>(plan, 0);
    register_stream_tuning<ExecutionSpace, true, kokkos::StreamShapeOf<8, 2, lanes>>(plan, 0);
  }
}

template <class ExecutionSpace>
void register_stream_tuning_family(SpacePlan const& plan) {
  register_stream_tuning_group<ExecutionSpace, 0>(plan);
  register_stream_tuning_group<ExecutionSpace, 1>(plan);
  register_stream_tuning_group<ExecutionSpace, 2>(plan);
}

template <class ExecutionSpace>
double measure_copy_bandwidth(ExecutionSpace const& space, std::int64_t bytes) {
  require_memory(space, 2.0 * double(bytes));
  CopyCase<ExecutionSpace> copy(space, bytes);
  copy.advance(space, 1);
  wave2d::fence(space, "wave2d::bench: copy warm-up");
  std::vector<double> seconds;
  for (int i = 0; i < 11; ++i) {
    Kokkos::Timer timer;
    copy.advance(space, 1);
    wave2d::fence(space, "wave2d::bench: copy");
    seconds.push_back(timer.seconds());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return double(copy.bytes_moved()) / seconds[seconds.size() / 2] / 1e9;
}

// `work()` on each of the space's threads at once, the median of 5 timed rounds after one
// round of warm-up: the sum of what the threads did per second.
template <class ExecutionSpace, class Work>
double on_every_thread(ExecutionSpace const& space, Work const& work) {
  int const threads = space.concurrency();
  std::vector<double> done(std::size_t(threads), 0.0);
  auto const round = [&] {
    Kokkos::parallel_for(
        "wave2d::bench::ceiling",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Static>>(space, 0, threads)
            .set_chunk_size(1),
        [&](int thread) { done[std::size_t(thread)] = work(); });
    wave2d::fence(space, "wave2d::bench: ceiling");
  };
  round();
  std::vector<double> rates;
  for (int i = 0; i < 5; ++i) {
    Kokkos::Timer timer;
    round();
    double const seconds = timer.seconds();
    double total = 0;
    for (double d : done) total += d;
    rates.push_back(total / seconds);
  }
  std::nth_element(rates.begin(), rates.begin() + 2, rates.end());
  return rates[2];
}

// The host's ceilings (wave2d_HostCeilings.hpp), about 0.2 s each on a current core.
template <class ExecutionSpace>
void measure_host_ceilings(ExecutionSpace const& space, SpaceInfo& info) {
  info.fma_peak_gflops = on_every_thread(space, [] { return fma_flops(4'000'000); }) / 1e9;
  // Three fields and a code array of 160 x 160 cells: 400 KiB, in any current L2.
  info.cached_sweep_gcells =
      on_every_thread(space, [] { return cached_sweep_cell_steps(160, 1000); }) / 1e9;
  info.details.emplace_back("fma_peak_GFLOPs", std::to_string(info.fma_peak_gflops));
  info.details.emplace_back("fma_isa", fma_isa());
  info.details.emplace_back("cached_sweep_GCellps", std::to_string(info.cached_sweep_gcells));
  info.details.emplace_back("cached_sweep_rows", host_rows_isa());
}

template <class ExecutionSpace>
SpaceInfo register_space(Options const& options) {
  ExecutionSpace const space;
  SpacePlan plan;
  plan.options = options;
  plan.host = runs_on_host<ExecutionSpace>;
  plan.info = describe_space(space);
  plan.info.copy_bytes = plan.copy_bytes();
  try {
    plan.info.copy_bandwidth_gbps = measure_copy_bandwidth(space, plan.copy_bytes());
  } catch (std::exception const& e) {
    plan.info.details.emplace_back("copy_bandwidth_error", e.what());
  }
  if constexpr (runs_on_host<ExecutionSpace>) measure_host_ceilings(space, plan.info);

  register_copy<ExecutionSpace>(plan);
  auto all_backends = backends<ExecutionSpace>();
  // auto, as users get it: planned at the case's setup (from the plan cache when there is an
  // entry, else by a trial that is then kept), outside the timed runs.
  all_backends.push_back({auto_backend, "the fastest of the space's for the grid", nullptr});
  for (auto const& backend : all_backends) {
    if (backend.baseline) plan.info.details.emplace_back("baseline_backend", backend.name);
  }
  // Each backend's scene and sweep entries, and its twin's when it is the twin.
  std::string const twin = plan.options.twin + "-twin";
  auto const register_entries = [&](auto const& backend, std::string const& family,
                                    std::string const& case_name, auto make_workload) {
    register_stencil<ExecutionSpace>(plan, family, backend, case_name, make_workload);
    if (backend.name == plan.options.twin) {
      register_stencil<ExecutionSpace>(plan, family, backend, case_name, make_workload, twin);
    }
  };
  for (auto const& backend : all_backends) {
    if (backend.name == plan.options.twin) plan.info.details.emplace_back("twin", twin);
  }
  for (auto const& info : builtin_scenes()) {
    std::string const scene_name(info.name);
    std::int64_t const cells = builtin_scene(scene_name).cells();
    for (auto const& backend : all_backends) {
      if (backend.name == "reference" && cells > reference_max_cells) continue;
      register_entries(backend, "scene", scene_name, [scene_name](SpacePlan const& p) {
        return p.scene_workload(builtin_scene(scene_name));
      });
    }
    if constexpr (runs_on_host<ExecutionSpace>) {
      register_plain_loop<ExecutionSpace>(plan, scene_name);
    }
  }
  // The cost of recording: receivers/<space>/<backend>/<scene>/<count> receivers.
  for (std::string scene_name : {"double-slit-small", "double-slit"}) {
    for (auto const& backend : all_backends) {
      if (backend.name == "reference" || backend.name == auto_backend) continue;
      for (int count : {0, 16}) {
        register_stencil<ExecutionSpace>(
            plan, "receivers", backend, scene_name + "/" + std::to_string(count),
            [scene_name, count](SpacePlan const& p) {
              return p.scene_workload(with_receivers(builtin_scene(scene_name), count));
            });
      }
    }
  }
  register_tuning_family<ExecutionSpace>(plan);
  register_tiled_tuning_family<ExecutionSpace>(plan);
  register_stream_tuning_family<ExecutionSpace>(plan);
  for (std::int32_t n = 256; n <= plan.max_size(); n *= 2) {
    for (auto const& backend : all_backends) {
      if (backend.name == "reference") continue;
      register_entries(backend, "sweep", std::to_string(n),
                       [n](SpacePlan const& p) { return p.sweep_workload(n); });
    }
  }
  return plan.info;
}

}  // namespace wave2d::bench::suite

#endif
