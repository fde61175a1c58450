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

// Throws InputError unless `file` can be written: its target (links followed) is a
// character device written through, or a file whose directory is writable or
// can be created (create_parent_directories does that later), and whose every name,
// its temporary's included, is within the file system's NAME_MAX and PATH_MAX.
void check_can_write(std::filesystem::path const& file);

// What a run writes and reads, to be told apart before it starts.
struct RunFiles {
  std::optional<OutputFiles> images;  // when the run writes images
  std::int64_t frame_count = 0;       // frames 0 .. frame_count - 1 of `images`
  std::optional<std::filesystem::path> npy;
  std::optional<std::filesystem::path> h5;  // and its sidecar, h5.xmf
  std::vector<std::filesystem::path> receivers;  // the receivers' files written
  std::optional<std::filesystem::path> checkpoint;
  std::vector<std::filesystem::path> inputs;    // the scene file and its masks
  std::optional<std::filesystem::path> resume;  // an input the checkpoint may replace
};

// Throws InputError when two outputs are one file (links, "..", hard links seen through),
// when --save-npy names the output directory or one above it, or when an output would
// overwrite an input (the checkpoint may be the one resumed).
void check_distinct(RunFiles const& files);

void create_parent_directories(std::filesystem::path const& file);

// Assembles frames 0 .. frame_count - 1 into files.video() with ffmpeg (H.264, yuv420p,
// 30 fps). The video is a convenience: a missing or failing ffmpeg costs only the video,
// with a line on `notes` saying so.
void make_video(OutputFiles const& files, std::int64_t frame_count, std::ostream& report,
                std::ostream& notes);

}  // namespace wave2d::cli

#endif
