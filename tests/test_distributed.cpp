// DistributedSimulation under mpirun (CTest starts it on 1, 2, 3, 4 and 6 ranks): the
// gathered field and receivers' trace equal the single-process run of the same backend, bit
// for bit.
#include <wave2d/distributed/wave2d_DistributedSimulation.hpp>
#include <wave2d_TestHelpers.hpp>
#include <wave2d_TestMpi.hpp>

#include <mpi.h>

#include <limits>
#include <tuple>

namespace wave2d::test {
namespace {

using Space = Kokkos::DefaultExecutionSpace;

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (auto const& backend : backends<Space>()) names.emplace_back(backend.name);
  names.emplace_back(auto_backend);
  return names;
}

// busy_scene, with sources and a wall on the first cells of the second block of ranks
// in x and y, whatever the decomposition: on rank boundaries. 97 x 101 cells: six ranks
// in a row or a column each own at least 16, the deepest default halo (kokkos-tiled's T
// on host spaces).
Scene scene_across_ranks(std::array<int, 2> ranks) {
  Scene scene = busy_scene(97, 101, 31);
  std::int32_t const bx = block_of(scene.nx, ranks[0], std::min(1, ranks[0] - 1)).start;
  std::int32_t const by = block_of(scene.ny, ranks[1], std::min(1, ranks[1] - 1)).start;
  for (std::int32_t y = 1; y < scene.ny - 1; y += 3) scene.walls[scene.index(bx, y)] = 1;
  for (auto [x, y] : {std::pair{bx, by}, {bx - 1, by - 1}, {bx + 2, 7}, {11, by}}) {
    x = std::clamp(x, 1, scene.nx - 2);
    y = std::clamp(y, 1, scene.ny - 2);
    bool taken = false;
    for (auto const& s : scene.sources) taken = taken || (s.x == x && s.y == y);
    if (!taken) scene.sources.push_back({x, y, {Waveform::Shape::sine, 3.0f, 25.0f, 0.0f}});
  }
  // Receivers on both sides of the rank boundaries, on sources, a wall and the border.
  for (auto [x, y] : {std::pair{bx, by},
                      {bx - 1, by - 1},
                      {bx - 1, by},
                      {bx, 30},
                      {50, by},
                      {bx + 2, 7},
                      {bx, 1},
                      {0, 0},
                      {96, 60},
                      {11, by}}) {
    x = std::clamp(x, 0, scene.nx - 1);
    y = std::clamp(y, 0, scene.ny - 1);
    scene.receivers.push_back({x, y, "r" + std::to_string(scene.receivers.size())});
  }
  return scene;
}

struct OneProcess {
  HostPair fields;
  std::vector<float> receivers;
};

OneProcess one_process(std::string const& backend, Scene const& scene, std::int64_t steps) {
  Space space;
  Simulation<Space> simulation(space, scene, backend);
  simulation.advance(space, steps);
  auto const trace =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), simulation.receivers());
  space.fence();
  return {{to_host<Space>(simulation.previous()), to_host<Space>(simulation.current())},
          std::vector<float>(trace.data(), trace.data() + trace.size())};
}

class DistributedTest : public testing::TestWithParam<std::string> {};

TEST_P(DistributedTest, EqualsOneProcessBitwise) {
  std::string const& backend = GetParam();
  Space space;
  int const n = world_size();
  for (std::array<int, 2> ranks : {std::array{0, 0}, std::array{n, 1}, std::array{1, n}}) {
    for (std::int32_t halo : {0, 3}) {
      DistributedSimulation<Space>::Options options;
      options.ranks = ranks;
      options.halo = halo;
      // Sources and wall placed for the decomposition MPI_Dims_create picks, too.
      int dims[2] = {ranks[0], ranks[1]};
      MPI_Dims_create(n, 2, dims);
      Scene const scene = scene_across_ranks({dims[0], dims[1]});
      DistributedSimulation<Space> distributed(MPI_COMM_WORLD, space, scene, backend, options);
      EXPECT_EQ(distributed.ranks()[0] * distributed.ranks()[1], n);
      // 37 steps in uneven calls: not a multiple of the halo or of any fused depth.
      for (std::int64_t steps : {10, 1, 26}) distributed.advance(space, steps);
      EXPECT_EQ(distributed.steps_done(), 37);
      auto const [previous, current] = distributed.gather(space);
      auto const receivers = distributed.gather_receivers(space);
      if (world_rank() != 0) {
        EXPECT_TRUE(previous.empty() && current.empty() && receivers.empty());
        continue;
      }
      auto const expected = one_process(backend, scene, 37);
      std::string const what = std::to_string(distributed.ranks()[0]) + "x" +
                               std::to_string(distributed.ranks()[1]) + " ranks, halo " +
                               std::to_string(distributed.window().halo);
      EXPECT_EQ(previous, expected.fields.previous) << what << ": u(t_{n-1})";
      EXPECT_EQ(current, expected.fields.current) << what << ": u(t_n)";
      EXPECT_EQ(receivers.size(), 38 * scene.receivers.size()) << what;
      EXPECT_EQ(receivers, expected.receivers) << what << ": the receivers' trace";
    }
  }
}

TEST_P(DistributedTest, DefaultHaloIsTheBackendsFusedDepth) {
  Space space;
  Scene const scene = busy_scene(97, 61, 3);
  DistributedSimulation<Space> distributed(MPI_COMM_WORLD, space, scene, GetParam());
  std::string const& runs = distributed.local().backend();
  if (GetParam() != auto_backend) EXPECT_EQ(runs, GetParam());
  EXPECT_EQ(distributed.window().halo, find_backend<Space>(runs).fused_steps);
  // auto: rank 0 plans, every rank runs what it chose.
  EXPECT_EQ(distributed.plan() != nullptr, GetParam() == auto_backend && world_rank() == 0);
  std::array<char, 64> first{};
  runs.copy(first.data(), first.size() - 1);
  MPI_Bcast(first.data(), int(first.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_EQ(runs, std::string(first.data())) << "rank " << world_rank();
}

INSTANTIATE_TEST_SUITE_P(AllBackends, DistributedTest, testing::ValuesIn(backend_names()),
                         [](testing::TestParamInfo<std::string> const& info) {
                           std::string name = info.param;
                           for (auto& c : name) c = std::isalnum(unsigned(c)) ? c : '_';
                           return name;
                         });

TEST(Distributed, OneRanksBadSceneEndsEveryRankWithItsMessage) {
  Space space;
  int const failing = world_size() - 1;
  Scene scene = busy_scene(40, 30, 1);
  if (world_rank() == failing) scene.dx = -1.0f;
  try {
    DistributedSimulation<Space> distributed(MPI_COMM_WORLD, space, scene);
    ADD_FAILURE() << "no rank threw";
  } catch (SceneError const& e) {
    // Rank 0's failure goes without its rank.
    std::string const from = failing == 0 ? "dx" : "rank " + std::to_string(failing) + ": dx";
    EXPECT_NE(std::string(e.what()).find(from), std::string::npos) << e.what();
  }
}

TEST(Distributed, AGridTooSmallForTheRanksAndHaloIsRefusedOnEveryRank) {
  Space space;
  DistributedSimulation<Space>::Options options;
  options.halo = 8;
  options.ranks = {world_size(), 1};
  EXPECT_THROW(DistributedSimulation<Space>(MPI_COMM_WORLD, space, busy_scene(7, 40, 1),
                                            "kokkos-mdrange", options),
               std::invalid_argument);
  options.ranks = {world_size() + 1, 1};
  EXPECT_THROW(DistributedSimulation<Space>(MPI_COMM_WORLD, space, busy_scene(400, 40, 1),
                                            "kokkos-mdrange", options),
               std::invalid_argument);
}

// Ranks left to MPI's choice split a narrow grid along its long side where the even split
// does not fit it: 4 ranks over a 24 x 400 grid with a halo of 16 cells are 1 x 4, not 2 x 2.
TEST(Distributed, ChosenRanksSplitANarrowGridAlongItsLength) {
  DistributedSimulation<Space>::Options options;
  options.halo = 16;
  Scene const scene = busy_scene(24, 400, 1);
  auto const split = DistributedSimulation<Space>::decompose(scene, "kokkos-mdrange", options, 4);
  EXPECT_EQ(split.ranks, (std::array<int, 2>{1, 4}));
  EXPECT_EQ(split.halo, 16);
  options.ranks = {2, 0};  // one given: the other completes it, if it can
  EXPECT_THROW(DistributedSimulation<Space>::decompose(scene, "kokkos-mdrange", options, 4),
               std::invalid_argument);
}

// A split the backend's halo does not fit names the backend, which a resumed checkpoint, not
// the user, may have chosen.
TEST(Distributed, ASplitTooSmallForTheBackendsHaloNamesTheBackend) {
  DistributedSimulation<Space>::Options options;
  options.ranks = {2, 2};
  Scene const scene = busy_scene(5, 5, 1);
  try {
    DistributedSimulation<Space>::decompose(scene, "kokkos-tiled", options, 4);
    ADD_FAILURE() << "a 5 x 5 grid split over 2 x 2 ranks with kokkos-tiled's halo";
  } catch (std::invalid_argument const& e) {
    std::string const halo = std::to_string(find_backend<Space>("kokkos-tiled").fused_steps);
    EXPECT_EQ(std::string(e.what()), "cannot split a 5 x 5 grid over 2 x 2 ranks with a halo of " +
                                         halo + ": every rank must own at least " + halo +
                                         " cells each way (the fused steps of kokkos-tiled)");
  }
}

// Ranks whose product wraps to the job's size in 32 bits are refused, not taken for it.
TEST(Distributed, RanksWhoseProductWrapsAreRefused) {
  Space space;
  std::int64_t const wrapped = (std::int64_t(1) << 32) + world_size();
  std::int64_t p = 2;
  while (wrapped % p != 0 || wrapped / p > std::numeric_limits<int>::max()) ++p;
  DistributedSimulation<Space>::Options options;
  options.ranks = {int(p), int(wrapped / p)};
  Scene const scene = busy_scene(400, 40, 1);
  EXPECT_THROW(
      DistributedSimulation<Space>::decompose(scene, "kokkos-mdrange", options, world_size()),
      std::invalid_argument);
  EXPECT_THROW(
      DistributedSimulation<Space>(MPI_COMM_WORLD, space, scene, "kokkos-mdrange", options),
      std::invalid_argument);
  options.ranks = {world_size() + 1, 0};  // MPI_Dims_create cannot complete it
  EXPECT_THROW(
      DistributedSimulation<Space>::decompose(scene, "kokkos-mdrange", options, world_size()),
      std::invalid_argument);
}

// This rank's window of the pair (previous, current), halos included, on the host.
HostPair local_state(DistributedSimulation<Space> const& distributed) {
  return {to_host<Space>(distributed.local().previous()),
          to_host<Space>(distributed.local().current())};
}

void set_local_state(Space const& space, DistributedSimulation<Space>& distributed,
                     HostPair const& state, std::int64_t step) {
  using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Window const& w = distributed.window();
  distributed.set_state(space, HostField(state.previous.data(), w.local_ny(), w.local_nx()),
                        HostField(state.current.data(), w.local_ny(), w.local_nx()), step);
}

// Going back to a kept state (as a run that went non-finite does) gives the bits of a run
// that never left it, whatever the halos held: they are exchanged again.
TEST(Distributed, SetStateThenAdvanceEqualsOneProcess) {
  Space space;
  int dims[2] = {0, 0};
  MPI_Dims_create(world_size(), 2, dims);
  Scene const scene = scene_across_ranks({dims[0], dims[1]});
  DistributedSimulation<Space> distributed(MPI_COMM_WORLD, space, scene, "kokkos-tiled");
  distributed.advance(space, 10);
  HostPair kept = local_state(distributed);
  distributed.advance(space, 7);
  Window const& w = distributed.window();
  for (std::int32_t y = 0; y < w.local_ny(); ++y) {
    for (std::int32_t x = 0; x < w.local_nx(); ++x) {
      bool const owned =
          x >= w.owned_x() && x < w.owned_x() + w.nx && y >= w.owned_y() && y < w.owned_y() + w.ny;
      if (owned) continue;
      for (auto* field : {&kept.previous, &kept.current}) {
        (*field)[std::size_t(y) * w.local_nx() + x] = std::numeric_limits<float>::quiet_NaN();
      }
    }
  }
  set_local_state(space, distributed, kept, 10);
  EXPECT_FALSE(distributed.first_non_finite(space, true)) << "a stale halo is not checked";
  distributed.advance(space, 27);
  EXPECT_EQ(distributed.steps_done(), 37);
  auto const [previous, current] = distributed.gather(space);
  if (world_rank() != 0) return;
  auto const expected = one_process("kokkos-tiled", scene, 37);
  EXPECT_EQ(previous, expected.fields.previous);
  EXPECT_EQ(current, expected.fields.current);
}

// Every rank hears of the first non-finite cell of the whole grid, in global cells.
TEST(Distributed, FirstNonFiniteIsTheWholeGridsFirstOnEveryRank) {
  Space space;
  Scene const scene = busy_scene(97, 101, 3);
  DistributedSimulation<Space> distributed(MPI_COMM_WORLD, space, scene, "kokkos-mdrange");
  EXPECT_FALSE(distributed.first_non_finite(space, true));
  Window const& w = distributed.window();
  HostPair state = local_state(distributed);
  // u(t_n)'s first is on the last rank's block, u(t_{n-1})'s earlier one wherever the split
  // puts it.
  for (auto [x, y, field] :
       {std::tuple{90, 95, &state.current}, {48, 99, &state.current}, {20, 94, &state.previous}}) {
    std::int32_t const lx = x - w.origin_x();
    std::int32_t const ly = y - w.origin_y();
    if (lx >= 0 && lx < w.local_nx() && ly >= 0 && ly < w.local_ny()) {
      (*field)[std::size_t(ly) * w.local_nx() + lx] = std::numeric_limits<float>::infinity();
    }
  }
  // Into the fields themselves: set_state takes states finite in their owned cells only.
  using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::deep_copy(distributed.local().previous(),
                    HostField(state.previous.data(), w.local_ny(), w.local_nx()));
  Kokkos::deep_copy(distributed.local().current(),
                    HostField(state.current.data(), w.local_ny(), w.local_nx()));
  auto const current = distributed.first_non_finite(space);
  ASSERT_TRUE(current) << "rank " << world_rank();
  EXPECT_EQ(current->x, 90);
  EXPECT_EQ(current->y, 95);
  auto const either = distributed.first_non_finite(space, true);
  ASSERT_TRUE(either) << "rank " << world_rank();
  EXPECT_EQ(either->x, 20);
  EXPECT_EQ(either->y, 94);
}

TEST(Decomposition, BlocksCoverTheGridOnceAndDifferByAtMostOneCell) {
  for (std::int32_t n : {1, 7, 97, 3201}) {
    for (int parts = 1; parts <= std::min(n, 9); ++parts) {
      std::int32_t next = 0;
      for (int i = 0; i < parts; ++i) {
        Block const b = block_of(n, parts, i);
        EXPECT_EQ(b.start, next);
        EXPECT_TRUE(b.size == n / parts || b.size == n / parts + 1);
        next = b.start + b.size;
      }
      EXPECT_EQ(next, n);
    }
  }
}

}  // namespace
}  // namespace wave2d::test

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int result = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    testing::InitGoogleTest(&argc, argv);
    result = RUN_ALL_TESTS();
  }
  // A failure on any rank fails the job.
  MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return result;
}
