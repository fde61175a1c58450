// What the tests share: running any backend on host data, comparing with the
// reference, and the list of (execution space, backend) pairs in this build.
#ifndef WAVE2D_TEST_HELPERS_HPP
#define WAVE2D_TEST_HELPERS_HPP

#include <wave2d/wave2d.hpp>

#include <gtest/gtest.h>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace wave2d::test {

struct HostPair {
  std::vector<float> previous;
  std::vector<float> current;
};

inline HostPair zeros(Scene const& scene) {
  return {std::vector<float>(scene.cells()), std::vector<float>(scene.cells())};
}

inline HostPair random_pair(Scene const& scene, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  HostPair pair = zeros(scene);
  for (auto& v : pair.previous) v = uniform(generator);
  for (auto& v : pair.current) v = uniform(generator);
  return pair;
}

// A scene on an nx x ny grid with c·dt/dx = 0.5 and the default damping layer.
inline Scene plain_scene(std::int32_t nx, std::int32_t ny) {
  Scene scene;
  scene.name = "test";
  scene.nx = nx;
  scene.ny = ny;
  scene.dx = 0.01f;
  scene.dt = 0.005f;
  scene.steps = 10;
  return scene;
}

// Walls on a random tenth of the cells, two sources of each waveform, a random
// speed in [0.6, 1.4]·c: everything the rule has, anywhere on the grid.
inline Scene busy_scene(std::int32_t nx, std::int32_t ny, std::uint32_t seed) {
  Scene scene = plain_scene(nx, ny);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  scene.walls.resize(scene.cells());
  for (auto& w : scene.walls) w = uniform(generator) < 0.1f;
  scene.speed.resize(scene.cells());
  for (auto& c : scene.speed) c = 0.6f + 0.8f * uniform(generator);
  scene.dt = 0.004f;  // c·dt/dx = 0.56 at 1.4·c
  scene.sources.push_back({nx / 3, ny / 2, {Waveform::Shape::sine, 2.0f, 30.0f, 0.0f}});
  scene.sources.push_back({2 * nx / 3, ny / 3, {Waveform::Shape::ricker, 5.0f, 25.0f, 0.02f}});
  return scene;
}

// Relative RMSE of `value` against `reference` (docs/update-rule.md), in double.
inline double relative_rmse(std::vector<float> const& reference, std::vector<float> const& value) {
  double sum_ref = 0.0;
  double sum_diff = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    sum_ref += double(reference[i]) * reference[i];
    double const diff = double(reference[i]) - value[i];
    sum_diff += diff * diff;
  }
  auto const n = double(reference.size());
  return std::sqrt(sum_diff / n) / std::sqrt(sum_ref / n);
}

// Asserts value ≈ reference: relative RMSE below `tolerance`, or exact equality
// where the reference is all zeros (a relative error has no meaning there).
inline void expect_close(std::vector<float> const& reference, std::vector<float> const& value,
                         double tolerance, std::string const& what) {
  ASSERT_EQ(reference.size(), value.size()) << what;
  bool all_zero = true;
  for (float v : reference) all_zero = all_zero && v == 0.0f;
  if (all_zero) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      ASSERT_EQ(value[i], 0.0f) << what << ": cell " << i << " of an all-zero reference";
    }
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    ASSERT_TRUE(std::isfinite(value[i])) << what << ": cell " << i << " is " << value[i];
  }
  EXPECT_LT(relative_rmse(reference, value), tolerance) << what;
}

inline HostPair run_reference(Scene const& scene, HostPair pair, std::int64_t first_step,
                              std::int64_t n_steps) {
  auto const result =
      reference::run(scene, first_step, n_steps, pair.previous.data(), pair.current.data());
  if (result.first != pair.previous.data()) std::swap(pair.previous, pair.current);
  return pair;
}

// A host grid's ny x nx cells, row-major, as a field in MemorySpace, copied on `space`.
template <class MemorySpace, class ExecutionSpace>
Field<MemorySpace> to_field(ExecutionSpace const& space, std::vector<float> const& host, int ny,
                            int nx) {
  Field<MemorySpace> field("wave2d::test::field", ny, nx);
  Kokkos::deep_copy(space, field, wave2d::detail::HostRows(host.data(), ny, nx));
  return field;
}

template <class ExecutionSpace>
std::vector<float> to_host(typename Simulation<ExecutionSpace>::field_type const& field) {
  std::vector<float> host(field.size());
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace,
               Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      view(host.data(), field.extent(0), field.extent(1));
  Kokkos::deep_copy(view, field);
  return host;
}

// Runs `simulation` from `initial` (its local grid's cells) at `first_step`.
template <class ExecutionSpace>
HostPair run_from(ExecutionSpace const& space, Simulation<ExecutionSpace>& simulation,
                  HostPair const& initial, std::int64_t first_step, std::int64_t n_steps) {
  using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Window const& window = simulation.window();
  simulation.set_state(
      space, HostField(initial.previous.data(), window.local_ny(), window.local_nx()),
      HostField(initial.current.data(), window.local_ny(), window.local_nx()), first_step);
  simulation.advance(space, n_steps);
  space.fence();
  Scene const& scene = simulation.scene();
  EXPECT_EQ(simulation.steps_done(), first_step + n_steps);
  EXPECT_EQ(simulation.time(), time_of_step(scene.t0, scene.dt, first_step + n_steps));
  return {to_host<ExecutionSpace>(simulation.previous()),
          to_host<ExecutionSpace>(simulation.current())};
}

// Runs `backend` on a fresh ExecutionSpace instance from `initial` at `first_step`.
template <class ExecutionSpace>
HostPair run_backend(std::string const& backend, Scene const& scene, HostPair const& initial,
                     std::int64_t first_step, std::int64_t n_steps,
                     ValidationOptions options = {}) {
  ExecutionSpace space;
  Simulation<ExecutionSpace> simulation(space, scene, backend, options);
  return run_from(space, simulation, initial, first_step, n_steps);
}

// The window's local cells of a pair of the whole grid.
inline HostPair local_cells(Scene const& scene, Window const& window, HostPair const& global) {
  HostPair local;
  for (std::int32_t y = 0; y < window.local_ny(); ++y) {
    for (std::int32_t x = 0; x < window.local_nx(); ++x) {
      auto const g = std::size_t(scene.index(window.origin_x() + x, window.origin_y() + y));
      local.previous.push_back(global.previous[g]);
      local.current.push_back(global.current[g]);
    }
  }
  return local;
}

// The same on a window, from the window's cells of the global `initial`.
template <class ExecutionSpace>
HostPair run_window(std::string const& backend, Scene const& scene, Window const& window,
                    HostPair const& initial, std::int64_t first_step, std::int64_t n_steps) {
  ExecutionSpace space;
  Simulation<ExecutionSpace> simulation(space, scene, window, backend);
  return run_from(space, simulation, local_cells(scene, window, initial), first_step, n_steps);
}

// A backend on one execution space, by names, for value-parametrized tests.
struct BackendCase {
  std::string space;
  std::string backend;
};

inline void PrintTo(BackendCase const& c, std::ostream* os) {
  *os << c.backend << " on " << c.space;
}

inline std::string case_name(testing::TestParamInfo<BackendCase> const& info) {
  std::string name = info.param.space + "_" + info.param.backend;
  for (auto& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// Calls f.template operator()<ExecutionSpace>() for the space called `name`.
template <class F>
void with_space(std::string const& name, F&& f) {
#if defined(KOKKOS_ENABLE_SERIAL)
  if (name == Kokkos::Serial::name()) return f.template operator()<Kokkos::Serial>();
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if (name == Kokkos::OpenMP::name()) return f.template operator()<Kokkos::OpenMP>();
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  if (name == Kokkos::Cuda::name()) return f.template operator()<Kokkos::Cuda>();
#endif
  FAIL() << "no execution space " << name << " in this build";
}

// The names of the build's execution spaces, for tests parametrized by space.
inline std::vector<std::string> space_names() {
  std::vector<std::string> names;
#if defined(KOKKOS_ENABLE_SERIAL)
  names.push_back(Kokkos::Serial::name());
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  names.push_back(Kokkos::OpenMP::name());
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  names.push_back(Kokkos::Cuda::name());
#endif
  return names;
}

template <class ExecutionSpace>
void add_cases(std::vector<BackendCase>& cases) {
  for (auto const& backend : backends<ExecutionSpace>()) {
    cases.push_back({ExecutionSpace::name(), std::string(backend.name)});
  }
}

inline std::vector<BackendCase> all_backend_cases() {
  std::vector<BackendCase> cases;
#if defined(KOKKOS_ENABLE_SERIAL)
  add_cases<Kokkos::Serial>(cases);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  add_cases<Kokkos::OpenMP>(cases);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  add_cases<Kokkos::Cuda>(cases);
#endif
  return cases;
}

// The tolerances against the reference: CPU backends compute the reference's float
// expression exactly in order; GPU compilers contract to FMA.
inline double tolerance_for(std::string const& space) { return space == "Cuda" ? 1e-5 : 1e-6; }

}  // namespace wave2d::test

#endif
