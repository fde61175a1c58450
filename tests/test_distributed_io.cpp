// A distributed run's files, each rank writing its block (CTest runs these under mpirun
// on 1, 2, 3, 4 and 6 ranks, with test_distributed.cpp): a rank that cannot write ends
// every rank with its message and leaves nothing behind.
#include <wave2d/distributed/wave2d_DistributedOutput.hpp>
#include <wave2d_TestHelpers.hpp>

#include <mpi.h>

#include <filesystem>
#include <string>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;
using Space = Kokkos::DefaultExecutionSpace;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

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
  if (!can_use_parallel_hdf5) GTEST_SKIP() << "this build has no parallel HDF5";
  Space space;
  Scene const scene = busy_scene(40, 30, 1);
  DistributedSimulation<Space> simulation(MPI_COMM_WORLD, space, scene, "kokkos-mdrange");
  simulation.advance(space, 5);
  fs::path const directory = fresh_directory("cannot_write");
  fs::path const path = directory / "run.h5";
  int const failing = world_size() - 1;
  try {
    FieldFile file = open_field_file(path, simulation);
    write_frame(file, space, simulation);
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

TEST(DistributedOutput, AFileThatCannotBeCreatedEndsEveryRankWithTheReason) {
  if (!can_use_parallel_hdf5) GTEST_SKIP() << "this build has no parallel HDF5";
  Space space;
  DistributedSimulation<Space> simulation(MPI_COMM_WORLD, space, busy_scene(40, 30, 1),
                                          "kokkos-mdrange");
  fs::path const directory = fresh_directory("cannot_create");
  try {
    FieldFile file = open_field_file(directory / "missing" / "run.h5", simulation);
    ADD_FAILURE() << "rank " << world_rank() << " created it";
  } catch (OutputError const& e) {
    EXPECT_TRUE(contains(e.what(), "cannot write '" + (directory / "missing" / "run.h5").string()))
        << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(fs::is_empty(directory));
}

}  // namespace
}  // namespace wave2d::test
