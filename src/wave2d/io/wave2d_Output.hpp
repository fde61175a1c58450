// Writing results: NumPy arrays and images, each written to a temporary name and
// renamed into place, so that a failed run leaves no half-written file.
#ifndef WAVE2D_OUTPUT_HPP
#define WAVE2D_OUTPUT_HPP

#include <wave2d/wave2d_Config.hpp>

#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/core/wave2d_Processes.hpp>
#include <wave2d/core/wave2d_Window.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <signal.h>
#include <sys/types.h>

namespace wave2d {

// Where writing a path puts its bytes: symbolic links are followed to their final
// target (which need not exist yet); a character device (/dev/null, a terminal) is
// written through, never replaced.
struct OutputTarget {
  std::filesystem::path path;
  bool write_through = false;
};

// Throws OutputError for a path no output may take: a loop of links, a directory, a
// block device, a FIFO, a socket.
OutputTarget output_target(std::filesystem::path const& path);

// The hidden name, unique to this process, under which a file is written beside
// `target` before it is renamed into place.
std::filesystem::path temporary_path(std::filesystem::path const& target);

// Throws OutputError unless write_file_atomically(path, ...) can put a file there now, so
// that a program finds out before its work rather than after: the path is not empty, its
// target (links followed) is written through or lies in a folder that exists, every name
// of it and of its temporary fits the file system's NAME_MAX and PATH_MAX, neither the
// folder nor the target is immutable or append-only, a target that exists may be replaced
// (a sticky folder lets only its owner, the target's or a CAP_FOWNER process do that), and
// a temporary can be created there and renamed, then is removed.
void probe_output(std::filesystem::path const& path);

// Throws OutputError unless `folder`, which does not exist yet, can be made and files
// written in it atomically: the folder above exists, is neither immutable nor append-only,
// the name fits NAME_MAX, and a folder of this process's own made beside it takes a
// temporary that is renamed; then all is removed, so that runs probing at once never meet.
void probe_new_folder(std::filesystem::path const& folder);

// Throws OutputError unless every name of `path` and of its temporary fits the NAME_MAX of
// the file system `folder` is on, and the whole PATH_MAX: for a file of a folder that
// probe_new_folder() found can be made.
void check_output_name_lengths(std::filesystem::path const& path,
                               std::filesystem::path const& folder);

// Has `write` produce a file at temporary_path() of the target of `path`, then renames
// it to that target. If `write` throws or the rename fails, the temporary is removed
// and the error propagates: the target is either complete or as it was. A target
// written through is given to `write` as it is.
void write_file_atomically(
    std::filesystem::path const& path,
    std::function<void(std::filesystem::path const& temporary)> const& write);

// For programs: a signal that ends a process by default (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGUSR1, SIGALRM, ...) first removes the temporary files being written, then ends the
// process as it would have; one the process ignores stays ignored. A library never installs
// signal handlers of its own accord.
void remove_temporary_files_on_signals();

// Puts a temporary file written over a long time (an HDF5 output during a run) on the
// list that remove_temporary_files_on_signals() removes, while it lives.
class RegisteredTemporary {
 public:
  explicit RegisteredTemporary(std::filesystem::path const& path);
  ~RegisteredTemporary();
  RegisteredTemporary(RegisteredTemporary const&) = delete;
  RegisteredTemporary& operator=(RegisteredTemporary const&) = delete;

 private:
  std::size_t slot_;
};

// Puts a program the process starts (ffmpeg) where those signals end it first (SIGTERM), from
// before it starts: the thread that starts it holds every signal back until started() names
// it, and a signal that another thread takes meanwhile waits for the name. Until release(),
// said once the program has ended, before it is waited for (its pid is then free for another
// process). One program at a time; start it with every signal unblocked (its thread's are not).
class RegisteredChild {
 public:
  RegisteredChild();
  ~RegisteredChild();
  RegisteredChild(RegisteredChild const&) = delete;
  RegisteredChild& operator=(RegisteredChild const&) = delete;
  void started(pid_t pid);
  void release();

 private:
  sigset_t held_;  // the thread's signal mask before
  bool holding_ = true;
};

// The same for a writer that fills a binary stream, the file synced before it is renamed; a
// failed stream is an OutputError.
void write_stream_atomically(std::filesystem::path const& path,
                             std::function<void(std::ostream& out)> const& write);

// A file of a set written together, and what fills it.
struct StreamFile {
  std::filesystem::path path;
  std::function<void(std::ostream& out)> write;
};

// Files that belong together (a trace's .npy, .csv and plot), written as one set: each to
// its temporary, synced; only when every one is complete do they take their names, the
// earlier files set aside meanwhile. A failure at any point (a full disk, a failing rename)
// leaves the earlier set; an earlier file that cannot take its name back stays aside, and
// the OutputError names where.
void write_streams_atomically(std::span<StreamFile const> files);

namespace detail {
// An earlier file moved out of the way while its successor takes its name: from `path` (its
// target) to `aside`, a hidden name beside it.
struct SetAside {
  std::filesystem::path path;
  std::filesystem::path aside;
};

// Moves the target of `path` aside; nothing for one that does not exist or is written
// through. An OutputError naming `path` when it cannot be moved.
std::optional<SetAside> set_aside(std::filesystem::path const& path);
}  // namespace detail

// write_file_atomically in two halves, for a file renamed together with another: `text`
// under a temporary name beside `path`'s target, synced (its name returned), then renamed
// there. Each removes the temporary when it fails, with an OutputError naming `path`.
std::filesystem::path write_temporary(std::filesystem::path const& path, std::string_view text);
void rename_temporary(std::filesystem::path const& temporary, std::filesystem::path const& path);

// The header of a little-endian float32 NumPy .npy file of this shape (C order); the data
// follows it, at a multiple of 64 bytes.
std::string npy_header(std::span<std::int64_t const> shape);

// The pair [u(t_{n-1}), u(t_n)], each ny x nx row-major, as one NumPy .npy file of
// float32 and shape (2, ny, nx).
void write_npy(std::filesystem::path const& path, std::span<float const> previous,
               std::span<float const> current, std::int32_t nx, std::int32_t ny);

// Collective over `processes`: the same file, each process giving the owned cells of
// `block` (its window of the grid; previous then current, row-major) and writing them at
// their offsets, so that no process holds more than its block. Rank 0 creates the file under
// a temporary name; it is synced, then renamed. OutputError on every process when any fails,
// and nothing is left.
void write_npy(std::filesystem::path const& path, Window const& block,
               std::span<float const> previous, std::span<float const> current,
               Processes const& processes);

// A rows x columns row-major array as the bytes of a NumPy .npy file of float32 (a
// receivers' trace: rows of time, a column per receiver).
void write_npy(std::ostream& out, std::span<float const> values, std::int64_t rows,
               std::int64_t columns);

// RGB8 pixels of a field, row y = 0 first: walls black, positive values red, negative
// blue, white at 0, saturated from |u| = scale on (the textbook's: 1). `walls` is nx * ny
// or empty (none).
std::vector<std::uint8_t> render_field(std::span<float const> u,
                                       std::span<std::uint8_t const> walls, std::int32_t nx,
                                       std::int32_t ny, float scale = 1.0f);

namespace detail {
// The colour of u at this scale: red for positive, blue for negative, white at 0, saturated
// from |u| = scale on (a NaN too), as render_field paints each cell.
void paint(float value, float scale, std::uint8_t* rgb);
}  // namespace detail

// The largest |u| of a field's finite values outside the walls (0 for none): the scale at
// which a picture of it uses the whole colour map.
float largest_amplitude(std::span<float const> u, std::span<std::uint8_t const> walls);

struct RgbImage {
  std::vector<std::uint8_t> rgb;  // width x height RGB8 pixels, row 0 (the top) first
  std::int32_t width = 0;
  std::int32_t height = 0;
};

// The room beside a colour bar: as wide as its labels, or as the widest label of any scale,
// so that pictures each scaled to its own field (a video's frames) have one size.
enum class LabelRoom { fitted, any_scale };

// render_field()'s picture with a colour bar on its right, from +scale (red, at the top)
// through 0 (white) to -scale (blue), and its three values written beside it in a 3 x 5
// pixel font of digits, '.', '-', '+' and 'e', enlarged with the picture.
RgbImage render_field_with_colour_bar(std::span<float const> u, std::span<std::uint8_t const> walls,
                                      std::int32_t nx, std::int32_t ny, float scale,
                                      LabelRoom room = LabelRoom::fitted);

// The same colour bar beside a picture already drawn at `scale` (nx x ny RGB8 pixels).
RgbImage with_colour_bar(std::span<std::uint8_t const> picture, std::int32_t nx, std::int32_t ny,
                         float scale, LabelRoom room = LabelRoom::fitted);

// How render_field_with_colour_bar() writes a scale: "%.3g" ("1", "0.25", "1.5e-05").
std::string colour_bar_label(float value);

// Whether this build writes PNG images: it needs libpng.
inline constexpr bool can_write_png =
#if defined(WAVE2D_HAVE_PNG)
    true;
#else
    false;
#endif

// A PNG text chunk: a keyword of 1 to 79 Latin-1 characters, and its text (UTF-8).
struct PngText {
  std::string keyword;
  std::string text;
};

// An 8-bit RGB PNG of width x height pixels, with `text` as tEXt chunks where it is printable
// ASCII and line feeds, else as iTXt (UTF-8; control characters other than line feeds, and
// bytes that are no UTF-8, written as U+FFFD: neither chunk has a meaning for them). Throws
// OutputError when built without libpng.
void write_png(std::filesystem::path const& path, std::span<std::uint8_t const> rgb,
               std::int32_t width, std::int32_t height, std::vector<PngText> const& text = {});

}  // namespace wave2d

#endif
