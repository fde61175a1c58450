// An experiment: a scene, a backend, a step count and the outputs, as values. check() proves
// it runnable as far as that can be known without Kokkos: the scene validated once, every
// output named and proven writable, a resumed checkpoint's header read and matched; Run
// (run/wave2d_Run.hpp) then runs it. Plain C++.
#ifndef WAVE2D_EXPERIMENT_HPP
#define WAVE2D_EXPERIMENT_HPP

#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_ReceiverFiles.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/plan/wave2d_PlanOptions.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace wave2d {

// Each output names itself in messages by `label` where the caller gives one (a program's
// option: "--save-npy"), else by what it is ("the NPY file").

// The final pair (u(t_{n-1}), u(t_n)) as a float32 NumPy array of shape (2, ny, nx).
struct NpyFile {
  std::filesystem::path path;
  std::string label;
};

// One HDF5 file (io/wave2d_Hdf5FieldFile.hpp) and its XDMF sidecar <path>.xmf: the final
// pair, the frames (step 0, every frames_every steps and the last), the receivers' trace of
// the whole run.
struct Hdf5File {
  std::filesystem::path path;
  std::optional<std::int64_t> frames_every;
  bool receivers = true;  // the trace, when the scene has receivers
  std::string label;
};

// Pictures in `directory` (made when missing), named after `stem` (empty: the scene's name
// as a file name): the final field <stem>.png; with frames_every the frames
// <stem>.<step>.png (step 0, every frames_every steps and the last) and, with `video` and
// ffmpeg on PATH, their MP4 <stem>.mp4. The colours saturate at |u| = scale, or at each
// picture's largest |u| when scale is empty. Needs libpng.
struct Pictures {
  std::filesystem::path directory = "out";
  std::string stem;
  std::optional<float> scale = 1.0f;
  std::optional<std::int64_t> frames_every;
  bool video = true;
  std::string label;
};

// The receivers' trace of the whole run as <stem>.receivers.npy and .csv in `directory`,
// and with `plot` (which needs libplot: can_plot_receivers()) its plot .png.
struct ReceiverFiles {
  std::filesystem::path directory = "out";
  std::string stem;
  bool plot = can_plot_receivers();
  std::string label;
};

// The state and the receivers' trace as a checkpoint (io/wave2d_Checkpoint.hpp) every
// `every` steps, at the end and when the run is stopped; Experiment::resume continues it.
struct Checkpoints {
  std::filesystem::path path;
  std::int64_t every = 0;
  std::string label;
};

using Output = std::variant<NpyFile, Hdf5File, Pictures, ReceiverFiles, Checkpoints>;

struct Experiment {
  Scene scene;
  std::string backend{auto_backend};
  // The execution space, by its name in lower case (serial, openmp, cuda: spaces()); empty:
  // the default one where the backend runs there, else the host's.
  std::string space;
  // From step 0 (a resumed run goes on to it); empty: the scene's own.
  std::optional<std::int64_t> steps;
  ValidationOptions validation;
  PlanOptions plan;  // how `auto` chooses
  std::vector<Output> outputs;
  // A folder that outputs named in it may need, made when missing as the pictures' and the
  // receivers' folders are (the program's --output, into which a build without libpng
  // writes no image); empty: none.
  std::filesystem::path output_folder;
  // A checkpoint of this scene to go on from; `auto` then takes its backend, and an empty
  // `space` its space (where this build has it).
  std::optional<std::filesystem::path> resume;
  // When the field stops being finite: write the outputs of the last finite state all the
  // same (the run still fails, with NotFinite).
  bool keep_last_finite = false;
  // The files the scene was read from, which no output may overwrite, and the key that set
  // its time step, which an unstable time step's error names (read_scene_file gives both).
  std::vector<std::filesystem::path> inputs;
  SceneFileKey time_step_key;
};

// Whether the experiment draws pictures of its field (has a Pictures output).
bool draws_pictures(Experiment const& experiment);

// The experiment of a scene file's scene, its inputs and key set.
Experiment experiment_of(SceneFile file);

// A built-in scene's name or a scene file, as the program's --scene and Python's Scene take
// them: SceneError for neither, InsufficientMemory for a grid the host cannot hold. `steps`:
// those of the run where it overrides the scene's (SceneFileOptions::steps).
SceneFile load_scene(std::string const& name_or_file, std::optional<std::int64_t> steps = {});

// An experiment proven runnable as far as that can be without Kokkos; made by check().
struct CheckedExperiment {
  // Its scene validated, scene.steps the run's step count; its space the one it runs on.
  Experiment experiment;
  std::int64_t steps = 0;
  std::string stem;  // the outputs' default file stem: the scene's name as a file name
  // The header of the checkpoint resumed (no fields): the run starts at its step.
  std::optional<CheckpointData> resumed;
  // The steps at which the run stops for an output (frames, checkpoints) as "every K".
  std::vector<std::int64_t> periods() const;
};

// Finds the space the backend runs on (std::invalid_argument, UnknownBackend), validates
// the scene for the run's steps (SceneError, naming the scene file's key where there is
// one), reads the resumed checkpoint's header, checked against the scene and the step count
// (CheckpointError; `auto` then takes the checkpoint's backend, and an experiment that
// names no space the checkpoint's where the build has it), and checks the outputs
// (OutputError: two outputs that are one file, an output over an input or over the
// checkpoint resumed but the run's own checkpoints, a stray file named as the frames are, a
// path that cannot be written now; std::invalid_argument for a period below 1 and for two
// pictures or checkpoint outputs). Nothing is written.
CheckedExperiment check(Experiment experiment);

}  // namespace wave2d

#endif
