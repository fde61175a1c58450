// The library labels every kernel, allocation and region `wave2d::`, and runs every
// kernel and fence on the execution space instance the caller passes in.
#include <wave2d_TestHelpers.hpp>

#include <optional>

namespace wave2d::test {
namespace {

struct Event {
  std::string kind;
  std::string label;
  std::uint32_t device_id = 0;
};

std::vector<Event>& events() {
  static std::vector<Event> recorded;
  return recorded;
}

void record(char const* kind, char const* label, std::uint32_t device_id) {
  events().push_back({kind, label, device_id});
}

// Records what the library does between construction and destruction.
class ToolsRecorder {
 public:
  ToolsRecorder() {
    events().clear();
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(
        [](char const* label, std::uint32_t id, std::uint64_t*) { record("kernel", label, id); });
    tools::set_begin_parallel_reduce_callback(
        [](char const* label, std::uint32_t id, std::uint64_t*) { record("kernel", label, id); });
    tools::set_begin_parallel_scan_callback(
        [](char const* label, std::uint32_t id, std::uint64_t*) { record("kernel", label, id); });
    tools::set_begin_fence_callback(
        [](char const* label, std::uint32_t id, std::uint64_t*) { record("fence", label, id); });
    tools::set_allocate_data_callback([](Kokkos::Profiling::SpaceHandle, char const* label,
                                         void const*,
                                         std::uint64_t) { record("allocation", label, 0); });
    tools::set_push_region_callback([](char const* label) { record("region", label, 0); });
  }
  ~ToolsRecorder() {
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(nullptr);
    tools::set_begin_parallel_reduce_callback(nullptr);
    tools::set_begin_parallel_scan_callback(nullptr);
    tools::set_begin_fence_callback(nullptr);
    tools::set_allocate_data_callback(nullptr);
    tools::set_push_region_callback(nullptr);
  }
};

// What the library did on a non-default instance: its events and that instance's id.
struct Recording {
  std::vector<Event> events;
  std::uint32_t instance_id = 0;
};

Recording record_a_run(BackendCase const& param) {
  Recording recording;
  with_space(param.space, [&]<class ExecutionSpace>() {
    // An instance other than the default one, so that running elsewhere shows. (On host
    // spaces Kokkos gives every instance the same id: there this catches global fences
    // and kernels on another space; on CUDA each instance has a stream and an id.)
    auto const space = Kokkos::Experimental::partition_space(ExecutionSpace(), 1)[0];
    recording.instance_id = Kokkos::Tools::Experimental::device_id(space);

    Scene const scene = busy_scene(37, 29, 3);
    auto const initial = random_pair(scene, 8);
    using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    // Destroyed after recording: Kokkos fences globally itself when it frees memory.
    std::optional<Simulation<ExecutionSpace>> simulation;
    std::optional<FiniteCheck<ExecutionSpace>> finite_check;
    {
      ToolsRecorder recorder;
      simulation.emplace(space, scene, param.backend);
      finite_check.emplace(space);
      simulation->set_state(space, HostField(initial.previous.data(), scene.ny, scene.nx),
                            HostField(initial.current.data(), scene.ny, scene.nx), 0);
      simulation->advance(space, 11);
      simulation->reset(space);
      simulation->advance(space, 3);
      EXPECT_FALSE(finite_check->first_non_finite(space, simulation->current()));
      wave2d::fence(space, "wave2d test: done");
    }
    recording.events = events();
  });
  return recording;
}

class LabelTest : public testing::TestWithParam<BackendCase> {};

TEST_P(LabelTest, KernelsAllocationsAndRegionsAreLabelledAndKernelsRunOnTheGivenInstance) {
  auto const& param = GetParam();
  Recording const recording = record_a_run(param);
  std::size_t kernels = 0;
  for (auto const& event : recording.events) {
    if (event.kind == "fence") continue;
    // Team scratch that Kokkos allocates itself the first time a TeamPolicy asks for
    // some (kokkos-tiled): no label of ours reaches it.
    if (event.kind == "allocation" && event.label.starts_with("Kokkos::") &&
        (event.label.ends_with("::scratch_mem") || event.label.ends_with("::TeamScratchMemory"))) {
      continue;
    }
    EXPECT_TRUE(event.label.starts_with("wave2d::"))
        << event.kind << " labelled '" << event.label << "'";
    if (event.kind == "kernel") {
      EXPECT_EQ(event.device_id, recording.instance_id)
          << "kernel '" << event.label << "' ran on another instance";
    }
    kernels += event.kind == "kernel";
  }
  if (param.backend == "kokkos-mdrange") {
    EXPECT_GE(kernels, 14u) << "one kernel per step";
  }
  // Every stepper's advance() is the region wave2d::<backend>::advance (cuda-shmem-32x32
  // is cuda-shmem's stepper).
  std::string const stepper = param.backend == "cuda-shmem-32x32" ? "cuda-shmem" : param.backend;
  std::size_t advances = 0;
  for (auto const& event : recording.events) {
    advances += event.kind == "region" && event.label == "wave2d::" + stepper + "::advance";
  }
  EXPECT_EQ(advances, 2u) << "regions wave2d::" << stepper << "::advance, one per advance()";
}

TEST_P(LabelTest, FencesAreLabelledAndOnTheGivenInstance) {
#if KOKKOS_VERSION < 30500
  GTEST_SKIP() << "Kokkos " << KOKKOS_VERSION_MAJOR << "." << KOKKOS_VERSION_MINOR
               << " reports no fences to the tools interface, and its fences take no label "
                  "(both came with Kokkos 3.5)";
#endif
  Recording const recording = record_a_run(GetParam());
  std::size_t fences = 0;
  for (auto const& event : recording.events) {
    // This test's own fence, and the ones Kokkos adds around kernels for the tools.
    if (event.kind != "fence" || event.label == "wave2d test: done" ||
        event.label.starts_with("Kokkos::Tools::invoke_kokkosp_callback")) {
      continue;
    }
    EXPECT_TRUE(event.label.starts_with("wave2d::")) << "fence labelled '" << event.label << "'";
    EXPECT_EQ(event.device_id, recording.instance_id)
        << "fence '" << event.label << "' ran on another instance";
    ++fences;
  }
  EXPECT_GE(fences, 1u) << "no fence of the library was seen";
}

// What outputs and checkpoints do with a simulation's state: read the fields, a window's
// owned cells and the trace to the host, put a trace back. Kernels and fences under labels of
// ours, on the given instance (none global).
TEST_P(LabelTest, ReadingTheStateAndRestoringTheTraceStayOnTheGivenInstance) {
  auto const& param = GetParam();
  with_space(param.space, [&]<class ExecutionSpace>() {
    auto const space = Kokkos::Experimental::partition_space(ExecutionSpace(), 1)[0];
    auto const instance_id = Kokkos::Tools::Experimental::device_id(space);
    Scene scene = busy_scene(37, 29, 3);
    scene.receivers = {{5, 5, ""}, {30, 20, ""}};
    Simulation<ExecutionSpace> simulation(space, scene, param.backend);
    simulation.advance(space, 5);
    Field<typename ExecutionSpace::memory_space> const local_field("local field", 15, 24);
    Window const block{scene.nx, scene.ny, 3, 2, 20, 11, 2};  // its local grid: 24 x 15
    wave2d::fence(space, "wave2d test: ready");
    std::vector<Event> recorded;
    {
      ToolsRecorder recorder;
      EXPECT_EQ(wave2d::to_host(space, simulation.current()).size(), std::size_t(scene.cells()));
      EXPECT_EQ(owned_cells(space, block, local_field).size(), std::size_t(20 * 11));
      std::vector<float> trace = wave2d::to_host(space, simulation.receivers());
      ASSERT_EQ(trace.size(), 6u * 2u);
      simulation.restore_receivers(space, simulation.receivers(), 0);
      using HostRows = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      simulation.restore_receivers(space, HostRows(trace.data(), 6, 2), 0);
      wave2d::fence(space, "wave2d test: done");
      recorded = events();
    }
    std::size_t kernels = 0;
    for (auto const& event : recorded) {
      if (event.label == "wave2d test: done" ||
          event.label.starts_with("Kokkos::Tools::invoke_kokkosp_callback")) {
        continue;
      }
      EXPECT_TRUE(event.label.starts_with("wave2d::"))
          << event.kind << " labelled '" << event.label << "'";
      if (event.kind == "kernel" || event.kind == "fence") {
        EXPECT_EQ(event.device_id, instance_id)
            << event.kind << " '" << event.label << "' ran on another instance";
      }
      kernels += event.kind == "kernel";
    }
    // On a host space each copy is a kernel of ours (a GPU's copy engine runs none).
    if (detail::runs_on_host<ExecutionSpace>) EXPECT_GE(kernels, 3u);
  });
}

INSTANTIATE_TEST_SUITE_P(AllBackends, LabelTest, testing::ValuesIn(all_backend_cases()), case_name);

}  // namespace
}  // namespace wave2d::test
