// `wave2d run`: everything the user asked for is checked first, then Kokkos starts, the
// scene is stepped and the results are written, each file complete or not at all. The
// same stepping drives a run on one process and a distributed one (--ranks).
#include <cli/wave2d_Commands.hpp>
#include <cli/wave2d_DeferredSignals.hpp>
#include <cli/wave2d_KokkosArguments.hpp>
#include <cli/wave2d_Memory.hpp>
#include <cli/wave2d_OutputFiles.hpp>
#include <cli/wave2d_Progress.hpp>
#include <cli/wave2d_ReceiverFiles.hpp>
#include <cli/wave2d_Spaces.hpp>
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_Hdf5FieldFile.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_Picture.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>
#include <wave2d/simulation/wave2d_Backends.hpp>
#include <wave2d/simulation/wave2d_FiniteCheck.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#include <wave2d/wave2d_Config.hpp>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>
#if defined(WAVE2D_HAVE_MPI)
#include <wave2d/distributed/wave2d_DistributedOutput.hpp>
#include <wave2d/distributed/wave2d_DistributedSimulation.hpp>
#endif

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <new>
#include <sstream>
#include <type_traits>
#include <utility>

namespace wave2d::cli {

namespace {

namespace fs = std::filesystem;

// A run, checked: what it simulates and where its results go.
struct RunPlan {
  Scene scene;
  std::string scene_label;  // as the user named it
  std::string backend;  // "auto" or a backend's name
  std::string space;    // --space; empty: the default
  PlanOptions plan_options;
  ValidationOptions validation;
  std::int64_t steps = 0;
  // A distributed run over ranks[0] x ranks[1] MPI ranks (0 x 0: MPI's choice), as
  // --ranks gave them (ranks_text).
  std::optional<std::array<int, 2>> ranks;
  std::string ranks_text;
  ProgressStyle progress = ProgressStyle::none;
  double progress_every = 0.0;  // seconds between progress lines
  bool images = false;
  std::optional<std::int64_t> frames_every;
  OutputFiles files;
  std::optional<fs::path> npy_file;
  std::optional<fs::path> h5_file;
  bool keep_last_finite = false;
  bool receivers = false;  // writes the receivers' NPY and CSV
  bool receivers_plot = false;
  std::optional<std::int64_t> checkpoint_every;  // with checkpoint_file
  fs::path checkpoint_file;
  std::optional<fs::path> resume_file;  // with resume, read and checked against the scene
  CheckpointData resume;
  // Said when a scene file is named like a built-in scene, whose outputs' names it takes.
  std::string name_note;
};

std::string join(std::vector<std::string> const& names) {
  std::string list;
  for (auto const& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

void print_line(std::string_view label, std::string const& value) {
  std::cout << std::left << std::setw(15) << label << value << "\n";
}

template <class ExecutionSpace>
std::string describe(ExecutionSpace const& space) {
  std::string text = ExecutionSpace::name();
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    text += " (" + counted(space.concurrency(), "thread") + ")";
  }
  return text;
}

template <class ExecutionSpace>
Simulation<ExecutionSpace> start_simulation(ExecutionSpace const& space, RunPlan const& plan) {
  auto const failure = [&](std::exception const& e) {
    return std::runtime_error("cannot set up the " + std::to_string(plan.scene.nx) + " x " +
                              std::to_string(plan.scene.ny) + " grid on " + ExecutionSpace::name() +
                              ": " + e.what());
  };
  try {
    return Simulation<ExecutionSpace>(space, plan.scene, plan.backend, plan.validation,
                                      plan.plan_options);
  } catch (std::bad_alloc const& e) {
    throw failure(e);
  } catch (std::runtime_error const& e) {  // Kokkos' allocation failures
    throw failure(e);
  }
}

ReceiverTrace make_trace(Scene const& scene, std::vector<float> values, std::int64_t first_step) {
  return {std::move(values), receiver_names(scene), first_step, scene.t0, scene.dt};
}

// The trace's first step when it holds the whole run: step 0, or where the resumed
// checkpoint's trace began (step 0 too, unless a program began it at a state it set). A
// run that went back to its last finite state has restarted it there.
std::int64_t whole_trace_first_step(RunPlan const& plan) {
  return plan.resume_file ? plan.resume.trace_first_step : 0;
}

// Writes the simulation's state and its receivers' trace as the plan's checkpoint (with
// --no-receivers too: a run resumed from it may write the receivers' files).
template <class ExecutionSpace>
void write_checkpoint(ExecutionSpace const& space, Simulation<ExecutionSpace> const& simulation,
                      RunPlan const& plan) {
  CheckpointData data;
  data.nx = plan.scene.nx;
  data.ny = plan.scene.ny;
  data.step = simulation.steps_done();
  data.scene_hash = scene_hash(plan.scene);
  data.numerics = numerics_text(simulation.backend(), ExecutionSpace::name());
  data.configuration = simulation.stepper_configuration();
  data.previous = to_host(space, simulation.previous());
  data.current = to_host(space, simulation.current());
  data.receivers = std::uint32_t(plan.scene.receivers.size());
  data.receivers_hash = receivers_hash(plan.scene);
  data.trace_first_step = simulation.receivers_first_step();
  data.trace = to_host(space, simulation.receivers());
  create_parent_directory(plan.checkpoint_file);
  wave2d::write_checkpoint(plan.checkpoint_file, data);
}

// A run on one process, as step() drives it. ManyProcesses is the distributed one: the
// same members, each rank holding its window of the grid.
template <class ExecutionSpace>
class OneProcess {
 public:
  using Field = typename Simulation<ExecutionSpace>::field_type;

  OneProcess(ExecutionSpace const& space, Simulation<ExecutionSpace>& simulation)
      : space_(space), simulation_(simulation), check_(space) {}

  ExecutionSpace const& space() const { return space_; }
  bool root() const { return true; }  // prints and writes
  std::int64_t steps_done() const { return simulation_.steps_done(); }
  // This process's fields.
  Field const& previous() const { return simulation_.previous(); }
  Field const& current() const { return simulation_.current(); }

  // Steps n steps; the seconds they took, fenced.
  double advance(std::int64_t n) {
    auto const start = std::chrono::steady_clock::now();
    simulation_.advance(space_, n);
    wave2d::fence(space_, "wave2d::cli::run: end of a chunk of steps");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Of u(t_n), with previous_too of u(t_{n-1}) too.
  std::optional<FieldCell> first_non_finite(bool previous_too) const {
    auto cell = check_.first_non_finite(space_, simulation_.current());
    if (!cell && previous_too) cell = check_.first_non_finite(space_, simulation_.previous());
    return cell;
  }

  template <class Previous, class Current>
  void set_state(Previous const& previous, Current const& current, std::int64_t step) {
    simulation_.set_state(space_, previous, current, step);
  }

  // The picture of u(t_n) (whole_picture's).
  std::optional<PicturePart> picture() const {
    return picture_part(to_host(space_, simulation_.current()), simulation_.scene().walls,
                        Window::whole(simulation_.scene().nx, simulation_.scene().ny));
  }

  // The pair (u(t_{n-1}), u(t_n)) as an NPY file.
  void write_npy(fs::path const& path) const {
    create_parent_directory(path);
    Scene const& scene = simulation_.scene();
    wave2d::write_npy(path, to_host(space_, simulation_.previous()),
                      to_host(space_, simulation_.current()), scene.nx, scene.ny);
  }

  // The HDF5 file (--save-h5): opened before the first step, its frames written on the way.
  FieldFile open_field_file(fs::path const& path) const {
    create_parent_directory(path);
    Scene const& scene = simulation_.scene();
    return FieldFile(path, scene, Window::whole(scene.nx, scene.ny));
  }
  void write_frame(FieldFile& file) const {
    file.write_frame(steps_done(), to_host(space_, simulation_.current()));
  }
  // The final pair, and the receivers' trace when the plan writes it and it holds the
  // whole run.
  void write_results(FieldFile& file, RunPlan const& plan) const {
    file.write_field(steps_done(), to_host(space_, simulation_.previous()),
                     to_host(space_, simulation_.current()));
    if (auto const whole = trace(plan); whole && !whole->names.empty()) {
      std::vector<std::int32_t> columns(whole->names.size());
      for (std::size_t i = 0; i < columns.size(); ++i) columns[i] = std::int32_t(i);
      file.write_receivers(whole->first_step, whole->rows(), columns, whole->values);
    }
  }

  // The receivers' trace when the plan writes it and it holds the whole run.
  std::optional<ReceiverTrace> trace(RunPlan const& plan) const {
    std::int64_t const first = whole_trace_first_step(plan);
    if (!plan.receivers || simulation_.receivers_first_step() != first) return std::nullopt;
    return make_trace(plan.scene, to_host(space_, simulation_.receivers()), first);
  }

  void write_checkpoint(RunPlan const& plan) const {
    cli::write_checkpoint(space_, simulation_, plan);
  }

  // Runs f (on every rank of a distributed run, failing on all if it fails on one).
  template <class F>
  void together(F&& f) {
    f();
  }

 private:
  ExecutionSpace space_;
  Simulation<ExecutionSpace>& simulation_;
  FiniteCheck<ExecutionSpace> check_;
};

#if defined(WAVE2D_HAVE_MPI)
// A distributed run's rank, as step() drives it: collective members are called on every
// rank alike, and rank 0 prints and writes.
template <class ExecutionSpace>
class ManyProcesses {
 public:
  using Distributed = DistributedSimulation<ExecutionSpace>;
  using Field = typename Simulation<ExecutionSpace>::field_type;

  ManyProcesses(ExecutionSpace const& space, Distributed& simulation)
      : space_(space), simulation_(simulation), comm_(simulation.communicator()) {
    MPI_Comm_rank(comm_, &rank_);
  }

  ExecutionSpace const& space() const { return space_; }
  bool root() const { return rank_ == 0; }
  std::int64_t steps_done() const { return simulation_.steps_done(); }
  // This rank's window's fields, halos included.
  Field const& previous() const { return simulation_.local().previous(); }
  Field const& current() const { return simulation_.local().current(); }

  // Collective. The slowest rank's seconds, so that every rank sizes its chunks alike.
  double advance(std::int64_t n) {
    MPI_Barrier(comm_);
    auto const start = std::chrono::steady_clock::now();
    simulation_.advance(space_, n);
    wave2d::fence(space_, "wave2d::cli::run: end of a chunk of steps");
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
    return seconds;
  }

  // Collective: the whole grid's first, the same on every rank.
  std::optional<FieldCell> first_non_finite(bool previous_too) const {
    return simulation_.first_non_finite(space_, previous_too);
  }

  // Every rank its own window's fields, at the same step.
  template <class Previous, class Current>
  void set_state(Previous const& previous, Current const& current, std::int64_t step) {
    simulation_.set_state(space_, previous, current, step);
  }

  // Collective: on rank 0, the picture of u(t_n) merged from the ranks' parts of it.
  std::optional<PicturePart> picture() { return gather_picture(space_, simulation_); }

  // Collective: each rank writes its owned rows through MPI-IO; the whole grid is never
  // on one rank.
  void write_npy(fs::path const& path) {
    together([&] {
      if (root()) create_parent_directory(path);
    });
    wave2d::write_npy(path, space_, simulation_);
  }

  // Collective: each rank writes its owned cells and receivers.
  FieldFile open_field_file(fs::path const& path) {
    together([&] {
      if (root()) create_parent_directory(path);
    });
    return wave2d::open_field_file(path, simulation_);
  }
  void write_frame(FieldFile& file) { wave2d::write_frame(file, space_, simulation_); }
  void write_results(FieldFile& file, RunPlan const& plan) {
    wave2d::write_results(file, space_, simulation_,
                          plan.receivers && simulation_.local().receivers_first_step() ==
                                                whole_trace_first_step(plan));
  }

  // Collective: on rank 0, the receivers' trace when the plan writes it and it holds the
  // whole run (every rank's starts at the same step).
  std::optional<ReceiverTrace> trace(RunPlan const& plan) {
    std::int64_t const first = whole_trace_first_step(plan);
    if (!plan.receivers || simulation_.local().receivers_first_step() != first) return std::nullopt;
    auto values = simulation_.gather_receivers(space_);
    if (!root()) return std::nullopt;
    return make_trace(plan.scene, std::move(values), first);
  }

  // Collective: each rank writes its owned cells and receivers into the checkpoint.
  void write_checkpoint(RunPlan const& plan) {
    together([&] {
      if (root()) create_parent_directory(plan.checkpoint_file);
    });
    wave2d::write_checkpoint(plan.checkpoint_file, space_, simulation_);
  }

  // Collective: each rank its window's cells, halo included, and the whole trace, from the
  // plan's checkpoint, whatever split wrote it.
  void resume(RunPlan const& plan) {
    CheckpointData header;
    try {
      header = wave2d::resume(*plan.resume_file, space_, simulation_);
    } catch (CheckpointError const& e) {
      throw InputError(e.what());
    }
    if (root()) {
      print_line("resumed",
                 "from " + plan.resume_file->string() + ", step " + std::to_string(header.step));
    }
  }

  // Collective: f on every rank; if it throws on any, every rank throws the error of the
  // lowest failing rank, with its exit status: a rank that failed alone would leave the
  // others waiting in the next collective.
  template <class F>
  void together(F&& f) {
    std::string error;
    int status = 0;
    try {
      f();
    } catch (std::exception const& e) {
      error = e.what();
      status = is_input_error(e) ? exit_input_error : exit_runtime_failure;
    }
    int size = 0;
    MPI_Comm_size(comm_, &size);
    int failed = status == 0 ? size : rank_;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MIN, comm_);
    if (failed == size) return;
    int length = int(error.size());
    MPI_Bcast(&status, 1, MPI_INT, failed, comm_);
    MPI_Bcast(&length, 1, MPI_INT, failed, comm_);
    error.resize(std::size_t(length));
    MPI_Bcast(error.data(), length, MPI_CHAR, failed, comm_);
    if (failed != 0) error = "rank " + std::to_string(failed) + ": " + error;
    if (status == exit_input_error) throw InputError(error);
    throw std::runtime_error(error);
  }

 private:
  ExecutionSpace space_;
  Distributed& simulation_;
  MPI_Comm comm_;
  int rank_ = 0;
};
#endif

// The last state found finite, kept in the run's memory space: each rank its window.
template <class Run>
class LastFinite {
 public:
  using Field = typename Run::Field;

  explicit LastFinite(Run const& run)
      : previous_(Kokkos::view_alloc(run.space(), Kokkos::WithoutInitializing,
                                     "wave2d::cli::LastFinite::previous"),
                  run.current().extent(0), run.current().extent(1)),
        current_(Kokkos::view_alloc(run.space(), Kokkos::WithoutInitializing,
                                    "wave2d::cli::LastFinite::current"),
                 run.current().extent(0), run.current().extent(1)) {}

  void save(Run const& run) {
    Kokkos::deep_copy(run.space(), previous_, run.previous());
    Kokkos::deep_copy(run.space(), current_, run.current());
    step_ = run.steps_done();
  }

  void restore(Run& run) const { run.set_state(previous_, current_, step_); }

 private:
  Field previous_;
  Field current_;
  std::int64_t step_ = 0;
};

// Where a run first went non-finite.
struct Divergence {
  std::int64_t step = 0;  // u(t_step) is the first field that is not finite
  FieldCell cell;
};

struct Stepping {
  double seconds = 0.0;          // of the stepping alone, fenced
  std::int64_t steps = 0;        // stepped by this run: fewer than the plan's when resumed
  std::int64_t first_frame = 0;  // the step of the first frame this run wrote
  std::int64_t frames = 0;       // written by this run
  std::optional<Divergence> divergence;  // then the run holds the last finite state
};

// From the last finite state, one step at a time up to the first non-finite field; leaves
// the run at the state before it, the last finite one.
template <class Run>
Divergence locate_divergence(Run& run, LastFinite<Run>& last_finite) {
  last_finite.restore(run);
  while (true) {
    run.advance(1);
    if (auto const cell = run.first_non_finite(false)) {
      Divergence const divergence{run.steps_done(), *cell};
      last_finite.restore(run);
      return divergence;
    }
    last_finite.save(run);
  }
}

// The next step at which the run stops for something: a frame, a checkpoint.
std::int64_t next_stop(std::optional<std::int64_t> every, std::int64_t done, std::int64_t end) {
  return every ? std::min(end, done + *every - done % *every) : end;
}

bool is_due(std::optional<std::int64_t> every, std::int64_t step, std::int64_t end) {
  return every && (step % *every == 0 || step == end);
}

// On SIGINT, SIGTERM or SIGHUP (deferred while a run has checkpoints): a last checkpoint,
// then the end by that signal.
template <class Run>
void end_on_signal(Run& run, RunPlan const& plan, DeferredSignals& signals, bool checkpointed,
                   std::optional<Progress>& progress) {
  if (!signals.pending()) return;
  if (!checkpointed) run.write_checkpoint(plan);
  progress.reset();  // its line erased before the message
  std::cerr << "wave2d: interrupted after step " << run.steps_done() << ": wrote the checkpoint "
            << plan.checkpoint_file.string() << " (--resume " << plan.checkpoint_file.string()
            << " continues the run)\n";
  signals.end_by_pending_signal();
}

// Runs the plan's steps, writing the frames and checkpoints on the way. The field is
// checked on the device after each chunk, so that no non-finite field is ever written.
// Chunks of steps double until one lasts about 0.1 s: few enough checks not to slow the
// run, often enough for the progress. Steps are global indices, so the chunking does not
// change the result.
template <class Run>
Stepping step(Run& run, RunPlan const& plan, FieldFile* h5) {
  Stepping stepping;
  auto const write_frame = [&] {
    std::int64_t const now = run.steps_done();
    if (stepping.frames++ == 0) stepping.first_frame = now;
    if (plan.images) {
      auto const picture = run.picture();
      run.together([&] {
        if (picture) plan.files.write_picture(plan.files.frame(now), *picture, plan.scene);
      });
    }
    if (h5) run.write_frame(*h5);
  };
  // A resumed run's earlier frames are the run it resumed's.
  if (plan.frames_every && run.steps_done() == 0) write_frame();
  std::optional<LastFinite<Run>> last_finite;
  run.together([&] { last_finite.emplace(run); });
  last_finite->save(run);
  std::optional<DeferredSignals> signals;
  if (plan.checkpoint_every) signals.emplace();
  std::int64_t checkpointed = -1;  // the step of the last checkpoint written
  std::optional<Progress> progress;
  if (run.root()) {
    progress.emplace(plan.progress, run.steps_done(), plan.steps, plan.scene.cells(),
                     plan.progress_every);
  }
  std::int64_t chunk = 1;
  while (run.steps_done() < plan.steps) {
    std::int64_t const done = run.steps_done();
    std::int64_t const stop = std::min(next_stop(plan.frames_every, done, plan.steps),
                                       next_stop(plan.checkpoint_every, done, plan.steps));
    std::int64_t const n = std::min(chunk, stop - done);
    double const seconds = run.advance(n);
    stepping.seconds += seconds;
    stepping.steps += n;
    if (n == chunk && seconds < 0.05) chunk *= 2;
    if (run.first_non_finite(true)) {
      stepping.divergence = locate_divergence(run, *last_finite);
      return stepping;
    }
    last_finite->save(run);
    std::int64_t const now = run.steps_done();
    if (is_due(plan.frames_every, now, plan.steps)) write_frame();
    if (is_due(plan.checkpoint_every, now, plan.steps)) {
      run.write_checkpoint(plan);
      checkpointed = now;
    }
    if (signals) end_on_signal(run, plan, *signals, checkpointed == now, progress);
    if (progress) progress->update(now);
  }
  return stepping;
}

// What the run is, before it starts.
void print_run(RunPlan const& plan, std::string const& space) {
  if (!plan.name_note.empty()) std::cerr << "wave2d: note: " << plan.name_note << "\n";
  print_line("scene", plan.scene_label);
  print_line("grid", std::to_string(plan.scene.nx) + " x " + std::to_string(plan.scene.ny));
  print_line("steps", std::to_string(plan.steps));
  print_line("backend", plan.backend);
  print_line("space", space);
}

// What `auto` chose and how (the candidates' speeds in the trial), and the plan cache's
// notes.
void print_plan(Plan const* chosen) {
  if (chosen == nullptr) return;
  for (auto const& note : chosen->notes) std::cerr << "wave2d: note: " << note << "\n";
  print_line("plan", chosen->summary());
  if (chosen->ranking.empty()) return;
  std::ostringstream rates;
  for (auto const& rate : chosen->ranking) {
    rates << (rates.tellp() > 0 ? ", " : "") << rate.backend << " " << std::fixed
          << std::setprecision(rate.gcells_per_second < 10 ? 2 : 0) << rate.gcells_per_second;
  }
  print_line("trial", rates.str() + " GCells/s");
}

void print_timing(RunPlan const& plan, std::int64_t steps, double seconds) {
  if (steps == 0) return;
  std::ostringstream time, throughput;
  time << std::setprecision(4) << seconds << " s";
  throughput << std::setprecision(4) << double(plan.scene.cells()) * double(steps) / seconds / 1e9
             << " GCells/s";
  print_line("time", time.str());
  print_line("throughput", throughput.str());
}

// Notes on what this build cannot write, once every check has passed: an error stays a
// single line.
void print_build_notes(RunPlan const& plan) {
  if (!plan.images) {
    std::cerr << "wave2d: note: built without libpng, so no images (install libpng-dev and "
                 "rebuild)\n";
  }
  if (plan.receivers && !plan.receivers_plot) {
    std::cerr << "wave2d: note: built without libplot, so no plot of the receivers (install "
                 "libplot-dev and rebuild)\n";
  }
}

// The receivers' NPY, CSV and plot.
void write_trace_files(RunPlan const& plan, ReceiverTrace const& trace) {
  fs::path const npy = plan.files.receivers("npy");
  fs::path const csv = plan.files.receivers("csv");
  create_parent_directory(npy);
  write_npy(npy, trace.values, trace.rows(), std::int64_t(trace.names.size()));
  write_receivers_csv(csv, trace);
  std::cout << "wrote " << npy.string() << ", " << csv.filename().string();
  if (plan.receivers_plot) {
    plot_receivers(plan.files.receivers("png"), trace);
    std::cout << ", " << plan.files.receivers("png").filename().string();
  }
  std::cout << " (" << counted(std::int64_t(trace.names.size()), "receiver") << ", "
            << counted(trace.rows(), "row") << ")\n";
}

// Collective: the run's results. Each rank writes its own cells of the HDF5 file and of
// the NPY, the root the pictures, the receivers' files and the video of the frames:
// `frames` by this run from step first_frame on, to the last step; the video takes every
// frame from step 0 on (those of the run a resumed one continues too).
template <class Run>
void write_results(Run& run, RunPlan const& plan, std::int64_t first_frame, std::int64_t frames,
                   FieldFile* h5) {
  auto const trace = run.trace(plan);
  if (h5) {
    run.write_results(*h5, plan);
    h5->commit();
  }
  if (plan.npy_file) run.write_npy(*plan.npy_file);
  std::optional<PicturePart> const picture = plan.images ? run.picture() : std::nullopt;
  run.together([&] {
    if (!run.root()) return;
    if (trace) write_trace_files(plan, *trace);
    if (h5) {
      std::cout << "wrote " << plan.h5_file->string() << ", "
                << xdmf_path(*plan.h5_file).filename().string() << "\n";
    }
    if (plan.npy_file) std::cout << "wrote " << plan.npy_file->string() << "\n";
    if (picture) {
      plan.files.write_picture(plan.files.image(), *picture, plan.scene);
      std::cout << "wrote " << plan.files.image().string() << "\n";
    }
    if (frames > 0 && plan.images) {
      std::cout << "wrote " << counted(frames, "frame") << " "
                << plan.files.frame(first_frame).string();
      if (frames > 1) std::cout << " .. " << plan.files.frame(plan.steps).filename().string();
      std::cout << "\n";
      make_video(plan.files, {*plan.frames_every, plan.steps}, std::cout, std::cerr);
    }
  });
}

// The run's end: the error of a run that went non-finite, after its last finite state's
// results with --keep-last-finite; else the timing and the results.
template <class Run>
void finish(Run& run, RunPlan const& plan, Stepping const& stepping, FieldFile* h5) {
  if (auto const& divergence = stepping.divergence) {
    std::string message = "the field is not finite after step " + std::to_string(divergence->step) +
                          ", first at cell (" + std::to_string(divergence->cell.x) + ", " +
                          std::to_string(divergence->cell.y) + ")";
    if (plan.keep_last_finite) {
      if (run.root()) std::cout << "kept the last finite state, step " << run.steps_done() << "\n";
      write_results(run, plan, 0, 0, h5);
      message += "; wrote the last finite state, step " + std::to_string(run.steps_done());
    } else {
      message += " (--keep-last-finite writes the last finite state)";
    }
    throw std::runtime_error(message);
  }
  if (run.root()) print_timing(plan, stepping.steps, stepping.seconds);
  write_results(run, plan, stepping.first_frame, stepping.frames, h5);
  if (run.root() && plan.checkpoint_every && stepping.steps > 0) {
    print_line("checkpoint",
               plan.checkpoint_file.string() + ", step " + std::to_string(run.steps_done()));
  }
}

// Sets the simulation to the plan's checkpoint, now that the backend's numerics can be
// compared with the checkpoint's.
template <class ExecutionSpace>
void resume(ExecutionSpace const& space, Simulation<ExecutionSpace>& simulation,
            RunPlan const& plan) {
  try {
    check_checkpoint_matches(*plan.resume_file, plan.resume, plan.scene,
                             numerics_text(simulation.backend(), ExecutionSpace::name()));
  } catch (CheckpointError const& e) {
    throw InputError(e.what());
  }
  using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  CheckpointData const& resume = plan.resume;
  Scene const& scene = plan.scene;
  simulation.set_state(space, HostField(resume.previous.data(), scene.ny, scene.nx),
                       HostField(resume.current.data(), scene.ny, scene.nx), resume.step);
  // With --no-receivers too, for the checkpoints this run writes.
  simulation.restore_receivers(
      space, HostField(resume.trace.data(), resume.trace_rows(), resume.receivers),
      resume.trace_first_step);
  wave2d::fence(space, "wave2d::cli::run: resumed");
  print_line("resumed",
             "from " + plan.resume_file->string() + ", step " + std::to_string(resume.step));
}

template <class ExecutionSpace>
void simulate(RunPlan const& plan, std::vector<char*> kokkos_arguments) {
  check_memory_before_start<ExecutionSpace>(plan.scene);
  KokkosScope const kokkos(std::move(kokkos_arguments));
  ExecutionSpace const space;
  if constexpr (!uses_host_memory<ExecutionSpace>) check_memory(space, plan.scene);
  print_build_notes(plan);
  print_run(plan, describe(space));
  std::cout << std::flush;
  auto simulation = start_simulation(space, plan);
  if (plan.receivers) simulation.reserve_receivers(space, plan.steps);
  print_plan(simulation.plan());
  print_line("configuration", simulation.configuration());
  if (plan.resume_file) resume(space, simulation, plan);
  std::cout << std::flush;
  OneProcess<ExecutionSpace> run(space, simulation);
  std::optional<FieldFile> h5;
  if (plan.h5_file) h5.emplace(run.open_field_file(*plan.h5_file));
  Stepping const stepping = step(run, plan, h5 ? &*h5 : nullptr);
  finish(run, plan, stepping, h5 ? &*h5 : nullptr);
}

bool error_reporter = true;  // false on the ranks of a distributed run other than 0
bool error_reported = false;

// Under mpirun, by the variables Open MPI and MPICH's launchers set.
int launched_ranks() {
  for (char const* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (char const* value = std::getenv(variable)) return std::atoi(value);
  }
  return 1;
}
int launched_rank() {
  for (char const* variable : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    if (char const* value = std::getenv(variable)) return std::atoi(value);
  }
  return 0;
}

#if defined(WAVE2D_HAVE_MPI)
// MPI for the length of a distributed run.
struct MpiScope {
  MpiScope() { MPI_Init(nullptr, nullptr); }
  ~MpiScope() { MPI_Finalize(); }
  MpiScope(MpiScope const&) = delete;
  MpiScope& operator=(MpiScope const&) = delete;
};

// The distributed run: every rank steps its window; rank 0 prints, gathers the fields and
// writes the results. The split is checked, on every rank alike, before Kokkos starts.
template <class ExecutionSpace>
void run_distributed(RunPlan const& plan, std::vector<char*> kokkos_arguments) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  using Distributed = DistributedSimulation<ExecutionSpace>;
  typename Distributed::Options options;
  options.ranks = *plan.ranks;
  options.validation = plan.validation;
  options.plan = plan.plan_options;
  try {
    Distributed::decompose(plan.scene, plan.backend, options, size);
  } catch (std::invalid_argument const& e) {
    throw InputError("--ranks " + plan.ranks_text + ": " + e.what());
  }
  KokkosScope const kokkos(std::move(kokkos_arguments));
  ExecutionSpace const space;
  Distributed simulation(MPI_COMM_WORLD, space, plan.scene, plan.backend, options);
  ManyProcesses<ExecutionSpace> run(space, simulation);
  if (run.root()) {
    print_build_notes(plan);
    print_run(plan, describe(space));
    print_line("ranks", std::to_string(simulation.ranks()[0]) + " x " +
                            std::to_string(simulation.ranks()[1]) + ", halo " +
                            std::to_string(simulation.window().halo) + ", exchange " +
                            simulation.exchange_path());
    print_plan(simulation.plan());
    print_line("configuration", simulation.local().configuration() + " (rank 0)");
    std::cout << std::flush;
  }
  if (plan.receivers) simulation.reserve_receivers(space, plan.steps);
  if (plan.resume_file) run.resume(plan);
  std::cout << std::flush;
  std::optional<FieldFile> h5;
  if (plan.h5_file) h5.emplace(run.open_field_file(*plan.h5_file));
  Stepping const stepping = step(run, plan, h5 ? &*h5 : nullptr);
  finish(run, plan, stepping, h5 ? &*h5 : nullptr);
}

// The error is reported before MPI_Finalize, which no rank leaves before rank 0 enters
// it: mpirun ends the job once a rank has exited with a failure, and rank 0 with it.
template <class ExecutionSpace>
void simulate_distributed(RunPlan const& plan, std::vector<char*> kokkos_arguments) {
  MpiScope const mpi;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  error_reporter = rank == 0;
  try {
    run_distributed<ExecutionSpace>(plan, std::move(kokkos_arguments));
  } catch (std::exception const& e) {
    report_error(e);
    throw;
  }
}
#endif

// The scene, its steps, the backend, the space and how auto chooses.
RunPlan plan_scene(RunOptions const& options, Scene scene) {
  RunPlan plan;
  plan.scene = std::move(scene);
  plan.validation.allow_unstable = options.allow_unstable;
  plan.validation.how_to_allow_unstable = "--allow-unstable";
  plan.keep_last_finite = options.keep_last_finite;
  plan.steps = options.steps.value_or(plan.scene.steps);
  // Validated for the steps it runs: its sources' values over them.
  plan.scene.steps = plan.steps;
  validate(plan.scene, plan.validation);
  plan.backend = options.backend;
  plan.space = options.space;
  on_space(plan.space, plan.backend, []<class ExecutionSpace>() {});  // an InputError now
  auto const mode = parse_plan_mode(options.plan_mode);
  if (!mode) {
    throw InputError("--plan: unknown mode '" + options.plan_mode +
                     "' (measure, cached or estimate)");
  }
  plan.plan_options.mode = *mode;
  if (plan.steps == 0) plan.plan_options.mode = PlanMode::estimate;  // nothing to speed up
  std::string const& name = plan.scene.name;
  plan.scene_label =
      name.empty() || name == options.scene ? options.scene : name + " (" + options.scene + ")";
  auto const progress = progress_style(options.progress);
  if (!progress) throw InputError("--progress: unknown style '" + options.progress + "'");
  plan.progress = *progress;
  plan.progress_every = options.progress_every;
  return plan;
}

// "PxQ", P and Q whole numbers written as digits only, or "auto" (0 x 0: MPI's choice).
std::array<int, 2> parse_ranks(std::string const& text) {
  if (text == "auto") return {0, 0};
  auto const number = [&](std::string_view digits) {
    int value = 0;
    auto const [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    bool const whole = !digits.empty() && digits.find_first_not_of("0123456789") == digits.npos;
    if (!whole || error != std::errc() || end != digits.data() + digits.size() || value < 1) {
      throw InputError("--ranks: expected PxQ (e.g. 2x2, each from 1 to " +
                       std::to_string(std::numeric_limits<int>::max()) + ") or auto, got '" + text +
                       "'");
    }
    return value;
  };
  auto const x = text.find('x');
  std::string_view const all(text);
  return {number(all.substr(0, x)), number(x == all.npos ? "" : all.substr(x + 1))};
}

// --ranks, or "auto" for a job of several MPI ranks that did not give it.
void plan_ranks(RunOptions const& options, RunPlan& plan) {
  int const launched = launched_ranks();
  if (!options.ranks && launched <= 1) return;
#if defined(WAVE2D_HAVE_MPI)
  plan.ranks_text = options.ranks.value_or("auto");
  plan.ranks = parse_ranks(plan.ranks_text);
#else
  throw InputError(
      (options.ranks ? "--ranks" : "started on " + std::to_string(launched) + " MPI ranks") +
      std::string(": this build of wave2d has no MPI (install libopenmpi-dev and rebuild)"));
#endif
}

// The images, frames, array and receivers' files the run writes (check_outputs proves them
// writable).
void plan_outputs(RunOptions const& options, RunPlan& plan, RunFiles& files) {
  std::string const& name = plan.scene.name;
  plan.files.directory = options.output_directory;
  plan.files.stem = file_stem(name.empty() ? fs::path(options.scene).stem().string() : name);
  plan.files.last_step = plan.steps;
  plan.files.scale = parse_scale(options.scale);
  bool const builtin_name = std::ranges::any_of(
      builtin_scenes(), [&](BuiltinSceneInfo const& info) { return info.name == name; });
  if (!files.inputs.empty() && builtin_name) {
    plan.name_note = "the scene file is named '" + name + "', as a built-in scene: its outputs (" +
                     plan.files.image().string() + ", ...) take that scene's names";
  }
  plan.images = can_write_png;
  if (options.h5_file) {
    if (!can_use_hdf5 || (plan.ranks && !can_use_parallel_hdf5)) {
      throw InputError(std::string("--save-h5: ") +
                       (can_use_hdf5 ? "this build's HDF5 is serial, distributed runs need the "
                                       "parallel one (install libhdf5-openmpi-dev and rebuild)"
                                     : no_hdf5_reason));
    }
    plan.h5_file = *options.h5_file;
    files.h5 = plan.h5_file;
  }
  if (plan.images || plan.h5_file) plan.frames_every = options.frames_every;
  if (plan.images) {
    files.images = plan.files;
    if (plan.frames_every) files.frames = FrameSteps{*plan.frames_every, plan.steps};
  }
  if (options.npy_file) {
    plan.npy_file = *options.npy_file;
    files.npy = plan.npy_file;
  }
  if (!plan.scene.receivers.empty() && !options.no_receivers) {
    plan.receivers = true;
    plan.receivers_plot = can_plot_receivers();
    for (char const* extension : {"npy", "csv", "png"}) {
      if (extension == std::string_view("png") && !plan.receivers_plot) continue;
      files.receivers.push_back(plan.files.receivers(extension));
    }
  }
}

// --checkpoint-every and --resume.
void plan_checkpoints(RunOptions const& options, RunPlan& plan, RunFiles& files) {
  if ((options.checkpoint_every || options.resume_file) && !can_checkpoint) {
    throw InputError("--checkpoint-every, --resume: " + checkpoints_unavailable_reason());
  }
  if ((options.checkpoint_every || options.resume_file) && plan.ranks && !can_use_parallel_hdf5) {
    throw InputError(
        "--checkpoint-every, --resume: this build's HDF5 is serial, distributed runs need the "
        "parallel one (install libhdf5-openmpi-dev and rebuild)");
  }
  if (options.checkpoint_every) {
    plan.checkpoint_every = options.checkpoint_every;
    plan.checkpoint_file = options.checkpoint_file;
    files.checkpoint = plan.checkpoint_file;
  }
  if (options.resume_file) {
    plan.resume_file = *options.resume_file;
    files.resume = plan.resume_file;
  }
}

// The checkpoint resumed, checked against the scene (its numerics once the backend is
// set up); `auto` takes the checkpoint's backend.
void read_resume(RunPlan& plan) {
  try {
    // The scene before the fields are read; the backend's numerics once it is set up. A
    // distributed run's ranks each read their window then: here the header alone.
    auto const check = [&](CheckpointData const& header) {
      check_checkpoint_matches(*plan.resume_file, header, plan.scene, header.numerics);
    };
    if (plan.ranks) {
      plan.resume = read_checkpoint_header(*plan.resume_file);
      check(plan.resume);
    } else {
      plan.resume = read_checkpoint(*plan.resume_file, check);
    }
  } catch (CheckpointError const& e) {
    throw InputError(e.what());
  }
  // Every backend of a space gives the same bits: `auto` resumes with the checkpoint's.
  if (plan.backend == auto_backend) {
    if (auto const name = numerics_backend(plan.resume.numerics)) plan.backend = *name;
  }
  if (plan.resume.step > plan.steps) {
    throw InputError("checkpoint '" + plan.resume_file->string() + "' is at step " +
                     std::to_string(plan.resume.step) + ", past the run's " +
                     counted(plan.steps, "step") + " (--steps counts from step 0)");
  }
}

}  // namespace

// The scene and the files it was read from (none for a built-in scene).
SceneFile load_scene(std::string const& name_or_file) {
  std::vector<std::string> names;
  for (auto const& info : builtin_scenes()) {
    if (info.name == name_or_file) return {builtin_scene(info.name), {}};
    names.emplace_back(info.name);
  }
  // Anything there, a dangling link or a loop of links included, is read as a scene
  // file, so that the loader says what is wrong with it.
  std::error_code error;
  if (fs::symlink_status(name_or_file, error).type() == fs::file_type::not_found) {
    throw InputError("unknown scene '" + name_or_file + "': neither a built-in scene (" +
                     join(names) + ") nor a scene file");
  }
  try {
    return read_scene_file(name_or_file, {.check_grid = check_host_memory});
  } catch (std::bad_alloc const&) {  // its wall mask or speed map, one value per cell
    throw InputError("the grid of scene file '" + name_or_file + "' is too large for memory");
  }
}

void list_backends(std::ostream& out) {
  for_each_space([&]<class ExecutionSpace>() {
    list_backends_of<ExecutionSpace>(
        out, "the fastest of this space's for the grid, by a trial (kept in the plan cache)");
  });
}

std::string available_backends() {
  std::string text;
  for_each_space([&]<class ExecutionSpace>() {
    text += (text.empty() ? "" : "; ") + space_name<ExecutionSpace>() + ": " +
            backends_of<ExecutionSpace>();
  });
  return text;
}

void run_command(RunOptions const& options, std::vector<char*> kokkos_arguments) {
  error_reporter = launched_rank() == 0;
  SceneFile loaded = load_scene(options.scene);
  RunPlan plan = plan_scene(options, std::move(loaded.scene));
  plan_ranks(options, plan);
  RunFiles files{.inputs = std::move(loaded.files)};
  plan_outputs(options, plan, files);
  plan_checkpoints(options, plan, files);
  check_outputs(files);
  if (plan.resume_file) read_resume(plan);
  remove_temporary_files_on_signals();
  on_space(plan.space, plan.backend, [&]<class ExecutionSpace>() {
#if defined(WAVE2D_HAVE_MPI)
    if (plan.ranks) return simulate_distributed<ExecutionSpace>(plan, std::move(kokkos_arguments));
#endif
    simulate<ExecutionSpace>(plan, std::move(kokkos_arguments));
  });
}

void report_error(std::exception const& e) {
  if (!error_reporter || error_reported) return;
  std::cerr << "wave2d: error: " << e.what() << "\n";
  error_reported = true;
}

}  // namespace wave2d::cli
