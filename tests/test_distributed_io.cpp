// A distributed run's files, each rank writing its block (CTest runs these under mpirun
// on 1, 2, 3, 4 and 6 ranks, with test_distributed.cpp): a rank that cannot write ends
// every rank with its message and leaves nothing behind.
#include <wave2d/run/wave2d_DistributedRun.hpp>
#include <wave2d_TestFiles.hpp>
#include <wave2d_TestHelpers.hpp>
#include <wave2d_TestMpi.hpp>

#include <mpi.h>

#include <filesystem>
#include <optional>
#include <string>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;
using Space = Kokkos::DefaultExecutionSpace;

// An empty directory of this job's, made by rank 0.
fs::path fresh_directory(std::string const& name) {
  fs::path const directory =
      fs::current_path() / ("distributed_io_" + std::to_string(world_size())) / name;
  if (world_rank() == 0) {
    fs::remove_all(directory);
    fs::create_directories(directory);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return directory;
}

bool contains(std::string const& text, std::string const& part) {
  return text.find(part) != std::string::npos;
}

TEST(DistributedOutput, ARankThatCannotWriteEndsEveryRankAndNothingIsLeft) {
  if (!can_use_hdf5) GTEST_SKIP() << no_hdf5_reason;
  Space space;
  Scene const scene = busy_scene(40, 30, 1);
  DistributedSimulation<Space> simulation(MPI_COMM_WORLD, space, scene, "kokkos-mdrange");
  simulation.advance(space, 5);
  fs::path const directory = fresh_directory("cannot_write");
  fs::path const path = directory / "run.h5";
  int const failing = world_size() - 1;
  try {
    FieldFile file(path, scene, simulation.window(), simulation.processes());
    file.write_frame(simulation.steps_done(),
                     owned_cells(space, simulation.window(), simulation.local().current()));
    auto previous = owned_cells(space, simulation.window(), simulation.local().previous());
    auto const current = owned_cells(space, simulation.window(), simulation.local().current());
    if (world_rank() == failing) previous.pop_back();  // a block this rank cannot write
    file.write_field(simulation.steps_done(), previous, current);
    ADD_FAILURE() << "rank " << world_rank() << " went on";
  } catch (std::invalid_argument const& e) {
    std::string const expected =
        world_size() > 1 ? "rank " + std::to_string(failing) + ": wave2d::FieldFile" : "FieldFile";
    EXPECT_TRUE(contains(e.what(), expected)) << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(fs::is_empty(directory)) << "rank " << world_rank() << ": something was left";
}

// A FieldFile at `path` in `directory`: refused on every rank with an OutputError that says
// `reason`, nothing made.
void expect_refused_on_every_rank(fs::path const& directory, fs::path const& path,
                                  std::string const& reason) {
  Space space;
  DistributedSimulation<Space> simulation(MPI_COMM_WORLD, space, busy_scene(40, 30, 1),
                                          "kokkos-mdrange");
  try {
    FieldFile file(path, simulation.local().scene(), simulation.window(), simulation.processes());
    ADD_FAILURE() << "rank " << world_rank() << " created it";
  } catch (OutputError const& e) {
    EXPECT_TRUE(contains(e.what(), reason)) << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(fs::is_empty(directory));
}

TEST(DistributedOutput, AFileThatCannotBeCreatedEndsEveryRankWithTheReason) {
  if (!can_use_hdf5) GTEST_SKIP() << no_hdf5_reason;
  fs::path const directory = fresh_directory("cannot_create");
  fs::path const path = directory / "missing" / "run.h5";
  expect_refused_on_every_rank(directory, path, "cannot write '" + path.string());
}

// The sidecar names its file, and XDMF readers end that name at its first ':': a FieldFile of
// such a name is refused on every rank before anything is made.
TEST(DistributedOutput, AFileWithAColonInItsNameIsRefusedOnEveryRank) {
  if (!can_use_hdf5) GTEST_SKIP() << no_hdf5_reason;
  fs::path const directory = fresh_directory("colon");
  fs::path const path = directory / "run:1.h5";
  expect_refused_on_every_rank(
      directory, path, "cannot write '" + path.string() + "': its XDMF sidecar could not name");
}

// The job's first `ranks` ranks, in a communicator of their own (MPI_COMM_NULL elsewhere).
struct FirstRanks {
  MPI_Comm comm = MPI_COMM_NULL;
  explicit FirstRanks(int ranks) {
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() < ranks ? 0 : MPI_UNDEFINED, world_rank(), &comm);
  }
  ~FirstRanks() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

// busy_scene with receivers on and beside the blocks' edges of the splits below.
Scene scene_with_receivers() {
  Scene scene = busy_scene(97, 101, 5);
  for (std::int32_t x : {0, 15, 16, 24, 32, 33, 48, 49, 64, 65, 80, 96}) {
    for (std::int32_t y : {0, 16, 17, 25, 33, 34, 50, 51, 67, 100}) {
      scene.receivers.push_back({x, y, ""});
    }
  }
  return scene;
}

// A checkpoint written at step 17 by P ranks split P x 1, resumed by Q ranks split 1 x Q, the
// run then taken to step 37: the bits of one process that ran 37 steps, the receivers' trace
// included; for P, Q among the job's size, one less and 1.
TEST(DistributedCheckpoint, WrittenOnPRanksAndResumedOnQEqualsOneProcess) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  Space space;
  Scene const scene = scene_with_receivers();
  std::string const backend = "kokkos-tiled";
  HostPair expected;
  std::vector<float> expected_trace;
  if (world_rank() == 0) {
    Simulation<Space> one(space, scene, backend);
    one.advance(space, 37);
    expected = {wave2d::to_host(space, one.previous()), wave2d::to_host(space, one.current())};
    expected_trace = wave2d::to_host(space, one.receivers());
  }
  int const n = world_size();
  int const fewer = std::max(1, n - 1);
  fs::path const directory = fresh_directory("checkpoints");
  for (auto [p, q] : {std::pair{n, 1}, {1, n}, {n, fewer}, {fewer, n}, {n, n}}) {
    fs::path const path = directory / ("from_" + std::to_string(p) + "_to_" + std::to_string(q));
    if (FirstRanks writers(p); writers.comm != MPI_COMM_NULL) {
      DistributedSimulation<Space>::Options options;
      options.ranks = {p, 1};
      options.halo = 4;
      DistributedSimulation<Space> written(writers.comm, space, scene, backend, options);
      written.advance(space, 17);
      write_checkpoint(path, space, written);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (FirstRanks readers(q); readers.comm != MPI_COMM_NULL) {
      DistributedSimulation<Space>::Options options;
      options.ranks = {1, q};
      options.halo = 4;
      DistributedSimulation<Space> resumed(readers.comm, space, scene, backend, options);
      CheckpointData const header = resume(path, space, resumed);
      EXPECT_EQ(header.step, 17);
      EXPECT_EQ(resumed.steps_done(), 17);
      resumed.advance(space, 20);
      auto const [previous, current] = resumed.gather(space);
      auto const trace = resumed.gather_receivers(space);
      if (world_rank() == 0) {
        std::string const what = std::to_string(p) + " ranks to " + std::to_string(q);
        EXPECT_EQ(previous, expected.previous) << what;
        EXPECT_EQ(current, expected.current) << what;
        EXPECT_EQ(trace, expected_trace) << what << ": the receivers' trace";
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  // And on one process, with the library's reader of the whole grid.
  if (world_rank() == 0) {
    fs::path const path = directory / ("from_" + std::to_string(n) + "_to_1");
    CheckpointData const data = read_checkpoint(path);
    Simulation<Space> one(space, scene, backend);
    using Host = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    one.set_state(space, Host(data.previous.data(), scene.ny, scene.nx),
                  Host(data.current.data(), scene.ny, scene.nx), data.step);
    one.restore_receivers(space, Host(data.trace.data(), data.trace_rows(), data.receivers),
                          data.trace_first_step);
    one.advance(space, 20);
    EXPECT_EQ(wave2d::to_host(space, one.current()), expected.current);
    EXPECT_EQ(wave2d::to_host(space, one.receivers()), expected_trace);
  }
}

// The same experiment through the run layer on the job's ranks and on one process writes the
// same bytes: the array, the receivers' files, the pictures, and the checkpoint's state (the
// HDF5 file is written beside them; its datasets are compared in cli_hdf5).
TEST(DistributedRun, WritesWhatARunOnOneProcessWrites) {
  Space space;
  fs::path const directory = fresh_directory("run");
  auto const experiment = [&](std::string const& side) {
    Experiment e{.scene = scene_with_receivers(), .backend = "kokkos-tiled", .steps = 29};
    fs::path const out = directory / side;
    e.outputs = {NpyFile{out / "f.npy"}, ReceiverFiles{out, "r", false}};
    if (can_write_png) e.outputs.push_back(Pictures{out, "s", 1.0f, 10, false});
    if (can_use_hdf5) e.outputs.push_back(Hdf5File{out / "f.h5", 10});
    if (can_checkpoint) e.outputs.push_back(Checkpoints{out / "ck", 20});
    return e;
  };
  distributed_run(MPI_COMM_WORLD, space, check(experiment("many"))).execute();
  if (world_rank() == 0) {
    run(space, experiment("one"));
    std::vector<std::string> files{"f.npy", "r.receivers.npy", "r.receivers.csv"};
    if (can_write_png)
      files.insert(files.end(), {"s.png", "s.000000.png", "s.000020.png", "s.000029.png"});
    for (auto const& file : files) {  // no ASSERT: the other ranks wait at the barrier
      EXPECT_TRUE(fs::exists(directory / "many" / file)) << file;
      EXPECT_EQ(read_file(directory / "many" / file), read_file(directory / "one" / file)) << file;
    }
    if (can_checkpoint) {
      CheckpointData const many = read_checkpoint(directory / "many" / "ck");
      CheckpointData const one = read_checkpoint(directory / "one" / "ck");
      EXPECT_EQ(many.step, 29);
      EXPECT_EQ(many.previous, one.previous);
      EXPECT_EQ(many.current, one.current);
      EXPECT_EQ(many.trace, one.trace);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A field that stops being finite stops every rank with what one process says (the step and
// the grid's first cell), whether the ranks overlap their exchanges or not, and the last
// finite state they keep is one process's.
TEST(DistributedRun, AFieldThatStopsBeingFiniteStopsEveryRankAsOneProcess) {
  Space space;
  fs::path const directory = fresh_directory("not_finite");
  Scene scene = plain_scene(64, 48);
  scene.dt = 0.9f;  // far past the stability bound
  // Sources everywhere: the field diverges in every rank's border strips at once.
  for (std::int32_t y = 3; y < scene.ny; y += 7) {
    for (std::int32_t x = 3; x < scene.nx; x += 7) {
      scene.sources.push_back({x, y, {Waveform::Shape::sine, 1.0f, 0.1f, 0.0f}});
    }
  }
  auto const experiment = [&](std::string const& name) {
    Experiment e{.scene = scene, .backend = "kokkos-mdrange", .steps = 400};
    e.validation.allow_unstable = true;
    e.keep_last_finite = true;
    e.outputs = {NpyFile{directory / (name + ".npy")}};
    return e;
  };
  auto const stop = [](auto&& go) -> std::optional<NotFinite> {
    try {
      go();
    } catch (NotFinite const& e) {
      return e;
    }
    return std::nullopt;
  };
  std::optional<NotFinite> const one = stop([&] { run(space, experiment("one")); });
  ASSERT_TRUE(one.has_value()) << "the scene must diverge within its steps";
  for (bool overlap : {true, false}) {
    std::string const name = overlap ? "overlapped" : "not_overlapped";
    DistributedSimulation<Space>::Options options;
    options.overlap = overlap;
    options.halo = 2;
    std::optional<NotFinite> many;
    EXPECT_NO_THROW(
        many = stop([&] {
          distributed_run(MPI_COMM_WORLD, space, check(experiment(name)), options).execute();
        }))
        << name;
    ASSERT_TRUE(many.has_value()) << name;
    EXPECT_EQ(many->what(), std::string(one->what())) << name;
    EXPECT_EQ(many->step(), one->step()) << name;
    EXPECT_EQ(many->x(), one->x()) << name;
    EXPECT_EQ(many->y(), one->y()) << name;
    if (world_rank() == 0) {
      EXPECT_EQ(read_file(directory / (name + ".npy")), read_file(directory / "one.npy")) << name;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A checkpoint of another scene: refused on every rank, before any field is read.
TEST(DistributedCheckpoint, OfAnotherSceneIsRefusedOnEveryRank) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  Space space;
  fs::path const path = fresh_directory("another_scene") / "ck";
  DistributedSimulation<Space> written(MPI_COMM_WORLD, space, busy_scene(60, 50, 1));
  written.advance(space, 3);
  write_checkpoint(path, space, written);
  DistributedSimulation<Space> other(MPI_COMM_WORLD, space, busy_scene(60, 50, 2));
  try {
    resume(path, space, other);
    ADD_FAILURE() << "rank " << world_rank() << " resumed it";
  } catch (CheckpointError const& e) {
    EXPECT_TRUE(contains(e.what(), "is of another scene")) << e.what();
  }
  EXPECT_EQ(other.steps_done(), 0);
}

}  // namespace
}  // namespace wave2d::test
