// The backend `auto`: which of the registry's backends of an execution space runs a grid
// fastest. Measured by a short trial of each candidate on the real grid (on scratch fields,
// fenced: the run itself does not depend on it), remembered in the plan cache, or estimated
// by a rule from measured tables.
#ifndef WAVE2D_PLANNER_HPP
#define WAVE2D_PLANNER_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_DeviceCoefficients.hpp>
#include <wave2d/backend/wave2d_Fields.hpp>
#include <wave2d/core/wave2d_Window.hpp>
#include <wave2d/detail/wave2d_Instantiation.hpp>
#include <wave2d/plan/wave2d_Backends.hpp>
#include <wave2d/plan/wave2d_PlanCache.hpp>
#include <wave2d/plan/wave2d_PlanOptions.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/wave2d_Config.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace wave2d {

// A rate of GCells/s to at most three significant digits (trailing zeros dropped), whole from
// 100 up: "1006", "13.8", "3", "0.0412".
inline std::string rate_text(double gcells_per_second) {
  char text[32];
  // Whole numbers from 100 on, but for rates no device reaches (a hand-made cache entry's):
  // "%.0f" of 1e308 does not fit.
  bool const whole = gcells_per_second >= 100.0 && gcells_per_second < 1e9;
  std::snprintf(text, sizeof text, whole ? "%.0f" : "%.3g", gcells_per_second);
  return text;
}

// What `auto` chose, and how.
struct Plan {
  std::string backend;
  PlanMode mode = PlanMode::cached;
  bool from_cache = false;
  std::vector<BackendRate> ranking;  // the trial's (this run's or the cache's), fastest first
  double trial_seconds = 0.0;        // this run's trial; 0 when none ran
  std::vector<std::string> notes;    // the cache's problems, one line each
  PlanKey key;
  // The plan cache's entry this plan was read from or kept in; empty when neither.
  std::filesystem::path cache_file;
  // Set when the run found the backend chosen clearly slower than the runner-up and took
  // the runner-up from `step` on (Simulation, host spaces): `backend` is then the runner-up.
  struct Switch {
    std::string from;
    double from_rate = 0.0;  // GCells/s, each measured in the run
    double to_rate = 0.0;
    std::int64_t step = 0;
    bool cache_corrected = false;  // the plan cache keeps the rates the run measured
    std::string not_kept;          // else why it cannot; empty when no cache was asked to
  };
  std::optional<Switch> switched;

  // "auto chose cuda-stream: measured 6 candidates in 0.084 s", "... from the plan cache".
  // "... from the plan cache (<its entry>)", "... in 0.084 s, kept in <its entry>".
  // After a switch: "auto chose kokkos-mdrange: ... ; switched_text()".
  std::string summary() const {
    std::string const chose = "auto chose " + (switched ? switched->from : backend) + ": ";
    std::string const then = switched ? "; " + switched_text() : "";
    if (from_cache) return chose + "from the plan cache (" + cache_file.string() + ")" + then;
    if (mode == PlanMode::estimate) return chose + "estimated, no trial";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f", trial_seconds);
    return chose + "measured " + std::to_string(ranking.size()) +
           (ranking.size() == 1 ? " candidate in " : " candidates in ") + seconds + " s" +
           (cache_file.empty() || switched ? "" : ", kept in " + cache_file.string()) + then;
  }
  // "switched to kokkos-mdrange at step 48: it ran 1.23 GCells/s, kokkos-tiled 0.75"
  // (", the plan cache corrected" when it was, ", the correction is not kept: <why>" when
  // it could not be).
  std::string switched_text() const {
    if (!switched) return {};
    std::string const cache = switched->cache_corrected ? ", the plan cache corrected"
                              : switched->not_kept.empty()
                                  ? ""
                                  : ", the correction is not kept: " + switched->not_kept;
    return "switched to " + backend + " at step " + std::to_string(switched->step) + ": it ran " +
           rate_text(switched->to_rate) + " GCells/s, " + switched->from + " " +
           rate_text(switched->from_rate) + cache;
  }
  // The trial's rates, fastest first: "kokkos-tiled 4.12, kokkos-mdrange 1.72 GCells/s".
  std::string ranking_text() const {
    std::string text;
    for (auto const& rate : ranking) {
      text += (text.empty() ? "" : ", ") + rate.backend + " " + rate_text(rate.gcells_per_second);
    }
    return text + " GCells/s";
  }
};

namespace detail {

template <class ExecutionSpace>
std::string device_name(ExecutionSpace const& space) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    auto const& properties = space.cuda_device_prop();
    return std::string(properties.name) + " sm_" + std::to_string(properties.major) +
           std::to_string(properties.minor);
  }
#endif
  (void)space;
  return host_cpu_model();
}

// The backends `auto` chooses among: the space's auto candidates (not the sequential
// reference), of at most `max_fused_steps` fused steps when that is not 0.
template <class ExecutionSpace, class MemorySpace>
std::vector<Backend<ExecutionSpace, MemorySpace>> plan_candidates(int max_fused_steps = 0) {
  auto list = backends<ExecutionSpace, MemorySpace>();
  std::erase_if(list, [&](auto const& backend) {
    return !backend.auto_candidate ||
           (max_fused_steps > 0 && backend.fused_steps > max_fused_steps);
  });
  return list;
}

}  // namespace detail

// The plan cache's key of `window` on `space`, for candidates of at most `max_fused_steps`
// fused steps (0: any).
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
PlanKey plan_key(ExecutionSpace const& space, Window const& window, int max_fused_steps = 0) {
  PlanKey key;
  key.max_fused_steps = max_fused_steps;
  key.device = detail::device_name(space);
  key.space = ExecutionSpace::name();
  key.threads = int(space.concurrency());
  key.nx = window.local_nx();
  key.ny = window.local_ny();
  key.version = WAVE2D_VERSION;
  return key;
}

// The rule from the measured tables (docs/planning.md), without a trial: on the GPU,
// cuda-stream from about 1400^2 cells up and cuda-shmem below; on a GPU without the
// hand-written kernels kokkos-stream from there and kokkos-tiled below; kokkos-tiled on host
// spaces, but kokkos-mdrange on Kokkos::Serial below about 45^2 cells (on OpenMP, even with
// one thread, mdrange's launch a step costs more than tiled's halos there).
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
std::string estimate_backend(ExecutionSpace const& space, Window const& window,
                             int max_fused_steps = 0) {
  auto const candidates = detail::plan_candidates<ExecutionSpace, MemorySpace>(max_fused_steps);
  auto const has = [&](std::string_view name) {
    return std::ranges::any_of(candidates, [&](auto const& b) { return b.name == name; });
  };
  double const cells = double(window.local_nx()) * double(window.local_ny());
  (void)space;
  std::string_view rule = "kokkos-tiled";
  if (has("cuda-stream") && has("cuda-shmem")) {
    rule = cells >= 2.0e6 ? "cuda-stream" : "cuda-shmem";
  } else if (has("kokkos-stream") && cells >= 2.0e6) {
    rule = "kokkos-stream";
  } else if (detail::is_serial<ExecutionSpace> && cells < 2.0e3) {
    rule = "kokkos-mdrange";
  }
  return std::string(has(rule) ? rule : candidates.front().name);
}

namespace detail {

// What a trial of the candidates found.
template <class ExecutionSpace, class MemorySpace>
struct Trial {
  std::vector<BackendRate> ranking;  // fastest first
  // The fastest's stepper, kept so that it is built once, and the pair of fields it left:
  // its next call reads them (a stepper may have exchanged the pair's views with buffers
  // of its own, which it then holds).
  std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> fastest;
  FieldPair<MemorySpace> fields;
};

// Each candidate's speed on the real grid, measured as the run will see it: every
// candidate made and warmed by one fused pass (its first call pays once for what later
// ones reuse: a GPU's module load, a host's first touch of the stepper's buffers), then
// trial_rounds rounds in which each candidate in turn advances a sample of whole fused
// passes fenced once, as a run's chunk is, of about trial_sample_seconds (sized from its
// warm-up). Its rate is the median of its samples: interleaved, the rounds share what the
// machine does meanwhile, and one slow or lucky sample does not rank a candidate. Every
// candidate steps the same pair of views of `fields` (a Simulation's, before it resets
// them; empty: the trial allocates its own).
inline constexpr int trial_rounds = 3;
inline constexpr double trial_sample_seconds = 0.01;

template <class ExecutionSpace, class MemorySpace>
Trial<ExecutionSpace, MemorySpace> run_trial(ExecutionSpace const& space, Scene const& scene,
                                             Coefficients<MemorySpace> const& coefficients,
                                             int max_fused_steps, FieldPair<MemorySpace> fields) {
  Kokkos::Profiling::ScopedRegion region("wave2d::measure_backends");
  Window const& window = coefficients.window();
  if (fields.previous.size() == 0) {
    fields.previous = allocate<Field<MemorySpace>>(space, "wave2d::plan::previous",
                                                   window.local_ny(), window.local_nx());
    fields.current = allocate<Field<MemorySpace>>(space, "wave2d::plan::current", window.local_ny(),
                                                  window.local_nx());
  }
  fields.step = 0;
  fill(space, fields.previous, 0.0f, "wave2d::plan::fill");
  fill(space, fields.current, 0.0f, "wave2d::plan::fill");
  Receivers none = coefficients.params().receivers;
  none.count = 0;
  none.trace = nullptr;
  double const cells = double(window.local_nx()) * double(window.local_ny());
  using Clock = std::chrono::steady_clock;
  struct Candidate {
    std::string name;
    std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> stepper;
    FieldPair<MemorySpace> fields;
    std::int64_t sample = 1;  // steps
    std::vector<double> rates;
  };
  // `steps` of a candidate, fenced: their seconds.
  auto const timed = [&](Candidate& c, std::int64_t steps) {
    auto const start = Clock::now();
    c.stepper->advance(space, c.fields, steps, none);
    wave2d::fence(space, "wave2d::plan::trial");
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  std::vector<Candidate> candidates;
  for (auto const& backend : plan_candidates<ExecutionSpace, MemorySpace>(max_fused_steps)) {
    Candidate c{std::string(backend.name), backend.make(space, scene, coefficients), fields};
    std::int64_t const pass = std::max(1, backend.fused_steps);
    double const warm_up = std::max(timed(c, pass), 1e-6);
    c.sample =
        pass * std::clamp<std::int64_t>(std::int64_t(trial_sample_seconds / warm_up), 1, 1000);
    candidates.push_back(std::move(c));
  }
  for (int round = 0; round < trial_rounds; ++round) {
    for (auto& c : candidates) {
      c.rates.push_back(cells * double(c.sample) / std::max(timed(c, c.sample), 1e-9) * 1e-9);
    }
  }
  Trial<ExecutionSpace, MemorySpace> trial;
  double best = -1.0;
  for (auto& c : candidates) {
    std::ranges::nth_element(c.rates, c.rates.begin() + c.rates.size() / 2);
    double const median = c.rates[c.rates.size() / 2];
    trial.ranking.push_back({c.name, median});
    if (median > best) {
      best = median;
      trial.fastest = std::move(c.stepper);
      trial.fields = c.fields;
    }
  }
  std::ranges::stable_sort(trial.ranking, std::ranges::greater{}, &BackendRate::gcells_per_second);
  return trial;
}

}  // namespace detail

// Each candidate's speed on the real grid (detail::run_trial), on fields of its own: fastest
// first.
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
std::vector<BackendRate> measure_backends(ExecutionSpace const& space, Scene const& scene,
                                          Coefficients<MemorySpace> const& coefficients,
                                          int max_fused_steps = 0) {
  return detail::run_trial<ExecutionSpace, MemorySpace>(space, scene, coefficients, max_fused_steps,
                                                        {})
      .ranking;
}

// A plan and, where a trial chose it, the fastest's stepper from the trial (Trial::fastest,
// null otherwise) with the pair of fields it left.
template <class ExecutionSpace, class MemorySpace>
struct PlannedStepper {
  Plan plan;
  std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> stepper;
  FieldPair<MemorySpace> fields;
};

// The backend for `window` of `scene` on `space`, as `options` asks; a trial steps views of
// `fields` (see detail::run_trial).
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
PlannedStepper<ExecutionSpace, MemorySpace> plan_stepper(
    ExecutionSpace const& space, Scene const& scene, Coefficients<MemorySpace> const& coefficients,
    PlanOptions const& options = {}, FieldPair<MemorySpace> const& fields = {}) {
  PlannedStepper<ExecutionSpace, MemorySpace> planned;
  Plan& plan = planned.plan;
  plan.mode = options.mode;
  plan.key =
      plan_key<ExecutionSpace, MemorySpace>(space, coefficients.window(), options.max_fused_steps);
  if (options.mode == PlanMode::estimate) {
    plan.backend = estimate_backend<ExecutionSpace, MemorySpace>(space, coefficients.window(),
                                                                 options.max_fused_steps);
    return planned;
  }
  if (options.mode == PlanMode::cached) {
    if (auto cached = read_cached_plan(options.cache_directory, plan.key, plan.notes)) {
      auto const candidates =
          detail::plan_candidates<ExecutionSpace, MemorySpace>(options.max_fused_steps);
      auto const candidate = [&](std::string_view name) {
        return std::ranges::any_of(candidates, [&](auto const& b) { return b.name == name; });
      };
      // The ranked ones too: the run may switch to its runner-up.
      auto const ranked = std::ranges::find_if_not(
          cached->ranking, [&](BackendRate const& rate) { return candidate(rate.backend); });
      // Each of this run's candidates rated: an entry made where the windows' halo ruled
      // one out (a distributed run's) does not answer a run that may take it.
      auto const unrated = std::ranges::find_if(candidates, [&](auto const& b) {
        return std::ranges::none_of(
            cached->ranking, [&](BackendRate const& rate) { return rate.backend == b.name; });
      });
      bool const usable = candidate(cached->backend) && ranked == cached->ranking.end();
      if (usable && unrated == candidates.end()) {
        plan.backend = cached->backend;
        plan.ranking = std::move(cached->ranking);
        plan.from_cache = true;
        plan.cache_file = plan_cache_file(options.cache_directory, plan.key);
        return planned;
      }
      std::string const excluded = usable                       ? std::string()
                                   : candidate(cached->backend) ? ranked->backend
                                                                : cached->backend;
      auto const why = [&]() -> std::string {
        if (!has_backend<ExecutionSpace, MemorySpace>(excluded)) {
          return "is not one of this space's";
        }
        bool const candidate_but_for_halo =
            std::ranges::any_of(detail::plan_candidates<ExecutionSpace, MemorySpace>(),
                                [&](auto const& b) { return b.name == excluded; });
        if (!candidate_but_for_halo) {
          return "is not one of auto's candidates" +
                 std::string(excluded == "reference" ? " (the sequential reference never is)" : "");
        }
        return "fuses more steps per pass than the windows' halo of " +
               std::to_string(options.max_fused_steps) +
               (options.max_fused_steps == 1 ? " cell allows" : " cells allows");
      };
      plan.notes.push_back("ignored the plan cache entry for " + plan.key.text() +
                           (usable ? ": it has no rate for '" + std::string(unrated->name) +
                                         "', a candidate here (made by a run that could not try it)"
                                   : ": backend '" + excluded + "' " + why()));
    }
  }
  auto const start = std::chrono::steady_clock::now();
  auto trial = detail::run_trial<ExecutionSpace, MemorySpace>(space, scene, coefficients,
                                                              options.max_fused_steps, fields);
  plan.trial_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  plan.ranking = std::move(trial.ranking);
  plan.backend = plan.ranking.front().backend;
  planned.stepper = std::move(trial.fastest);
  planned.fields = trial.fields;
  if (options.cache_directory.empty() && default_plan_cache_directory().empty()) {
    plan.notes.push_back("the plan is not kept: no cache folder (neither XDG_CACHE_HOME nor HOME)");
  } else if (!options.cache_directory.empty()) {
    CachedPlan kept;
    kept.backend = plan.backend;
    kept.ranking = plan.ranking;
    if (write_cached_plan(options.cache_directory, plan.key, kept, plan.notes)) {
      plan.cache_file = plan_cache_file(options.cache_directory, plan.key);
    }
  }
  return planned;
}

// The plan alone.
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
Plan plan_backend(ExecutionSpace const& space, Scene const& scene,
                  Coefficients<MemorySpace> const& coefficients, PlanOptions const& options = {}) {
  return plan_stepper<ExecutionSpace, MemorySpace>(space, scene, coefficients, options).plan;
}

// The same for a window of a (validated) scene, with coefficients of its own.
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
Plan plan_backend(ExecutionSpace const& space, Scene const& scene, Window const& window,
                  PlanOptions const& options = {}) {
  return plan_backend<ExecutionSpace, MemorySpace>(
      space, scene, make_coefficients<ExecutionSpace, MemorySpace>(space, scene, window), options);
}

// The library's instantiations (detail/wave2d_Instantiation.hpp).
#define WAVE2D_PLANNER_INSTANTIATIONS(PREFIX, SPACE)                                              \
  PREFIX std::string detail::device_name<SPACE>(SPACE const&);                                    \
  PREFIX std::vector<Backend<SPACE, SPACE::memory_space>>                                         \
  detail::plan_candidates<SPACE, SPACE::memory_space>(int);                                       \
  PREFIX PlanKey plan_key<SPACE, SPACE::memory_space>(SPACE const&, Window const&, int);          \
  PREFIX std::string estimate_backend<SPACE, SPACE::memory_space>(SPACE const&, Window const&,    \
                                                                  int);                           \
  PREFIX detail::Trial<SPACE, SPACE::memory_space> detail::run_trial<SPACE, SPACE::memory_space>( \
      SPACE const&, Scene const&, Coefficients<SPACE::memory_space> const&, int,                  \
      FieldPair<SPACE::memory_space>);                                                            \
  PREFIX std::vector<BackendRate> measure_backends<SPACE, SPACE::memory_space>(                   \
      SPACE const&, Scene const&, Coefficients<SPACE::memory_space> const&, int);                 \
  PREFIX PlannedStepper<SPACE, SPACE::memory_space> plan_stepper<SPACE, SPACE::memory_space>(     \
      SPACE const&, Scene const&, Coefficients<SPACE::memory_space> const&, PlanOptions const&,   \
      FieldPair<SPACE::memory_space> const&);                                                     \
  PREFIX Plan plan_backend<SPACE, SPACE::memory_space>(                                           \
      SPACE const&, Scene const&, Coefficients<SPACE::memory_space> const&, PlanOptions const&);  \
  PREFIX Plan plan_backend<SPACE, SPACE::memory_space>(SPACE const&, Scene const&, Window const&, \
                                                       PlanOptions const&);
WAVE2D_EXTERN_INSTANTIATIONS(WAVE2D_PLANNER_INSTANTIATIONS)

}  // namespace wave2d

#endif
