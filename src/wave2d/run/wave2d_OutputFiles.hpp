// The files a run writes: their names, the checks made before the run, and the video.
// Internal to the run layer (Experiment's outputs are the public face).
#ifndef WAVE2D_OUTPUT_FILES_HPP
#define WAVE2D_OUTPUT_FILES_HPP

#include <wave2d/scene/wave2d_Scene.hpp>

#include <wave2d/io/wave2d_Picture.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d::detail {

struct OutputFiles {
  std::filesystem::path directory;
  std::string stem;            // the scene's name, safe as a file name
  std::int64_t last_step = 0;  // the run's: frame numbers are as wide as it
  // Where the pictures' colours saturate: |u| = scale, or each picture's largest |u|
  // when empty (`--scale auto`).
  std::optional<float> scale = 1.0f;

  // The field as a PNG (the image, a frame) with its colour bar, the scale in a tEXt
  // chunk; the output folder made when missing.
  void write_picture(std::filesystem::path const& path, std::span<float const> u,
                     Scene const& scene) const;
  // The same of a picture made from the grid's blocks (a distributed run's, whose ranks
  // each reduce their cells to its pixels): at most max_picture_side pixels a side.
  void write_picture(std::filesystem::path const& path, PicturePart const& picture,
                     Scene const& scene) const;

  std::filesystem::path image() const;  // DIR/<stem>.png
  // The frame of a step, numbered by it: DIR/<stem>.<step>.png, the step zero-padded to
  // frame_digits(last_step) (double-slit.000200.png), so that the names sort as the steps
  // do, those of a run continued to more steps included.
  std::filesystem::path frame(std::int64_t step) const;
  // ffmpeg's -pattern_type glob of the frames: DIR/<stem>.[0-9]...[0-9].png, glob(3)'s
  // special characters in DIR escaped.
  std::string frame_glob() const;
  // The step a name in DIR of the frames' pattern stands for; nothing for another name.
  std::optional<std::int64_t> frame_step(std::string const& name) const;
  std::filesystem::path video() const;  // DIR/<stem>.mp4
  // The receivers' trace: DIR/<stem>.receivers.npy, .csv and .png (its plot).
  std::filesystem::path receivers(std::string_view extension) const;
};

// The steps of a run's frames: 0, every `every`-th and the last, whether this run or the one
// it resumed stepped there; and for a run resumed at step `resumed`, any frame of a step up
// to it: the last frames of the runs it continues, which ended at other steps.
struct FrameSteps {
  std::int64_t every = 1;
  std::int64_t last = 0;
  std::int64_t resumed = 0;

  bool contains(std::int64_t step) const {
    return step >= 0 && step <= last && (step % every == 0 || step == last || step <= resumed);
  }
  // The step after `step`, one before the last, where a frame is due.
  std::int64_t next(std::int64_t step) const {
    std::int64_t const base = step - step % every;
    return every > last - base ? last : base + every;
  }
};

// `name` as a file name: ASCII characters other than letters, digits, '-', '_' and '.'
// become '_', and so does a leading '.', so that it can name no other directory, no hidden
// file, nor be read as a pattern; other bytes (UTF-8) stay, so that names in other scripts
// stay distinct.
std::string file_stem(std::string_view name);

// A file a run writes, and how messages name it (Experiment's outputs' labels).
struct NamedOutput {
  std::string label;
  std::filesystem::path path;
};

// What a run writes and reads, to be told apart and checked before it starts.
struct RunFiles {
  std::optional<OutputFiles> images;  // when the run writes images
  std::string images_label;           // names their folder
  std::optional<FrameSteps> frames;   // of `images`
  bool video = false;                 // the frames become a video
  std::optional<NamedOutput> npy;
  std::optional<NamedOutput> h5;                 // and its sidecar, h5.xmf
  std::vector<std::filesystem::path> receivers;  // the receivers' files written
  std::string receivers_label;                   // names their folder
  std::optional<NamedOutput> checkpoint;
  std::vector<std::filesystem::path> inputs;    // the scene file and its masks
  std::optional<std::filesystem::path> resume;  // an input the checkpoint may replace
  std::filesystem::path output_folder;          // made for the outputs named in it (Experiment's)
};

// Throws OutputError unless every output can be written when the run has its results:
// no two outputs are one file (links, "..", hard links seen through), the NPY file is not
// the pictures' folder, no output overwrites an input (the checkpoint may be the one
// resumed) nor is named as the frames are, nor is an input or the checkpoint resumed, the
// pictures' folder holds no file of the frames' pattern that is not one of the run's frames
// where they become a video (ffmpeg would put it in), and each file, each of the run's frames
// already there included, passes probe_output(). The pictures' and the receivers' folders, and
// the output folder where an output is named in it, may be missing, to be made by the run, if
// probe_new_folder() finds they can be. Every other output's folder must exist.
void check_outputs(RunFiles const& files);

// Throws OutputError where `output` is one of `inputs`, as check_outputs() finds it.
void refuse_overwriting_inputs(NamedOutput const& output,
                               std::vector<std::filesystem::path> const& inputs);

// Makes the folder of `file` when it is missing, but not the folders above it, which
// check_outputs() found: the pictures' and the receivers' folders. OutputError naming the
// file when it cannot be made (gone above it, or a file of its name, during the run).
void create_parent_directory(std::filesystem::path const& file);
// The same for an output that may be in one of those `folders` (an NPY or HDF5 file, a
// checkpoint): its folder is made only where check_outputs() let it be, and never made again
// for a folder removed during the run, whose file then cannot be written.
void create_parent_directory(std::filesystem::path const& file,
                             std::vector<std::filesystem::path> const& folders);

// How make_video ended: the video written, or why not (a note for the caller to show).
struct VideoOutcome {
  bool written = false;
  bool failed = false;  // ffmpeg was there, and the video could not be made
  std::string note;
};

// Assembles the frames of `steps` into files.video() with ffmpeg (H.264, yuv420p, 30 fps),
// once every one of them is there (those of a run this one resumed included). The video
// is a convenience: a missing frame, a missing or failing ffmpeg costs only the video, and
// the outcome says why. `stop` is asked while ffmpeg runs: when it says so, ffmpeg is ended
// (SIGTERM, then SIGKILL after 5 s) and its temporary removed.
VideoOutcome make_video(OutputFiles const& files, FrameSteps const& steps,
                        std::function<bool()> const& stop);

}  // namespace wave2d::detail

#endif
