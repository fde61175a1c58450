// An experiment run by the ranks of an MPI job (run/wave2d_Run.hpp), each stepping its
// window of the grid (distributed/wave2d_DistributedSimulation.hpp) and writing its block of
// every output: the whole grid is never on one rank. Needs wave2d::distributed.
#ifndef WAVE2D_DISTRIBUTED_RUN_HPP
#define WAVE2D_DISTRIBUTED_RUN_HPP

#include <wave2d/distributed/wave2d_DistributedSimulation.hpp>
#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/run/wave2d_Checkpoints.hpp>
#include <wave2d/run/wave2d_Run.hpp>

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace wave2d {

namespace detail {

// Collective: on rank 0 the picture of u(t_n) (whole_picture's), merged from the ranks' parts
// of it: each rank reduces its owned cells to the pixels they overlap.
template <class ExecutionSpace, class MemorySpace>
PicturePart gather_picture(ExecutionSpace const& space,
                           DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
  Window const& window = simulation.window();
  Scene const& scene = simulation.local().scene();
  PicturePart part;
  MPI_Comm const comm = simulation.communicator();
  simulation.processes().agree([&] {
    part =
        picture_part(owned_cells(space, window, simulation.local().current()), scene.walls, window);
  });
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Where each part lies, then its pixels, counted as pixels: no count overflows an int.
  std::array<std::int32_t, 4> const mine{part.x0, part.y0, part.width, part.height};
  std::vector<std::int32_t> placed(rank == 0 ? 4 * std::size_t(size) : 0);
  check_mpi(MPI_Gather(mine.data(), 4, MPI_INT32_T, placed.data(), 4, MPI_INT32_T, 0, comm),
            "MPI_Gather");
  std::vector<int> counts(static_cast<std::size_t>(size));
  std::vector<int> displacements(static_cast<std::size_t>(size));
  std::vector<PixelPart> all;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      counts[r] = placed[4 * r + 2] * placed[4 * r + 3];
      if (r > 0) displacements[r] = displacements[r - 1] + counts[r - 1];
    }
    all.resize(std::size_t(displacements[size - 1]) + std::size_t(counts[size - 1]));
  }
  MPI_Datatype pixel;
  check_mpi(MPI_Type_contiguous(int(sizeof(PixelPart)), MPI_BYTE, &pixel), "MPI_Type");
  MPI_Type_commit(&pixel);
  int const status = MPI_Gatherv(part.pixels.data(), int(part.pixels.size()), pixel, all.data(),
                                 counts.data(), displacements.data(), pixel, 0, comm);
  MPI_Type_free(&pixel);
  check_mpi(status, "MPI_Gatherv");
  if (rank != 0) return {};
  PicturePart picture = whole_picture(scene.nx, scene.ny);
  for (int r = 0; r < size; ++r) {
    PicturePart received{picture.scale,     placed[4 * r],     placed[4 * r + 1],
                         placed[4 * r + 2], placed[4 * r + 3], {}};
    received.pixels.assign(all.begin() + displacements[r],
                           all.begin() + displacements[r] + counts[r]);
    merge_picture(picture, received);
  }
  return picture;
}

// What a checkpoint of a distributed run records as having run.
template <class ExecutionSpace, class MemorySpace>
std::string checkpoint_configuration(
    DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
  return simulation.local().stepper_configuration() + " (rank 0), ranks " +
         std::to_string(simulation.ranks()[0]) + " x " + std::to_string(simulation.ranks()[1]);
}

// This rank's window of the grid.
template <class ExecutionSpace>
class RankWindow final : public Part<ExecutionSpace> {
  using Base = Part<ExecutionSpace>;
  using Distributed = DistributedSimulation<ExecutionSpace>;

 public:
  RankWindow(MPI_Comm comm, ExecutionSpace const& space, Scene const& scene,
             std::string const& backend, typename Distributed::Options const& options)
      : simulation_(comm, space, scene, backend, options) {}

  typename Base::Local const& local() const override { return simulation_.local(); }
  void reserve_receivers(ExecutionSpace const& space, std::int64_t n) override {
    simulation_.reserve_receivers(space, n);
  }
  Processes const& processes() const override { return simulation_.processes(); }
  double advance(ExecutionSpace const& space, std::int64_t n) override {
    MPI_Comm const comm = simulation_.communicator();
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    auto const start = std::chrono::steady_clock::now();
    simulation_.advance(space, n);
    wave2d::fence(space, "wave2d::run: end of a chunk of steps");
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    return seconds;
  }
  std::optional<FieldCell> first_non_finite(ExecutionSpace const& space,
                                            bool previous_too) override {
    return simulation_.first_non_finite(space, previous_too);
  }
  void set_state(ExecutionSpace const& space, typename Base::Field const& previous,
                 typename Base::Field const& current, std::int64_t step) override {
    simulation_.set_state(space, previous, current, step);
  }
  void set_state(ExecutionSpace const& space, HostRows const& previous, HostRows const& current,
                 std::int64_t step) override {
    simulation_.set_state(space, previous, current, step);
  }
  void restore_receivers(ExecutionSpace const& space, HostRows const& rows,
                         std::int64_t first_step) override {
    simulation_.restore_receivers(space, rows, first_step);
  }
  PicturePart picture(ExecutionSpace const& space) override {
    return gather_picture(space, simulation_);
  }
  std::vector<float> trace(ExecutionSpace const& space) override {
    return simulation_.gather_receivers(space);
  }
  Plan const* plan() const override { return simulation_.plan(); }
  std::string layout() const override {
    return std::to_string(simulation_.ranks()[0]) + " x " + std::to_string(simulation_.ranks()[1]) +
           ", halo " + std::to_string(simulation_.window().halo) + ", exchange " +
           simulation_.exchange_path() + (simulation_.overlaps() ? ", overlapped" : "");
  }
  std::string checkpoint_configuration() const override {
    return detail::checkpoint_configuration(simulation_);
  }

 private:
  Distributed simulation_;
};

}  // namespace detail

// Collective over `comm` (which the caller keeps owning): the checked experiment set up on
// its ranks, split as `options` says (DistributedSimulation::Options; its validation and plan
// are the experiment's). Throws on every rank if anything fails on any, as Run's
// constructor does.
template <class ExecutionSpace>
Run<ExecutionSpace> distributed_run(
    MPI_Comm comm, ExecutionSpace const& space, CheckedExperiment checked,
    typename DistributedSimulation<ExecutionSpace>::Options options = {}) {
  Experiment const& e = checked.experiment;
  options.validation = e.validation;
  options.plan = e.plan;
  auto part = std::make_unique<detail::RankWindow<ExecutionSpace>>(comm, space, e.scene, e.backend,
                                                                   options);
  return make_run<ExecutionSpace>(space, std::move(checked), std::move(part));
}

// Collective: the simulation's state and receivers' trace as the checkpoint `path`, each
// rank writing its owned cells and receivers; resumed on any number of ranks, or on one
// process. OutputError on every rank when it cannot be written.
template <class ExecutionSpace, class MemorySpace>
void write_checkpoint(std::filesystem::path const& path, ExecutionSpace const& space,
                      DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
  detail::write_checkpoint(path, space, simulation.local(), simulation.processes(),
                           detail::checkpoint_configuration(simulation));
}

// Collective: the simulation set to the checkpoint `path` (written by any number of ranks or
// one process), each rank reading its window, halo included, and the whole trace.
// CheckpointError as resume(Simulation), on every rank. The checkpoint's header.
template <class ExecutionSpace, class MemorySpace>
CheckpointData resume(std::filesystem::path const& path, ExecutionSpace const& space,
                      DistributedSimulation<ExecutionSpace, MemorySpace>& simulation) {
  return detail::resume(path, space, simulation, simulation.local(), simulation.processes());
}

}  // namespace wave2d

#endif
