// The halo exchange (CTest runs these under mpirun on 1, 2, 3, 4 and 6 ranks, with
// test_distributed.cpp): eight messages of derived datatypes, and ranks that step while
// their halos travel (Options::overlap) give the bits of one process, receivers included.
#include <wave2d/distributed/wave2d_DistributedSimulation.hpp>
#include <wave2d_TestHelpers.hpp>
#include <wave2d_TestMpi.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>

namespace wave2d::test {
namespace {

using Space = Kokkos::DefaultExecutionSpace;

// busy_scene with receivers in every rank's border strips: on and next to the blocks'
// edges and corners of a 2 x 3 or 3 x 2 split, and in their interiors.
Scene scene_with_receivers() {
  Scene scene = busy_scene(97, 101, 7);
  for (std::int32_t x : {0, 1, 31, 32, 33, 48, 49, 50, 64, 65, 66, 96}) {
    for (std::int32_t y : {0, 2, 33, 34, 35, 50, 51, 67, 68, 100}) {
      scene.receivers.push_back({x, y, "r" + std::to_string(scene.receivers.size())});
    }
  }
  return scene;
}

struct Result {
  std::vector<float> previous;
  std::vector<float> current;
  std::vector<float> receivers;
};

Result one_process(std::string const& backend, Scene const& scene, std::int64_t steps) {
  Space space;
  Simulation<Space> simulation(space, scene, backend);
  simulation.advance(space, steps);
  return {wave2d::to_host(space, simulation.previous()),
          wave2d::to_host(space, simulation.current()),
          wave2d::to_host(space, simulation.receivers())};
}

class ExchangeTest : public testing::TestWithParam<std::string> {};

TEST_P(ExchangeTest, OverlappedOrNotEqualsOneProcessBitwise) {
  std::string const& backend = GetParam();
  Space space;
  Scene const scene = scene_with_receivers();
  Result const expected = world_rank() == 0 ? one_process(backend, scene, 37) : Result{};
  for (bool overlap : {true, false}) {
    for (std::int32_t halo : {2, 0}) {
      DistributedSimulation<Space>::Options options;
      options.overlap = overlap;
      options.halo = halo;
      DistributedSimulation<Space> distributed(MPI_COMM_WORLD, space, scene, backend, options);
      // A halo of 2 fits any split of 6 ranks or fewer: the ranks overlap when asked.
      if (halo == 2) EXPECT_EQ(distributed.overlaps(), overlap);
      for (std::int64_t steps : {10, 1, 26}) distributed.advance(space, steps);
      auto const [previous, current] = distributed.gather(space);
      auto const receivers = distributed.gather_receivers(space);
      if (world_rank() != 0) continue;
      std::string const what = std::string(overlap ? "overlapped" : "not overlapped") + ", halo " +
                               std::to_string(distributed.window().halo);
      EXPECT_EQ(previous, expected.previous) << what;
      EXPECT_EQ(current, expected.current) << what;
      EXPECT_EQ(receivers, expected.receivers) << what << ": the receivers' trace";
    }
  }
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (auto const& backend : backends<Space>()) names.emplace_back(backend.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ExchangeTest, testing::ValuesIn(backend_names()),
                         [](testing::TestParamInfo<std::string> const& info) {
                           std::string name = info.param;
                           for (auto& c : name) c = std::isalnum(unsigned(c)) ? c : '_';
                           return name;
                         });

// Whether a and b are the same fields but for the bits of cells that are not finite in both.
bool same_finite_cells(std::vector<float> const& a, std::vector<float> const& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isfinite(a[i]) != std::isfinite(b[i]) || (std::isfinite(a[i]) && a[i] != b[i])) {
      return false;
    }
  }
  return true;
}

// A field that stops being finite steps on as on one process, overlapped or not (its run
// finds it by the check after the steps): the strips take any state their window holds.
TEST(Exchange, AFieldThatStopsBeingFiniteStepsOnAsOnOneProcess) {
  Space space;
  Scene scene = plain_scene(64, 48);
  scene.dt = 0.9f;  // far past the stability bound
  scene.steps = 200;
  scene.sources.push_back({50, 40, {Waveform::Shape::sine, 1.0f, 0.1f, 0.0f}});
  ValidationOptions const unstable{.allow_unstable = true};
  Simulation<Space> one(space, scene, "kokkos-mdrange", unstable);
  one.advance(space, scene.steps);
  std::vector<float> const expected = wave2d::to_host(space, one.current());
  ASSERT_FALSE(std::ranges::all_of(expected, [](float u) { return std::isfinite(u); }))
      << "the scene must diverge within its steps";
  for (bool overlap : {true, false}) {
    DistributedSimulation<Space>::Options options;
    options.overlap = overlap;
    options.halo = 2;
    options.validation = unstable;
    DistributedSimulation<Space> distributed(MPI_COMM_WORLD, space, scene, "kokkos-mdrange",
                                             options);
    std::string const what = overlap ? "overlapped" : "not overlapped";
    if (world_size() <= 6) EXPECT_EQ(distributed.overlaps(), overlap) << what;
    for (std::int64_t steps : {std::int64_t(10), std::int64_t(1), scene.steps - 11}) {
      ASSERT_NO_THROW(distributed.advance(space, steps)) << what;
    }
    EXPECT_TRUE(distributed.first_non_finite(space).has_value()) << what;
    auto const [previous, current] = distributed.gather(space);
    if (world_rank() == 0) EXPECT_TRUE(same_finite_cells(current, expected)) << what;
  }
}

TEST(Exchange, OverlapIsTheDefaultOnDeviceSpacesOnly) {
  bool const device = !Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible;
  EXPECT_EQ(DistributedSimulation<Space>::Options{}.overlap, device);
}

// A grid whose blocks are too small for the strips: every rank waits for its halos.
TEST(Exchange, RanksOverlapOnlyWhereEveryWindowFits) {
  Space space;
  DistributedSimulation<Space>::Options options;
  options.halo = 8;
  options.ranks = {world_size(), 1};
  options.overlap = true;
  DistributedSimulation<Space> narrow(MPI_COMM_WORLD, space, busy_scene(16 * world_size(), 60, 2),
                                      "kokkos-mdrange", options);
  EXPECT_FALSE(narrow.overlaps());
  narrow.advance(space, 20);
  EXPECT_EQ(narrow.steps_done(), 20);
}

// Where MPI says it reads and writes CUDA device memory, the halos go from device to device:
// the same bits as one process on the GPU, for every backend there.
TEST(Exchange, CudaAwareMpiCarriesTheHalosFromDeviceToDevice) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (!detail::mpi_is_cuda_aware()) {
    GTEST_SKIP() << "this MPI reports no CUDA-aware support (MPIX_Query_cuda_support): "
                    "halos are staged through host buffers, as the other tests check";
  }
  using Cuda = Kokkos::Cuda;
  Cuda space;
  Scene const scene = scene_with_receivers();
  for (auto const& backend : backends<Cuda>()) {
    DistributedSimulation<Cuda> distributed(MPI_COMM_WORLD, space, scene, backend.name);
    EXPECT_EQ(distributed.exchange_path(), "CUDA-aware MPI");
    distributed.advance(space, 37);
    auto const [previous, current] = distributed.gather(space);
    auto const receivers = distributed.gather_receivers(space);
    if (world_rank() != 0) continue;
    Simulation<Cuda> one(space, scene, backend.name);
    one.advance(space, 37);
    EXPECT_EQ(previous, wave2d::to_host(space, one.previous())) << backend.name;
    EXPECT_EQ(current, wave2d::to_host(space, one.current())) << backend.name;
    EXPECT_EQ(receivers, wave2d::to_host(space, one.receivers())) << backend.name;
  }
#else
  GTEST_SKIP() << "this build has no CUDA execution space: no device halos to carry";
#endif
}

}  // namespace
}  // namespace wave2d::test
