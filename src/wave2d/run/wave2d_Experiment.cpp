#include <wave2d/run/wave2d_Experiment.hpp>

#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/run/wave2d_OutputFiles.hpp>
#include <wave2d/run/wave2d_RunMemory.hpp>
#include <wave2d/run/wave2d_Spaces.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>

#include <algorithm>
#include <cmath>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace wave2d {

namespace fs = std::filesystem;

namespace {

template <class Kind>
Kind const* only(std::vector<Output> const& outputs, char const* what) {
  Kind const* found = nullptr;
  for (auto const& output : outputs) {
    if (auto const* kind = std::get_if<Kind>(&output)) {
      if (found) throw std::invalid_argument(std::string("an experiment has one ") + what);
      found = kind;
    }
  }
  return found;
}

std::string label_or(std::string const& label, char const* otherwise) {
  return label.empty() ? otherwise : label;
}

// An HDF5 file is written at offsets and renamed into place: never through a device.
void refuse_device(fs::path const& path) {
  if (!path.empty() && output_target(path).write_through) {
    throw OutputError("cannot write '" + path.string() +
                      "': an HDF5 file is written to a regular file, not a device");
  }
}

void check_period(std::optional<std::int64_t> every, std::string const& what) {
  if (every && *every < 1) {
    throw std::invalid_argument(what + ": a period of " + std::to_string(*every) +
                                " steps (at least 1)");
  }
}

// A stem names files in the output's directory: a name, not a path; no hidden files.
void check_stem(std::string const& stem, char const* what) {
  if (stem.find_first_of(std::string_view("/\0", 2)) != std::string::npos ||
      stem.starts_with('.')) {
    std::string shown;  // a NUL as \0, not the end of the message's text
    for (char const c : stem) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
    throw std::invalid_argument(std::string("the ") + what + "' stem '" + shown +
                                "' is not a file name (no '/', no NUL, no leading '.')");
  }
}

// The outputs as the files they make, checked together (detail::check_outputs).
detail::RunFiles run_files(CheckedExperiment const& checked) {
  Experiment const& e = checked.experiment;
  detail::RunFiles files{.inputs = e.inputs, .resume = e.resume, .output_folder = e.output_folder};
  if (auto const* npy = only<NpyFile>(e.outputs, "NPY file")) {
    files.npy = detail::NamedOutput{label_or(npy->label, "the NPY file"), npy->path};
  }
  if (auto const* h5 = only<Hdf5File>(e.outputs, "HDF5 file")) {
    if (!can_use_hdf5)
      throw OutputError("cannot write '" + h5->path.string() + "': " + no_hdf5_reason);
    check_period(h5->frames_every, label_or(h5->label, "the HDF5 file's frames"));
    refuse_device(h5->path);
    files.h5 = detail::NamedOutput{label_or(h5->label, "the HDF5 file"), h5->path};
  }
  if (auto const* checkpoints = only<Checkpoints>(e.outputs, "checkpoint output")) {
    if (!can_checkpoint) throw CheckpointError(checkpoints_unavailable_reason());
    check_period(checkpoints->every, label_or(checkpoints->label, "the checkpoints"));
    refuse_device(checkpoints->path);
    files.checkpoint =
        detail::NamedOutput{label_or(checkpoints->label, "the checkpoint"), checkpoints->path};
  }
  if (auto const* pictures = only<Pictures>(e.outputs, "pictures output")) {
    check_stem(pictures->stem, "pictures");
    if (!can_write_png) {
      throw OutputError(
          "cannot write pictures: this build has no libpng (install libpng-dev "
          "and rebuild)");
    }
    check_period(pictures->frames_every, label_or(pictures->label, "the frames"));
    if (pictures->scale && !(*pictures->scale > 0.0f && std::isfinite(*pictures->scale))) {
      throw std::invalid_argument("the pictures' scale must be a positive amplitude");
    }
    files.images = detail::OutputFiles{pictures->directory,
                                       pictures->stem.empty() ? checked.stem : pictures->stem,
                                       checked.steps, pictures->scale};
    files.images_label = label_or(pictures->label, "the pictures' folder");
    if (pictures->frames_every) {
      files.frames = detail::FrameSteps{*pictures->frames_every, checked.steps,
                                        checked.resumed ? checked.resumed->step : 0};
    }
    files.video = pictures->video;
  }
  if (auto const* receivers = only<ReceiverFiles>(e.outputs, "receivers' output")) {
    if (receivers->plot && !can_plot_receivers()) {
      throw OutputError(
          "cannot plot the receivers: this build has no libplot (install "
          "libplot-dev and rebuild)");
    }
    check_stem(receivers->stem, "receivers' files");
    detail::OutputFiles const names{receivers->directory,
                                    receivers->stem.empty() ? checked.stem : receivers->stem};
    if (!e.scene.receivers.empty()) {
      for (char const* extension : {"npy", "csv", "png"}) {
        if (extension != std::string_view("png") || receivers->plot) {
          files.receivers.push_back(names.receivers(extension));
        }
      }
    }
    files.receivers_label = label_or(receivers->label, "the receivers' folder");
  }
  return files;
}

// The header of the checkpoint resumed, checked against the scene and the step count.
CheckpointData read_resumed(fs::path const& path, Scene const& scene, std::int64_t steps) {
  if (!can_checkpoint) throw CheckpointError(checkpoints_unavailable_reason());
  CheckpointData header = read_checkpoint_header(path);
  // Its numerics once the backend is set up.
  check_checkpoint_matches(path, header, scene, header.numerics);
  if (header.step > steps) {
    throw CheckpointError("checkpoint '" + path.string() + "' is at step " +
                          std::to_string(header.step) + ", past the run's " +
                          std::to_string(steps) + (steps == 1 ? " step" : " steps") +
                          " (the steps count from step 0)");
  }
  return header;
}

}  // namespace

std::vector<std::int64_t> CheckedExperiment::periods() const {
  std::vector<std::int64_t> every;
  for (auto const& output : experiment.outputs) {
    std::visit(
        [&](auto const& o) {
          using Kind = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<Kind, Hdf5File> || std::is_same_v<Kind, Pictures>) {
            if (o.frames_every) every.push_back(*o.frames_every);
          } else if constexpr (std::is_same_v<Kind, Checkpoints>) {
            every.push_back(o.every);
          }
        },
        output);
  }
  return every;
}

bool draws_pictures(Experiment const& experiment) {
  return std::ranges::any_of(experiment.outputs, [](Output const& output) {
    return std::holds_alternative<Pictures>(output);
  });
}

Experiment experiment_of(SceneFile file) {
  Experiment experiment;
  experiment.scene = std::move(file.scene);
  experiment.inputs = std::move(file.files);
  experiment.time_step_key = std::move(file.time_step_key);
  return experiment;
}

SceneFile load_scene(std::string const& name_or_file, std::optional<std::int64_t> steps) {
  std::string names;
  for (auto const& info : builtin_scenes()) {
    if (info.name == name_or_file) return {builtin_scene(info.name), {}, {}};
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  }
  // Anything there, a dangling link or a loop of links included, is read as a scene file,
  // so that the loader says what is wrong with it.
  std::error_code error;
  if (fs::symlink_status(name_or_file, error).type() == fs::file_type::not_found) {
    throw SceneError("unknown scene '" + name_or_file + "': neither a built-in scene (" + names +
                     ") nor a scene file");
  }
  try {
    return read_scene_file(name_or_file, {.check_grid = check_host_memory, .steps = steps});
  } catch (std::bad_alloc const&) {  // its wall mask or speed map, one value per cell
    throw InsufficientMemory("the grid of scene file '" + name_or_file +
                             "' is too large for memory");
  }
}

CheckedExperiment check(Experiment experiment) {
  CheckedExperiment checked;
  Scene& scene = experiment.scene;
  checked.steps = experiment.steps.value_or(scene.steps);
  if (checked.steps < 0) {
    throw std::invalid_argument("a run of " + std::to_string(checked.steps) + " steps");
  }
  bool const space_named = !experiment.space.empty();
  experiment.space = space_for(experiment.space, experiment.backend);
  // Validated for the steps it runs: its sources' values over them; once, here, whatever
  // the experiment says (one taken from a checked experiment and changed says so too).
  scene.steps = checked.steps;
  experiment.validation.validated = false;
  validate(scene, experiment.time_step_key, experiment.inputs, experiment.validation);
  experiment.validation.validated = true;
  std::string const name = scene.name.empty() && !experiment.inputs.empty()
                               ? experiment.inputs.front().stem().string()
                               : scene.name;
  checked.stem = detail::file_stem(name.empty() ? "scene" : name);
  if (checked.steps == 0) experiment.plan.mode = PlanMode::estimate;  // nothing to speed up
  checked.experiment = std::move(experiment);
  Experiment& checked_experiment = checked.experiment;
  if (checked_experiment.resume) {
    checked.resumed =
        read_resumed(*checked_experiment.resume, checked_experiment.scene, checked.steps);
    // Every backend of a space gives the same bits: `auto` resumes with the checkpoint's,
    // and an experiment that names no space on the checkpoint's where the build has it.
    std::string const& numerics = checked.resumed->numerics;
    if (checked_experiment.backend == auto_backend) {
      if (auto const backend = numerics_backend(numerics)) checked_experiment.backend = *backend;
    }
    if (auto const space = numerics_space(numerics); space && !space_named) {
      if (auto const compiled = compiled_space_running(*space, checked_experiment.backend)) {
        checked_experiment.space = *compiled;
      }
    }
  }
  detail::check_outputs(run_files(checked));  // the frames' steps from the step resumed
  return checked;
}

}  // namespace wave2d
