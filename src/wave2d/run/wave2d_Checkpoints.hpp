// A simulation's checkpoints (io/wave2d_Checkpoint.hpp): the one writer and the one reader
// of the library's runs, for a Simulation of the whole grid and, through the same code, for
// the ranks of a DistributedSimulation (run/wave2d_DistributedRun.hpp), each with its block.
#ifndef WAVE2D_RUN_CHECKPOINTS_HPP
#define WAVE2D_RUN_CHECKPOINTS_HPP

#include <wave2d/backend/wave2d_Fields.hpp>
#include <wave2d/core/wave2d_Processes.hpp>
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace wave2d {

namespace detail {

// The receivers a process holds (those in the owned cells of its window) and their trace.
struct OwnedTrace {
  std::vector<std::int32_t> columns;  // indices into the scene's receivers, ascending
  std::int64_t first_step = 0;
  std::int64_t rows = 0;
  std::vector<float> values;  // rows x columns.size(), row-major
};

template <class ExecutionSpace, class MemorySpace>
OwnedTrace owned_trace(ExecutionSpace const& space,
                       Simulation<ExecutionSpace, MemorySpace> const& local) {
  OwnedTrace owned;
  for (std::size_t i : owned_receivers(local.scene(), local.window())) {
    owned.columns.push_back(std::int32_t(i));
  }
  std::size_t const columns = local.scene().receivers.size();
  owned.first_step = local.receivers_first_step();
  if (columns == 0) return owned;
  auto const trace = to_host(space, local.receivers());
  owned.rows = std::int64_t(trace.size() / columns);
  owned.values.reserve(std::size_t(owned.rows) * owned.columns.size());
  for (std::int64_t row = 0; row < owned.rows; ++row) {
    for (std::int32_t column : owned.columns) {
      owned.values.push_back(trace[std::size_t(row) * columns + std::size_t(column)]);
    }
  }
  return owned;
}

// The numerics a checkpoint of this simulation records and a resume compares.
template <class ExecutionSpace, class MemorySpace>
std::string numerics_of(Simulation<ExecutionSpace, MemorySpace> const& local) {
  return numerics_text(local.backend(), ExecutionSpace::name());
}

// Collective over `processes`: the state and trace of `local` (this process's window) as
// the checkpoint `path`, `configuration` saying what ran. OutputError on every process
// when it cannot be written, CheckpointError (nothing written) for a state not finite.
template <class ExecutionSpace, class MemorySpace>
void write_checkpoint(std::filesystem::path const& path, ExecutionSpace const& space,
                      Simulation<ExecutionSpace, MemorySpace> const& local,
                      Processes const& processes, std::string const& configuration) {
  Scene const& scene = local.scene();
  CheckpointData header;
  header.nx = scene.nx;
  header.ny = scene.ny;
  header.step = local.steps_done();
  header.scene_hash = scene_hash(scene);
  header.numerics = numerics_of(local);
  header.configuration = configuration;
  header.receivers = std::uint32_t(scene.receivers.size());
  header.receivers_hash = receivers_hash(scene);
  header.trace_first_step = local.receivers_first_step();
  Window const& window = local.window();
  std::vector<float> previous, current;
  OwnedTrace trace;
  processes.agree([&] {
    previous = owned_cells(space, window, local.previous());
    current = owned_cells(space, window, local.current());
    trace = owned_trace(space, local);
    // A checkpoint holds a state a run can go on from: none that is not finite.
    Window const owned{window.global_nx, window.global_ny, window.x0, window.y0,
                       window.nx,        window.ny,        0};
    if (auto const bad = first_not_finite(previous, current, header.step, owned)) {
      throw CheckpointError("cannot write checkpoint '" + path.string() + "': u at step " +
                            std::to_string(bad->step) + " is " + std::to_string(bad->value) +
                            " at cell (" + std::to_string(bad->x) + ", " + std::to_string(bad->y) +
                            "): no run could go on from it");
    }
  });
  wave2d::write_checkpoint(path, header, window, previous, current, trace.columns, trace.values,
                           processes);
}

// Collective over `processes`: `target` (a Simulation, or the DistributedSimulation whose
// rank's window `local` is) set to the checkpoint `path`, written by any number of processes:
// each reads its window, halo included, and the whole trace, after its header is checked
// against the scene and the numerics. CheckpointError as read_checkpoint, on every process.
// The header read.
template <class ExecutionSpace, class MemorySpace, class Target>
CheckpointData resume(std::filesystem::path const& path, ExecutionSpace const& space,
                      Target& target, Simulation<ExecutionSpace, MemorySpace> const& local,
                      Processes const& processes) {
  std::string const numerics = numerics_of(local);
  CheckpointData data =
      read_checkpoint(path, local.window(), processes, [&](CheckpointData const& header) {
        check_checkpoint_matches(path, header, local.scene(), numerics);
      });
  Window const& w = local.window();
  processes.agree([&] {
    target.set_state(space, HostRows(data.previous.data(), w.local_ny(), w.local_nx()),
                     HostRows(data.current.data(), w.local_ny(), w.local_nx()), data.step);
    target.restore_receivers(space, HostRows(data.trace.data(), data.trace_rows(), data.receivers),
                             data.trace_first_step);
    wave2d::fence(space, "wave2d::resume: the checkpoint's state set");  // before the host data go
  });
  data.previous.clear();
  data.current.clear();
  data.trace.clear();
  return data;
}

}  // namespace detail

// The simulation's state and receivers' trace as the checkpoint `path` (with the trace even
// where the run writes no receivers' files: a run resumed from it may). OutputError when it
// cannot be written, CheckpointError when the state is not finite (no run could go on from
// it: the file is left as it was); the file is the previous checkpoint or this one, never a
// mix.
template <class ExecutionSpace, class MemorySpace>
void write_checkpoint(std::filesystem::path const& path, ExecutionSpace const& space,
                      Simulation<ExecutionSpace, MemorySpace> const& simulation) {
  detail::write_checkpoint(path, space, simulation, Processes(),
                           simulation.stepper_configuration());
}

// The simulation set to the checkpoint `path` (written by one process or by the ranks of a
// distributed run), its receivers' trace too: it goes on as the run that wrote it would
// have. CheckpointError for a checkpoint of another scene, backend, execution space or
// wave2d, or one that cannot be read. The checkpoint's header.
template <class ExecutionSpace, class MemorySpace>
CheckpointData resume(std::filesystem::path const& path, ExecutionSpace const& space,
                      Simulation<ExecutionSpace, MemorySpace>& simulation) {
  return detail::resume(path, space, simulation, simulation, Processes());
}

}  // namespace wave2d

#endif
