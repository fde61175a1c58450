// Runs an experiment (run/wave2d_Experiment.hpp) on an execution space instance: the one
// stepping loop of the library, with its outputs, checkpoints and resume, for one process
// (the whole grid) and for the ranks of an MPI job, each with its window
// (run/wave2d_DistributedRun.hpp): a run of one process is the split of one rank.
//
//   wave2d::Experiment experiment{.scene = scene, .steps = 800};
//   experiment.outputs = {wave2d::Hdf5File{"out/room.h5"}, wave2d::Checkpoints{"room.ck", 400}};
//   wave2d::RunResult result = wave2d::run(space, experiment);
#ifndef WAVE2D_RUN_HPP
#define WAVE2D_RUN_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_Fields.hpp>
#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/core/wave2d_Processes.hpp>
#include <wave2d/detail/wave2d_Instantiation.hpp>
#include <wave2d/io/wave2d_Hdf5FieldFile.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_Picture.hpp>
#include <wave2d/io/wave2d_ReceiverFiles.hpp>
#include <wave2d/run/wave2d_Checkpoints.hpp>
#include <wave2d/run/wave2d_Experiment.hpp>
#include <wave2d/run/wave2d_OutputFiles.hpp>
#include <wave2d/run/wave2d_RunMemory.hpp>
#include <wave2d/run/wave2d_Spaces.hpp>
#include <wave2d/simulation/wave2d_FiniteCheck.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace wave2d {

// Where a run is, as its listener's progress sees it.
struct RunProgress {
  std::int64_t step = 0;        // reached
  std::int64_t first_step = 0;  // where this run began: 0, or the step of the checkpoint resumed
  std::int64_t last_step = 0;   // where it ends
  std::int64_t cells = 0;       // of the whole grid
  double seconds = 0.0;         // of stepping so far, fenced
};

// An output complete, synced where the file system allows it, and under its final name.
struct WrittenOutput {
  std::string kind;  // "npy", "hdf5", "picture", "frames", "video", "receivers", "checkpoint"
  std::vector<std::filesystem::path> files;
  std::string text;  // as a line says it: "out/ds.h5, ds.h5.xmf"
};

// What a run tells its caller as it goes; every member may be left empty. Under MPI,
// progress is asked on every rank (a false on any stops them all), the others are told on
// rank 0 alone.
struct RunListener {
  // After each chunk of steps (chunks double until one lasts 0.05 s) and while the video is
  // made: false stops the run there.
  std::function<bool(RunProgress const&)> progress;
  std::function<void(WrittenOutput const&)> wrote;
  // The plan cache's problems, no ffmpeg for the video, receivers' files asked of a scene
  // with no receivers.
  std::function<void(std::string const&)> note;
  // What failed without failing the run: a video ffmpeg could not make.
  std::function<void(std::string const&)> warning;
};

struct RunResult {
  std::int64_t first_step = 0;
  std::int64_t step = 0;  // reached
  std::int64_t cells = 0;
  double seconds = 0.0;  // of the stepping alone, fenced
  // Stopped by the listener before the end: no final outputs, the checkpoint (when the run
  // writes them) holds `step`.
  bool stopped = false;
  std::optional<std::filesystem::path> checkpoint;  // the last written, at `step`
  std::vector<WrittenOutput> written;               // in the order they were
  double gcells_per_second() const {
    return seconds > 0.0 ? double(cells) * double(step - first_step) / seconds * 1e-9 : 0.0;
  }
};

namespace detail {

// Chunks of steps that double until one lasts 0.05 s: few enough fences and checks not to
// slow a run, often enough for its progress and its signals. They double on, up to 1 s,
// while the checks after a chunk (non-finite values, the last finite state saved) take
// more than a twentieth of its time: on a CPU they pass over the whole grid three times.
// Steps are global indices, so the chunking never changes a result.
class Chunks {
 public:
  std::int64_t next(std::int64_t left) const { return std::min(size_, left); }
  // A whole chunk took `seconds` to step; checks_weigh: its checks took over a twentieth
  // of that (on any process: every one must chunk alike).
  void took(std::int64_t steps, double seconds, bool checks_weigh = false) {
    if (steps == size_ && (seconds < 0.05 || (checks_weigh && seconds < 1.0))) size_ *= 2;
  }

 private:
  std::int64_t size_ = 1;
};

// What one process of a run steps: the whole grid, or its rank's window of it. Collective
// members are called by every process alike.
template <class ExecutionSpace>
class Part {
 public:
  using Local = Simulation<ExecutionSpace>;
  using Field = typename Local::field_type;

  virtual ~Part() = default;
  virtual Local const& local() const = 0;  // this process's simulation
  // Room in the trace for n more steps (Simulation::reserve_receivers).
  virtual void reserve_receivers(ExecutionSpace const& space, std::int64_t n) = 0;
  virtual Processes const& processes() const = 0;
  // Collective: n steps; the slowest process's seconds, fenced, the same on every one.
  virtual double advance(ExecutionSpace const& space, std::int64_t n) = 0;
  // Collective: the first cell of the whole grid, row-major, where u(t_n) (previous_too:
  // or u(t_{n-1})) is not finite, the same on every process.
  virtual std::optional<FieldCell> first_non_finite(ExecutionSpace const& space,
                                                    bool previous_too) = 0;
  // Each process its local fields, at the same step.
  virtual void set_state(ExecutionSpace const& space, Field const& previous, Field const& current,
                         std::int64_t step) = 0;
  virtual void set_state(ExecutionSpace const& space, HostRows const& previous,
                         HostRows const& current, std::int64_t step) = 0;
  virtual void restore_receivers(ExecutionSpace const& space, HostRows const& rows,
                                 std::int64_t first_step) = 0;
  // Collective: on rank 0 the picture of u(t_n), made from every process's block.
  virtual PicturePart picture(ExecutionSpace const& space) = 0;
  // Collective: on rank 0 the receivers' trace of the whole grid, rows x receivers.
  virtual std::vector<float> trace(ExecutionSpace const& space) = 0;
  virtual Plan const* plan() const = 0;
  // How the grid is split ("2 x 2, halo 8, exchange host memory", then ", overlapped" where
  // the ranks step while their halos travel); empty for one.
  virtual std::string layout() const = 0;
  // What a checkpoint records as having run.
  virtual std::string checkpoint_configuration() const = 0;
};

// The whole grid on this process alone.
template <class ExecutionSpace>
class WholeGrid final : public Part<ExecutionSpace> {
  using Base = Part<ExecutionSpace>;

 public:
  WholeGrid(ExecutionSpace const& space, Scene const& scene, std::string const& backend,
            ValidationOptions const& validation, PlanOptions const& plan)
      : simulation_(space, scene, backend, validation, plan), check_(space) {}

  typename Base::Local const& local() const override { return simulation_; }
  void reserve_receivers(ExecutionSpace const& space, std::int64_t n) override {
    simulation_.reserve_receivers(space, n);
  }
  Processes const& processes() const override { return processes_; }
  double advance(ExecutionSpace const& space, std::int64_t n) override {
    auto const start = std::chrono::steady_clock::now();
    simulation_.advance(space, n);
    wave2d::fence(space, "wave2d::run: end of a chunk of steps");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::optional<FieldCell> first_non_finite(ExecutionSpace const& space,
                                            bool previous_too) override {
    auto cell = check_.first_non_finite(space, simulation_.current());
    if (!cell && previous_too) cell = check_.first_non_finite(space, simulation_.previous());
    return cell;
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
    Scene const& scene = simulation_.scene();
    return picture_part(to_host(space, simulation_.current()), scene.walls,
                        Window::whole(scene.nx, scene.ny));
  }
  std::vector<float> trace(ExecutionSpace const& space) override {
    return to_host(space, simulation_.receivers());
  }
  Plan const* plan() const override { return simulation_.plan(); }
  std::string layout() const override { return {}; }
  std::string checkpoint_configuration() const override {
    return simulation_.stepper_configuration();
  }

 private:
  Simulation<ExecutionSpace> simulation_;
  Processes processes_;
  FiniteCheck<ExecutionSpace> check_;
};

// The last state found finite, kept in the run's memory space: each process its window.
template <class ExecutionSpace>
class LastFinite {
 public:
  using Field = typename Part<ExecutionSpace>::Field;

  LastFinite(ExecutionSpace const& space, Part<ExecutionSpace>& part)
      : previous_(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                     "wave2d::run::LastFinite::previous"),
                  part.local().current().extent(0), part.local().current().extent(1)),
        current_(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                    "wave2d::run::LastFinite::current"),
                 part.local().current().extent(0), part.local().current().extent(1)) {}

  void save(ExecutionSpace const& space, Part<ExecutionSpace>& part) {
    detail::copy(space, previous_, part.local().previous(), "wave2d::run::LastFinite::save");
    detail::copy(space, current_, part.local().current(), "wave2d::run::LastFinite::save");
    step_ = part.local().steps_done();
  }
  // The saved state, with the receivers' trace up to it: set_state restarts the trace, whose
  // rows the receivers' files of the last finite state then hold.
  void restore(ExecutionSpace const& space, Part<ExecutionSpace>& part) const {
    auto const& local = part.local();
    std::int64_t const first = local.receivers_first_step();
    std::size_t const columns = local.receivers().extent(1);
    std::size_t const rows = first <= step_ ? std::size_t(step_ - first + 1) : 0;
    std::vector<float> kept(rows * columns);
    if (!kept.empty()) {
      Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(
          kept.data(), rows, columns);
      detail::copy_2d(space, host,
                      Kokkos::subview(local.receivers(),
                                      std::pair<std::size_t, std::size_t>(0, rows), Kokkos::ALL),
                      "wave2d::run::LastFinite::trace");
      wave2d::fence(space, "wave2d::run::LastFinite: the trace kept");
    }
    part.set_state(space, previous_, current_, step_);
    if (!kept.empty()) part.restore_receivers(space, HostRows(kept.data(), rows, columns), first);
  }

 private:
  Field previous_;
  Field current_;
  std::int64_t step_ = 0;
};

inline std::string counted(std::int64_t count, std::string const& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// The next step at which a run stops for an output due every `every` steps.
inline std::int64_t next_stop(std::int64_t every, std::int64_t done, std::int64_t end) {
  return std::min(end, done + every - done % every);
}

inline bool is_due(std::optional<std::int64_t> every, std::int64_t step, std::int64_t end) {
  return every && (step % *every == 0 || step == end);
}

template <class Kind>
Kind const* find_output(std::vector<Output> const& outputs) {
  for (auto const& output : outputs) {
    if (auto const* kind = std::get_if<Kind>(&output)) return kind;
  }
  return nullptr;
}

// Makes the folder of `file` on rank 0 where it is one of the folders the run makes and is
// missing (create_parent_directory).
inline void make_folder_of(std::filesystem::path const& file, Experiment const& e,
                           Processes const& processes) {
  std::vector<std::filesystem::path> folders;
  if (auto const* pictures = find_output<Pictures>(e.outputs)) {
    folders.push_back(pictures->directory);
  }
  if (auto const* receivers = find_output<ReceiverFiles>(e.outputs)) {
    folders.push_back(receivers->directory);
  }
  if (!e.output_folder.empty()) folders.push_back(e.output_folder);
  processes.agree([&] {
    if (processes.root()) create_parent_directory(file, folders);
  });
}

}  // namespace detail

template <class ExecutionSpace>
class Run;

template <class ExecutionSpace>
Run<ExecutionSpace> make_run(ExecutionSpace const& space, CheckedExperiment checked,
                             std::unique_ptr<detail::Part<ExecutionSpace>> part);

// A checked experiment set up on an execution space instance, ready to run: the simulation
// made (auto's trial run), the checkpoint resumed. Kokkos must be initialized; the run
// keeps the instance and runs everything on it.
template <class ExecutionSpace>
class Run {
 public:
  // One process, the whole grid. std::invalid_argument for an experiment checked for another
  // space, InsufficientMemory for a grid or trace that does not fit the space's memory,
  // UnknownBackend, CheckpointError for a checkpoint resumed that does
  // not belong to the backend; other failures (an allocation Kokkos refuses) are
  // std::runtime_error.
  Run(ExecutionSpace const& space, CheckedExperiment checked)
      : Run(space, std::move(checked), nullptr) {}

  // Steps to the end, writing the outputs on the way and at the end, and returns what it
  // did; the listener hears of it as it goes. NotFinite when the field stops being finite
  // (after the last finite state's outputs, with Experiment::keep_last_finite); OutputError
  // when an output cannot be written, on every process.
  RunResult execute(RunListener const& listener = {});

  CheckedExperiment const& checked() const { return checked_; }
  Scene const& scene() const { return part_->local().scene(); }
  // The backend that runs (auto's choice), what it runs, and how auto chose it (null when
  // a backend was named).
  std::string const& backend() const { return part_->local().backend(); }
  std::string configuration() const { return part_->local().configuration(); }
  Plan const* plan() const { return part_->plan(); }
  std::string layout() const { return part_->layout(); }
  Processes const& processes() const { return part_->processes(); }
  // This process's simulation: the whole grid's, or its window's under MPI.
  Simulation<ExecutionSpace> const& simulation() const { return part_->local(); }

 private:
  friend Run make_run<ExecutionSpace>(ExecutionSpace const&, CheckedExperiment,
                                      std::unique_ptr<detail::Part<ExecutionSpace>>);

  Run(ExecutionSpace const& space, CheckedExperiment checked,
      std::unique_ptr<detail::Part<ExecutionSpace>> part);

  void write_frame(detail::OutputFiles const* images, FieldFile* h5);
  void write_checkpoint(Checkpoints const& checkpoints, RunResult& result,
                        RunListener const& listener);
  void write_results(FieldFile* h5, RunResult& result, RunListener const& listener,
                     std::int64_t first_frame, std::int64_t frames);
  void tell(RunResult& result, RunListener const& listener, WrittenOutput written) const;

  ExecutionSpace space_;
  CheckedExperiment checked_;
  std::unique_ptr<detail::Part<ExecutionSpace>> part_;
};

template <class ExecutionSpace>
Run<ExecutionSpace> make_run(ExecutionSpace const& space, CheckedExperiment checked,
                             std::unique_ptr<detail::Part<ExecutionSpace>> part) {
  return Run<ExecutionSpace>(space, std::move(checked), std::move(part));
}

template <class ExecutionSpace>
Run<ExecutionSpace>::Run(ExecutionSpace const& space, CheckedExperiment checked,
                         std::unique_ptr<detail::Part<ExecutionSpace>> part)
    : space_(space), checked_(std::move(checked)), part_(std::move(part)) {
  Experiment const& e = checked_.experiment;
  if (e.space != space_name<ExecutionSpace>()) {
    throw std::invalid_argument("the experiment was checked for the space '" + e.space + "', not " +
                                space_name<ExecutionSpace>() + " that runs it");
  }
  if (!part_) {
    check_memory(space_, e.scene, draws_pictures(e));
    try {
      part_ = std::make_unique<detail::WholeGrid<ExecutionSpace>>(space_, e.scene, e.backend,
                                                                  e.validation, e.plan);
    } catch (std::bad_alloc const& error) {
      throw InsufficientMemory("cannot set up the " + std::to_string(e.scene.nx) + " x " +
                               std::to_string(e.scene.ny) + " grid on " + ExecutionSpace::name() +
                               ": " + error.what());
    }
  }
  if (e.resume) detail::resume(*e.resume, space_, *part_, part_->local(), part_->processes());
}

template <class ExecutionSpace>
void Run<ExecutionSpace>::tell(RunResult& result, RunListener const& listener,
                               WrittenOutput written) const {
  if (processes().root() && listener.wrote) listener.wrote(written);
  result.written.push_back(std::move(written));
}

template <class ExecutionSpace>
void Run<ExecutionSpace>::write_frame(detail::OutputFiles const* images, FieldFile* h5) {
  auto& local = part_->local();
  Processes const& processes = part_->processes();
  std::int64_t const now = local.steps_done();
  if (images) {
    PicturePart const picture = part_->picture(space_);
    processes.agree([&] {
      if (processes.root()) images->write_picture(images->frame(now), picture, scene());
    });
  }
  if (h5) h5->write_frame(now, owned_cells(space_, local.window(), local.current()));
}

template <class ExecutionSpace>
void Run<ExecutionSpace>::write_checkpoint(Checkpoints const& checkpoints, RunResult& result,
                                           RunListener const& listener) {
  detail::make_folder_of(checkpoints.path, checked_.experiment, processes());
  detail::write_checkpoint(checkpoints.path, space_, part_->local(), processes(),
                           part_->checkpoint_configuration());
  result.checkpoint = checkpoints.path;
  tell(result, listener,
       {"checkpoint",
        {checkpoints.path},
        checkpoints.path.string() + ", step " + std::to_string(part_->local().steps_done())});
}

template <class ExecutionSpace>
void Run<ExecutionSpace>::write_results(FieldFile* h5, RunResult& result,
                                        RunListener const& listener, std::int64_t first_frame,
                                        std::int64_t frames) {
  namespace fs = std::filesystem;
  Experiment const& e = checked_.experiment;
  auto& local = part_->local();
  Processes const& processes = part_->processes();
  Window const& window = local.window();
  Scene const& scene = local.scene();
  // The trace holds the whole run when it starts where the run did: at step 0, or where the
  // resumed checkpoint's began (a state set anew restarts it).
  std::int64_t const whole_first = checked_.resumed ? checked_.resumed->trace_first_step : 0;
  bool const whole_trace = !scene.receivers.empty() && local.receivers_first_step() == whole_first;
  auto const* receivers = detail::find_output<ReceiverFiles>(e.outputs);
  if (h5) {
    auto const* file = detail::find_output<Hdf5File>(e.outputs);
    h5->write_field(local.steps_done(), owned_cells(space_, window, local.previous()),
                    owned_cells(space_, window, local.current()));
    if (whole_trace && file->receivers) {
      detail::OwnedTrace const trace = detail::owned_trace(space_, local);
      h5->write_receivers(trace.first_step, trace.rows, trace.columns, trace.values);
    }
    h5->commit();
    tell(result, listener,
         {"hdf5",
          {file->path, xdmf_path(file->path)},
          file->path.string() + ", " + xdmf_path(file->path).filename().string()});
  }
  if (auto const* npy = detail::find_output<NpyFile>(e.outputs)) {
    detail::make_folder_of(npy->path, e, processes);
    write_npy(npy->path, window, owned_cells(space_, window, local.previous()),
              owned_cells(space_, window, local.current()), processes);
    tell(result, listener, {"npy", {npy->path}, npy->path.string()});
  }
  if (receivers && whole_trace) {
    std::vector<float> values = part_->trace(space_);
    detail::OutputFiles const names{receivers->directory,
                                    receivers->stem.empty() ? checked_.stem : receivers->stem};
    ReceiverTrace const trace{std::move(values), receiver_names(scene), whole_first, scene.t0,
                              scene.dt};
    std::vector<fs::path> files{names.receivers("npy"), names.receivers("csv")};
    if (receivers->plot) files.push_back(names.receivers("png"));
    processes.agree([&] {
      if (!processes.root()) return;
      detail::create_parent_directory(files[0]);
      write_receiver_files(files[0], files[1],
                           receivers->plot ? std::optional(files[2]) : std::nullopt, trace);
    });
    std::string text = files[0].string();
    for (std::size_t i = 1; i < files.size(); ++i) text += ", " + files[i].filename().string();
    text += " (" + detail::counted(std::int64_t(trace.names.size()), "receiver") + ", " +
            detail::counted(trace.rows(), "row") + ")";
    tell(result, listener, {"receivers", files, text});
  }
  if (auto const* pictures = detail::find_output<Pictures>(e.outputs)) {
    detail::OutputFiles const images{pictures->directory,
                                     pictures->stem.empty() ? checked_.stem : pictures->stem,
                                     checked_.steps, pictures->scale};
    PicturePart const picture = part_->picture(space_);
    processes.agree([&] {
      if (processes.root()) images.write_picture(images.image(), picture, scene);
    });
    tell(result, listener, {"picture", {images.image()}, images.image().string()});
    // A run resumed at its end writes no frame, but its video (one stopped while ffmpeg
    // ran has the frames for it).
    if (pictures->frames_every && (frames > 0 || result.step == checked_.steps)) {
      detail::FrameSteps const steps{*pictures->frames_every, checked_.steps, result.first_step};
      if (frames > 0) {
        std::string text =
            detail::counted(frames, "frame") + " " + images.frame(first_frame).string();
        if (frames > 1) text += " .. " + images.frame(checked_.steps).filename().string();
        std::vector<fs::path> written;
        for (std::int64_t step = first_frame;; step = steps.next(step)) {
          written.push_back(images.frame(step));
          if (step == checked_.steps) break;
        }
        tell(result, listener, {"frames", std::move(written), text});
      }
      if (pictures->video) {
        detail::VideoOutcome video;
        bool stopped = false;
        processes.agree([&] {
          if (!processes.root()) return;
          RunProgress const at_end{local.steps_done(), result.first_step, checked_.steps,
                                   scene.cells(), result.seconds};
          video = detail::make_video(images, steps, [&] {
            stopped = stopped || (listener.progress && !listener.progress(at_end));
            return stopped;
          });
        });
        if (video.written) {
          tell(result, listener, {"video", {images.video()}, images.video().string()});
        } else if (processes.root()) {
          auto const& say = video.failed ? listener.warning : listener.note;
          if (say) say(video.note);
        }
        result.stopped = processes.any(stopped);
      }
    }
  }
}

template <class ExecutionSpace>
RunResult Run<ExecutionSpace>::execute(RunListener const& listener) {
  Experiment const& e = checked_.experiment;
  auto& part = *part_;
  auto& local = part.local();
  Processes const& processes = part.processes();
  Scene const& scene = local.scene();
  std::int64_t const end = checked_.steps;
  RunResult result;
  result.first_step = local.steps_done();
  result.step = result.first_step;
  result.cells = scene.cells();
  if (processes.root() && listener.note && plan()) {
    for (auto const& note : plan()->notes) listener.note(note);
  }
  if (processes.root() && listener.note && scene.receivers.empty() &&
      detail::find_output<ReceiverFiles>(e.outputs)) {
    listener.note("the scene has no receivers: no receivers' files are written");
  }
  if (!scene.receivers.empty()) part.reserve_receivers(space_, end - local.steps_done());

  auto const* pictures = detail::find_output<Pictures>(e.outputs);
  auto const* h5_output = detail::find_output<Hdf5File>(e.outputs);
  auto const* checkpoints = detail::find_output<Checkpoints>(e.outputs);
  std::optional<detail::OutputFiles> images;
  if (pictures && pictures->frames_every) {
    images.emplace(detail::OutputFiles{pictures->directory,
                                       pictures->stem.empty() ? checked_.stem : pictures->stem, end,
                                       pictures->scale});
  }
  std::optional<FieldFile> h5;
  if (h5_output) {
    detail::make_folder_of(h5_output->path, e, processes);
    h5.emplace(h5_output->path, scene, local.window(), processes);
  }
  FieldFile* const h5_frames = h5 && h5_output->frames_every ? &*h5 : nullptr;
  std::int64_t frames = 0;  // pictures written by this run, from step first_frame on
  std::int64_t first_frame = 0;
  // The frames due at this step; at the start all of them.
  auto const frames_due = [&](bool start) {
    std::int64_t const now = local.steps_done();
    bool const picture = images && (start || detail::is_due(pictures->frames_every, now, end));
    bool const hdf5 = h5_frames && (start || detail::is_due(h5_output->frames_every, now, end));
    if (picture && frames++ == 0) first_frame = now;
    if (picture || hdf5) write_frame(picture ? &*images : nullptr, hdf5 ? h5_frames : nullptr);
  };
  // A resumed run's earlier pictures are the run it resumed's; its HDF5 file is its own,
  // from the step resumed on, as an uninterrupted run's has them.
  if (local.steps_done() == 0) {
    frames_due(true);
  } else if (h5_frames && detail::is_due(h5_output->frames_every, local.steps_done(), end)) {
    write_frame(nullptr, h5_frames);
  }

  detail::LastFinite<ExecutionSpace> last_finite(space_, part);
  last_finite.save(space_, part);
  std::vector<std::int64_t> const periods = checked_.periods();
  std::int64_t checkpointed = -1;  // the step of the last checkpoint written
  detail::Chunks chunks;
  auto const progress = [&] {
    bool const go_on =
        !listener.progress || listener.progress({local.steps_done(), result.first_step, end,
                                                 result.cells, result.seconds});
    return !processes.any(!go_on);
  };
  while (local.steps_done() < end) {
    std::int64_t const done = local.steps_done();
    std::int64_t stop = end;
    for (std::int64_t every : periods) stop = std::min(stop, detail::next_stop(every, done, end));
    std::int64_t const n = chunks.next(stop - done);
    bool const switched_before = plan() && plan()->switched;
    double const seconds = part.advance(space_, n);
    auto const checks_began = std::chrono::steady_clock::now();
    if (!switched_before && plan() && plan()->switched && processes.root() && listener.note) {
      listener.note("auto " + plan()->switched_text());
    }
    result.seconds += seconds;
    result.step = local.steps_done();
    if (auto const cell = part.first_non_finite(space_, true)) {
      (void)cell;
      // From the last finite state, one step at a time to the first field that is not.
      last_finite.restore(space_, part);
      FieldCell first{};
      while (true) {
        part.advance(space_, 1);
        if (auto const found = part.first_non_finite(space_, false)) {
          first = *found;
          break;
        }
        last_finite.save(space_, part);
      }
      std::int64_t const step = local.steps_done();
      last_finite.restore(space_, part);
      result.step = local.steps_done();
      std::string message = "the field is not finite after step " + std::to_string(step) +
                            ", first at cell (" + std::to_string(first.x) + ", " +
                            std::to_string(first.y) + ")";
      if (e.keep_last_finite) {
        write_results(h5 ? &*h5 : nullptr, result, listener, 0, 0);
        message += "; wrote the last finite state, step " + std::to_string(result.step);
      }
      throw NotFinite(message, step, first.x, first.y);
    }
    last_finite.save(space_, part);
    wave2d::fence(space_, "wave2d::run: the last finite state saved");
    double const check_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - checks_began).count();
    chunks.took(n, seconds, processes.any(check_seconds * 20.0 > seconds));
    std::int64_t const now = local.steps_done();
    frames_due(false);
    if (checkpoints && detail::is_due(checkpoints->every, now, end)) {
      write_checkpoint(*checkpoints, result, listener);
      checkpointed = now;
    }
    if (!progress()) {
      if (checkpoints && checkpointed != now) write_checkpoint(*checkpoints, result, listener);
      result.stopped = true;
      return result;
    }
  }
  // A run of no steps (resumed at its end, or of 0 steps) has its checkpoint too.
  if (checkpoints && checkpointed != local.steps_done()) {
    write_checkpoint(*checkpoints, result, listener);
  }
  write_results(h5 ? &*h5 : nullptr, result, listener, first_frame, frames);
  return result;
}

// Checks, sets up and runs `experiment` on `space`, one process: check(), Run, execute().
// An experiment that names no space takes `space`'s; one that names another is refused.
template <class ExecutionSpace>
RunResult run(ExecutionSpace const& space, Experiment experiment,
              RunListener const& listener = {}) {
  if (experiment.space.empty()) experiment.space = space_name<ExecutionSpace>();
  return Run<ExecutionSpace>(space, check(std::move(experiment))).execute(listener);
}

// The library's instantiations (detail/wave2d_Instantiation.hpp).
#define WAVE2D_RUN_INSTANTIATIONS(PREFIX, SPACE)                           \
  PREFIX class Run<SPACE>;                                                 \
  PREFIX Run<SPACE> make_run<SPACE>(SPACE const&, CheckedExperiment,       \
                                    std::unique_ptr<detail::Part<SPACE>>); \
  PREFIX RunResult run<SPACE>(SPACE const&, Experiment, RunListener const&);
WAVE2D_EXTERN_INSTANTIATIONS(WAVE2D_RUN_INSTANTIATIONS)

}  // namespace wave2d

#endif
