// A Simulation given numbers at or past its limits: step counts that would wrap, traces
// and grids too large for memory, states that are not finite or that view its own
// fields. Each is refused before anything changes, or done right, on every backend.
#include <wave2d_TestHelpers.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace wave2d::test {
namespace {

using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// 40 x 30 cells, one source, one receiver.
Scene small_scene() {
  Scene scene = plain_scene(40, 30);
  scene.sources.push_back({10, 10, {Waveform::Shape::sine, 1.0f, 20.0f, 0.0f}});
  scene.receivers.push_back({30, 20, "r0"});
  return scene;
}

// `call` throws `Error` with `part` in its message.
template <class Error, class Call>
void expect_refused(Call&& call, std::string const& part) {
  try {
    call();
    ADD_FAILURE() << "not refused; expected: " << part;
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

class SimulationLimits : public testing::TestWithParam<BackendCase> {};

TEST_P(SimulationLimits, StepCountsThatWouldWrapAreRefusedBeforeAnyStep) {
  with_space(GetParam().space, [&]<class ExecutionSpace>() {
    using Sim = Simulation<ExecutionSpace>;
    ExecutionSpace space;
    Sim simulation(space, small_scene(), GetParam().backend);
    simulation.advance(space, 1);
    std::int64_t const max = std::numeric_limits<std::int64_t>::max();
    expect_refused<std::invalid_argument>([&] { simulation.advance(space, max - 1); },
                                          "pass the largest step count");
    expect_refused<std::invalid_argument>([&] { simulation.reserve_receivers(space, max); },
                                          "pass the largest step count");
    // A trace of 2^62 rows: no allocation can hold it.
    expect_refused<InsufficientMemory>(
        [&] { simulation.advance(space, std::int64_t(1) << 62); },
        "the receivers' trace (4611686018427387906 steps x 1 receiver)");
    // The same refusals, asked ahead by a caller that advances in shorter runs.
    expect_refused<std::invalid_argument>([&] { simulation.check_advance(space, max - 1); },
                                          "pass the largest step count");
    expect_refused<InsufficientMemory>(
        [&] { simulation.check_advance(space, std::int64_t(1) << 62); },
        "the receivers' trace (4611686018427387906 steps x 1 receiver)");
    simulation.check_advance(space, 1000);
    EXPECT_EQ(simulation.steps_done(), 1);
    simulation.advance(space, 2);
    EXPECT_EQ(simulation.receivers().extent(0), 4u);

    auto const zeros = wave2d::test::zeros(simulation.scene());
    HostField const zero(zeros.current.data(), 30, 40);
    expect_refused<std::invalid_argument>([&] { simulation.set_state(space, zero, zero, max); },
                                          "step 9223372036854775807 is not in 0 .. ");
    EXPECT_EQ(simulation.steps_done(), 3);
    simulation.set_state(space, zero, zero, Sim::max_steps);
    expect_refused<std::invalid_argument>([&] { simulation.advance(space, 1); },
                                          "pass the largest step count");
    EXPECT_EQ(simulation.steps_done(), Sim::max_steps);
    EXPECT_EQ(simulation.receivers().extent(0), 1u);
  });
}

TEST_P(SimulationLimits, SetStateTakesViewsOfItsOwnFields) {
  with_space(GetParam().space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Simulation<ExecutionSpace> simulation(space, small_scene(), GetParam().backend);
    simulation.advance(space, 12);
    auto const previous = to_host<ExecutionSpace>(simulation.previous());
    auto const current = to_host<ExecutionSpace>(simulation.current());
    ASSERT_NE(previous, current);
    auto const check = [&](auto const& expected_previous, auto const& expected_current) {
      EXPECT_EQ(to_host<ExecutionSpace>(simulation.previous()), expected_previous);
      EXPECT_EQ(to_host<ExecutionSpace>(simulation.current()), expected_current);
    };
    simulation.set_state(space, simulation.current(), simulation.previous(), 10);
    check(current, previous);
    simulation.set_state(space, simulation.current(), simulation.previous(), 10);
    check(previous, current);
    simulation.set_state(space, simulation.current(), simulation.current(), 10);
    check(current, current);
    simulation.set_state(
        space, simulation.current(),
        Kokkos::View<float**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>(
            "wave2d test", 30, 40),
        10);
    check(current, std::vector<float>(current.size(), 0.0f));
    EXPECT_EQ(simulation.steps_done(), 10);
  });
}

TEST_P(SimulationLimits, StatesThatAreNotFiniteAreRefusedAndChangeNothing) {
  with_space(GetParam().space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Simulation<ExecutionSpace> simulation(space, small_scene(), GetParam().backend);
    simulation.advance(space, 7);
    auto const before = to_host<ExecutionSpace>(simulation.current());
    auto pair = zeros(simulation.scene());
    pair.previous[std::size_t(2) * 40 + 3] = std::numeric_limits<float>::quiet_NaN();
    HostField const previous(pair.previous.data(), 30, 40);
    HostField const current(pair.current.data(), 30, 40);
    expect_refused<std::invalid_argument>(
        [&] { simulation.set_state(space, previous, current, 3); },
        "previous is not finite at cell (3, 2)");
    pair.previous[std::size_t(2) * 40 + 3] = 0.0f;
    pair.current.back() = -std::numeric_limits<float>::infinity();
    expect_refused<std::invalid_argument>(
        [&] { simulation.set_state(space, previous, current, 3); },
        "current is not finite at cell (39, 29)");
    EXPECT_EQ(simulation.steps_done(), 7);
    EXPECT_EQ(to_host<ExecutionSpace>(simulation.current()), before);
  });
}

// A window's halo holds its neighbours' values, exchanged before they are read (a
// distributed run going back to a kept state): only the owned cells must be finite.
TEST_P(SimulationLimits, AWindowsOwnedCellsMustBeFiniteNotItsHalo) {
  with_space(GetParam().space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Scene const scene = small_scene();
    Window window{scene.nx, scene.ny, 10, 8, 20, 15, 2};  // owned [10, 30) x [8, 23)
    Simulation<ExecutionSpace> simulation(space, scene, window, GetParam().backend);
    ASSERT_EQ(simulation.window().local_nx(), 24);
    ASSERT_EQ(simulation.window().local_ny(), 19);
    std::vector<float> field(std::size_t(24) * 19, 0.0f);
    HostField const view(field.data(), 19, 24);
    field[0] = std::numeric_limits<float>::quiet_NaN();                         // halo
    field[std::size_t(18) * 24 + 23] = std::numeric_limits<float>::infinity();  // halo
    simulation.set_state(space, view, view, 5);
    EXPECT_EQ(simulation.steps_done(), 5);
    field[std::size_t(2) * 24 + 3] = std::numeric_limits<float>::quiet_NaN();  // owned
    expect_refused<std::invalid_argument>([&] { simulation.set_state(space, view, view, 6); },
                                          "previous is not finite at cell (3, 2)");
    EXPECT_EQ(simulation.steps_done(), 5);
  });
}

TEST_P(SimulationLimits, AGridBeyondMemoryIsRefusedBeforeAnyAllocation) {
  with_space(GetParam().space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Scene scene = plain_scene(2'000'000'000, 2'000'000'000);
    expect_refused<InsufficientMemory>(
        [&] { Simulation<ExecutionSpace>(space, scene, GetParam().backend); },
        "the 2000000000 x 2000000000 grid needs about");
  });
}

TEST_P(SimulationLimits, AWindowOfAnotherGridIsRefusedBeforeItsMemoryIsTaken) {
  with_space(GetParam().space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Window const huge{2'000'000'000, 2'000'000'000, 0, 0, 2'000'000'000, 2'000'000'000, 0};
    expect_refused<std::invalid_argument>(
        [&] { Simulation<ExecutionSpace>(space, small_scene(), huge, GetParam().backend); },
        "window: made for a 2000000000 x 2000000000 grid, the scene is 40 x 30");
  });
}

TEST_P(SimulationLimits, ReceiverRowsThatAreNotFiniteAreRefused) {
  with_space(GetParam().space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Simulation<ExecutionSpace> simulation(space, small_scene(), GetParam().backend);
    simulation.advance(space, 4);
    auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), simulation.receivers());
    ASSERT_EQ(rows.extent(0), 5u);
    rows(2, 0) = std::numeric_limits<float>::quiet_NaN();
    expect_refused<std::invalid_argument>([&] { simulation.restore_receivers(space, rows, 0); },
                                          "row 2, receiver 0 is not finite");
  });
}

TEST_P(SimulationLimits, AMovedFromSimulationRefusesWork) {
  with_space(GetParam().space, [&]<class ExecutionSpace>() {
    ExecutionSpace space;
    Simulation<ExecutionSpace> moved(space, small_scene(), GetParam().backend);
    Simulation<ExecutionSpace> taker(std::move(moved));
    expect_refused<std::logic_error>([&] { moved.advance(space, 1); }, "was moved from");
    expect_refused<std::logic_error>([&] { moved.reset(space); }, "was moved from");
    // What it holds is gone too: every accessor says so.
    expect_refused<std::logic_error>([&] { (void)moved.configuration(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.stepper_configuration(); },
                                     "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.backend(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.plan(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.receivers(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.receivers_first_step(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.previous(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.current(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.steps_done(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.time(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.scene(); }, "was moved from");
    expect_refused<std::logic_error>([&] { (void)moved.window(); }, "was moved from");
    EXPECT_EQ(taker.backend(), GetParam().backend);
    taker.advance(space, 3);
    EXPECT_EQ(taker.steps_done(), 3);
  });
}

INSTANTIATE_TEST_SUITE_P(AllBackends, SimulationLimits, testing::ValuesIn(all_backend_cases()),
                         case_name);

}  // namespace
}  // namespace wave2d::test
