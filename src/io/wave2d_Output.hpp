// Writing results: NumPy arrays and images, each written to a temporary name and
// renamed into place, so that a failed run leaves no half-written file.
#ifndef WAVE2D_OUTPUT_HPP
#define WAVE2D_OUTPUT_HPP

#include <wave2d_Config.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <vector>

namespace wave2d {

// Thrown when an output file cannot be written: the message names the file.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Has `write` produce a file at a temporary path in the directory of `path`, then
// renames it to `path`. If `write` throws or the rename fails, the temporary is removed
// and the error propagates: `path` is either complete or as it was.
void write_file_atomically(
    std::filesystem::path const& path,
    std::function<void(std::filesystem::path const& temporary)> const& write);

// The same for a writer that fills a binary stream; a failed stream is an OutputError.
void write_stream_atomically(std::filesystem::path const& path,
                             std::function<void(std::ostream& out)> const& write);

// The pair [u(t_{n-1}), u(t_n)], each ny x nx row-major, as one NumPy .npy file of
// float32 and shape (2, ny, nx).
void write_npy(std::filesystem::path const& path, std::span<float const> previous,
               std::span<float const> current, std::int32_t nx, std::int32_t ny);

// RGB8 pixels of a field, row y = 0 first: walls black, positive values red, negative
// blue, white at 0, saturated from |u| = 1 on. `walls` is nx * ny or empty (none).
std::vector<std::uint8_t> render_field(std::span<float const> u,
                                       std::span<std::uint8_t const> walls, std::int32_t nx,
                                       std::int32_t ny);

// Whether this build writes PNG images: it needs libpng.
inline constexpr bool can_write_png =
#if defined(WAVE2D_HAVE_PNG)
    true;
#else
    false;
#endif

// An 8-bit RGB PNG of width x height pixels. Throws OutputError when built without libpng.
void write_png(std::filesystem::path const& path, std::span<std::uint8_t const> rgb,
               std::int32_t width, std::int32_t height);

}  // namespace wave2d

#endif
