// The backend "auto": whatever it chooses, the results are those of every fixed backend of
// the space, bit for bit; and the plan cache, with its bad entries and folders.
#include <wave2d_TestHelpers.hpp>

#include <wave2d/plan/wave2d_PlanCache.hpp>
#include <wave2d/plan/wave2d_Planner.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;

// A fresh, empty folder for one test's plan cache.
fs::path fresh_folder(std::string const& name) {
  fs::path const folder =
      fs::temp_directory_path() / ("wave2d-plan-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

class AutoTest : public testing::TestWithParam<std::string> {};

// Runs `backend` with `plan` from random fields, on the whole grid or a window.
template <class ExecutionSpace>
HostPair run_planned(std::string const& backend, Scene const& scene,
                     std::optional<Window> const& window, HostPair const& initial,
                     std::int64_t first_step, std::int64_t n_steps, PlanOptions const& plan,
                     std::string* chosen = nullptr) {
  ExecutionSpace space;
  Window const whole = window ? *window : Window::whole(scene.nx, scene.ny);
  Simulation<ExecutionSpace> simulation(space, scene, whole, backend, {}, plan);
  if (chosen != nullptr) *chosen = simulation.backend();
  return run_from(space, simulation, local_cells(scene, whole, initial), first_step, n_steps);
}

// A plan cache entry for the scene's whole grid that rates kokkos-mdrange 1000 GCells/s and
// kokkos-tiled 900, more than a host reaches: the run's check finds its choice clearly
// slower than the runner-up's rate and tries the runner-up.
template <class ExecutionSpace>
bool write_overrated_plan(ExecutionSpace const& space, fs::path const& cache, Scene const& scene) {
  std::vector<std::string> notes;
  CachedPlan const overrated{"kokkos-mdrange",
                             {{"kokkos-mdrange", 1000.0}, {"kokkos-tiled", 900.0}}};
  return write_cached_plan(cache, plan_key(space, Window::whole(scene.nx, scene.ny)), overrated,
                           notes);
}

// `initial` set at step 5, then `chunk` steps a call until the run's check of auto's choice
// has ended (the plan's rates measured, below write_overrated_plan's) or 200000 steps have
// passed: the steps advanced.
template <class ExecutionSpace>
std::int64_t advance_until_checked(ExecutionSpace const& space,
                                   Simulation<ExecutionSpace>& simulation, HostPair const& initial,
                                   std::int64_t chunk) {
  run_from(space, simulation, initial, 5, chunk);
  std::int64_t steps = chunk;
  Plan const& plan = *simulation.plan();
  while (plan.ranking.front().gcells_per_second >= 100.0 && steps < 200000) {
    simulation.advance(space, chunk);
    steps += chunk;
  }
  space.fence();
  return steps;
}

void expect_bitwise(HostPair const& expected, HostPair const& got, std::string const& what) {
  ASSERT_EQ(expected.previous.size(), got.previous.size()) << what;
  for (std::size_t i = 0; i < expected.current.size(); ++i) {
    ASSERT_EQ(expected.previous[i], got.previous[i]) << what << ": previous, cell " << i;
    ASSERT_EQ(expected.current[i], got.current[i]) << what << ": current, cell " << i;
  }
}

// Whatever auto chooses (measured, cached or estimated), on the whole grid and on a
// window, on odd grids and step counts that are not a multiple of any fused depth: the
// bits of every fixed backend of the space.
TEST_P(AutoTest, EqualsEveryFixedBackendBitwise) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    fs::path const cache = fresh_folder("equal-" + GetParam());
    for (auto const& [nx, ny, seed] : std::vector<std::array<int, 3>>{{67, 45, 1}, {130, 97, 2}}) {
      Scene const scene = busy_scene(nx, ny, std::uint32_t(seed));
      HostPair const initial = random_pair(scene, std::uint32_t(seed) + 10);
      std::int64_t const first = 3;
      std::int64_t const steps = 37;
      Window const window{scene.nx, scene.ny, 11, 7, nx / 2, ny / 2, 8};
      for (std::optional<Window> const& where : {std::optional<Window>(), std::optional(window)}) {
        std::string const grid =
            std::to_string(nx) + "x" + std::to_string(ny) + (where ? " (window)" : "");
        for (PlanMode const mode : {PlanMode::measure, PlanMode::cached, PlanMode::estimate}) {
          std::string chosen;
          HostPair const planned =
              run_planned<ExecutionSpace>("auto", scene, where, initial, first, steps,
                                          {.mode = mode, .cache_directory = cache}, &chosen);
          EXPECT_NE(chosen, "auto");
          EXPECT_TRUE(has_backend<ExecutionSpace>(chosen)) << chosen;
          for (auto const& backend : backends<ExecutionSpace>()) {
            HostPair const fixed = run_planned<ExecutionSpace>(std::string(backend.name), scene,
                                                               where, initial, first, steps, {});
            expect_bitwise(fixed, planned,
                           "auto (" + std::string(plan_mode_name(mode)) + ", chose " + chosen +
                               ") vs " + std::string(backend.name) + " on " + grid);
          }
        }
      }
    }
  });
}

TEST_P(AutoTest, TheSecondPlanComesFromTheCache) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    fs::path const cache = fresh_folder("second-" + GetParam());
    Scene const scene = busy_scene(80, 50, 3);
    Window const whole = Window::whole(scene.nx, scene.ny);
    Plan const first = plan_backend(space, scene, whole, {.cache_directory = cache});
    EXPECT_FALSE(first.from_cache);
    EXPECT_GT(first.trial_seconds, 0.0);
    auto const all = backends<ExecutionSpace>();
    EXPECT_EQ(first.ranking.size(), std::size_t(std::ranges::count_if(all, [](auto const& backend) {
                return backend.name != "reference" && backend.auto_candidate;
              })));
    EXPECT_TRUE(first.notes.empty()) << first.notes.front();
    Plan const second = plan_backend(space, scene, whole, {.cache_directory = cache});
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.backend, first.backend);
    EXPECT_EQ(second.trial_seconds, 0.0);
    ASSERT_EQ(second.ranking.size(), first.ranking.size());
    EXPECT_NE(second.summary().find("from the plan cache"), std::string::npos);
    // Another grid is another key: measured again.
    Plan const other = plan_backend(space, scene, Window{scene.nx, scene.ny, 0, 0, 40, 50, 4},
                                    {.cache_directory = cache});
    EXPECT_FALSE(other.from_cache);
    // measure measures even with an entry; estimate neither reads nor writes.
    EXPECT_FALSE(plan_backend(space, scene, whole, {PlanMode::measure, cache}).from_cache);
    Plan const estimated = plan_backend(space, scene, whole, {PlanMode::estimate, cache});
    EXPECT_FALSE(estimated.from_cache);
    EXPECT_TRUE(estimated.ranking.empty());
    EXPECT_EQ(estimated.backend, estimate_backend(space, whole));
  });
}

TEST_P(AutoTest, ConfigurationSaysWhatAutoChoseAndHow) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Scene const scene = plain_scene(50, 40);
    Simulation<ExecutionSpace> simulation(space, scene, "auto", {},
                                          {.cache_directory = fresh_folder("config")});
    ASSERT_NE(simulation.plan(), nullptr);
    EXPECT_EQ(simulation.backend(), simulation.plan()->backend);
    EXPECT_NE(simulation.configuration().find("auto chose " + simulation.backend() + ": measured"),
              std::string::npos)
        << simulation.configuration();
    Simulation<ExecutionSpace> named(space, scene, simulation.backend());
    EXPECT_EQ(named.plan(), nullptr);
    EXPECT_EQ(named.configuration(), simulation.stepper_configuration());
  });
}

// A plan cache entry whose rates no host reaches (mdrange first, tiled a close second), as
// a trial on another machine's load might leave: the run's first samples of mdrange fall
// short of what the entry gives tiled, so tiled runs as many; the run takes it if it is
// clearly faster (on host grids this size it usually is), saying so, and the entry keeps
// the rates measured in the run either way. The fields are the bits of either backend
// run alone. A run from the corrected entry starts with what the first one ended with.
TEST_P(AutoTest, TheRunChecksItsChoiceAndSwitchesWhenClearlySlower) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    if constexpr (!wave2d::detail::runs_on_host<ExecutionSpace>) {
      GTEST_SKIP() << GetParam() << ": a device's backends differ in their last bits, so a run "
                   << "there keeps the backend it starts with";
    } else {
      ExecutionSpace space;
      fs::path const cache = fresh_folder("switch-" + GetParam());
      Scene const scene = busy_scene(700, 500, 4);
      HostPair const initial = random_pair(scene, 14);
      Window const whole = Window::whole(scene.nx, scene.ny);
      std::vector<std::string> notes;
      ASSERT_TRUE(write_overrated_plan(space, cache, scene));
      Simulation<ExecutionSpace> simulation(space, scene, "auto", {}, {.cache_directory = cache});
      ASSERT_EQ(simulation.backend(), "kokkos-mdrange");
      // Advanced in chunks of a run's length (its samples last milliseconds: at most a few
      // hundred steps here), so a faster machine takes more chunks.
      std::int64_t const steps = advance_until_checked(space, simulation, initial, 1000);
      Plan const& plan = *simulation.plan();
      HostPair const got{to_host<ExecutionSpace>(simulation.previous()),
                         to_host<ExecutionSpace>(simulation.current())};
      std::string const configuration = simulation.configuration();
      EXPECT_EQ(simulation.backend(), plan.backend);
      EXPECT_NE(configuration.find("auto chose kokkos-mdrange: from the plan cache"),
                std::string::npos)
          << configuration;
      ASSERT_EQ(plan.ranking.size(), 2u);
      EXPECT_LT(plan.ranking.front().gcells_per_second, 100.0) << "not measured in the run";
      EXPECT_LT(plan.ranking.back().gcells_per_second, 100.0) << "not measured in the run";
      auto const rate = [&](std::string_view backend) {
        auto const found = std::ranges::find(plan.ranking, backend, &BackendRate::backend);
        return found == plan.ranking.end() ? -1.0 : found->gcells_per_second;
      };
      // The switch is taken exactly where tiled ran more than 1.05 times mdrange's rate.
      if (plan.switched) {
        EXPECT_EQ(plan.backend, "kokkos-tiled");
        EXPECT_EQ(plan.switched->from, "kokkos-mdrange");
        EXPECT_EQ(plan.switched->from_rate, rate("kokkos-mdrange"));
        EXPECT_EQ(plan.switched->to_rate, rate("kokkos-tiled"));
        EXPECT_GT(plan.switched->to_rate, 1.05 * plan.switched->from_rate);
        EXPECT_NE(configuration.find("switched to kokkos-tiled at step"), std::string::npos)
            << configuration;
      } else {
        EXPECT_EQ(plan.backend, "kokkos-mdrange");
        EXPECT_GT(rate("kokkos-mdrange"), 0.0);
        EXPECT_LE(rate("kokkos-tiled"), 1.05 * rate("kokkos-mdrange"));
        EXPECT_EQ(configuration.find("switched"), std::string::npos) << configuration;
      }
      auto const corrected = read_cached_plan(cache, plan_key(space, whole), notes);
      ASSERT_TRUE(corrected);
      EXPECT_EQ(corrected->backend, plan.backend);
      ASSERT_EQ(corrected->ranking.size(), 2u);
      EXPECT_NEAR(corrected->ranking.front().gcells_per_second,
                  plan.ranking.front().gcells_per_second,
                  1e-3 * plan.ranking.front().gcells_per_second);
      for (char const* fixed : {"kokkos-mdrange", "kokkos-tiled"}) {
        expect_bitwise(run_backend<ExecutionSpace>(fixed, scene, initial, 5, steps), got,
                       "auto checked (" + configuration + ") vs " + fixed);
      }
      Simulation<ExecutionSpace> again(space, scene, "auto", {}, {.cache_directory = cache});
      EXPECT_EQ(again.backend(), plan.backend);
    }
  });
}

// A run that stops every step for its outputs: the check's samples span its calls and it
// may switch, but the rates are that run's, not the grid's, and the cache keeps the entry.
TEST_P(AutoTest, ARunSteppingAStepACallKeepsNoCorrection) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    if constexpr (!wave2d::detail::runs_on_host<ExecutionSpace>) {
      GTEST_SKIP() << GetParam() << ": a run there does not check its choice";
    } else {
      ExecutionSpace space;
      fs::path const cache = fresh_folder("switch-apart-" + GetParam());
      Scene const scene = busy_scene(700, 500, 4);
      ASSERT_TRUE(write_overrated_plan(space, cache, scene));
      Simulation<ExecutionSpace> simulation(space, scene, "auto", {}, {.cache_directory = cache});
      advance_until_checked(space, simulation, random_pair(scene, 14), 1);
      Plan const& plan = *simulation.plan();
      ASSERT_LT(plan.ranking.front().gcells_per_second, 100.0) << "the check did not end";
      if (plan.switched) {
        EXPECT_FALSE(plan.switched->cache_corrected);
        EXPECT_EQ(plan.switched->not_kept,
                  "the run stepped 1 step at a time between its outputs, unlike most runs");
      }
      std::vector<std::string> notes;
      auto const entry =
          read_cached_plan(cache, plan_key(space, Window::whole(scene.nx, scene.ny)), notes);
      ASSERT_TRUE(entry);
      EXPECT_EQ(entry->backend, "kokkos-mdrange");
      EXPECT_EQ(entry->ranking.front().gcells_per_second, 1000.0) << "the entry was rewritten";
    }
  });
}

// The same run with a regular file where the cache folder was, put there after the entry
// was read: the cache cannot keep what the run measured, and a switch says so and why
// rather than that the cache was corrected.
TEST_P(AutoTest, ASwitchThePlanCacheCannotKeepSaysWhy) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    if constexpr (!wave2d::detail::runs_on_host<ExecutionSpace>) {
      GTEST_SKIP() << GetParam() << ": a run there does not check its choice";
    } else {
      ExecutionSpace space;
      fs::path const cache = fresh_folder("switch-unkept-" + GetParam());
      Scene const scene = busy_scene(700, 500, 4);
      ASSERT_TRUE(write_overrated_plan(space, cache, scene));
      Simulation<ExecutionSpace> simulation(space, scene, "auto", {}, {.cache_directory = cache});
      ASSERT_EQ(simulation.backend(), "kokkos-mdrange");
      fs::remove_all(cache);
      std::ofstream(cache) << "x";
      advance_until_checked(space, simulation, random_pair(scene, 14), 1000);
      Plan const& plan = *simulation.plan();
      fs::remove(cache);
      ASSERT_LT(plan.ranking.front().gcells_per_second, 100.0) << "the check did not end";
      std::string const cannot = "the plan is not kept: cannot make " + cache.string() + ": ";
      EXPECT_TRUE(std::ranges::any_of(plan.notes, [&](std::string const& note) {
        return note.starts_with(cannot);
      })) << testing::PrintToString(plan.notes);
      std::string const summary = plan.summary();
      EXPECT_EQ(summary.find("the plan cache corrected"), std::string::npos) << summary;
      if (plan.switched) {
        EXPECT_NE(
            summary.find(", the correction is not kept: cannot make " + cache.string() + ": "),
            std::string::npos)
            << summary;
      }
    }
  });
}

// Near its memory limit a run keeps auto's choice untried rather than take the runner-up's
// buffers beside its own: the data limit (ulimit -d) set just above what the process holds,
// below the pair of fields the runner-up may allocate. Without that check the runner-up
// runs, or its allocation throws.
TEST_P(AutoTest, TheRunTriesNoRunnerUpWithoutRoomForItsBuffers) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator maps memory beside any data limit";
#else
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    if constexpr (!wave2d::detail::runs_on_host<ExecutionSpace>) {
      GTEST_SKIP() << GetParam() << ": its memory is a device's, not the process's data";
    } else {
      ExecutionSpace space;
      fs::path const cache = fresh_folder("no-room-" + GetParam());
      Scene const scene = busy_scene(1500, 1000, 4);
      HostPair const initial = random_pair(scene, 14);
      ASSERT_TRUE(write_overrated_plan(space, cache, scene));
      Simulation<ExecutionSpace> simulation(space, scene, "auto", {}, {.cache_directory = cache});
      ASSERT_EQ(simulation.backend(), "kokkos-mdrange");
      run_from(space, simulation, initial, 0, 1);
      // VmData, in kB.
      std::ifstream status("/proc/self/status");
      std::string line;
      double data_bytes = -1.0;
      while (std::getline(status, line)) {
        if (line.rfind("VmData:", 0) == 0) data_bytes = std::stod(line.substr(7)) * 1024.0;
      }
      ASSERT_GT(data_bytes, 0.0);
      double const field_bytes = double(scene.cells()) * sizeof(float);
      rlimit before{};
      ASSERT_EQ(::getrlimit(RLIMIT_DATA, &before), 0);
      rlimit tight = before;
      tight.rlim_cur = rlim_t(data_bytes + 1.5 * field_bytes);
      ASSERT_EQ(::setrlimit(RLIMIT_DATA, &tight), 0);
      bool threw = false;
      try {
        for (int call = 0; call < 60; ++call) simulation.advance(space, 7);
        space.fence();
      } catch (std::exception const& error) {
        threw = true;
        ADD_FAILURE() << "the check took the runner-up's buffers: " << error.what();
      }
      ASSERT_EQ(::setrlimit(RLIMIT_DATA, &before), 0);
      if (threw) return;
      Plan const& plan = *simulation.plan();
      EXPECT_EQ(simulation.backend(), "kokkos-mdrange");
      EXPECT_FALSE(plan.switched);
      ASSERT_EQ(plan.ranking.size(), 2u);
      EXPECT_EQ(plan.ranking.back().gcells_per_second, 900.0) << "the runner-up ran";
      HostPair const got{to_host<ExecutionSpace>(simulation.previous()),
                         to_host<ExecutionSpace>(simulation.current())};
      expect_bitwise(run_backend<ExecutionSpace>("kokkos-mdrange", scene, initial, 0, 421), got,
                     "kept its choice vs kokkos-mdrange");
    }
  });
#endif
}

// kokkos-stream runs on devices only (kokkos-tiled outruns it on hosts), and auto tries it
// only where cuda-stream, its hand-written form, is not built; there the estimate takes it
// on large grids.
TEST_P(AutoTest, TriesKokkosStreamOnDevicesWithoutTheHandWrittenKernels) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    using Memory = typename ExecutionSpace::memory_space;
    bool const registered = has_backend<ExecutionSpace>("kokkos-stream");
    EXPECT_EQ(registered, !wave2d::detail::runs_on_host<ExecutionSpace>);
    bool const tried =
        std::ranges::any_of(detail::plan_candidates<ExecutionSpace, Memory>(),
                            [](auto const& backend) { return backend.name == "kokkos-stream"; });
    EXPECT_EQ(tried, registered && !has_backend<ExecutionSpace>("cuda-stream"));
    ExecutionSpace space;
    std::string const large = estimate_backend(space, Window::whole(2048, 1024));
    std::string const small = estimate_backend(space, Window::whole(1024, 1024));
    EXPECT_EQ(large == "kokkos-stream", tried) << large;
    EXPECT_NE(small, "kokkos-stream");
  });
}

// The estimate on host spaces, as the measured tables give it (docs/planning.md): kokkos-tiled,
// but kokkos-mdrange on Kokkos::Serial below about 45^2 cells.
TEST_P(AutoTest, TheEstimateOnHostsFollowsTheMeasuredTables) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    if constexpr (!wave2d::detail::runs_on_host<ExecutionSpace>) {
      GTEST_SKIP() << GetParam()
                   << ": the device rule is tested in "
                      "TriesKokkosStreamOnDevicesWithoutTheHandWrittenKernels";
    } else {
      ExecutionSpace space;
      bool const serial = wave2d::detail::is_serial<ExecutionSpace>;
      EXPECT_EQ(estimate_backend(space, Window::whole(24, 24)),
                serial ? "kokkos-mdrange" : "kokkos-tiled");
      EXPECT_EQ(estimate_backend(space, Window::whole(32, 32)),
                serial ? "kokkos-mdrange" : "kokkos-tiled");
      for (int n : {48, 128, 201, 3201}) {
        EXPECT_EQ(estimate_backend(space, Window::whole(n, n)), "kokkos-tiled") << n;
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Spaces, AutoTest, testing::ValuesIn(space_names()),
                         [](auto const& info) { return info.param; });

TEST(Plan, SummaryCountsItsCandidates) {
  wave2d::Plan plan;
  plan.backend = "kokkos-mdrange";
  plan.mode = wave2d::PlanMode::measure;
  plan.trial_seconds = 0.5;
  plan.ranking = {{"kokkos-mdrange", 1.0}};
  EXPECT_EQ(plan.summary(), "auto chose kokkos-mdrange: measured 1 candidate in 0.500 s");
  plan.ranking.push_back({"kokkos-tiled", 0.5});
  EXPECT_EQ(plan.summary(), "auto chose kokkos-mdrange: measured 2 candidates in 0.500 s");
}

// Rates to at most three significant digits, whole from 100 GCells/s: as program.md says.
TEST(Plan, RatesAreSaidToAtMostThreeSignificantDigits) {
  EXPECT_EQ(rate_text(2.3), "2.3");
  EXPECT_EQ(rate_text(3.0), "3");
  EXPECT_EQ(rate_text(0.011), "0.011");
  EXPECT_EQ(rate_text(13.84), "13.8");
  EXPECT_EQ(rate_text(1006.4), "1006");
  EXPECT_EQ(rate_text(1.7976931348623157e308), "1.8e+308");  // a hand-made entry's, whole
}

// The cache's entries, written and read without Kokkos.
PlanKey some_key() { return {"Some CPU", "OpenMP", 4, 301, 203, "9.9.9"}; }

TEST(PlanCache, KeepsAndReadsAPlan) {
  fs::path const cache = fresh_folder("keeps");
  std::vector<std::string> notes;
  CachedPlan const plan{"kokkos-tiled", {{"kokkos-tiled", 3.5}, {"kokkos-mdrange", 2.25}}};
  ASSERT_TRUE(write_cached_plan(cache, some_key(), plan, notes));
  EXPECT_TRUE(notes.empty());
  auto const read = read_cached_plan(cache, some_key(), notes);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->backend, "kokkos-tiled");
  ASSERT_EQ(read->ranking.size(), 2u);
  EXPECT_EQ(read->ranking[1].backend, "kokkos-mdrange");
  EXPECT_DOUBLE_EQ(read->ranking[1].gcells_per_second, 2.25);
  EXPECT_TRUE(notes.empty());
  // No temporary left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(cache), fs::directory_iterator()), 1);
  // Another version, device, space, thread count or grid: no entry.
  for (auto change : std::vector<void (*)(PlanKey&)>{
           [](PlanKey& k) { k.version = "9.9.8"; }, [](PlanKey& k) { k.device = "Other"; },
           [](PlanKey& k) { k.space = "Serial"; }, [](PlanKey& k) { k.threads = 8; },
           [](PlanKey& k) { k.nx = 300; }, [](PlanKey& k) { k.max_fused_steps = 1; }}) {
    PlanKey key = some_key();
    change(key);
    EXPECT_FALSE(read_cached_plan(cache, key, notes)) << key.text();
  }
  EXPECT_TRUE(notes.empty());
}

TEST(PlanCache, AnUnreadableOrCorruptEntryIsIgnoredWithANote) {
  fs::path const cache = fresh_folder("corrupt");
  std::vector<std::string> notes;
  ASSERT_TRUE(write_cached_plan(cache, some_key(), {"kokkos-tiled", {}}, notes));
  fs::path const entry = fs::directory_iterator(cache)->path();
  for (std::string const text :
       {std::string(""), std::string("garbage\n"), std::string("wave2d plan 1\nkey other\n"),
        "wave2d plan 1\nkey " + some_key().text() + "\nbackend\n",
        "wave2d plan 1\nkey " + some_key().text() + "\nbackend a b\nrate x nan\n",
        "wave2d plan 1\nkey " + some_key().text() + "\nbackend ../../etc\n",
        "wave2d plan 1\nkey " + some_key().text() + "\nbackend x\nwhat is this\n",
        "wave2d plan 1\nkey " + some_key().text() + "\nbackend kokkos-tiled\nbackend reference\n",
        std::string(100000, 'x')}) {
    std::ofstream(entry, std::ios::trunc) << text;
    notes.clear();
    EXPECT_FALSE(read_cached_plan(cache, some_key(), notes)) << text.substr(0, 80);
    ASSERT_EQ(notes.size(), 1u) << text.substr(0, 80);
    EXPECT_NE(notes[0].find("ignored the plan cache entry"), std::string::npos) << notes[0];
  }
  fs::remove(entry);
  fs::create_directory(entry);  // a folder where the entry should be
  notes.clear();
  EXPECT_FALSE(read_cached_plan(cache, some_key(), notes));
  EXPECT_EQ(notes.size(), 1u);
}

// Every line whole and every number read to its end, the rates there (its backend's among
// them) and the last line ended: anything else, hand-edited or cut off, is ignored.
TEST(PlanCache, AnEntryNotWhollyAsWrittenIsIgnored) {
  fs::path const cache = fresh_folder("strict");
  std::vector<std::string> notes;
  CachedPlan const small{"kokkos-tiled", {{"kokkos-tiled", 1.25e-5}, {"kokkos-mdrange", 1e-6}}};
  ASSERT_TRUE(write_cached_plan(cache, some_key(), small, notes));
  auto const read = read_cached_plan(cache, some_key(), notes);
  ASSERT_TRUE(read) << testing::PrintToString(notes);
  ASSERT_EQ(read->ranking.size(), 2u);
  EXPECT_DOUBLE_EQ(read->ranking[0].gcells_per_second, 1.25e-5);
  fs::path const entry = plan_cache_file(cache, some_key());
  std::string const head = "wave2d plan 1\nkey " + some_key().text() + "\n";
  std::string const rated = "backend kokkos-mdrange\nrate kokkos-mdrange 2\n";
  for (std::string const& text :
       {head + "backend kokkos-mdrange junk\nrate kokkos-mdrange 2\n",
        head + "backend kokkos-mdrange\nrate kokkos-mdrange 2abc\n",
        head + "backend kokkos-mdrange\nrate kokkos-mdrange 2.5GCells\n",
        head + "backend kokkos-mdrange\nrate kokkos-mdrange 2 3 4\n",
        head + "backend kokkos-mdrange\nrate kokkos-mdrange  2\n",
        head + "backend kokkos-mdrange\nrate kokkos-mdrange inf\n",
        head + "backend kokkos-mdrange\nrate kokkos-mdrange 0x10\n",
        head + "backend kokkos-mdrange\n", head + "backend kokkos-mdrange",
        head + "backend kokkos-mdrange\nrate kokkos-tiled 2\n",
        head + rated + "rate kokkos-tiled 1", head + rated + "rate kokkos-tiled 1.5\n\n",
        head + "rate kokkos-mdrange 2\nbackend kokkos-mdrange\n"}) {
    std::ofstream(entry, std::ios::trunc) << text;
    notes.clear();
    EXPECT_FALSE(read_cached_plan(cache, some_key(), notes)) << text;
    ASSERT_EQ(notes.size(), 1u) << text;
    EXPECT_TRUE(notes[0].starts_with("ignored the plan cache entry " + entry.string() + ": "))
        << notes[0];
  }
  std::ofstream(entry, std::ios::trunc) << head + rated;
  notes.clear();
  EXPECT_TRUE(read_cached_plan(cache, some_key(), notes)) << testing::PrintToString(notes);
}

// An entry is small: one padded with rates beyond any space's backends, or rating one twice,
// is ignored, not read (nor printed) whole.
TEST(PlanCache, AnEntryOfTooManyRatesIsIgnored) {
  fs::path const cache = fresh_folder("padded");
  std::vector<std::string> notes;
  ASSERT_TRUE(write_cached_plan(cache, some_key(), {"kokkos-tiled", {}}, notes));
  fs::path const entry = fs::directory_iterator(cache)->path();
  std::string const head = "wave2d plan 1\nkey " + some_key().text() + "\nbackend kokkos-tiled\n";
  std::string padded = head;
  for (int i = 0; i < 2000; ++i) padded += "rate b" + std::to_string(i) + " 1.5\n";
  for (std::string const& text : {padded, head + "rate kokkos-tiled 2\nrate kokkos-tiled 3\n"}) {
    std::ofstream(entry, std::ios::trunc) << text;
    notes.clear();
    EXPECT_FALSE(read_cached_plan(cache, some_key(), notes));
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_LT(notes[0].size(), 400u) << notes[0];
  }
}

// Neither HOME nor XDG_CACHE_HOME: no cache folder, and a note that the plan is not kept.
TEST(PlanCache, NoFolderAtAllIsSaid) {
  char const* home = std::getenv("HOME");
  char const* xdg = std::getenv("XDG_CACHE_HOME");
  std::string const kept_home = home ? home : "";
  std::string const kept_xdg = xdg ? xdg : "";
  ::unsetenv("HOME");
  ::unsetenv("XDG_CACHE_HOME");
  Kokkos::DefaultHostExecutionSpace space;
  Scene const scene = busy_scene(30, 20, 1);
  Plan const plan = plan_backend(space, scene, Window::whole(scene.nx, scene.ny), PlanOptions{});
  if (home) ::setenv("HOME", kept_home.c_str(), 1);
  if (xdg) ::setenv("XDG_CACHE_HOME", kept_xdg.c_str(), 1);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("the plan is not kept: no cache folder"), std::string::npos)
      << plan.notes[0];
  EXPECT_TRUE(plan.cache_file.empty());
}

// A cached backend that the windows' halo excludes is said to be so, not to be another
// space's.
// The plan of a 30 x 20 scene on the host, `cached` in a fresh cache folder of that name.
Plan plan_from_cache(std::string const& folder, CachedPlan const& cached, PlanOptions options) {
  Kokkos::DefaultHostExecutionSpace space;
  Scene const scene = busy_scene(30, 20, 1);
  Window const whole = Window::whole(scene.nx, scene.ny);
  options.cache_directory = fresh_folder(folder);
  std::vector<std::string> notes;
  EXPECT_TRUE(write_cached_plan(options.cache_directory,
                                plan_key(space, whole, options.max_fused_steps), cached, notes));
  return plan_backend(space, scene, whole, options);
}

TEST(PlanCache, ACachedBackendTheHaloExcludesIsSaidSo) {
  Plan const plan =
      plan_from_cache("halo", {"kokkos-tiled", {{"kokkos-tiled", 2.0}}}, {.max_fused_steps = 1});
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("'kokkos-tiled' fuses more steps per pass than the windows' "
                               "halo of 1 cell allows"),
            std::string::npos)
      << plan.notes[0];
  EXPECT_NE(plan.backend, "kokkos-tiled");
}

// An entry that rates not every candidate (made by a run whose windows' halo ruled one out)
// does not answer a run that may take it: ignored, said so, measured again.
TEST(PlanCache, AnEntryWithoutARateForACandidateIsIgnored) {
  Plan const plan = plan_from_cache("unrated", {"kokkos-mdrange", {{"kokkos-mdrange", 2.0}}}, {});
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("it has no rate for 'kokkos-tiled', a candidate here"),
            std::string::npos)
      << plan.notes[0];
  EXPECT_FALSE(plan.from_cache);
  EXPECT_EQ(plan.ranking.size(), 2u);
}

// The sequential reference is the space's but never a candidate: so the note says, on a run
// of no windows.
TEST(PlanCache, ACachedReferenceIsSaidNotToBeACandidate) {
  Plan const plan = plan_from_cache("reference", {"reference", {{"reference", 2.0}}}, {});
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("backend 'reference' is not one of auto's candidates"),
            std::string::npos)
      << plan.notes[0];
  EXPECT_FALSE(plan.from_cache);
  EXPECT_NE(plan.backend, "reference");
}

// A ranked backend that is not the space's (a damaged entry) is no runner-up to switch to:
// the entry is ignored, not taken until the run fails.
TEST(PlanCache, AnEntryRankingAnotherSpacesBackendIsIgnored) {
  Plan const plan =
      plan_from_cache("ranked", {"kokkos-mdrange", {{"kokkos-mdrange", 2.0}, {"bogus", 1.0}}}, {});
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("backend 'bogus' is not one of this space's"), std::string::npos)
      << plan.notes[0];
  EXPECT_FALSE(plan.from_cache);
  EXPECT_TRUE(
      std::ranges::none_of(plan.ranking, [](auto const& r) { return r.backend == "bogus"; }));
}

TEST(PlanCache, AnUnwritableFolderKeepsNothingWithANote) {
  fs::path const cache = fresh_folder("unwritable");
  std::ofstream(cache / "file") << "x";
  std::vector<std::string> notes;
  // A path through a regular file can be made by no one, root included.
  EXPECT_FALSE(write_cached_plan(cache / "file" / "plans", some_key(), {"x", {}}, notes));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("the plan is not kept"), std::string::npos) << notes[0];
  notes.clear();
  EXPECT_FALSE(write_cached_plan({}, some_key(), {"x", {}}, notes));
  EXPECT_EQ(notes.size(), 1u);
}

// A write the file size limit (ulimit -f) refuses: the note names the entry, not its
// temporary, and says why; no temporary is left.
TEST(PlanCache, AnEntryThatCannotBeWrittenIsNamedWithTheReason) {
  fs::path const cache = fresh_folder("file-size");
  std::vector<std::string> notes;
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  rlimit none = before;
  none.rlim_cur = 0;
  auto const handler = std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &none), 0);
  bool const kept =
      write_cached_plan(cache, some_key(), {"kokkos-tiled", {{"kokkos-tiled", 3.5}}}, notes);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &before), 0);
  std::signal(SIGXFSZ, handler);
  EXPECT_FALSE(kept);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "the plan is not kept: cannot write " +
                          plan_cache_file(cache, some_key()).string() + ": " +
                          std::strerror(EFBIG));
  EXPECT_TRUE(fs::is_empty(cache));
}

TEST(PlanCache, FolderFollowsXdgCacheHome) {
  char const* saved = std::getenv("XDG_CACHE_HOME");
  std::string const kept = saved ? saved : "";
  ::setenv("XDG_CACHE_HOME", "/some/cache", 1);
  EXPECT_EQ(default_plan_cache_directory(), fs::path("/some/cache/wave2d/plans"));
  ::setenv("XDG_CACHE_HOME", "relative", 1);  // not absolute: ignored, as the spec says
  EXPECT_NE(default_plan_cache_directory(), fs::path("relative/wave2d/plans"));
  saved ? ::setenv("XDG_CACHE_HOME", kept.c_str(), 1) : ::unsetenv("XDG_CACHE_HOME");
}

TEST(PlanMode, ParsesItsThreeNames) {
  EXPECT_EQ(parse_plan_mode("cached"), PlanMode::cached);
  EXPECT_EQ(parse_plan_mode("measure"), PlanMode::measure);
  EXPECT_EQ(parse_plan_mode("estimate"), PlanMode::estimate);
  EXPECT_FALSE(parse_plan_mode("Measure"));
  EXPECT_FALSE(parse_plan_mode(""));
}

}  // namespace
}  // namespace wave2d::test
