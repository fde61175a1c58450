// The files a run writes: their names, the checks made before the run, and the video.
#ifndef WAVE2D_CLI_OUTPUT_FILES_HPP
#define WAVE2D_CLI_OUTPUT_FILES_HPP

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

namespace wave2d::cli {

struct OutputFiles {
  std::filesystem::path directory;
  std::string stem;  // the scene's name, safe as a file name

  std::filesystem::path image() const;                      // DIR/<stem>.png
  std::filesystem::path frame(std::int64_t index) const;    // DIR/<stem>_00000.png
  std::filesystem::path video() const;                      // DIR/<stem>.mp4
};

// `name` as a file name: characters other than letters, digits, '-', '_' and '.'
// become '_', so that it can name no other directory nor be read as a pattern.
std::string file_stem(std::string_view name);

// Throws InputError unless `file` can be written: not a directory, in a directory
// that is writable or can be created (create_parent_directories does that later).
void check_can_write(std::filesystem::path const& file);

void create_parent_directories(std::filesystem::path const& file);

// Assembles frames 0 .. frame_count - 1 into files.video() with ffmpeg (H.264, yuv420p,
// 30 fps). The video is a convenience: a missing or failing ffmpeg costs only the video,
// with a line on `notes` saying so.
void make_video(OutputFiles const& files, std::int64_t frame_count, std::ostream& report,
                std::ostream& notes);

}  // namespace wave2d::cli

#endif
