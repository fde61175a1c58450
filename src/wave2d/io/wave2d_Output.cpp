#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_Picture.hpp>

#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#include <climits>
#include <csignal>

#include <unistd.h>

#if defined(WAVE2D_HAVE_PNG)
#include <csetjmp>

#include <png.h>
#endif

namespace wave2d {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(fs::path const& path, std::string const& reason) {
  throw OutputError("cannot write '" + path.string() + "': " + reason);
}

std::string describe_errno() { return errno != 0 ? std::strerror(errno) : "input/output error"; }

// The temporary files being written, for the signal handler: fixed storage, written
// before a file is created and cleared after it is renamed or removed.
constexpr std::size_t temporary_slots = 8;
char temporary_names[temporary_slots][PATH_MAX];
std::atomic<bool> temporary_used[temporary_slots];

// Async-signal-safe: unlink, signal and raise only.
extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (std::size_t i = 0; i < temporary_slots; ++i) {
    if (temporary_used[i].load()) ::unlink(temporary_names[i]);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

std::size_t cells_of(std::int32_t nx, std::int32_t ny, char const* function) {
  if (nx <= 0 || ny <= 0) {
    throw std::invalid_argument(std::string(function) + ": the size must be positive, got " +
                                std::to_string(nx) + " x " + std::to_string(ny));
  }
  return std::size_t(nx) * std::size_t(ny);
}

void check_size(std::size_t size, std::size_t expected, char const* function, char const* what) {
  if (size != expected) {
    throw std::invalid_argument(std::string(function) + ": " + what + " has " +
                                std::to_string(size) + " values, expected " +
                                std::to_string(expected));
  }
}

#if defined(WAVE2D_HAVE_PNG)
using PngMessage = std::array<char, 256>;

// libpng reports errors by longjmp: keep the message and jump back to encode_png.
void on_png_error(png_structp png, png_const_charp message) {
  auto& kept = *static_cast<PngMessage*>(png_get_error_ptr(png));
  std::strncpy(kept.data(), message, kept.size() - 1);
  png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

// Stream failures are not reported here: write_stream_atomically checks the stream.
void write_to_stream(png_structp png, png_bytep data, png_size_t size) {
  static_cast<std::ostream*>(png_get_io_ptr(png))
      ->write(reinterpret_cast<char const*>(data), std::streamsize(size));
}

void flush_stream(png_structp png) { static_cast<std::ostream*>(png_get_io_ptr(png))->flush(); }

// Holds no object with a destructor, so that libpng's longjmp skips none. Returns
// false, with libpng's message in `error`, when libpng fails.
bool encode_png(std::ostream& out, std::uint8_t const* rgb, png_uint_32 width, png_uint_32 height,
                PngMessage& error) {
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &out, write_to_stream, flush_stream);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (png_uint_32 y = 0; y < height; ++y) {
    png_write_row(png, rgb + std::size_t(y) * width * 3);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}
#endif

}  // namespace

RegisteredTemporary::RegisteredTemporary(fs::path const& path) : slot_(temporary_slots) {
  std::string const name = fs::absolute(path).string();
  for (std::size_t i = 0; i < temporary_slots && name.size() < PATH_MAX; ++i) {
    if (temporary_used[i].load()) continue;
    std::memcpy(temporary_names[i], name.c_str(), name.size() + 1);
    temporary_used[i].store(true);
    slot_ = i;
    return;
  }
}

RegisteredTemporary::~RegisteredTemporary() {
  if (slot_ < temporary_slots) temporary_used[slot_].store(false);
}

OutputTarget output_target(fs::path const& path) {
  // As the kernel resolves a path: at most 40 links.
  fs::path target = path;
  std::error_code error;
  for (int links = 0; fs::is_symlink(fs::symlink_status(target, error)); ++links) {
    if (links == 40) fail(path, "too many levels of symbolic links");
    fs::path const next = fs::read_symlink(target, error);
    if (error) fail(path, error.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  auto const status = fs::status(target, error);
  switch (status.type()) {
    case fs::file_type::not_found:
    case fs::file_type::regular: return {target, false};
    case fs::file_type::character: return {target, true};
    case fs::file_type::directory: fail(path, "it is a directory");
    // Opening a FIFO waits for a reader, maybe forever, and the run would be lost.
    case fs::file_type::fifo: fail(path, "it is a FIFO, which wave2d does not write to");
    case fs::file_type::block: fail(path, "it is a block device, which wave2d never writes");
    default: fail(path, "it is not a regular file, a character device nor a FIFO");
  }
}

fs::path temporary_path(fs::path const& target) {
  return target.parent_path() /
         ("." + target.filename().string() + "." + std::to_string(::getpid()) + ".tmp");
}

void remove_temporary_files_on_signals() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    // A signal the parent set to be ignored (SIGINT of a shell's background job) stays so.
    if (std::signal(signal_number, remove_temporaries_and_reraise) == SIG_IGN) {
      std::signal(signal_number, SIG_IGN);
    }
  }
}

void write_file_atomically(fs::path const& path,
                           std::function<void(fs::path const& temporary)> const& write) {
  OutputTarget const target = output_target(path);
  if (target.write_through) {
    write(target.path);
    return;
  }
  auto const temporary = temporary_path(target.path);
  RegisteredTemporary const registered(temporary);
  try {
    write(temporary);
    std::error_code error;
    fs::rename(temporary, target.path, error);
    if (error) fail(path, error.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

void write_stream_atomically(fs::path const& path,
                             std::function<void(std::ostream& out)> const& write) {
  write_file_atomically(path, [&](fs::path const& temporary) {
    errno = 0;
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) fail(path, describe_errno());
    write(out);
    out.close();
    if (!out) fail(path, describe_errno());
  });
}

std::string npy_header(std::span<std::int64_t const> shape) {
  // NPY format 1.0: magic, version, a 16-bit header length, then a Python dict padded with
  // spaces and ended by '\n' so that the data starts at a multiple of 64 bytes; the shape
  // as Python writes a tuple: "2, 201, 201" (one element: "5,").
  std::string dims;
  for (std::int64_t extent : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(extent);
  if (shape.size() == 1) dims += ",";
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  std::size_t const preamble = 10;
  dict.append((64 - (preamble + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string header("\x93NUMPY\x01\x00", 8);
  header += char(dict.size() & 0xff);
  header += char(dict.size() >> 8);
  return header + dict;
}

void write_npy(fs::path const& path, std::span<float const> previous,
               std::span<float const> current, std::int32_t nx, std::int32_t ny) {
  // '<f4' is the machine's own float layout only on little-endian machines.
  static_assert(std::endian::native == std::endian::little);
  auto const cells = cells_of(nx, ny, "wave2d::write_npy");
  check_size(previous.size(), cells, "wave2d::write_npy", "previous");
  check_size(current.size(), cells, "wave2d::write_npy", "current");
  write_stream_atomically(path, [&](std::ostream& out) {
    std::int64_t const shape[] = {2, ny, nx};
    out << npy_header(shape);
    for (auto const field : {previous, current}) {
      out.write(reinterpret_cast<char const*>(field.data()), std::streamsize(field.size_bytes()));
    }
  });
}

void write_npy(fs::path const& path, std::span<float const> values, std::int64_t rows,
               std::int64_t columns) {
  static_assert(std::endian::native == std::endian::little);
  if (rows < 0 || columns < 0 || std::uint64_t(rows) * std::uint64_t(columns) != values.size()) {
    throw std::invalid_argument("wave2d::write_npy: " + std::to_string(values.size()) +
                                " values are not " + std::to_string(rows) + " x " +
                                std::to_string(columns));
  }
  write_stream_atomically(path, [&](std::ostream& out) {
    std::int64_t const shape[] = {rows, columns};
    out << npy_header(shape);
    out.write(reinterpret_cast<char const*>(values.data()), std::streamsize(values.size_bytes()));
  });
}

std::vector<std::uint8_t> render_field(std::span<float const> u,
                                       std::span<std::uint8_t const> walls, std::int32_t nx,
                                       std::int32_t ny) {
  auto const cells = cells_of(nx, ny, "wave2d::render_field");
  check_size(u.size(), cells, "wave2d::render_field", "the field");
  if (!walls.empty()) check_size(walls.size(), cells, "wave2d::render_field", "the wall mask");
  std::vector<std::uint8_t> rgb(3 * cells);
  for (std::size_t i = 0; i < cells; ++i) {
    std::uint8_t* pixel = &rgb[3 * i];
    if (!walls.empty() && walls[i] != 0) continue;  // black
    float const value = u[i];
    detail::colour_of(value, pixel);
  }
  return rgb;
}

void write_png(fs::path const& path, std::span<std::uint8_t const> rgb, std::int32_t width,
               std::int32_t height) {
  auto const pixels = cells_of(width, height, "wave2d::write_png");
  check_size(rgb.size(), 3 * pixels, "wave2d::write_png", "the RGB image");
#if defined(WAVE2D_HAVE_PNG)
  write_stream_atomically(path, [&](std::ostream& out) {
    PngMessage error{};
    if (!encode_png(out, rgb.data(), png_uint_32(width), png_uint_32(height), error)) {
      fail(path, "libpng: " + std::string(error.data()));
    }
  });
#else
  fail(path, "wave2d was built without libpng (install libpng-dev and rebuild)");
#endif
}

}  // namespace wave2d
