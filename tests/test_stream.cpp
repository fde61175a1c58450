// kokkos-stream, the portable streaming kernel, with its space's lane exchange and with the
// portable default: grids narrower than a strip and not a multiple of it, segments of one
// row up to the whole grid, step counts not a multiple of T, sources and receivers on
// strip and segment edges. On host spaces bit for bit the reference's.
#include <wave2d_TestHelpers.hpp>

#include <wave2d/kokkos/wave2d_StreamStepper.hpp>

#include <string>
#include <tuple>
#include <vector>

namespace wave2d::test {
namespace {

struct StreamResult {
  HostPair fields;
  std::vector<float> trace;  // n_steps rows of one column a receiver
};

template <class ExecutionSpace, bool Specialized, class Shape = kokkos::StreamShape<ExecutionSpace>>
StreamResult run_stream(Scene const& scene, HostPair const& initial, std::int64_t first_step,
                        std::int64_t n_steps, int segment_rows) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  kokkos::StreamStepper<ExecutionSpace, MemorySpace, Specialized, Shape> stepper(
      space, make_coefficients(space, scene), segment_rows);
  auto const upload = [&](std::vector<float> const& host) {
    return to_field<MemorySpace>(space, host, scene.ny, scene.nx);
  };
  auto const count = std::int32_t(scene.receivers.size());
  Kokkos::View<ReceiverCell*, MemorySpace> cells("wave2d::test::cells", count);
  auto host_cells = Kokkos::create_mirror_view(cells);
  for (std::int32_t r = 0; r < count; ++r) {
    host_cells(r) = {scene.receivers[r].x, scene.receivers[r].y, r};
  }
  Kokkos::deep_copy(space, cells, host_cells);
  Kokkos::View<float*, MemorySpace> trace("wave2d::test::trace", std::size_t(n_steps) * count);
  Receivers const receivers{count, cells.data(), trace.data(), count, first_step + 1};

  FieldPair<MemorySpace> fields{upload(initial.previous), upload(initial.current), first_step};
  stepper.advance(space, fields, n_steps, receivers);
  space.fence();
  EXPECT_EQ(fields.step, first_step + n_steps);
  std::vector<float> host_trace(trace.size());
  Kokkos::deep_copy(
      Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          host_trace.data(), host_trace.size()),
      trace);
  return {{to_host<ExecutionSpace>(fields.previous), to_host<ExecutionSpace>(fields.current)},
          host_trace};
}

StreamResult run_reference_with_trace(Scene const& scene, HostPair pair, std::int64_t first_step,
                                      std::int64_t n_steps) {
  std::vector<float> trace;
  float* u0 = pair.previous.data();
  float* u1 = pair.current.data();
  for (std::int64_t s = first_step; s < first_step + n_steps; ++s) {
    std::tie(u0, u1) = reference::run(scene, s, 1, u0, u1);
    for (auto const& r : scene.receivers) trace.push_back(u1[scene.index(r.x, r.y)]);
  }
  return {{std::vector<float>(u0, u0 + scene.cells()), std::vector<float>(u1, u1 + scene.cells())},
          trace};
}

class StreamTest : public testing::TestWithParam<std::string> {
 protected:
  void check(Scene const& scene, HostPair const& initial, std::int64_t first_step,
             std::int64_t n_steps, int segment_rows, std::string const& what) {
    auto const expected = run_reference_with_trace(scene, initial, first_step, n_steps);
    for (bool const specialized : {true, false}) {
      StreamResult result;
      StreamResult again;
      with_space(GetParam(), [&]<class ExecutionSpace>() {
        if (specialized) {
          result =
              run_stream<ExecutionSpace, true>(scene, initial, first_step, n_steps, segment_rows);
          again =
              run_stream<ExecutionSpace, true>(scene, initial, first_step, n_steps, segment_rows);
        } else {
          result =
              run_stream<ExecutionSpace, false>(scene, initial, first_step, n_steps, segment_rows);
          again =
              run_stream<ExecutionSpace, false>(scene, initial, first_step, n_steps, segment_rows);
        }
      });
      std::string const where = what + ", segments of " + std::to_string(segment_rows) + " rows, " +
                                (specialized ? "the space's exchange" : "the default");
      EXPECT_EQ(result.fields.previous, again.fields.previous) << where;
      EXPECT_EQ(result.fields.current, again.fields.current) << where;
      EXPECT_EQ(result.trace, again.trace) << where;
      if (GetParam() == "Cuda") {
        double const tolerance = tolerance_for(GetParam());
        expect_close(expected.fields.previous, result.fields.previous, tolerance, where);
        expect_close(expected.fields.current, result.fields.current, tolerance, where);
        expect_close(expected.trace, result.trace, tolerance, where + ": trace");
      } else {
        EXPECT_EQ(expected.fields.previous, result.fields.previous) << where << ": u(t_{n-1})";
        EXPECT_EQ(expected.fields.current, result.fields.current) << where << ": u(t_n)";
        EXPECT_EQ(expected.trace, result.trace) << where << ": trace";
      }
    }
  }
};

// Receivers on strip and segment edges: the two cells beside the strips' meeting column at
// mid-height, one cell on the first segment boundary's row (row 0 without segments), the
// source's cell and two corners.
Scene with_receivers(Scene scene, int strip, int segment_rows) {
  auto add = [&](std::int32_t x, std::int32_t y) {
    scene.receivers.push_back({x, y, "r" + std::to_string(scene.receivers.size())});
  };
  for (std::int32_t x = strip - 1; x <= strip && x < scene.nx; ++x) add(x, scene.ny / 2);
  if (segment_rows < scene.ny) add(scene.nx / 3, segment_rows);
  add(scene.sources[0].x, scene.sources[0].y);
  add(0, 0);
  add(scene.nx - 1, scene.ny - 1);
  return scene;
}

// Grids narrower than a strip, a few strips wide (not a multiple of what a strip writes),
// tall and flat; segments of 1, 7 and 20 rows and the default; 1, 6, 7, 8 and 19 steps
// (below, at and past T, 6 on devices and 8 on hosts; multiples of it and not), with
// receivers and (19 steps) without.
TEST_P(StreamTest, SizesSegmentsAndStepCounts) {
  std::uint32_t seed = 70;
  int written = 0;
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    written = kokkos::StreamShape<ExecutionSpace>::written;
  });
  for (auto [nx, ny] :
       {std::pair{61, 37}, {3, 3}, {2 * written + 37, 45}, {written + 1, 130}, {17, 90}}) {
    for (int segment_rows : {0, 1, 7, 20}) {
      Scene const scene = with_receivers(busy_scene(nx, ny, seed), written, segment_rows);
      for (std::int64_t steps : {1, 6, 7, 8, 19}) {
        check(scene, random_pair(scene, seed++), 5, steps, segment_rows,
              std::to_string(nx) + " x " + std::to_string(ny) + ", " + std::to_string(steps) +
                  " steps");
      }
      // Without receivers (launches compiled without their code).
      Scene const unrecorded = busy_scene(nx, ny, seed);
      check(unrecorded, random_pair(unrecorded, seed++), 5, 19, segment_rows,
            std::to_string(nx) + " x " + std::to_string(ny) + ", 19 steps, no receivers");
    }
  }
}

// κ per cell and uniform, and a plain inside (windows that read no code) beside coded ones.
TEST_P(StreamTest, SpeedPerCellAndPlainWindows) {
  std::uint32_t seed = 90;
  int written = 0;
  with_space(GetParam(), [&]<class ExecutionSpace>() {
    written = kokkos::StreamShape<ExecutionSpace>::written;
  });
  int const n = 3 * written + 11;
  Scene plain = plain_scene(n, n);
  check(plain, random_pair(plain, seed++), 0, 21, 30, "plain, uniform κ");
  Scene busy = busy_scene(n, 80, seed);  // κ per cell
  check(busy, random_pair(busy, seed++), 3, 17, 25, "κ per cell");
  busy.speed.clear();
  check(busy, random_pair(busy, seed++), 3, 17, 25, "uniform κ");
}

#if defined(KOKKOS_ENABLE_OPENMP)
// The portable exchange between lanes on a host: teams of 2 OpenMP threads, each lane 8
// columns, T = 5.
TEST(StreamLanes, TradeThroughTeamScratchOnOpenMP) {
  using Shape = kokkos::StreamShapeOf<5, 8, 2>;
  if (Kokkos::OpenMP().concurrency() < Shape::lanes) {
    GTEST_SKIP() << "teams of " << Shape::lanes << " threads need an OpenMP pool of as many";
  }
  std::uint32_t seed = 110;
  for (auto [nx, ny] : {std::pair{5, 9}, {16, 16}, {53, 41}}) {
    Scene const scene = with_receivers(busy_scene(nx, ny, seed), Shape::written, 6);
    for (int segment_rows : {0, 6}) {
      for (std::int64_t steps : {4, 5, 13}) {
        HostPair const initial = random_pair(scene, seed++);
        auto const expected = run_reference_with_trace(scene, initial, 2, steps);
        auto const result =
            run_stream<Kokkos::OpenMP, false, Shape>(scene, initial, 2, steps, segment_rows);
        std::string const where = std::to_string(nx) + " x " + std::to_string(ny) + ", " +
                                  std::to_string(steps) + " steps, segments of " +
                                  std::to_string(segment_rows);
        EXPECT_EQ(expected.fields.previous, result.fields.previous) << where;
        EXPECT_EQ(expected.fields.current, result.fields.current) << where;
        EXPECT_EQ(expected.trace, result.trace) << where;
      }
    }
  }
}
#endif

INSTANTIATE_TEST_SUITE_P(Spaces, StreamTest, testing::ValuesIn(space_names()));

}  // namespace
}  // namespace wave2d::test
