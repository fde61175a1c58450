// A distributed run's results as every rank writes them: its owned cells and the
// receivers in them, never the whole grid on one rank. For programs that link wave2d::io
// besides wave2d::distributed.
#ifndef WAVE2D_DISTRIBUTED_OUTPUT_HPP
#define WAVE2D_DISTRIBUTED_OUTPUT_HPP

#include <wave2d/distributed/wave2d_DistributedSimulation.hpp>
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_Hdf5FieldFile.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_Picture.hpp>
#include <wave2d/wave2d_Config.hpp>
#if defined(WAVE2D_HAVE_PARALLEL_HDF5)
#include <wave2d/io/wave2d_Hdf5Parallel.hpp>
#endif

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <vector>

namespace wave2d {

// The owned cells of a rank's local field (Simulation::current() or previous() of
// DistributedSimulation::local()), row-major, on the host.
template <class ExecutionSpace, class Field>
std::vector<float> owned_cells(ExecutionSpace const& space, Window const& window,
                               Field const& field) {
  using MemorySpace = typename Field::memory_space;
  auto const owned =
      Kokkos::subview(field, std::pair(window.owned_y(), window.owned_y() + window.ny),
                      std::pair(window.owned_x(), window.owned_x() + window.nx));
  Kokkos::View<float**, Kokkos::LayoutRight, MemorySpace> packed(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "wave2d::owned_cells"), window.ny,
      window.nx);
  Kokkos::deep_copy(space, packed, owned);
  std::vector<float> host(std::size_t(window.ny) * std::size_t(window.nx));
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace,
               Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      target(host.data(), window.ny, window.nx);
  Kokkos::deep_copy(space, target, packed);
  wave2d::fence(space, "wave2d::owned_cells: on the host");
  return host;
}

// The receivers a rank records (those in its owned cells) and their trace.
struct OwnedTrace {
  std::vector<std::int32_t> columns;  // indices into the scene's receivers, ascending
  std::int64_t first_step = 0;
  std::int64_t rows = 0;
  std::vector<float> values;  // rows x columns.size(), row-major
};

template <class ExecutionSpace, class MemorySpace>
OwnedTrace owned_trace(ExecutionSpace const& space,
                       DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
  auto const& local = simulation.local();
  OwnedTrace owned;
  for (std::size_t i : detail::owned_receivers(local.scene(), simulation.window())) {
    owned.columns.push_back(std::int32_t(i));
  }
  auto const trace = to_host(space, local.receivers());
  std::size_t const columns = local.scene().receivers.size();
  owned.first_step = local.receivers_first_step();
  owned.rows = std::int64_t(columns == 0 ? 0 : trace.size() / columns);
  owned.values.reserve(std::size_t(owned.rows) * owned.columns.size());
  for (std::int64_t row = 0; row < owned.rows; ++row) {
    for (std::int32_t column : owned.columns) {
      owned.values.push_back(trace[std::size_t(row) * columns + std::size_t(column)]);
    }
  }
  return owned;
}

// The HDF5 file `path` of a distributed run (FieldFile), each rank writing its owned
// cells; collective. OutputError when this build's HDF5 is not the parallel one.
template <class ExecutionSpace, class MemorySpace>
FieldFile open_field_file(std::filesystem::path const& path,
                          DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
#if defined(WAVE2D_HAVE_PARALLEL_HDF5)
  return FieldFile(path, simulation.local().scene(), simulation.window(),
                   processes_of(simulation.communicator()));
#else
  (void)simulation;
  throw OutputError("cannot write '" + path.string() + "': " +
                    (can_use_hdf5 ? "this build's HDF5 is serial (install libhdf5-openmpi-dev "
                                    "and rebuild)"
                                  : no_hdf5_reason));
#endif
}

// Collective: u(t_n) as the file's next frame.
template <class ExecutionSpace, class MemorySpace>
void write_frame(FieldFile& file, ExecutionSpace const& space,
                 DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
  file.write_frame(simulation.steps_done(),
                   owned_cells(space, simulation.window(), simulation.local().current()));
}

// Collective: the final pair and, when `receivers`, the receivers' trace.
template <class ExecutionSpace, class MemorySpace>
void write_results(FieldFile& file, ExecutionSpace const& space,
                   DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation,
                   bool receivers) {
  Window const& window = simulation.window();
  auto const& local = simulation.local();
  file.write_field(simulation.steps_done(), owned_cells(space, window, local.previous()),
                   owned_cells(space, window, local.current()));
  if (receivers && !local.scene().receivers.empty()) {
    OwnedTrace const trace = owned_trace(space, simulation);
    file.write_receivers(trace.first_step, trace.rows, trace.columns, trace.values);
  }
}

// Collective: the simulation's state and receivers' trace as the checkpoint `path`
// (wave2d_Checkpoint.hpp), each rank writing its owned cells and receivers; resumed on any
// number of ranks, or on one process. OutputError when it cannot be written.
template <class ExecutionSpace, class MemorySpace>
void write_checkpoint(std::filesystem::path const& path, ExecutionSpace const& space,
                      DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
#if defined(WAVE2D_HAVE_PARALLEL_HDF5)
  auto const& local = simulation.local();
  Scene const& scene = local.scene();
  CheckpointData header;
  header.nx = scene.nx;
  header.ny = scene.ny;
  header.step = simulation.steps_done();
  header.scene_hash = scene_hash(scene);
  header.numerics = numerics_text(local.backend(), ExecutionSpace::name());
  header.configuration = local.stepper_configuration() + " (rank 0), ranks " +
                         std::to_string(simulation.ranks()[0]) + " x " +
                         std::to_string(simulation.ranks()[1]);
  header.receivers = std::uint32_t(scene.receivers.size());
  header.receivers_hash = receivers_hash(scene);
  header.trace_first_step = local.receivers_first_step();
  Window const& window = simulation.window();
  std::vector<float> previous, current;
  OwnedTrace trace;
  detail::on_every_rank(simulation.communicator(), [&] {
    previous = owned_cells(space, window, local.previous());
    current = owned_cells(space, window, local.current());
    trace = owned_trace(space, simulation);
  });
  wave2d::write_checkpoint(path, header, window, previous, current, trace.columns, trace.values,
                           processes_of(simulation.communicator()));
#else
  (void)space;
  (void)simulation;
  throw OutputError("cannot write '" + path.string() + "': " +
                    (can_use_hdf5 ? "this build's HDF5 is serial (install libhdf5-openmpi-dev "
                                    "and rebuild)"
                                  : no_hdf5_reason));
#endif
}

// Collective: the simulation set to the checkpoint `path` (written by any number of ranks or
// one process), each rank reading its window, halo included, and the whole trace; its
// header checked first against the scene and this simulation's numerics (backend, execution
// space, wave2d). CheckpointError as read_checkpoint, on every rank. The header read.
template <class ExecutionSpace, class MemorySpace>
CheckpointData resume(std::filesystem::path const& path, ExecutionSpace const& space,
                      DistributedSimulation<ExecutionSpace, MemorySpace>& simulation) {
#if defined(WAVE2D_HAVE_PARALLEL_HDF5)
  auto const& local = simulation.local();
  std::string const numerics = numerics_text(local.backend(), ExecutionSpace::name());
  CheckpointData data =
      read_checkpoint(path, simulation.window(), processes_of(simulation.communicator()),
                      [&](CheckpointData const& header) {
                        check_checkpoint_matches(path, header, local.scene(), numerics);
                      });
  using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Window const& w = simulation.window();
  detail::on_every_rank(simulation.communicator(), [&] {
    simulation.set_state(space, HostField(data.previous.data(), w.local_ny(), w.local_nx()),
                         HostField(data.current.data(), w.local_ny(), w.local_nx()), data.step);
    simulation.restore_receivers(space,
                                 HostField(data.trace.data(), data.trace_rows(), data.receivers),
                                 data.trace_first_step);
    wave2d::fence(space, "wave2d::resume: the checkpoint's state set");
  });
  data.previous.clear();
  data.current.clear();
  data.trace.clear();
  return data;
#else
  (void)space;
  (void)simulation;
  throw CheckpointError("checkpoint '" + path.string() + "': " +
                        (can_use_hdf5 ? "this build's HDF5 is serial (install "
                                        "libhdf5-openmpi-dev and rebuild)"
                                      : no_hdf5_reason));
#endif
}

// Collective: on rank 0 the picture of u(t_n) (whole_picture's, at most max_picture_side
// pixels a side), merged from the ranks' parts of it: each rank reduces its owned cells to
// the pixels they overlap. Nothing on the other ranks.
template <class ExecutionSpace, class MemorySpace>
std::optional<PicturePart> gather_picture(
    ExecutionSpace const& space,
    DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
  Window const& window = simulation.window();
  Scene const& scene = simulation.local().scene();
  PicturePart part;
  MPI_Comm const comm = simulation.communicator();
  detail::on_every_rank(comm, [&] {
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
  detail::check_mpi(MPI_Gather(mine.data(), 4, MPI_INT32_T, placed.data(), 4, MPI_INT32_T, 0, comm),
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
  detail::check_mpi(MPI_Type_contiguous(int(sizeof(PixelPart)), MPI_BYTE, &pixel), "MPI_Type");
  MPI_Type_commit(&pixel);
  int const status = MPI_Gatherv(part.pixels.data(), int(part.pixels.size()), pixel, all.data(),
                                 counts.data(), displacements.data(), pixel, 0, comm);
  MPI_Type_free(&pixel);
  detail::check_mpi(status, "MPI_Gatherv");
  if (rank != 0) return std::nullopt;
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

// Collective: write_npy's file of (u(t_{n-1}), u(t_n)), shape (2, ny, nx), each rank
// writing its owned rows at their offsets through MPI-IO: no rank holds more than its
// block. Under a temporary name that rank 0 renames, as write_npy does.
template <class ExecutionSpace, class MemorySpace>
void write_npy(std::filesystem::path const& path, ExecutionSpace const& space,
               DistributedSimulation<ExecutionSpace, MemorySpace> const& simulation) {
  Window const& window = simulation.window();
  Scene const& scene = simulation.local().scene();
  MPI_Comm const comm = simulation.communicator();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::array<char, 4096> names[2] = {};  // the target and the file written, from rank 0
  std::vector<float> block;
  detail::on_every_rank(comm, [&] {
    block = owned_cells(space, window, simulation.local().previous());
    auto const current = owned_cells(space, window, simulation.local().current());
    block.insert(block.end(), current.begin(), current.end());
    if (rank != 0) return;
    OutputTarget const target = output_target(path);
    std::string const written =
        target.write_through ? target.path.string() : temporary_path(target.path).string();
    if (written.size() >= names[1].size())
      throw OutputError("cannot write '" + path.string() + "': name too long");
    target.path.string().copy(names[0].data(), names[0].size() - 1);
    written.copy(names[1].data(), names[1].size() - 1);
  });
  for (auto& name : names) {
    detail::check_mpi(MPI_Bcast(name.data(), int(name.size()), MPI_CHAR, 0, comm), "MPI_Bcast");
  }
  std::filesystem::path const target(names[0].data());
  std::filesystem::path const written(names[1].data());
  bool const through = target == written;
  std::optional<RegisteredTemporary> registered;
  if (rank == 0 && !through) registered.emplace(written);
  auto const fail = [&](char const* what) {
    throw OutputError("cannot write '" + path.string() + "': " + what);
  };
  // The ranks without the Cartesian topology: Open MPI 4.1's MPI-IO corrupts collective
  // writes over some Cartesian communicators (seen on 3 ranks).
  struct Plain {
    MPI_Comm comm = MPI_COMM_NULL;
    ~Plain() {
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    }
  } plain;
  detail::check_mpi(MPI_Comm_split(comm, 0, rank, &plain.comm), "MPI_Comm_split");
  MPI_File file = MPI_FILE_NULL;
  try {
    detail::on_every_rank(comm, [&] {
      int const mode = MPI_MODE_WRONLY | MPI_MODE_CREATE;
      if (MPI_File_open(plain.comm, written.c_str(), mode, MPI_INFO_NULL, &file) != MPI_SUCCESS) {
        fail("MPI-IO cannot create it");
      }
    });
    detail::on_every_rank(comm, [&] {
      std::int64_t const shape[] = {2, scene.ny, scene.nx};
      std::string const header = npy_header(shape);
      if (rank == 0 && MPI_File_write_at(file, 0, header.data(), int(header.size()), MPI_CHAR,
                                         MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        fail("MPI-IO cannot write its header");
      }
      // The file seen as the owned rows of both fields; written a row at a time.
      int const sizes[3] = {2, scene.ny, scene.nx};
      int const owned[3] = {2, window.ny, window.nx};
      int const starts[3] = {0, window.y0, window.x0};
      MPI_Datatype rows;
      MPI_Datatype row;
      MPI_Type_create_subarray(3, sizes, owned, starts, MPI_ORDER_C, MPI_FLOAT, &rows);
      MPI_Type_contiguous(window.nx, MPI_FLOAT, &row);
      MPI_Type_commit(&rows);
      MPI_Type_commit(&row);
      int status = MPI_File_set_view(file, MPI_Offset(header.size()), MPI_FLOAT, rows, "native",
                                     MPI_INFO_NULL);
      if (status == MPI_SUCCESS) {
        status = MPI_File_write_all(file, block.data(), 2 * window.ny, row, MPI_STATUS_IGNORE);
      }
      MPI_Type_free(&rows);
      MPI_Type_free(&row);
      if (status != MPI_SUCCESS) fail("MPI-IO cannot write its rows");
    });
    detail::on_every_rank(comm, [&] {
      if (MPI_File_close(&file) != MPI_SUCCESS) fail("MPI-IO cannot close it");
      if (rank != 0 || through) return;
      std::error_code error;
      std::filesystem::rename(written, target, error);
      if (error) fail(error.message().c_str());
    });
  } catch (...) {
    if (file != MPI_FILE_NULL) MPI_File_close(&file);
    if (rank == 0 && !through) {
      std::error_code ignored;
      std::filesystem::remove(written, ignored);
    }
    throw;
  }
}

}  // namespace wave2d

#endif
