// Receivers: every backend's trace against the reference's, on walls, sources, the
// border and the edges of the fused kernels' tiles, over several advance() calls.
#include <wave2d_TestHelpers.hpp>

#include <algorithm>
#include <tuple>

namespace wave2d::test {
namespace {

// The trace the reference records from `initial` at `first_step`: (n_steps + 1) rows.
std::vector<float> reference_trace(Scene const& scene, HostPair pair, std::int64_t first_step,
                                   std::int64_t n_steps) {
  std::vector<float> trace;
  float* u0 = pair.previous.data();
  float* u1 = pair.current.data();
  auto const record = [&] {
    for (auto const& r : scene.receivers) trace.push_back(u1[scene.index(r.x, r.y)]);
  };
  record();
  for (std::int64_t s = first_step; s < first_step + n_steps; ++s) {
    std::tie(u0, u1) = reference::run(scene, s, 1, u0, u1);
    record();
  }
  return trace;
}

template <class ExecutionSpace>
std::vector<float> trace_on_host(Simulation<ExecutionSpace> const& simulation) {
  auto const trace = simulation.receivers();
  EXPECT_EQ(trace.extent(0),
            std::size_t(simulation.steps_done() - simulation.receivers_first_step() + 1));
  EXPECT_EQ(trace.extent(1), simulation.scene().receivers.size());
  std::vector<float> host(trace.size());
  Kokkos::deep_copy(Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        host.data(), trace.extent(0), trace.extent(1)),
                    trace);
  return host;
}

// The cells where tiles of the fused kernels meet, for every tile shape of the build.
std::vector<std::int32_t> tile_edges(std::int32_t n) {
  std::vector<std::int32_t> edges;
  for (std::int32_t tile : {24, 32, 48, 56, 112, 128, 256}) {
    for (std::int32_t e = tile; e < n; e += tile) {
      for (std::int32_t d : {-1, 0}) edges.push_back(e + d);
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

// A busy scene with receivers on the four kinds of cell and on tile edges.
Scene scene_with_receivers(std::int32_t nx, std::int32_t ny, std::uint32_t seed) {
  Scene scene = busy_scene(nx, ny, seed);
  auto add = [&](std::int32_t x, std::int32_t y) {
    scene.receivers.push_back({x, y, "r" + std::to_string(scene.receivers.size())});
  };
  add(scene.sources[0].x, scene.sources[0].y);  // on a source
  add(scene.sources[1].x, scene.sources[1].y);
  add(0, ny / 2);  // on the border
  add(nx - 1, ny - 1);
  for (std::int32_t i = 0; i < scene.cells(); ++i) {  // on a wall
    if (scene.walls[i] != 0) {
      add(i % nx, i / nx);
      break;
    }
  }
  add(nx / 2, ny / 2);
  add(nx / 2, ny / 2);  // twice the same cell
  auto const xs = tile_edges(nx);
  auto const ys = tile_edges(ny);
  for (std::size_t i = 0; i < std::max(xs.size(), ys.size()); ++i) {
    add(xs[i % xs.size()], ys[(i * 7) % ys.size()]);
  }
  for (std::int32_t y : ys) add(xs[0], y);
  return scene;
}

class ReceiversTest : public testing::TestWithParam<BackendCase> {
 protected:
  // Runs the backend from `initial` at `first_step` in advance() calls of `chunks` steps
  // and compares its trace with the reference's.
  void check(Scene const& scene, HostPair const& initial, std::int64_t first_step,
             std::vector<std::int64_t> const& chunks, std::string const& what) {
    auto const& param = GetParam();
    std::int64_t n_steps = 0;
    for (auto c : chunks) n_steps += c;
    auto const expected = reference_trace(scene, initial, first_step, n_steps);
    std::vector<float> trace;
    with_space(param.space, [&]<class ExecutionSpace>() {
      ExecutionSpace space;
      Simulation<ExecutionSpace> simulation(space, scene, param.backend);
      run_from(space, simulation, initial, first_step, 0);
      for (auto c : chunks) simulation.advance(space, c);
      EXPECT_EQ(simulation.receivers_first_step(), first_step);
      trace = trace_on_host(simulation);
      // The last row is the field's u(t_n).
      auto const current = to_host<ExecutionSpace>(simulation.current());
      for (std::size_t i = 0; i < scene.receivers.size(); ++i) {
        auto const& r = scene.receivers[i];
        EXPECT_EQ(trace[n_steps * scene.receivers.size() + i], current[scene.index(r.x, r.y)])
            << what << ": last row, receiver " << i;
      }
    });
    ASSERT_EQ(trace.size(), expected.size()) << what;
    // Row 0 is the initial state: exact.
    for (std::size_t i = 0; i < scene.receivers.size(); ++i) {
      EXPECT_EQ(trace[i], expected[i]) << what << ": row 0, receiver " << i;
    }
    expect_close(expected, trace, tolerance_for(param.space), what);
  }
};

TEST_P(ReceiversTest, WallsSourcesBorderAndTileEdges) {
  Scene const scene = scene_with_receivers(301, 157, 3);
  // 29 steps, not a multiple of any fused depth, in uneven calls.
  check(scene, zeros(scene), 0, {10, 1, 18}, "301 x 157 from rest");
}

TEST_P(ReceiversTest, FromRandomFieldsAtALaterStep) {
  Scene const scene = scene_with_receivers(130, 67, 8);
  check(scene, random_pair(scene, 9), 123, {13, 0, 8, 3}, "130 x 67 from step 123");
}

TEST_P(ReceiversTest, SmallAndOddGrids) {
  std::uint32_t seed = 20;
  for (auto [nx, ny] : {std::pair{3, 3}, {4, 5}, {33, 17}, {100, 7}}) {
    Scene scene = busy_scene(nx, ny, seed);
    // More receivers than cells: the one-step kernels' recording threads wrap around.
    for (int i = 0; i < 40; ++i) {
      scene.receivers.push_back({(i * 5) % nx, (i * 3) % ny, "r" + std::to_string(i)});
    }
    check(scene, random_pair(scene, seed++), 5, {1, 7, 9},
          std::to_string(nx) + " x " + std::to_string(ny));
  }
}

TEST_P(ReceiversTest, DoubleSlitSmallFullRun) {
  Scene scene = builtin_scene("double-slit-small");
  for (int i = 0; i < 16; ++i) {
    scene.receivers.push_back({20 + 10 * i, 30 + 9 * i, ""});
  }
  check(scene, zeros(scene), 0, {scene.steps}, "double-slit-small, 800 steps");
}

// Large enough for windows away from the border, with receivers in the quiet middle (where
// a fused kernel may skip per-cell data), in the absorbing layer, on a wall and its gap,
// in speed regions, several in one row and one column.
TEST_P(ReceiversTest, WindowsOfEveryKind) {
  Scene scene = point_source_scene(601);
  scene.walls.assign(std::size_t(scene.cells()), 0);
  for (std::int32_t y = 1; y < scene.ny - 1; ++y) {
    if (y < 250 || y > 280) scene.walls[std::size_t(scene.index(407, y))] = 1;
  }
  for (std::int32_t i = 0; i < 12; ++i) {
    scene.receivers.push_back({150 + 37 * i, 300, ""});
    scene.receivers.push_back({300, 90 + 41 * i, ""});
  }
  for (auto [x, y] : {std::pair{5, 5}, {595, 300}, {407, 100}, {407, 265}, {406, 265}}) {
    scene.receivers.push_back({x, y, ""});
  }
  check(scene, random_pair(scene, 9), 5, {29, 3}, "601 x 601, a wall, uniform speed");
  scene.speed.resize(std::size_t(scene.cells()));
  for (std::int32_t y = 0; y < scene.ny; ++y) {
    for (std::int32_t x = 0; x < scene.nx; ++x) {
      scene.speed[std::size_t(scene.index(x, y))] = scene.c * (0.8f + 0.2f * float(x % 7) / 7.0f);
    }
  }
  check(scene, random_pair(scene, 10), 5, {16}, "601 x 601, a wall, speed per cell");
}

// A grid large enough that cuda-stream merges a strip's segments into longer windows on
// an H200 (2048², "Balancing" in docs/kernels/cuda-stream.md): receivers on segment
// boundaries and several rows of one strip (one window records those of several
// segments), in the quiet inside, in the absorbing layer and beside a wall.
TEST_P(ReceiversTest, ReceiversInLongWindows) {
  Scene scene = point_source_scene(2048);
  scene.walls.assign(std::size_t(scene.cells()), 0);
  for (std::int32_t y = 300; y < 1700; ++y) scene.walls[std::size_t(scene.index(1500, y))] = 1;
  for (std::int32_t i = 0; i < 24; ++i) {
    scene.receivers.push_back({1000 + i % 3, 500 + 8 * i + (i % 2), ""});  // rows 8 apart
  }
  for (auto [x, y] : {std::pair{1001, 900},
                      {1001, 907},
                      {100, 1024},
                      {1024, 60},
                      {1499, 1000},
                      {1501, 1000},
                      {2040, 2040}}) {
    scene.receivers.push_back({x, y, ""});
  }
  check(scene, random_pair(scene, 12), 3, {13, 3}, "2048 x 2048, a wall");
}

TEST_P(ReceiversTest, ResetAndSetStateRestartTheTrace) {
  auto const& param = GetParam();
  Scene const scene = scene_with_receivers(70, 50, 5);
  HostPair const start = random_pair(scene, 6);
  with_space(param.space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Simulation<ExecutionSpace> simulation(space, scene, param.backend);
    auto const columns = scene.receivers.size();
    EXPECT_EQ(trace_on_host(simulation), std::vector<float>(columns, 0.0f));
    simulation.advance(space, 12);
    EXPECT_EQ(simulation.receivers().extent(0), 13u);
    run_from(space, simulation, start, 40, 3);
    auto const trace = trace_on_host(simulation);
    ASSERT_EQ(trace.size(), 4 * columns);
    for (std::size_t i = 0; i < columns; ++i) {
      auto const& r = scene.receivers[i];
      EXPECT_EQ(trace[i], start.current[scene.index(r.x, r.y)]) << "set_state's row 0";
    }
    simulation.restart_receivers(space);
    EXPECT_EQ(simulation.receivers_first_step(), 43);
    EXPECT_EQ(simulation.receivers().extent(0), 1u);
    simulation.reset(space);
    EXPECT_EQ(simulation.receivers_first_step(), 0);
    EXPECT_EQ(trace_on_host(simulation), std::vector<float>(columns, 0.0f));
    // Reserved rows: the buffer does not move.
    simulation.reserve_receivers(space, 300);
    float const* buffer = simulation.receivers().data();
    for (int i = 0; i < 3; ++i) simulation.advance(space, 100);
    EXPECT_EQ(simulation.receivers().data(), buffer);
    EXPECT_EQ(simulation.receivers().extent(0), 301u);
  });
}

// Rows put back (a checkpoint's) go on as if the run had never stopped: the trace of a
// run resumed at step 17 is that of a run from step 0, bit for bit.
TEST_P(ReceiversTest, RestoredRowsContinueTheTrace) {
  auto const& param = GetParam();
  Scene const scene = scene_with_receivers(90, 70, 11);
  auto const columns = scene.receivers.size();
  using HostRows = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  with_space(param.space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Simulation<ExecutionSpace> whole(space, scene, param.backend);
    whole.advance(space, 40);
    auto const expected = trace_on_host(whole);
    Simulation<ExecutionSpace> first(space, scene, param.backend);
    first.advance(space, 17);

    // From the memory space, into a reserved trace: the buffer does not move.
    Simulation<ExecutionSpace> resumed(space, scene, param.backend);
    resumed.reserve_receivers(space, 40);
    resumed.set_state(space, first.previous(), first.current(), 17);
    float const* buffer = resumed.receivers().data();
    resumed.restore_receivers(space, first.receivers(), 0);
    EXPECT_EQ(resumed.receivers_first_step(), 0);
    EXPECT_EQ(resumed.receivers().extent(0), 18u);
    resumed.advance(space, 10);
    resumed.advance(space, 13);
    EXPECT_EQ(resumed.receivers().data(), buffer);
    EXPECT_EQ(trace_on_host(resumed), expected);

    // From the host, unreserved: the trace grows to hold them.
    auto const rows = trace_on_host(first);
    Simulation<ExecutionSpace> from_host(space, scene, param.backend);
    from_host.set_state(space, first.previous(), first.current(), 17);
    from_host.restore_receivers(space, HostRows(rows.data(), 18, columns), 0);
    from_host.advance(space, 23);
    EXPECT_EQ(trace_on_host(from_host), expected);

    // Rows that are not those of steps first_step .. steps_done().
    EXPECT_THROW(from_host.restore_receivers(space, HostRows(rows.data(), 18, columns), 0),
                 std::invalid_argument);
    EXPECT_THROW(from_host.restore_receivers(space, HostRows(rows.data(), 1, columns - 1), 40),
                 std::invalid_argument);
    EXPECT_THROW(from_host.restore_receivers(space, HostRows(rows.data(), 1, columns), 41),
                 std::invalid_argument);
    EXPECT_EQ(trace_on_host(from_host), expected) << "changed by a refused call";
  });
}

TEST_P(ReceiversTest, SceneWithoutReceivers) {
  auto const& param = GetParam();
  Scene const scene = busy_scene(40, 30, 1);
  with_space(param.space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Simulation<ExecutionSpace> simulation(space, scene, param.backend);
    simulation.advance(space, 9);
    EXPECT_EQ(simulation.receivers().extent(0), 10u);
    EXPECT_EQ(simulation.receivers().extent(1), 0u);
    simulation.restore_receivers(space, Kokkos::View<float**, Kokkos::LayoutRight>("none", 6, 0),
                                 4);
    EXPECT_EQ(simulation.receivers_first_step(), 4);
    simulation.advance(space, 2);
    EXPECT_EQ(simulation.receivers().extent(0), 8u);
  });
}

// A window records the receivers of its owned cells, as the whole grid does for its
// halo's depth of steps; the others' columns stay 0.
TEST_P(ReceiversTest, WindowRecordsItsOwnedReceivers) {
  auto const& param = GetParam();
  Scene const scene = scene_with_receivers(97, 61, 21);
  HostPair const start = random_pair(scene, 22);
  std::int32_t const halo = 8;
  Window const window{scene.nx, scene.ny, 30, 20, 40, 30, halo};
  std::vector<float> whole;
  std::vector<float> local;
  with_space(param.space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Simulation<ExecutionSpace> all(space, scene, param.backend);
    run_from(space, all, start, 40, halo);
    whole = trace_on_host(all);
    HostPair cut;
    for (std::int32_t y = 0; y < window.local_ny(); ++y) {
      for (std::int32_t x = 0; x < window.local_nx(); ++x) {
        auto const g = std::size_t(scene.index(window.origin_x() + x, window.origin_y() + y));
        cut.previous.push_back(start.previous[g]);
        cut.current.push_back(start.current[g]);
      }
    }
    Simulation<ExecutionSpace> part(space, scene, window, param.backend);
    run_from(space, part, cut, 40, 3);
    part.advance(space, halo - 3);
    local = trace_on_host(part);
  });
  ASSERT_EQ(whole.size(), local.size());
  std::size_t const columns = scene.receivers.size();
  int owned = 0;
  for (std::size_t i = 0; i < columns; ++i) {
    auto const& r = scene.receivers[i];
    bool const in = r.x >= window.x0 && r.x < window.x0 + window.nx && r.y >= window.y0 &&
                    r.y < window.y0 + window.ny;
    owned += in;
    for (std::size_t row = 0; row * columns < whole.size(); ++row) {
      float const expected = in ? whole[row * columns + i] : 0.0f;
      ASSERT_EQ(local[row * columns + i], expected) << "receiver " << i << ", row " << row;
    }
  }
  EXPECT_GT(owned, 2);
  EXPECT_LT(owned, int(columns));
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ReceiversTest, testing::ValuesIn(all_backend_cases()),
                         case_name);

TEST(Receivers, ValidatedWithTheScene) {
  Scene scene = plain_scene(20, 10);
  scene.receivers.push_back({19, 9, "corner"});
  scene.receivers.push_back({3, 4, ""});
  EXPECT_NO_THROW(validate(scene));
  EXPECT_EQ(receiver_name(scene, 1), "r1");
  auto const refused = [](Scene s, std::string const& message) {
    try {
      validate(s);
      ADD_FAILURE() << "accepted: " << message;
    } catch (SceneError const& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  Scene outside = scene;
  outside.receivers.push_back({20, 0, "out"});
  refused(outside, "receiver 2 at (20, 0) lies outside the 20 x 10 grid");
  outside.receivers.back() = {0, -1, "out"};
  refused(outside, "receiver 2 at (0, -1) lies outside");
  Scene twice = scene;
  twice.receivers.push_back({1, 1, "corner"});
  refused(twice, "two receivers are named 'corner'");
  Scene implicit = scene;
  implicit.receivers.push_back({1, 1, "r1"});  // the name receiver 1 gets
  refused(implicit, "two receivers are named 'r1'");
  for (std::string const column : {"step", "time"}) {
    Scene header = scene;
    header.receivers.push_back({1, 1, column});
    refused(header, "receiver 2 is named '" + column + "', a column the receivers' CSV file has");
  }
  Scene comma = scene;
  comma.receivers.push_back({1, 1, "a,b"});
  refused(comma, "receiver 2's name must be");
  Scene many = scene;
  many.receivers.assign(max_receivers + 1, Receiver{1, 1, ""});
  refused(many, "4097 receivers, more than the 4096");
}

}  // namespace
}  // namespace wave2d::test
