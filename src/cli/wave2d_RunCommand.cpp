// `wave2d run`: the options become an experiment (run/wave2d_Experiment.hpp), checked before
// Kokkos starts; the run layer steps it and writes its outputs, on one process or on the
// ranks of an MPI job (--ranks); this file says what happens, draws the progress and ends a
// run that a signal stopped.
#include <cli/wave2d_Commands.hpp>
#include <cli/wave2d_DeferredSignals.hpp>
#include <cli/wave2d_KokkosArguments.hpp>
#include <cli/wave2d_Progress.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/run/wave2d_Run.hpp>
#include <wave2d/run/wave2d_Spaces.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>

#include <wave2d/wave2d_Config.hpp>
#if defined(WAVE2D_HAVE_MPI)
#include <wave2d/run/wave2d_DistributedRun.hpp>
#endif

#include <algorithm>
#include <array>
#include <climits>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

namespace wave2d::cli {

namespace {

// What the program shows beside the experiment.
struct Request {
  ProgressStyle progress = ProgressStyle::none;
  std::string scene_label;  // as the user named it
  std::vector<std::string> notes;
};

void print_line(std::string_view label, std::string const& value) {
  std::cout << std::left << std::setw(15) << label << one_line(value) << "\n";
}

// The options as an experiment, and how to run and show it.
Experiment experiment_from(RunOptions const& options, Request& request) {
  SceneFile loaded = load_scene(options.scene, options.steps);
  std::string const name = loaded.scene.name;
  request.scene_label =
      name.empty() || name == options.scene ? options.scene : name + " (" + options.scene + ")";
  bool const loaded_builtin = loaded.files.empty();
  bool const file_named_as_builtin =
      !loaded.files.empty() &&
      std::ranges::any_of(builtin_scenes(), [&](auto const& info) { return info.name == name; });
  Experiment e = experiment_of(std::move(loaded));
  e.backend = options.backend;
  e.space = options.space;
  e.steps = options.steps;
  e.validation = {.allow_unstable = options.allow_unstable,
                  .how_to_allow_unstable = "--allow-unstable"};
  e.keep_last_finite = options.keep_last_finite;
  e.output_folder = options.output_directory;
  e.plan.mode = *parse_plan_mode(options.plan_mode.value_or("cached"));
  if (options.plan_mode && options.backend != auto_backend) {
    request.notes.push_back("--plan " + *options.plan_mode +
                            " chooses for auto alone: the backend " + options.backend +
                            " is named, so no plan is made");
  }
  std::string const stem;  // the scene's name, or its file's
  if (can_write_png) {
    e.outputs.push_back(Pictures{options.output_directory, stem, options.scale,
                                 options.frames_every, true, "--output"});
  } else {
    request.notes.push_back("built without libpng, so no images (install libpng-dev and rebuild)");
  }
  if (options.npy_file) e.outputs.push_back(NpyFile{*options.npy_file, "--save-npy"});
  if (options.h5_file) {
    e.outputs.push_back(
        Hdf5File{*options.h5_file, options.frames_every, !options.no_receivers, "--save-h5"});
  }
  if (!e.scene.receivers.empty() && !options.no_receivers) {
    e.outputs.push_back(
        ReceiverFiles{options.output_directory, stem, can_plot_receivers(), "--output"});
    if (!can_plot_receivers()) {
      request.notes.push_back(
          "built without libplot, so no plot of the receivers (install libplot-dev and rebuild)");
    }
  }
  if (options.checkpoint_every) {
    e.outputs.push_back(
        Checkpoints{options.checkpoint_file, *options.checkpoint_every, "--checkpoint-every"});
  }
  if (options.resume_file) e.resume = *options.resume_file;
  std::error_code no_file;
  // Without toml++ no file would run: no note of one.
  if (can_read_scene_files && loaded_builtin &&
      std::filesystem::exists(std::filesystem::symlink_status(options.scene, no_file))) {
    request.notes.insert(request.notes.begin(),
                         "'" + options.scene + "' is a built-in scene, and runs as one; './" +
                             options.scene + "' runs the file of that name here");
  }
  if (file_named_as_builtin) {
    request.notes.insert(
        request.notes.begin(),
        "the scene file is named '" + name + "', as a built-in scene: its outputs (" +
            (std::filesystem::path(options.output_directory) / (name + ".png")).string() +
            ", ...) take that scene's names");
  }
  return e;
}

// What runs, once it is set up: on rank 0 alone.
template <class ExecutionSpace>
void print_setup(Run<ExecutionSpace> const& run, Request const& request,
                 ExecutionSpace const& space) {
  CheckedExperiment const& checked = run.checked();
  for (auto const& note : request.notes) std::cerr << "wave2d: note: " << one_line(note) << "\n";
  print_line("scene", request.scene_label);
  print_line("grid", std::to_string(run.scene().nx) + " x " + std::to_string(run.scene().ny));
  print_line("steps", std::to_string(checked.steps));
  print_line("backend", checked.experiment.backend);
  print_line("space", space_description(space));
  if (!run.layout().empty()) print_line("ranks", run.layout());
  if (Plan const* plan = run.plan()) {  // its notes: the run's listener
    print_line("plan", plan->summary());
    if (!plan->ranking.empty()) {
      print_line(plan->from_cache ? "cached trial" : "trial", plan->ranking_text());
    }
  }
  print_line("configuration",
             run.simulation().stepper_configuration() + (run.layout().empty() ? "" : " (rank 0)"));
  if (checked.resumed) {
    print_line("resumed", "from " + checked.experiment.resume->string() + ", step " +
                              std::to_string(checked.resumed->step));
  }
  std::cout << std::flush;
}

// Steps the run with the progress on rank 0's stderr and SIGINT, SIGTERM and SIGHUP held
// back: one stops the run at the end of a chunk (after a last checkpoint, when it writes
// them), then ends the process as the signal would have.
template <class ExecutionSpace>
void execute(Run<ExecutionSpace>& run, Request const& request, RunOptions const& options) {
  bool const root = run.processes().root();
  DeferredSignals signals;
  std::optional<Progress> progress;
  if (root) {
    progress.emplace(request.progress, run.simulation().steps_done(), run.checked().steps,
                     run.scene().cells(), options.progress_every);
  }
  RunListener listener;
  listener.progress = [&](RunProgress const& at) {
    if (progress) progress->update(at.step);
    return signals.pending() == 0;
  };
  listener.wrote = [&](WrittenOutput const& output) {
    if (output.kind != "checkpoint") {
      std::cout << "wrote " << one_line(output.text) << "\n" << std::flush;
    }
  };
  listener.note = [](std::string const& note) {
    std::cerr << "wave2d: note: " << one_line(note) << "\n";
  };
  listener.warning = [](std::string const& text) {
    std::cerr << "wave2d: warning: " << one_line(text) << "\n";
  };
  RunResult result;
  try {
    try {
      result = run.execute(listener);
    } catch (NotFinite const& e) {
      throw std::runtime_error(std::string(e.what()) +
                               (run.checked().experiment.keep_last_finite
                                    ? ""
                                    : " (--keep-last-finite writes the last finite state)"));
    }
  } catch (std::exception const& e) {
    // Said before a signal held back meanwhile ends the process (a last checkpoint that
    // could not be written, say).
    if (signals.pending() != 0) {
      report_error(e.what());
      signals.end_by_pending_signal();
    }
    throw;
  }
  progress.reset();
  if (result.stopped) {
    if (root) {
      std::cerr << "wave2d: interrupted after step " << result.step;
      if (result.checkpoint) {
        std::cerr << ": wrote the checkpoint " << one_line(result.checkpoint->string())
                  << " (--resume " << one_line(result.checkpoint->string())
                  << " continues the run)\n";
      } else {
        std::cerr << " (--checkpoint-every STEPS FILE keeps a checkpoint to go on from)\n";
      }
    }
    // The ranks stopped together; those that received no signal end by a rank's.
    int const mine = signals.pending();
    int const least = run.processes().group().minimum(mine != 0 ? mine : INT_MAX);
    signals.end_by(mine != 0 ? mine : least);
  }
  if (!root) return;
  if (result.step != result.first_step) {
    std::ostringstream time, rate;
    time << std::setprecision(4) << result.seconds << " s";
    rate << std::setprecision(4) << result.gcells_per_second() << " GCells/s";
    print_line("time", time.str());
    print_line("throughput", rate.str());
  }
  if (result.checkpoint) {
    print_line("checkpoint", result.checkpoint->string() + ", step " + std::to_string(result.step));
  }
  std::cout << std::flush;
  // A signal held back while the last outputs were written: the run is whole, and says so
  // before the signal ends it.
  if (signals.pending() != 0) {
    std::cerr << "wave2d: interrupted after step " << result.step
              << ", the last: every output was written\n";
    signals.end_by_pending_signal();
  }
}

// Errors of setting up a run (the library's, for what the user asked) are input errors.
template <class F>
auto setting_up(F&& f) {
  try {
    return f();
  } catch (std::exception const& e) {
    bool const input = dynamic_cast<std::invalid_argument const*>(&e) ||
                       dynamic_cast<InsufficientMemory const*>(&e) ||
                       dynamic_cast<CheckpointError const*>(&e) ||
                       dynamic_cast<OutputError const*>(&e) || dynamic_cast<SceneError const*>(&e);
    if (input) throw InputError(e.what());
    throw;
  }
}

template <class ExecutionSpace>
void simulate(CheckedExperiment checked, Request const& request, RunOptions const& options,
              std::vector<char*> kokkos_arguments) {
  setting_up([&] {
    check_memory_before_start<ExecutionSpace>(checked.experiment.scene,
                                              draws_pictures(checked.experiment));
  });
  KokkosScope const kokkos(std::move(kokkos_arguments));
  ExecutionSpace const space;
  auto run = setting_up([&] { return Run<ExecutionSpace>(space, std::move(checked)); });
  print_setup(run, request, space);
  execute(run, request, options);
}

#if defined(WAVE2D_HAVE_MPI)
// What a rank was asked to run, the same text on every rank of one run: the grid and a
// digest of all the scene holds, the steps, the backend and space, the outputs' periods,
// the checkpoint resumed. Ranks given other runs would wait on each other in MPI.
std::string run_identity(CheckedExperiment const& checked) {
  Experiment const& e = checked.experiment;
  Scene const& s = e.scene;
  std::string bytes;
  auto const add = [&](auto const& value) {
    bytes.append(reinterpret_cast<char const*>(&value), sizeof(value));
  };
  for (float value : {s.c, s.dx, s.dt, s.t0, s.damping.width, s.damping.strength}) add(value);
  add(s.walls.size());
  bytes.append(reinterpret_cast<char const*>(s.walls.data()), s.walls.size());
  add(s.speed.size());
  bytes.append(reinterpret_cast<char const*>(s.speed.data()), s.speed.size() * sizeof(float));
  for (Source const& source : s.sources) {
    for (auto value : {source.x, source.y, std::int32_t(source.waveform.shape)}) add(value);
    for (float value :
         {source.waveform.amplitude, source.waveform.frequency, source.waveform.delay}) {
      add(value);
    }
  }
  for (Receiver const& receiver : s.receivers) {
    add(receiver.x);
    add(receiver.y);
  }
  std::ostringstream text;
  text << s.nx << " x " << s.ny << " cells (digest " << std::hex << std::hash<std::string>{}(bytes)
       << std::dec << "), " << checked.steps << " steps, " << e.backend << " on " << e.space;
  for (std::int64_t every : checked.periods()) text << ", every " << every;
  if (e.resume) text << ", resuming " << e.resume->string();
  return text.str();
}

struct MpiScope {  // MPI for the length of a distributed run
  MpiScope() { MPI_Init(nullptr, nullptr); }
  ~MpiScope() { MPI_Finalize(); }
  MpiScope(MpiScope const&) = delete;
  MpiScope& operator=(MpiScope const&) = delete;
};

// The split is checked by every rank before Kokkos starts, and agreed: a rank refusing it
// alone, or ranks given other splits, would leave the others waiting in MPI.
template <class ExecutionSpace>
void simulate_distributed(CheckedExperiment checked, Request const& request,
                          RunOptions const& options, std::vector<char*> kokkos_arguments) {
  Processes const processes = processes_of(MPI_COMM_WORLD);
  std::string const asked = run_identity(checked);
  std::string first_asked = asked;
  processes.broadcast(first_asked);
  try {
    processes.agree([&] {
      if (asked != first_asked) {
        throw std::invalid_argument("the ranks were given other runs: rank 0 " + first_asked +
                                    ", this rank " + asked);
      }
    });
  } catch (std::invalid_argument const& e) {
    throw InputError(e.what());
  }
  typename DistributedSimulation<ExecutionSpace>::Options split;
  split.ranks = *options.ranks;
  if (options.overlap) split.overlap = *options.overlap;
  try {
    std::string mine;
    processes.agree([&] {
      auto const made = DistributedSimulation<ExecutionSpace>::decompose(
          checked.experiment.scene, checked.experiment.backend, split, processes.size());
      mine = std::to_string(made.ranks[0]) + " x " + std::to_string(made.ranks[1]) +
             " ranks, a halo of " + std::to_string(made.halo) + ", overlap " +
             (split.overlap ? "on" : "off");
    });
    std::string first = mine;
    processes.broadcast(first);  // outside agree(), whose f must not wait on the others
    processes.agree([&] {
      if (mine != first) {
        throw std::invalid_argument("the ranks were given other splits: rank 0 " + first +
                                    ", this rank " + mine);
      }
    });
  } catch (std::invalid_argument const& e) {
    throw InputError("--ranks " + options.ranks_text + ": " + e.what());
  }
  KokkosScope const kokkos(std::move(kokkos_arguments));
  ExecutionSpace const space;
  auto run =
      setting_up([&] { return distributed_run(MPI_COMM_WORLD, space, std::move(checked), split); });
  if (run.processes().root()) print_setup(run, request, space);
  execute(run, request, options);
}
#endif

// Everything the user asked for, checked before Kokkos starts; on MPI ranks by every rank
// alike, so that one rank's refusal is every rank's.
CheckedExperiment checked_input(RunOptions const& options, Request& request,
                                Processes const& processes) {
  CheckedExperiment checked;
  try {
    processes.agree([&] { checked = check(experiment_from(options, request)); });
  } catch (std::exception const& e) {
    throw InputError(e.what());
  }
  return checked;
}

}  // namespace

void run_command(RunOptions options, std::vector<char*> kokkos_arguments) {
  Request request{.progress = *progress_style(options.progress)};
  if (!options.ranks && launched_ranks() > 1) {
#if !defined(WAVE2D_HAVE_MPI)
    throw InputError("started on " + std::to_string(launched_ranks()) +
                     " MPI ranks: this build of wave2d has no MPI (install libopenmpi-dev and "
                     "rebuild)");
#endif
    options.ranks = std::array{0, 0};  // a job of several ranks splits as --ranks auto
    options.ranks_text = "auto";
  }
  remove_temporary_files_on_signals();
#if defined(WAVE2D_HAVE_MPI)
  if (options.ranks) {
    // The error is reported before MPI_Finalize, which no rank leaves before rank 0 enters
    // it: mpirun ends the job once a rank has exited with a failure, and rank 0 with it.
    MpiScope const mpi;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    report_errors(rank == 0, true);
    try {
      CheckedExperiment checked = checked_input(options, request, processes_of(MPI_COMM_WORLD));
      on_space(checked.experiment.space, [&]<class ExecutionSpace>() {
        simulate_distributed<ExecutionSpace>(std::move(checked), request, options,
                                             std::move(kokkos_arguments));
      });
    } catch (std::exception const& e) {
      report_error(e.what());
      throw;
    }
    return;
  }
#endif
  if (options.overlap) {
    request.notes.push_back(
        "--overlap applies to runs on several ranks: a run on one process "
        "exchanges no halos");
  }
  CheckedExperiment checked = checked_input(options, request, Processes());
  on_space(checked.experiment.space, [&]<class ExecutionSpace>() {
    simulate<ExecutionSpace>(std::move(checked), request, options, std::move(kokkos_arguments));
  });
}

}  // namespace wave2d::cli
