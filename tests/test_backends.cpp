// Every backend of the build, on every execution space, against the reference.
#include <wave2d_TestHelpers.hpp>

namespace wave2d::test {
namespace {

class BackendTest : public testing::TestWithParam<BackendCase> {
 protected:
  // Runs the backend and the reference from `initial` and compares both fields.
  void check(Scene const& scene, HostPair const& initial, std::int64_t first_step,
             std::int64_t n_steps, std::string const& what) {
    auto const& param = GetParam();
    auto const expected = run_reference(scene, initial, first_step, n_steps);
    HostPair result;
    with_space(param.space, [&]<class ExecutionSpace>() {
      result = run_backend<ExecutionSpace>(param.backend, scene, initial, first_step, n_steps);
    });
    double const tolerance = tolerance_for(param.space);
    expect_close(expected.previous, result.previous, tolerance, what + ": u(t_{n-1})");
    expect_close(expected.current, result.current, tolerance, what + ": u(t_n)");
  }
};

TEST_P(BackendTest, DoubleSlitSmallFullRun) {
  Scene const scene = builtin_scene("double-slit-small");
  check(scene, zeros(scene), 0, scene.steps, "double-slit-small, 800 steps");
}

TEST_P(BackendTest, DoubleSlitSmallFromRandomFields) {
  Scene const scene = builtin_scene("double-slit-small");
  check(scene, random_pair(scene, 7), 123, 61, "double-slit-small, random start at step 123");
}

TEST_P(BackendTest, OddAndNonSquareGrids) {
  std::uint32_t seed = 1;
  for (auto [nx, ny] : {std::pair{257, 131}, {131, 257}, {3, 3}, {4, 5}, {33, 17}, {100, 7}}) {
    Scene const scene = busy_scene(nx, ny, seed);
    for (std::int64_t steps : {0, 1, 2, 7, 13, 27}) {
      check(scene, random_pair(scene, seed++), 5, steps,
            std::to_string(nx) + " x " + std::to_string(ny) + ", " + std::to_string(steps) +
                " steps");
    }
  }
}

TEST_P(BackendTest, GridsOfManyTiles) {
  // Enough tiles for cuda-shmem's tuned shape on any GPU (small grids take the textbook's).
  Scene const scene = busy_scene(1201, 677, 77);
  check(scene, random_pair(scene, 78), 2, 27, "1201 x 677, 27 steps");
}

TEST_P(BackendTest, DegenerateGridsStayZero) {
  for (auto [nx, ny] : {std::pair{1, 1}, {1, 17}, {17, 1}, {2, 2}, {2, 9}}) {
    Scene scene = plain_scene(nx, ny);
    scene.sources.push_back({0, 0, {}});
    check(scene, random_pair(scene, 3), 0, 3,
          std::to_string(nx) + " x " + std::to_string(ny) + " (all border)");
  }
}

TEST_P(BackendTest, ZeroStepsLeaveTheFields) {
  Scene const scene = busy_scene(40, 30, 11);
  check(scene, random_pair(scene, 4), 17, 0, "0 steps");
}

TEST_P(BackendTest, SourcesOnWallsAndBorderStayZero) {
  Scene scene = plain_scene(50, 40);
  scene.walls.assign(scene.cells(), 0);
  for (int y = 0; y < scene.ny; ++y) scene.walls[scene.index(25, y)] = 1;
  scene.sources.push_back({25, 20, {Waveform::Shape::sine, 10.0f, 20.0f, 0.0f}});  // on the wall
  scene.sources.push_back({0, 10, {Waveform::Shape::sine, 10.0f, 20.0f, 0.0f}});   // on the border
  scene.sources.push_back({10, 20, {Waveform::Shape::sine, 1.0f, 20.0f, 0.0f}});   // free
  check(scene, zeros(scene), 0, 40, "sources on a wall and on the border");
}

TEST_P(BackendTest, ManySources) {
  Scene scene = plain_scene(96, 64);
  for (int i = 0; i < 40; ++i) {
    scene.sources.push_back({2 + (i * 7) % 92,
                             2 + (i * 5) % 60,
                             {i % 2 ? Waveform::Shape::ricker : Waveform::Shape::sine,
                              1.0f + float(i), 10.0f + float(i), 0.01f * float(i)}});
  }
  check(scene, zeros(scene), 0, 50, "40 sources");
}

TEST_P(BackendTest, HeterogeneousSpeed) {
  Scene scene = plain_scene(120, 90);
  scene.speed.resize(scene.cells());
  for (int y = 0; y < scene.ny; ++y) {
    for (int x = 0; x < scene.nx; ++x) scene.speed[scene.index(x, y)] = x < 60 ? 0.5f : 1.2f;
  }
  scene.sources.push_back({30, 45, {Waveform::Shape::sine, 3.0f, 15.0f, 0.0f}});
  check(scene, zeros(scene), 0, 100, "two media");
}

TEST_P(BackendTest, ResumingEqualsOneRun) {
  auto const& param = GetParam();
  Scene const scene = busy_scene(70, 50, 5);
  HostPair const start = random_pair(scene, 9);
  with_space(param.space, [&]<class ExecutionSpace>() {
    auto const once = run_backend<ExecutionSpace>(param.backend, scene, start, 0, 25);
    auto const first = run_backend<ExecutionSpace>(param.backend, scene, start, 0, 10);
    auto const resumed = run_backend<ExecutionSpace>(param.backend, scene, first, 10, 15);
    // Same kernels on the same data: bitwise equal, not merely close.
    EXPECT_EQ(once.previous, resumed.previous);
    EXPECT_EQ(once.current, resumed.current);
  });
}

// Runs long enough that a backend may lay the grid out otherwise (cuda-stream pads rows
// of these widths at 512 steps or more, and from then on every run of that simulation):
// the reference's result; and one simulation taking 13, 531 and 13 steps equals, bit for
// bit, fresh simulations taking none of more than 300.
TEST_P(BackendTest, LongRunsEqualShortCalls) {
  auto const& param = GetParam();
  for (auto [nx, ny] : {std::pair{131, 67}, {300, 41}}) {
    Scene const scene = busy_scene(nx, ny, 31);
    HostPair const start = random_pair(scene, 32);
    std::string const what = std::to_string(nx) + " x " + std::to_string(ny);
    check(scene, start, 3, 531, what + ", 531 steps");
    with_space(param.space, [&]<class ExecutionSpace>() {
      auto const fresh = [&](HostPair const& from, std::int64_t first, std::int64_t n) {
        return run_backend<ExecutionSpace>(param.backend, scene, from, first, n);
      };
      ExecutionSpace space;
      Simulation<ExecutionSpace> simulation(space, scene, param.backend);
      auto const short_first = run_from(space, simulation, start, 3, 13);
      auto const long_run = run_from(space, simulation, short_first, 16, 531);
      auto const short_after = run_from(space, simulation, long_run, 547, 13);
      auto const long_in_parts = fresh(fresh(short_first, 16, 300), 316, 231);
      auto const short_alone = fresh(long_in_parts, 547, 13);
      EXPECT_EQ(long_run.previous, long_in_parts.previous) << what << ", 531 steps";
      EXPECT_EQ(long_run.current, long_in_parts.current) << what << ", 531 steps";
      EXPECT_EQ(short_after.previous, short_alone.previous) << what << ", 13 steps after 531";
      EXPECT_EQ(short_after.current, short_alone.current) << what << ", 13 steps after 531";
    });
  }
}

// A window advanced T steps with a halo of T cells: its owned cells are those of the
// whole-grid run, bit for bit, at the border of the grid and away from it.
TEST_P(BackendTest, WindowWithDeepHaloEqualsWholeGrid) {
  auto const& param = GetParam();
  Scene const scene = busy_scene(97, 61, 21);
  HostPair const start = random_pair(scene, 22);
  struct Owned {
    std::int32_t x0, y0, nx, ny;
  };
  for (std::int32_t halo : {1, 8, 13}) {
    HostPair whole;
    with_space(param.space, [&]<class ExecutionSpace>() {
      whole = run_backend<ExecutionSpace>(param.backend, scene, start, 40, halo);
    });
    for (Owned owned : {Owned{30, 20, 25, 17}, Owned{0, 0, 40, 30}, Owned{60, 40, 37, 21},
                        Owned{0, 15, 97, 20}, Owned{0, 0, 97, 61}}) {
      Window const window{scene.nx, scene.ny, owned.x0, owned.y0, owned.nx, owned.ny, halo};
      HostPair local;
      with_space(param.space, [&]<class ExecutionSpace>() {
        local = run_window<ExecutionSpace>(param.backend, scene, window, start, 40, halo);
      });
      for (std::int32_t y = 0; y < owned.ny; ++y) {
        for (std::int32_t x = 0; x < owned.nx; ++x) {
          std::size_t const g = std::size_t(scene.index(owned.x0 + x, owned.y0 + y));
          std::size_t const l = std::size_t(window.owned_y() + y) * window.local_nx() +
                                std::size_t(window.owned_x() + x);
          ASSERT_EQ(whole.previous[g], local.previous[l])
              << "halo " << halo << ", window at (" << owned.x0 << ", " << owned.y0
              << "): u(t_{n-1}) at (" << owned.x0 + x << ", " << owned.y0 + y << ")";
          ASSERT_EQ(whole.current[g], local.current[l])
              << "halo " << halo << ", window at (" << owned.x0 << ", " << owned.y0
              << "): u(t_n) at (" << owned.x0 + x << ", " << owned.y0 + y << ")";
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendTest, testing::ValuesIn(all_backend_cases()),
                         case_name);

#if defined(WAVE2D_HAVE_CUDA_BACKENDS)
// cuda-stream fuses 12 steps a launch on grids of stream_deep_min_cells or more, the last
// steps of a call in its 8-step shape: cuda-naive's bits, in calls of 35 steps (24 in the
// deep shape, 8, 3 one a launch) and of 11 (8 and 3), on windows of every kind (the quiet
// inside, the damping layer, a wall, the border and the source), rows padded or not.
TEST(CudaStreamOnLargeGrids, DeepShapeGivesCudaNaivesBits) {
  for (std::int32_t n : {4096, 4099}) {
    Scene scene = point_source_scene(n);
    ASSERT_GE(scene.cells(), cuda::stream_deep_min_cells);
    scene.walls.assign(std::size_t(scene.cells()), 0);
    for (std::int32_t y = 1; y < n - 1; ++y) {
      if (y < 1900 || y > 2000) scene.walls[std::size_t(scene.index(1500, y))] = 1;
    }
    HostPair const start = random_pair(scene, 6);
    Kokkos::Cuda space;
    Simulation<Kokkos::Cuda> simulation(space, scene, "cuda-stream");
    EXPECT_NE(simulation.configuration().find("T=12"), std::string::npos)
        << simulation.configuration();
    auto const stream = run_from(space, simulation, start, 3, 35);
    auto const naive = run_backend<Kokkos::Cuda>("cuda-naive", scene, start, 3, 35);
    std::string const what = std::to_string(n) + "²";
    EXPECT_TRUE(stream.previous == naive.previous) << what << ", 35 steps: u(t_{n-1})";
    EXPECT_TRUE(stream.current == naive.current) << what << ", 35 steps: u(t_n)";
    auto const more = run_from(space, simulation, stream, 38, 11);
    auto const naive_more = run_backend<Kokkos::Cuda>("cuda-naive", scene, naive, 38, 11);
    EXPECT_TRUE(more.previous == naive_more.previous) << what << ", 11 more: u(t_{n-1})";
    EXPECT_TRUE(more.current == naive_more.current) << what << ", 11 more: u(t_n)";
  }
}
#endif

}  // namespace
}  // namespace wave2d::test
