// The files a run writes: their names, the checks made before the run, and the video.
#ifndef WAVE2D_CLI_OUTPUT_FILES_HPP
#define WAVE2D_CLI_OUTPUT_FILES_HPP

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d::cli {

struct OutputFiles {
  std::filesystem::path directory;
  std::string stem;  // the scene's name, safe as a file name

  std::filesystem::path image() const;                    // DIR/<stem>.png
  std::filesystem::path frame(std::int64_t index) const;  // DIR/<stem>_00000.png
  std::filesystem::path video() const;                    // DIR/<stem>.mp4
  // The receivers' trace: DIR/<stem>.receivers.npy, .csv and .png (its plot).
  std::filesystem::path receivers(std::string_view extension) const;
};

// `name` as a file name: ASCII characters other than letters, digits, '-', '_' and '.'
// become '_', so that it can name no other directory nor be read as a pattern; other
// bytes (UTF-8) stay, so that names in other scripts stay distinct.
std::string file_stem(std::string_view name);

// What a run writes and reads, to be told apart and checked before it starts.
struct RunFiles {
  std::optional<OutputFiles> images;  // when the run writes images
  std::int64_t frame_count = 0;       // frames 0 .. frame_count - 1 of `images`
  std::optional<std::filesystem::path> npy;
  std::vector<std::filesystem::path> receivers;  // the receivers' files written
  std::optional<std::filesystem::path> checkpoint;
  std::vector<std::filesystem::path> inputs;    // the scene file and its masks
  std::optional<std::filesystem::path> resume;  // an input the checkpoint may replace
};

// Throws InputError unless every output can be written when the run has its results:
// no two outputs are one file (links, "..", hard links seen through), --save-npy is not
// the output folder, no output overwrites an input (the checkpoint may be the one
// resumed), and each file passes probe_output(). The output folder may be missing, to be
// made by the run, if the folder above it exists: it is made for the probes and removed.
// Every other output's folder must exist.
void check_outputs(RunFiles const& files);

// Makes the folder of `file` when it is missing, but not the folders above it, which
// check_outputs() found.
void create_parent_directory(std::filesystem::path const& file);

// Assembles frames 0 .. frame_count - 1 into files.video() with ffmpeg (H.264, yuv420p,
// 30 fps). The video is a convenience: a missing or failing ffmpeg costs only the video,
// with a line on `notes` saying so.
void make_video(OutputFiles const& files, std::int64_t frame_count, std::ostream& report,
                std::ostream& notes);

}  // namespace wave2d::cli

#endif
