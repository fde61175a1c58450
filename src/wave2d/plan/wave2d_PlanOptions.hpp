// How the backend `auto` is chosen (plan/wave2d_Planner.hpp). Plain C++: no Kokkos.
#ifndef WAVE2D_PLAN_OPTIONS_HPP
#define WAVE2D_PLAN_OPTIONS_HPP

#include <wave2d/plan/wave2d_PlanCache.hpp>

#include <filesystem>
#include <string_view>

namespace wave2d {

// The backend name that asks for the fastest of the space's for the grid.
inline constexpr std::string_view auto_backend = "auto";

struct PlanOptions {
  PlanMode mode = PlanMode::cached;
  // Where plans are kept; empty: none are read or kept.
  std::filesystem::path cache_directory = default_plan_cache_directory();
  // Only backends fusing at most this many steps per pass (a distributed run's halo); 0: any.
  int max_fused_steps = 0;
};

}  // namespace wave2d

#endif
