// kokkos-tiled in shapes other than its default: many small tiles, windows larger than
// the grid, T that does not divide the step count, sources on tile and window edges.
// On host spaces it computes the reference's expression in its order: bit for bit.
#include <wave2d_TestHelpers.hpp>

#include <wave2d/kokkos/wave2d_TiledStepper.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace wave2d::test {
namespace {

// Runs a TiledStepper of `shape` from `initial` at `first_step`.
template <class ExecutionSpace>
HostPair run_tiled(kokkos::TiledShape shape, Scene const& scene, HostPair const& initial,
                   std::int64_t first_step, std::int64_t n_steps) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  kokkos::TiledStepper<ExecutionSpace, MemorySpace> stepper(space, make_coefficients(space, scene),
                                                            shape);
  auto const upload = [&](std::vector<float> const& host) {
    return to_field<MemorySpace>(space, host, scene.ny, scene.nx);
  };
  FieldPair<MemorySpace> fields{upload(initial.previous), upload(initial.current), first_step};
  stepper.advance(space, fields, n_steps, Receivers{});
  space.fence();
  EXPECT_EQ(fields.step, first_step + n_steps);
  return {to_host<ExecutionSpace>(fields.previous), to_host<ExecutionSpace>(fields.current)};
}

class TiledTest : public testing::TestWithParam<std::string> {
 protected:
  // The default for κ per cell on a small grid: the window that fits the most arrays.
  kokkos::TiledShape default_shape() const {
    kokkos::TiledShape shape;
    with_space(GetParam(), [&]<class ExecutionSpace>() {
      shape = kokkos::tiled_shape_for(ExecutionSpace(), true, 64, 64);
    });
    return shape;
  }

  // Every form: both forms of the window's coefficients (codes, walked by columns;
  // folded, swept by rows) and, on host spaces, the wavefront, whichever the default is.
  void check(kokkos::TiledShape shape, Scene const& scene, HostPair const& initial,
             std::int64_t first_step, std::int64_t n_steps, std::string const& what) {
    auto const expected = run_reference(scene, initial, first_step, n_steps);
    for (int const form : {0, 1, 2}) {
      shape.folded = form >= 1;
      shape.wavefront = form == 2;
      if (shape.wavefront && GetParam() == "Cuda") continue;
      HostPair result;
      HostPair again;
      with_space(GetParam(), [&]<class ExecutionSpace>() {
        result = run_tiled<ExecutionSpace>(shape, scene, initial, first_step, n_steps);
        again = run_tiled<ExecutionSpace>(shape, scene, initial, first_step, n_steps);
      });
      std::string const where = what + " (" + shape.describe(!scene.speed.empty()) + ")";
      // Deterministic: the same bits from run to run, whatever the threads do.
      EXPECT_EQ(result.previous, again.previous) << where;
      EXPECT_EQ(result.current, again.current) << where;
      if (GetParam() == "Cuda") {
        expect_close(expected.previous, result.previous, tolerance_for(GetParam()), where);
        expect_close(expected.current, result.current, tolerance_for(GetParam()), where);
      } else {
        EXPECT_EQ(expected.previous, result.previous) << where << ": u(t_{n-1})";
        EXPECT_EQ(expected.current, result.current) << where << ": u(t_n)";
      }
    }
  }
};

// Small tiles (many per grid, sources and walls across their edges), a window larger
// than the grid, T = 1, and odd shapes; step counts below, at and past T.
TEST_P(TiledTest, ShapesAndStepCounts) {
  std::uint32_t seed = 40;
  for (auto const& [tile_x, tile_y, steps] :
       {std::array{8, 4, 3}, {5, 7, 2}, {16, 16, 1}, {13, 3, 5}, {200, 300, 6}}) {
    // The space's team and vector sizes; a 1 MiB window only where scratch is memory.
    auto shape = default_shape();
    shape.tile_x = tile_x;
    shape.tile_y = tile_y;
    shape.steps = steps;
    shape.folded = true;  // the larger of the two forms
    if (GetParam() == "Cuda" && shape.scratch_bytes(true) > 48 * 1024) continue;
    for (auto [nx, ny] : {std::pair{61, 37}, {3, 3}, {17, 90}}) {
      Scene const scene = busy_scene(nx, ny, seed);
      for (std::int64_t steps : {1, 2, 3, 5, 6, 7, 19}) {
        check(shape, scene, random_pair(scene, seed++), 9, steps,
              std::to_string(nx) + " x " + std::to_string(ny) + ", " + std::to_string(steps) +
                  " steps");
      }
    }
  }
}

// One source per tile and more, some on tile corners: every tile takes the source path.
TEST_P(TiledTest, SourcesInEveryTile) {
  Scene scene = plain_scene(64, 48);
  for (int y = 4; y < 48; y += 4) {
    for (int x = 2; x < 64; x += 8) {
      scene.sources.push_back({x, y, {Waveform::Shape::sine, 1.0f, 5.0f + float(x + y), 0.0f}});
    }
  }
  auto shape = default_shape();
  shape.tile_x = 8;
  shape.tile_y = 4;
  shape.steps = 3;
  check(shape, scene, zeros(scene), 0, 40, "one source per tile");
}

// A grid of uniform κ (no κ array in the window) and walls.
TEST_P(TiledTest, UniformSpeedWithWalls) {
  Scene scene = plain_scene(150, 70);
  scene.walls.assign(scene.cells(), 0);
  for (int y = 0; y < scene.ny; ++y) {
    if (y < 30 || y > 35) scene.walls[scene.index(100, y)] = 1;
  }
  scene.sources.push_back({40, 35, {Waveform::Shape::ricker, 4.0f, 20.0f, 0.05f}});
  auto shape = default_shape();
  shape.tile_x = 24;
  shape.tile_y = 10;
  shape.steps = 4;
  check(shape, scene, zeros(scene), 0, 61, "a slit");
}

// Windows whose codes are all 0 (plain: the codes form loads and reads none) beside
// windows holding one wall, the source or the border at every distance from their tile:
// single walls on a diagonal that crosses the tiles at every offset, then a damping band
// and a region of other speed.
TEST_P(TiledTest, PlainWindowsBesideCodedOnes) {
  Scene scene = plain_scene(97, 61);
  scene.damping.width = 0.0f;
  scene.walls.assign(scene.cells(), 0);
  for (int i = 0; i < 12; ++i) scene.walls[scene.index(11 + 7 * i, 5 + 4 * i)] = 1;
  scene.sources.push_back({70, 20, {Waveform::Shape::sine, 1.0f, 9.0f, 0.0f}});
  auto shape = default_shape();
  shape.tile_x = 8;
  shape.tile_y = 6;
  shape.steps = 3;
  check(shape, scene, random_pair(scene, 90), 4, 17, "plain windows, uniform speed");
  scene.damping.width = 0.15f;
  scene.speed.assign(scene.cells(), 1.0f);
  for (int y = 30; y < 61; ++y) {
    for (int x = 0; x < 97; ++x) scene.speed[scene.index(x, y)] = 0.7f;
  }
  check(shape, scene, random_pair(scene, 91), 4, 17, "plain windows, damping, two speeds");
}

// Teams of several threads split each step's rows into blocks (the codes form) or take
// rows in turn (folded): teams of up to 4 threads on host spaces that have them, odd
// window heights, blocks that end past the rows left.
TEST_P(TiledTest, TeamsOfSeveralThreads) {
  auto shape = default_shape();
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    if constexpr (wave2d::detail::runs_on_host<ExecutionSpace>) {
      shape.team_size = std::min(4, ExecutionSpace().concurrency());
    }
  });
  if (shape.team_size < 2) GTEST_SKIP() << GetParam() << " runs teams of one thread here";
  std::uint32_t seed = 70;
  for (auto const& [tile_x, tile_y, steps] : {std::array{9, 5, 2}, {20, 13, 4}, {7, 30, 3}}) {
    shape.tile_x = tile_x;
    shape.tile_y = tile_y;
    shape.steps = steps;
    Scene const scene = busy_scene(45, 52, seed);
    check(shape, scene, random_pair(scene, seed++), 2, 11,
          "45 x 52, team of " + std::to_string(shape.team_size));
  }
}

// Simulations on several threads at once, each its own stepper on the space's default
// instance: the bits of one alone.
TEST_P(TiledTest, SimulationsOnSeveralThreadsAtOnce) {
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    if constexpr (wave2d::detail::runs_on_host<ExecutionSpace>) {
      Scene const scene = busy_scene(97, 83, 12);
      auto const run = [&] {
        ExecutionSpace space;
        Simulation<ExecutionSpace> simulation(space, scene, "kokkos-tiled");
        simulation.advance(space, 37);
        return wave2d::to_host(space, simulation.current());
      };
      std::vector<float> const alone = run();
      std::vector<int> differing(4, 0);
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < differing.size(); ++t) {
        threads.emplace_back([&, t] {
          for (int i = 0; i < 40; ++i) differing[t] += run() != alone;
        });
      }
      for (std::thread& thread : threads) thread.join();
      EXPECT_EQ(differing, std::vector<int>(4, 0)) << "runs that differ from one alone, a thread";
    } else {
      GTEST_SKIP() << GetParam() << ": host spaces only, whose launches the lock orders";
    }
  });
}

// A window larger than a device gives a team is refused when the stepper is made, with
// the shape named, and the instance still runs steppers that fit; host spaces, whose
// scratch is ordinary memory, run it.
TEST_P(TiledTest, WindowsPastTheTeamScratchLimitAreRefusedUpFront) {
  Scene const scene = busy_scene(300, 200, 61);
  auto large = default_shape();
  large.tile_x = 240;  // a 256 x 136 window: 136 KiB an array
  large.tile_y = 120;
  large.steps = 8;
  auto const initial = random_pair(scene, 62);
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    ExecutionSpace const space;
    auto const limit = wave2d::detail::team_scratch_limit(space, large.team_size);
    if (limit) {
      ASSERT_GT(large.scratch_bytes(false), *limit) << "the test's window fits this device";
      using Tiled = kokkos::TiledStepper<ExecutionSpace, typename ExecutionSpace::memory_space>;
      try {
        [[maybe_unused]] Tiled const refused(space, make_coefficients(space, scene), large);
        ADD_FAILURE() << "a " << large.describe(false) << " was accepted";
      } catch (std::invalid_argument const& e) {
        EXPECT_NE(std::string(e.what()).find("team scratch"), std::string::npos) << e.what();
      }
      // The default at T = 2: the folded form's five arrays fit the device too.
      large = default_shape();
      large.steps = 2;
    }
  });
  check(large, scene, initial, 3, 21, "300 x 200, after the large window");
}

// The default shapes (uniform κ, κ per cell; small and large grids) fit what the space
// gives a team, fuse at least the backend's depth (a window with that halo runs whole
// launches), one of them exactly that, and are what a stepper made without a shape takes.
// On host spaces a grid of two large tiles a thread or more gets the large tiles, a grid
// of fewer small tiles than threads shorter ones. (The backend tests run them against the
// reference.)
TEST_P(TiledTest, DefaultShapesFitTheTeamScratch) {
  Scene uniform = busy_scene(97, 71, 63);
  uniform.speed.clear();
  Scene const per_cell = busy_scene(97, 71, 64);
  ASSERT_FALSE(per_cell.speed.empty());
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    ExecutionSpace const space;
    int const depth = kokkos::tiled_fused_steps<ExecutionSpace>();
    int shallowest = std::numeric_limits<int>::max();
    for (bool const per_cell_kappa : {false, true}) {
      for (int const n : {97, 1000, 20000}) {
        auto const shape = kokkos::tiled_shape_for(space, per_cell_kappa, n, n);
        EXPECT_GE(shape.steps, depth) << shape.describe(per_cell_kappa);
        shallowest = std::min(shallowest, shape.steps);
        if (auto const limit = wave2d::detail::team_scratch_limit(space, shape.team_size)) {
          EXPECT_LE(shape.scratch_bytes(per_cell_kappa), *limit) << shape.describe(per_cell_kappa);
        }
      }
    }
    EXPECT_EQ(shallowest, depth);
    if constexpr (wave2d::detail::runs_on_host<ExecutionSpace>) {
      int const threads = space.concurrency();
      auto const large = kokkos::tiled_shape_for(space, false, 20000, 20000);
      auto const small = kokkos::tiled_shape_for(space, false, 97, 71);
      EXPECT_GT(large.tile_x * large.tile_y, small.tile_x * small.tile_y);
      // Two large tiles a thread, then one fewer.
      int const columns = 2 * threads;
      EXPECT_EQ(kokkos::tiled_shape_for(space, false, columns * large.tile_x, large.tile_y).tile_x,
                large.tile_x);
      EXPECT_EQ(
          kokkos::tiled_shape_for(space, false, (columns - 1) * large.tile_x, large.tile_y).tile_x,
          small.tile_x);
      // Tiles of equal size: a 3201-cell-wide grid in four columns of 816 cells, not three
      // of 1024 and one of 129; 3201 rows in 13 rows of 247.
      auto const equal = kokkos::tiled_shape_for(space, false, 3201, 256 * threads);
      EXPECT_EQ(equal.tile_x, 816) << equal.describe(false);
      EXPECT_EQ(equal.tile_y, 256) << equal.describe(false);
      if (threads <= 26) {
        EXPECT_EQ(kokkos::tiled_shape_for(space, false, 3201, 3201).tile_y, 247);
      }
      // A grid of one small tile: shorter tiles, one a thread (128 rows: at most 4 of 32).
      auto const tiny = kokkos::tiled_shape_for(space, false, small.tile_x, 128);
      EXPECT_GE(tiny.tile_y, 32);
      EXPECT_GE((128 + tiny.tile_y - 1) / tiny.tile_y, std::min(threads, 4))
          << tiny.describe(false);
      EXPECT_EQ(tiny.steps, small.steps);
    }
    for (Scene const* scene : std::array<Scene const*, 2>{&uniform, &per_cell}) {
      using Tiled = kokkos::TiledStepper<ExecutionSpace, typename ExecutionSpace::memory_space>;
      Tiled const stepper(space, make_coefficients(space, *scene));
      bool const per_cell_kappa = !scene->speed.empty();
      EXPECT_EQ(stepper.configuration().rfind(
                    kokkos::tiled_shape_for(space, per_cell_kappa, scene->nx, scene->ny)
                        .describe(per_cell_kappa),
                    0),
                0u)
          << stepper.configuration();
    }
  });
}

// Rows with coded spans of every kind, with a uniform κ: walls farther apart than a span
// merges (more than a row's spans: the last one takes the rest), walls close
// together (merged), damping bands at both ends, sources in plain stretches and on a
// span's edge, spans across the tiles' edges and their margins.
TEST_P(TiledTest, CodedSpansOfWideRows) {
  Scene scene = plain_scene(701, 45);
  scene.damping.width = 0.0f;
  scene.walls.assign(scene.cells(), 0);
  for (int y = 3; y < 45; y += 2) {
    for (int i = 0; i < 8; ++i) scene.walls[scene.index(40 + 80 * i + y % 7, y)] = 1;
  }
  for (int y = 8; y < 45; y += 6) {
    for (int x = 150; x < 190; x += 9) scene.walls[scene.index(x, y)] = 1;
  }
  scene.sources.push_back({300, 10, {Waveform::Shape::sine, 1.0f, 9.0f, 0.0f}});
  scene.sources.push_back({48, 12, {Waveform::Shape::ricker, 2.0f, 15.0f, 0.05f}});
  auto shape = default_shape();
  // The spans are the host wavefront's, tried with tile edges across them; a device runs
  // the same rows in its own shape.
  std::vector<std::array<int, 3>> shapes = {{shape.tile_x, shape.tile_y, shape.steps}};
  if (shape.wavefront) shapes = {{128, 16, 5}, {100, 9, 3}, {512, 44, 16}};
  for (auto const& [tile_x, tile_y, steps] : shapes) {
    shape.tile_x = tile_x;
    shape.tile_y = tile_y;
    shape.steps = steps;
    check(shape, scene, random_pair(scene, 95), 4, 21, "walls in wide rows");
  }
  scene.damping.width = 0.05f;
  check(shape, scene, random_pair(scene, 96), 4, 21, "walls and damping in wide rows");
}

INSTANTIATE_TEST_SUITE_P(Spaces, TiledTest, testing::ValuesIn(space_names()));

}  // namespace
}  // namespace wave2d::test
