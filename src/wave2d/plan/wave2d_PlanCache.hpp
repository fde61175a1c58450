// Plans remembered between runs ("wisdom"): which backend was fastest for one device,
// execution space, thread count, local grid and wave2d version. One small text file per
// key under the user's cache folder, written atomically; an entry that cannot be read is
// ignored with a note, never an error.
#ifndef WAVE2D_PLAN_CACHE_HPP
#define WAVE2D_PLAN_CACHE_HPP

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d {

// How `auto` chooses: from the cache, else by a trial that is then kept (cached); by a
// trial always (measure); by a rule from measured tables, without trial or cache (estimate).
enum class PlanMode { cached, measure, estimate };
std::optional<PlanMode> parse_plan_mode(std::string_view text);
std::string_view plan_mode_name(PlanMode mode);

// What a plan is for. Two runs with equal keys get the same plan.
struct PlanKey {
  std::string device;   // GPU name and compute capability, or the CPU model
  std::string space;    // Kokkos' name of the execution space
  int threads = 1;      // its concurrency
  std::int32_t nx = 0;  // the local grid
  std::int32_t ny = 0;
  std::string version;  // wave2d's
  // The windows' halo where it limits the steps a candidate may fuse (a distributed run's),
  // 0 where nothing does: a run that may not try every candidate keeps plans of its own.
  int max_fused_steps = 0;
  std::string text() const;
};

// One candidate's speed in the trial.
struct BackendRate {
  std::string backend;
  double gcells_per_second = 0.0;
};

struct CachedPlan {
  std::string backend;
  std::vector<BackendRate> ranking;  // fastest first
};

// $XDG_CACHE_HOME/wave2d/plans, else $HOME/.cache/wave2d/plans; empty when neither is set.
std::filesystem::path default_plan_cache_directory();

// The file of the entry for `key` in `directory`.
std::filesystem::path plan_cache_file(std::filesystem::path const& directory, PlanKey const& key);

// The entry for `key` in `directory`; nullopt when there is none, or when it is unreadable,
// corrupt or for another key (then with a line in `notes`).
std::optional<CachedPlan> read_cached_plan(std::filesystem::path const& directory,
                                           PlanKey const& key, std::vector<std::string>& notes);

// Keeps `plan` for `key`: nullopt, or why it cannot ("cannot replace <entry>: Is a directory").
std::optional<std::string> write_cached_plan(std::filesystem::path const& directory,
                                             PlanKey const& key, CachedPlan const& plan);
// The same: false, with "the plan is not kept: <why>" in `notes`, when it cannot be written.
bool write_cached_plan(std::filesystem::path const& directory, PlanKey const& key,
                       CachedPlan const& plan, std::vector<std::string>& notes);

// The host's processor as /proc/cpuinfo names it ("unknown CPU" where it cannot be read).
std::string host_cpu_model();

}  // namespace wave2d

#endif
