// `wave2d run`: everything the user asked for is checked first, then Kokkos starts, the
// scene is stepped and the results are written, each file complete or not at all.
#include <cli/wave2d_Commands.hpp>
#include <cli/wave2d_DeferredSignals.hpp>
#include <cli/wave2d_KokkosArguments.hpp>
#include <cli/wave2d_Memory.hpp>
#include <cli/wave2d_OutputFiles.hpp>
#include <cli/wave2d_ProgressBar.hpp>
#include <cli/wave2d_ReceiverFiles.hpp>
#include <cli/wave2d_Spaces.hpp>
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>
#include <wave2d/simulation/wave2d_Backends.hpp>
#include <wave2d/simulation/wave2d_FiniteCheck.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#include <wave2d/wave2d_Config.hpp>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>
#if defined(WAVE2D_HAVE_MPI)
#include <wave2d/distributed/wave2d_DistributedSimulation.hpp>
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <new>
#include <sstream>
#include <type_traits>

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
  bool images = false;
  std::optional<std::int64_t> frames_every;
  OutputFiles files;
  std::optional<fs::path> npy_file;
  bool keep_last_finite = false;
  bool receivers = false;  // writes the receivers' NPY and CSV
  bool receivers_plot = false;
  std::optional<std::int64_t> checkpoint_every;  // with checkpoint_file
  fs::path checkpoint_file;
  std::optional<fs::path> resume_file;  // with resume, read and checked against the scene
  CheckpointData resume;
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
    int const threads = space.concurrency();
    text += " (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
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

void write_image(fs::path const& path, std::vector<float> const& u, Scene const& scene) {
  create_parent_directories(path);
  write_png(path, render_field(u, scene.walls, scene.nx, scene.ny), scene.nx, scene.ny);
}

// Where a run first went non-finite.
struct Divergence {
  std::int64_t step = 0;  // u(t_step) is the first field that is not finite
  FieldCell cell;
};

struct Stepping {
  double seconds = 0.0;          // of the stepping alone, fenced
  std::int64_t steps = 0;        // stepped by this run: fewer than the plan's when resumed
  std::int64_t first_frame = 0;  // its index: frames are numbered from step 0, resumed or not
  std::int64_t frames = 0;
  std::optional<Divergence> divergence;  // then the simulation holds the last finite state
};

// The last state found finite, kept on the device.
template <class ExecutionSpace>
class LastFinite {
 public:
  using Field = typename Simulation<ExecutionSpace>::field_type;

  LastFinite(ExecutionSpace const& space, Scene const& scene)
      : previous_(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                     "wave2d::cli::LastFinite::previous"),
                  scene.ny, scene.nx),
        current_(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                    "wave2d::cli::LastFinite::current"),
                 scene.ny, scene.nx) {}

  void save(ExecutionSpace const& space, Simulation<ExecutionSpace> const& simulation) {
    Kokkos::deep_copy(space, previous_, simulation.previous());
    Kokkos::deep_copy(space, current_, simulation.current());
    step_ = simulation.steps_done();
  }

  void restore(ExecutionSpace const& space, Simulation<ExecutionSpace>& simulation) const {
    simulation.set_state(space, previous_, current_, step_);
  }

 private:
  Field previous_;
  Field current_;
  std::int64_t step_ = 0;
};

template <class ExecutionSpace>
bool is_finite(ExecutionSpace const& space, FiniteCheck<ExecutionSpace> const& check,
               Simulation<ExecutionSpace> const& simulation) {
  return !check.first_non_finite(space, simulation.current()) &&
         !check.first_non_finite(space, simulation.previous());
}

// From the last finite state, one step at a time up to the first non-finite field; leaves
// the simulation at the state before it, the last finite one.
template <class ExecutionSpace>
Divergence locate_divergence(ExecutionSpace const& space, Simulation<ExecutionSpace>& simulation,
                             FiniteCheck<ExecutionSpace> const& check,
                             LastFinite<ExecutionSpace>& checkpoint) {
  checkpoint.restore(space, simulation);
  while (true) {
    simulation.advance(space, 1);
    if (auto const cell = check.first_non_finite(space, simulation.current())) {
      Divergence const divergence{simulation.steps_done(), *cell};
      checkpoint.restore(space, simulation);
      return divergence;
    }
    checkpoint.save(space, simulation);
  }
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
  data.numerics = numerics_text(simulation.backend(), simulation.stepper_configuration(),
                                ExecutionSpace::name());
  data.previous = to_host(space, simulation.previous());
  data.current = to_host(space, simulation.current());
  data.receivers = std::uint32_t(plan.scene.receivers.size());
  data.receivers_hash = receivers_hash(plan.scene);
  data.trace_first_step = simulation.receivers_first_step();
  data.trace = to_host(space, simulation.receivers());
  create_parent_directories(plan.checkpoint_file);
  wave2d::write_checkpoint(plan.checkpoint_file, data);
}

// The next step at which the run stops for something: a frame, a checkpoint.
std::int64_t next_stop(std::optional<std::int64_t> every, std::int64_t done, std::int64_t end) {
  return every ? std::min(end, done + *every - done % *every) : end;
}

// Runs the plan's steps, writing the frames and checkpoints on the way. The field is
// checked on the device after each chunk, so that no non-finite field is ever written.
// With checkpoints, SIGINT, SIGTERM and SIGHUP end the run after its current chunk, with
// a last checkpoint.
template <class ExecutionSpace>
Stepping step(ExecutionSpace const& space, Simulation<ExecutionSpace>& simulation,
              RunPlan const& plan) {
  Stepping stepping;
  if (plan.frames_every) {
    std::int64_t const K = *plan.frames_every;
    std::int64_t const start = simulation.steps_done();
    stepping.first_frame = start / K;  // step start's frame, if any, is the earlier run's
  }
  FiniteCheck<ExecutionSpace> const check(space);
  LastFinite<ExecutionSpace> last_finite(space, plan.scene);
  last_finite.save(space, simulation);
  std::optional<DeferredSignals> signals;
  if (plan.checkpoint_every) signals.emplace();
  std::int64_t checkpointed = -1;  // the step of the last checkpoint written
  std::optional<ProgressBar> progress(std::in_place, plan.steps);
  // Chunks of steps double until one lasts about 0.1 s: few enough fences not to slow
  // the run, often enough for the progress bar. Steps are global indices, so the
  // chunking does not change the result.
  std::int64_t chunk = 1;
  while (simulation.steps_done() < plan.steps) {
    std::int64_t const done = simulation.steps_done();
    std::int64_t const stop = std::min(next_stop(plan.frames_every, done, plan.steps),
                                       next_stop(plan.checkpoint_every, done, plan.steps));
    std::int64_t const n = std::min(chunk, stop - done);
    auto const start = std::chrono::steady_clock::now();
    simulation.advance(space, n);
    wave2d::fence(space, "wave2d::cli::run: end of a chunk of steps");
    double const seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stepping.seconds += seconds;
    stepping.steps += n;
    if (n == chunk && seconds < 0.05) chunk *= 2;
    if (!is_finite(space, check, simulation)) {
      stepping.divergence = locate_divergence(space, simulation, check, last_finite);
      return stepping;
    }
    last_finite.save(space, simulation);
    std::int64_t const now = simulation.steps_done();
    if (plan.frames_every && (now % *plan.frames_every == 0 || now == plan.steps)) {
      write_image(plan.files.frame(stepping.first_frame + stepping.frames++),
                  to_host(space, simulation.current()), plan.scene);
    }
    if (plan.checkpoint_every && (now % *plan.checkpoint_every == 0 || now == plan.steps)) {
      write_checkpoint(space, simulation, plan);
      checkpointed = now;
    }
    if (signals && signals->pending()) {
      if (checkpointed != now) write_checkpoint(space, simulation, plan);
      progress.reset();  // its line erased before the message
      std::cerr << "wave2d: interrupted after step " << now << ": wrote the checkpoint "
                << plan.checkpoint_file.string() << " (--resume " << plan.checkpoint_file.string()
                << " continues the run)\n";
      signals->end_by_pending_signal();
    }
    progress->update(now);
  }
  return stepping;
}

// What the run is, before it starts.
void print_run(RunPlan const& plan, std::string const& space) {
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

// The pair (u(t_{n-1}), u(t_n)) on the host as the NPY and the image, and the video of the
// frames written before. Frames first_frame .. first_frame + frames - 1 were written by this run;
// the video takes every frame from 0 on (those of the run a resumed one continues too).
void write_results(RunPlan const& plan, std::vector<float> const& previous,
                   std::vector<float> const& current, std::int64_t first_frame, std::int64_t frames,
                   std::optional<ReceiverTrace> const& trace) {
  Scene const& scene = plan.scene;
  if (trace) {
    fs::path const npy = plan.files.receivers("npy");
    fs::path const csv = plan.files.receivers("csv");
    create_parent_directories(npy);
    write_npy(npy, trace->values, trace->rows(), std::int64_t(trace->names.size()));
    write_receivers_csv(csv, *trace);
    std::cout << "wrote " << npy.string() << ", " << csv.filename().string();
    if (plan.receivers_plot) {
      plot_receivers(plan.files.receivers("png"), *trace);
      std::cout << ", " << plan.files.receivers("png").filename().string();
    }
    std::cout << " (" << trace->names.size() << " receivers, " << trace->rows() << " rows)\n";
  }
  if (plan.npy_file) {
    create_parent_directories(*plan.npy_file);
    write_npy(*plan.npy_file, previous, current, scene.nx, scene.ny);
    std::cout << "wrote " << plan.npy_file->string() << "\n";
  }
  if (plan.images) {
    write_image(plan.files.image(), current, scene);
    std::cout << "wrote " << plan.files.image().string() << "\n";
  }
  if (frames > 0) {
    std::int64_t const last = first_frame + frames - 1;
    std::cout << "wrote " << frames << " frames " << plan.files.frame(first_frame).string()
              << " .. " << plan.files.frame(last).filename().string() << "\n";
    make_video(plan.files, last + 1, std::cout, std::cerr);
  }
}

ReceiverTrace make_trace(Scene const& scene, std::vector<float> values, std::int64_t first_step) {
  return {std::move(values), receiver_names(scene), first_step, scene.t0, scene.dt};
}

// The receivers' trace when the plan writes it and it holds the whole run: from step 0, or
// from where the checkpoint's trace began (step 0 too, unless a program began it at a
// state it set). A run that went back to its last finite state has restarted it.
template <class ExecutionSpace>
std::optional<ReceiverTrace> trace_of(ExecutionSpace const& space,
                                      Simulation<ExecutionSpace> const& simulation,
                                      RunPlan const& plan) {
  std::int64_t const first = plan.resume_file ? plan.resume.trace_first_step : 0;
  if (!plan.receivers || simulation.receivers_first_step() != first) return std::nullopt;
  return make_trace(plan.scene, to_host(space, simulation.receivers()), first);
}

template <class ExecutionSpace>
void write_results(ExecutionSpace const& space, Simulation<ExecutionSpace> const& simulation,
                   RunPlan const& plan, std::int64_t first_frame, std::int64_t frames) {
  write_results(plan, to_host(space, simulation.previous()), to_host(space, simulation.current()),
                first_frame, frames, trace_of(space, simulation, plan));
}

template <class ExecutionSpace>
void simulate(RunPlan const& plan, std::vector<char*> kokkos_arguments) {
  KokkosScope const kokkos(std::move(kokkos_arguments));
  ExecutionSpace const space;
  Scene const& scene = plan.scene;
  check_memory(space, scene);
  // Only now that every check has passed: an error stays a single line.
  if (!plan.images) {
    std::cerr << "wave2d: note: built without libpng, so no images (install libpng-dev and "
                 "rebuild)\n";
  }
  if (plan.receivers && !plan.receivers_plot) {
    std::cerr << "wave2d: note: built without libplot, so no plot of the receivers (install "
                 "libplot-dev and rebuild)\n";
  }

  print_run(plan, describe(space));
  std::cout << std::flush;

  auto simulation = start_simulation(space, plan);
  if (plan.receivers) simulation.reserve_receivers(space, plan.steps);
  print_plan(simulation.plan());
  print_line("configuration", simulation.configuration());
  if (plan.resume_file) {
    try {
      check_checkpoint_matches(
          *plan.resume_file, plan.resume, plan.scene,
          numerics_text(simulation.backend(), simulation.stepper_configuration(),
                        ExecutionSpace::name()));
    } catch (CheckpointError const& e) {
      throw InputError(e.what());
    }
    using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    CheckpointData const& resume = plan.resume;
    simulation.set_state(space, HostField(resume.previous.data(), scene.ny, scene.nx),
                         HostField(resume.current.data(), scene.ny, scene.nx), resume.step);
    // With --no-receivers too, for the checkpoints this run writes.
    simulation.restore_receivers(
        space, HostField(resume.trace.data(), resume.trace_rows(), resume.receivers),
        resume.trace_first_step);
    wave2d::fence(space, "wave2d::cli::run: resumed");
    print_line("resumed",
               "from " + plan.resume_file->string() + ", step " + std::to_string(plan.resume.step));
  }
  std::cout << std::flush;
  Stepping const stepping = step(space, simulation, plan);
  if (auto const& divergence = stepping.divergence) {
    std::string message = "the field is not finite after step " + std::to_string(divergence->step) +
                          ", first at cell (" + std::to_string(divergence->cell.x) + ", " +
                          std::to_string(divergence->cell.y) + ")";
    if (plan.keep_last_finite) {
      std::cout << "kept the last finite state, step " << simulation.steps_done() << "\n";
      write_results(space, simulation, plan, 0, 0);
      message += "; wrote the last finite state, step " + std::to_string(simulation.steps_done());
    } else {
      message += " (--keep-last-finite writes the last finite state)";
    }
    throw std::runtime_error(message);
  }
  print_timing(plan, stepping.steps, stepping.seconds);
  write_results(space, simulation, plan, stepping.first_frame, stepping.frames);
  if (plan.checkpoint_every && stepping.steps > 0) {
    print_line("checkpoint",
               plan.checkpoint_file.string() + ", step " + std::to_string(simulation.steps_done()));
  }
}

bool error_reporter = true;

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
std::array<int, 2> parse_ranks(std::string const& text) {
  if (text == "auto") return {0, 0};
  int p = 0;
  int q = 0;
  char x = 0;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &p, &x, &q, &rest) != 3 || x != 'x' || p < 1 || q < 1) {
    throw InputError("--ranks: expected PxQ (e.g. 2x2) or auto, got '" + text + "'");
  }
  return {p, q};
}

// The distributed run: every rank steps its window; rank 0 prints, gathers the fields
// and writes the results. Each rank fails or succeeds with the others.
template <class ExecutionSpace>
void simulate_distributed(RunPlan const& plan, std::array<int, 2> ranks,
                          std::vector<char*> kokkos_arguments) {
  MPI_Init(nullptr, nullptr);
  struct Finalize {
    ~Finalize() { MPI_Finalize(); }
  } finalize;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bool const root = rank == 0;
  error_reporter = root;
  KokkosScope const kokkos(std::move(kokkos_arguments));
  ExecutionSpace const space;
  Scene const& scene = plan.scene;
  typename DistributedSimulation<ExecutionSpace>::Options options;
  options.ranks = ranks;
  options.validation = plan.validation;
  options.plan = plan.plan_options;
  DistributedSimulation<ExecutionSpace> simulation(MPI_COMM_WORLD, space, scene, plan.backend,
                                                   options);
  if (root) {
    print_run(plan, describe(space));
    print_line("ranks", std::to_string(simulation.ranks()[0]) + " x " +
                            std::to_string(simulation.ranks()[1]) + ", halo " +
                            std::to_string(simulation.window().halo) + ", exchange " +
                            simulation.exchange_path());
    print_plan(simulation.plan());
    print_line("configuration", simulation.local().configuration() + " (rank 0)");
    std::cout << std::flush;
  }
  // Rank 0 checks the gathered fields and says the same on every rank.
  auto const gather_finite = [&] {
    auto fields = simulation.gather(space);
    int finite = 1;
    if (root) {
      for (auto const* field : {&fields.first, &fields.second}) {
        for (float v : *field) finite &= std::isfinite(v) ? 1 : 0;
      }
    }
    MPI_Bcast(&finite, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!finite) {
      throw std::runtime_error("the field is not finite after step " +
                               std::to_string(simulation.steps_done()));
    }
    return fields;
  };
  std::optional<ProgressBar> progress;
  if (root) progress.emplace(plan.steps);
  double seconds = 0.0;
  std::int64_t frames = 0;
  while (simulation.steps_done() < plan.steps) {
    std::int64_t const done = simulation.steps_done();
    std::int64_t const n =
        plan.frames_every
            ? std::min(plan.steps, done + *plan.frames_every - done % *plan.frames_every) - done
            : plan.steps - done;
    MPI_Barrier(MPI_COMM_WORLD);
    auto const start = std::chrono::steady_clock::now();
    simulation.advance(space, n);
    wave2d::fence(space, "wave2d::cli::run: end of a chunk of steps");
    MPI_Barrier(MPI_COMM_WORLD);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (plan.frames_every) {
      auto const fields = gather_finite();
      if (root) write_image(plan.files.frame(frames), fields.second, scene);
      ++frames;
    }
    if (root) progress->update(simulation.steps_done());
  }
  auto const fields = gather_finite();
  auto receivers = plan.receivers ? simulation.gather_receivers(space) : std::vector<float>();
  if (!root) return;
  print_timing(plan, plan.steps, seconds);
  write_results(
      plan, fields.first, fields.second, 0, frames,
      plan.receivers ? std::optional(make_trace(scene, std::move(receivers), 0)) : std::nullopt);
}
#endif

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
  RunPlan plan;
  SceneFile loaded = load_scene(options.scene);
  plan.scene = std::move(loaded.scene);
  plan.validation.allow_unstable = options.allow_unstable;
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
  if (!options.ranks && launched_ranks() > 1) {
    throw InputError("started on " + std::to_string(launched_ranks()) +
                     " MPI ranks: give --ranks PxQ (or --ranks auto) for a distributed run");
  }
#if defined(WAVE2D_HAVE_MPI)
  std::optional<std::array<int, 2>> const ranks =
      options.ranks ? std::optional(parse_ranks(*options.ranks)) : std::nullopt;
#else
  if (options.ranks) {
    throw InputError(
        "--ranks: this build of wave2d has no MPI (install libopenmpi-dev and "
        "rebuild)");
  }
#endif

  std::string const& name = plan.scene.name;
  plan.scene_label =
      name.empty() || name == options.scene ? options.scene : name + " (" + options.scene + ")";
  plan.files.directory = options.output_directory;
  plan.files.stem = file_stem(name.empty() ? fs::path(options.scene).stem().string() : name);
  plan.images = can_write_png;
  RunFiles files{.inputs = std::move(loaded.files)};
  if (plan.images) {
    plan.frames_every = options.frames_every;
    files.images = plan.files;
    check_can_write(plan.files.image());
    if (plan.frames_every) {
      files.frame_count = (plan.steps + *plan.frames_every - 1) / *plan.frames_every;
      if (files.frame_count > 0) {
        check_can_write(plan.files.frame(files.frame_count - 1));  // the longest name
        check_can_write(plan.files.video());
      }
    }
  }
  if (options.npy_file) {
    plan.npy_file = *options.npy_file;
    files.npy = plan.npy_file;
    check_can_write(*plan.npy_file);
  }
  if (!plan.scene.receivers.empty() && !options.no_receivers) {
    plan.receivers = true;
    plan.receivers_plot = can_plot_receivers();
    for (char const* extension : {"npy", "csv", "png"}) {
      if (extension == std::string_view("png") && !plan.receivers_plot) continue;
      files.receivers.push_back(plan.files.receivers(extension));
      check_can_write(files.receivers.back());
    }
  }
  if ((options.checkpoint_every || options.resume_file) && !can_checkpoint) {
    throw InputError(
        "--checkpoint-every, --resume: this build of wave2d has no checkpoints (install "
        "libxxhash-dev and rebuild)");
  }
  if ((options.checkpoint_every || options.resume_file) && options.ranks) {
    throw InputError(
        "--checkpoint-every, --resume: distributed runs (--ranks) have no checkpoints yet");
  }
  if (options.checkpoint_every) {
    plan.checkpoint_every = options.checkpoint_every;
    plan.checkpoint_file = options.checkpoint_file;
    files.checkpoint = plan.checkpoint_file;
    check_can_write(plan.checkpoint_file);
  }
  if (options.resume_file) {
    plan.resume_file = *options.resume_file;
    files.resume = plan.resume_file;
  }
  check_distinct(files);
  if (plan.resume_file) {
    try {
      plan.resume = read_checkpoint(*plan.resume_file);
      // The scene now; the backend's numerics once it is set up.
      check_checkpoint_matches(*plan.resume_file, plan.resume, plan.scene, plan.resume.numerics);
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
                       std::to_string(plan.steps) + " steps (--steps counts from step 0)");
    }
  }
  remove_temporary_files_on_signals();
#if defined(WAVE2D_HAVE_MPI)
  if (ranks) {
    on_space(plan.space, plan.backend, [&]<class ExecutionSpace>() {
      simulate_distributed<ExecutionSpace>(plan, *ranks, std::move(kokkos_arguments));
    });
    return;
  }
#endif
  on_space(plan.space, plan.backend, [&]<class ExecutionSpace>() {
    simulate<ExecutionSpace>(plan, std::move(kokkos_arguments));
  });
}

bool reports_errors() { return error_reporter; }

}  // namespace wave2d::cli
