#include <wave2d/io/wave2d_MaskImage.hpp>

#include <wave2d/io/detail/wave2d_InputFile.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/wave2d_Config.hpp>

#if defined(WAVE2D_HAVE_PNG)
#include <png.h>
#endif

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace wave2d {

namespace {

[[noreturn]] void fail(std::filesystem::path const& path, std::string const& problem) {
  throw SceneError(path.string() + ": " + problem);
}

// Read before the file's size is judged: any PGM header a program writes, a PNG's IHDR.
constexpr std::size_t header_bytes = 64u << 10;
// No image of a header's size is longer than this and 64 bytes a pixel: room enough for
// a plain PGM's whitespace and comments and for a PNG's worst compression and metadata.
constexpr std::uint64_t metadata_bytes = 64u << 20;
constexpr std::uint64_t max_bytes_per_pixel = 64;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string pixel_name(std::uint64_t i, std::int32_t width) {
  return "pixel (" + std::to_string(i % width) + ", " + std::to_string(i / width) + ")";
}

// The text parts of a PGM: the header of both kinds and the pixels of a plain one are
// decimal numbers between whitespace, where '#' comments out the rest of a line.
class PgmText {
 public:
  // `complete`: `bytes` are the whole file, not its first header_bytes.
  PgmText(std::filesystem::path const& path, std::string_view bytes, std::size_t position,
          bool complete = true)
      : path_(path), bytes_(bytes), position_(position), complete_(complete) {}

  std::uint64_t number(std::string const& what) {
    skip_blanks();
    if (position_ == bytes_.size()) fail(path_, "truncated: the file ends before the " + what);
    char const* first = bytes_.data() + position_;
    char const* const end = bytes_.data() + bytes_.size();
    std::uint64_t value = 0;
    auto const [last, error] = std::from_chars(first, end, value);
    if (last == first) {
      fail(path_, "expected the " + what + ", found '" + std::string(1, *first) + "'");
    }
    if (last == end && !complete_) header_too_long();
    position_ = std::size_t(last - bytes_.data());
    if (error == std::errc::result_out_of_range) {
      fail(path_, "the " + what + " " + std::string(first, last) + " is too large");
    }
    return value;
  }

  // A binary PGM's pixels start after the single whitespace byte that ends the header.
  std::size_t binary_data_start() const {
    if (position_ == bytes_.size() && !complete_) header_too_long();
    if (position_ == bytes_.size()) fail(path_, "truncated: the file ends after the header");
    if (!is_space(bytes_[position_])) fail(path_, "no whitespace after the maximum gray value");
    return position_ + 1;
  }

  bool at_end() {
    skip_blanks();
    return position_ == bytes_.size();
  }

  std::size_t remaining() const { return bytes_.size() - position_; }

 private:
  [[noreturn]] void header_too_long() const {
    fail(path_,
         "the header is longer than the " + std::to_string(header_bytes) + " bytes read for it");
  }

  void skip_blanks() {
    while (position_ < bytes_.size()) {
      char const c = bytes_[position_];
      if (c == '#') {
        position_ = bytes_.find('\n', position_);
        if (position_ == std::string_view::npos) position_ = bytes_.size();
      } else if (is_space(c)) {
        ++position_;
      } else {
        return;
      }
    }
    if (!complete_) header_too_long();  // a comment or a number may go on past the end
  }

  std::filesystem::path const& path_;
  std::string_view bytes_;
  std::size_t position_;
  bool complete_;
};

std::int32_t image_extent(std::filesystem::path const& path, std::uint64_t value,
                          char const* name) {
  if (value == 0) fail(path, std::string("the image ") + name + " is 0");
  if (value > std::uint64_t(std::numeric_limits<std::int32_t>::max())) {
    fail(path, std::string("the image ") + name + " " + std::to_string(value) + " is too large");
  }
  return std::int32_t(value);
}

// Before pixels are decoded: one byte per pixel for the mask, and `decoding` more.
void check_pixel_memory(std::filesystem::path const& path, MaskImage const& mask, double decoding) {
  detail::check_host_memory(
      path, "the " + std::to_string(mask.width) + " x " + std::to_string(mask.height) + " image",
      double(mask.width) * double(mask.height) * (1.0 + decoding));
}

struct PgmHeader {
  MaskImage size;  // without pixels
  std::uint64_t maxval = 0;
  bool binary = false;
  std::size_t end = 0;  // where the maximum gray value ends
};

// `bytes` may be the first header_bytes of the file only (`complete` false).
PgmHeader read_pgm_header(std::filesystem::path const& path, std::string_view bytes,
                          bool complete) {
  PgmText text(path, bytes, 2, complete);
  PgmHeader header;
  header.binary = bytes[1] == '5';
  header.size.width = image_extent(path, text.number("width"), "width");
  header.size.height = image_extent(path, text.number("height"), "height");
  header.maxval = text.number("maximum gray value");
  if (header.maxval == 0 || header.maxval > 65535) {
    fail(path, "the maximum gray value must lie in 1..65535, got " + std::to_string(header.maxval));
  }
  header.end = bytes.size() - text.remaining();
  return header;
}

std::uint64_t pixel_count(MaskImage const& size) {
  return std::uint64_t(size.width) * std::uint64_t(size.height);
}

// A binary PGM's size is exact: its pixels follow the header's single whitespace byte.
void check_binary_pgm_size(std::filesystem::path const& path, std::string_view bytes, bool complete,
                           PgmHeader const& header, std::uint64_t file_size) {
  std::size_t const start = PgmText(path, bytes, header.end, complete).binary_data_start();
  std::uint64_t const expected = pixel_count(header.size) * (header.maxval < 256 ? 1 : 2);
  std::uint64_t const found = file_size - start;
  if (found != expected) {
    fail(path, (found < expected ? "truncated pixel data: " : "extra bytes after the pixels: ") +
                   std::to_string(header.size.width) + " x " + std::to_string(header.size.height) +
                   " pixels need " + std::to_string(expected) + " bytes, the file has " +
                   std::to_string(found));
  }
}

// The pixels of the whole file `bytes`, whose header is `header`.
MaskImage read_pgm_pixels(std::filesystem::path const& path, std::string_view bytes,
                          PgmHeader const& header) {
  MaskImage mask = header.size;
  std::uint64_t const maxval = header.maxval;
  auto const count = pixel_count(mask);
  auto const check = [&](std::uint64_t i, std::uint64_t value) {
    if (value > maxval) {
      fail(path, pixel_name(i, mask.width) + " is " + std::to_string(value) +
                     ", above the maximum gray value " + std::to_string(maxval));
    }
    return std::uint8_t(2 * value < maxval);
  };
  PgmText text(path, bytes, header.end);

  if (header.binary) {
    auto const* data =
        reinterpret_cast<unsigned char const*>(bytes.data() + text.binary_data_start());
    bool const two_bytes = maxval >= 256;
    check_pixel_memory(path, mask, 0.0);
    mask.dark.resize(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      // Two-byte samples are big-endian.
      std::uint64_t const value =
          two_bytes ? (std::uint64_t(data[2 * i]) << 8) | data[2 * i + 1] : data[i];
      mask.dark[i] = check(i, value);
    }
    return mask;
  }

  // Each value takes at least one byte: a size the file cannot hold is refused before
  // it is allocated.
  if (text.remaining() < count) {
    fail(path, "truncated: " + std::to_string(mask.width) + " x " + std::to_string(mask.height) +
                   " pixel values cannot fit in the " + std::to_string(text.remaining()) +
                   " bytes left");
  }
  check_pixel_memory(path, mask, 0.0);
  mask.dark.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    mask.dark[i] = check(i, text.number("value of " + pixel_name(i, mask.width)));
  }
  if (!text.at_end()) {
    fail(path, "more pixel values than the " + std::to_string(mask.width) + " x " +
                   std::to_string(mask.height) + " of the header");
  }
  return mask;
}

constexpr std::string_view png_signature = "\x89PNG\r\n\x1a\n";
constexpr bool has_png =
#if defined(WAVE2D_HAVE_PNG)
    true;
#else
    false;
#endif

#if defined(WAVE2D_HAVE_PNG)
// libpng's reading, in its own calls: libpng reports an error by longjmp out of them, so
// no C++ object with a destructor lives in their frames; the message is kept for the
// caller to throw.
struct PngDecoder {
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::string_view bytes;
  std::size_t position = 0;
  char message[256] = "";
  bool failed_in_chunk = false;  // a warning about a critical chunk: the pixels are damaged

  PngDecoder(std::string_view file) : bytes(file) {
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, this, on_error, on_warning);
    if (png != nullptr) info = png_create_info_struct(png);
    if (png != nullptr) png_set_read_fn(png, this, read);
  }
  ~PngDecoder() { png_destroy_read_struct(&png, &info, nullptr); }
  PngDecoder(PngDecoder const&) = delete;
  PngDecoder& operator=(PngDecoder const&) = delete;

  static PngDecoder& of(png_structp png) {
    return *static_cast<PngDecoder*>(png_get_error_ptr(png));
  }
  static void keep(PngDecoder& decoder, char const* text) {
    std::snprintf(decoder.message, sizeof decoder.message, "%s", text);
  }
  [[noreturn]] static void on_error(png_structp png, png_const_charp text) {
    keep(of(png), text);
    png_longjmp(png, 1);
  }
  // One about an ancillary chunk (iCCP, tEXt: lower-case first letter) leaves the pixels
  // whole; one about a critical chunk (IDAT: more data than the pixels) does not.
  static void on_warning(png_structp png, png_const_charp text) {
    PngDecoder& decoder = of(png);
    std::size_t const length = std::strlen(text);
    if (!decoder.failed_in_chunk && length > 5 && text[4] == ':' &&
        std::isupper(static_cast<unsigned char>(text[0]))) {
      decoder.failed_in_chunk = true;
      keep(decoder, text);
    }
  }
  static void read(png_structp png, png_bytep data, std::size_t length) {
    auto& decoder = *static_cast<PngDecoder*>(png_get_io_ptr(png));
    if (decoder.bytes.size() - decoder.position < length) png_error(png, "the file is truncated");
    std::memcpy(data, decoder.bytes.data() + decoder.position, length);
    decoder.position += length;
  }

  // The header, and the transformations: palette images stay indices (1 byte each), the
  // others gray, gray-alpha, RGB or RGBA of 8 or 16 bits, a transparent color as alpha.
  // No gamma is applied: the file's values are compared.
  bool read_header() {
    if (png == nullptr || info == nullptr) {
      keep(*this, "out of memory");
      return false;
    }
    if (setjmp(png_jmpbuf(png))) return false;
    png_read_info(png, info);
    if (png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE) {
      png_set_packing(png);
#if defined(PNG_CHECK_FOR_INVALID_INDEX_SUPPORTED)
      // Checked below, naming the pixel: libpng's own check (since 1.6.40 for an index equal
      // to the palette's size too) warns of it as damage to the last chunk read.
      png_set_check_for_invalid_index(png, 0);
#endif
    } else {
      png_set_expand(png);
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    return true;
  }
  bool read_image(png_bytepp rows) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_read_image(png, rows);
    png_read_end(png, nullptr);
    return true;
  }
};

MaskImage read_png(std::filesystem::path const& path, std::string_view bytes) {
  PngDecoder decoder(bytes);
  auto const failed = [&] { fail(path, std::string("cannot decode the PNG: ") + decoder.message); };
  if (!decoder.read_header()) failed();
  png_structp const png = decoder.png;
  png_infop const info = decoder.info;
  MaskImage mask;
  // PNG itself limits both sizes to 2^31 - 1.
  mask.width = std::int32_t(png_get_image_width(png, info));
  mask.height = std::int32_t(png_get_image_height(png, info));
  std::size_t const row_bytes = png_get_rowbytes(png, info);
  check_pixel_memory(path, mask, double(row_bytes) / double(mask.width));
  std::vector<png_byte> pixels(row_bytes * std::size_t(mask.height));
  std::vector<png_bytep> rows(std::size_t(mask.height));
  for (std::size_t y = 0; y < rows.size(); ++y) rows[y] = pixels.data() + y * row_bytes;
  if (!decoder.read_image(rows.data()) || decoder.failed_in_chunk) failed();

  // Gray from color by the Rec. 709 weights, on the file's values.
  auto const dark = [](std::uint64_t r, std::uint64_t g, std::uint64_t b, bool opaque,
                       std::uint64_t max) {
    return opaque && 2 * (2126 * r + 7152 * g + 722 * b) < 10000 * max;
  };
  std::size_t const count = std::size_t(mask.width) * std::size_t(mask.height);
  mask.dark.resize(count);
  if (png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE) {
    png_colorp palette = nullptr;
    int colors = 0;
    png_get_PLTE(png, info, &palette, &colors);
    png_bytep alpha = nullptr;
    int alphas = 0;
    png_get_tRNS(png, info, &alpha, &alphas, nullptr);
    for (std::size_t i = 0; i < count; ++i) {
      int const index = pixels[i];
      if (index >= colors) {
        fail(path, pixel_name(i, mask.width) + " has palette index " + std::to_string(index) +
                       ", beyond the palette's " + std::to_string(colors) + " colors");
      }
      png_color const color = palette[index];
      mask.dark[i] =
          dark(color.red, color.green, color.blue, index >= alphas || alpha[index] != 0, 255);
    }
    return mask;
  }
  int const channels = png_get_channels(png, info);
  bool const two_bytes = png_get_bit_depth(png, info) == 16;
  std::uint64_t const max = two_bytes ? 65535 : 255;
  bool const color = channels >= 3, has_alpha = channels % 2 == 0;
  for (std::size_t i = 0; i < count; ++i) {
    // Two-byte samples are big-endian.
    auto const sample = [&](int channel) -> std::uint64_t {
      png_bytep const at = pixels.data() + (i * channels + channel) * (two_bytes ? 2 : 1);
      return two_bytes ? std::uint64_t(at[0]) << 8 | at[1] : at[0];
    };
    std::uint64_t const r = sample(0);
    std::uint64_t const g = color ? sample(1) : r, b = color ? sample(2) : r;
    mask.dark[i] = dark(r, g, b, !has_alpha || sample(channels - 1) != 0, max);
  }
  return mask;
}
#endif

[[noreturn]] void png_unavailable(std::filesystem::path const& path) {
  fail(path,
       "PNG masks need libpng, and this build of wave2d has none "
       "(install libpng-dev and rebuild, or convert the mask to PGM)");
}

// A PNG's size from its IHDR, the first chunk: length 13, "IHDR", then the width and the
// height, big-endian, each in 1 .. 2^31 - 1.
MaskImage png_size(std::filesystem::path const& path, std::string_view bytes) {
  auto const big_endian_32 = [&](std::size_t at) {
    std::uint32_t value = 0;
    for (std::size_t i = at; i < at + 4; ++i) value = value << 8 | std::uint8_t(bytes[i]);
    return value;
  };
  if (bytes.size() < 24 || big_endian_32(8) != 13 || bytes.substr(12, 4) != "IHDR") {
    fail(path, "cannot decode the PNG: it does not begin with its IHDR chunk");
  }
  std::uint32_t const width = big_endian_32(16);
  std::uint32_t const height = big_endian_32(20);
  auto const largest = std::uint32_t(std::numeric_limits<std::int32_t>::max());
  if (width == 0 || height == 0 || width > largest || height > largest) {
    fail(path, "cannot decode the PNG: its IHDR gives the size " + std::to_string(width) + " x " +
                   std::to_string(height));
  }
  MaskImage size;
  size.width = std::int32_t(width);
  size.height = std::int32_t(height);
  return size;
}

// A plain PGM or a PNG longer than any image of its header's size may be is refused
// before it is read.
void check_file_size(std::filesystem::path const& path, MaskImage const& size,
                     std::uint64_t file_size) {
  double const most = double(metadata_bytes) + double(pixel_count(size)) * max_bytes_per_pixel;
  if (double(file_size) > most) {
    fail(path, "the file has " + std::to_string(file_size) + " bytes, more than the " +
                   std::to_string(std::uint64_t(most)) + " an image of " +
                   std::to_string(size.width) + " x " + std::to_string(size.height) +
                   " pixels may take");
  }
}

// No deflate stream packs more than 1032 bytes into one: a PNG too short for its pixels even
// so (a row takes at least a filter byte and a bit a pixel) is refused before libpng takes
// the memory of its rows.
void check_png_length(std::filesystem::path const& path, MaskImage const& size,
                      std::uint64_t file_size) {
  double const least_raw = double(size.height) * (1.0 + std::ceil(double(size.width) / 8.0));
  double const least = std::floor(least_raw / 1032.0);
  if (double(file_size) < least) {
    fail(path, "the file has " + std::to_string(file_size) + " bytes, fewer than the " +
                   std::to_string(std::uint64_t(least)) + " any PNG of " +
                   std::to_string(size.width) + " x " + std::to_string(size.height) +
                   " pixels takes");
  }
}

// The header first, from the file's first header_bytes; the rest only when the file's
// size is one the image may have, and fits in memory. With `pixels` false, the size alone.
MaskImage read_mask(std::filesystem::path const& path, bool pixels) {
  std::optional<detail::InputFile> file;
  try {
    file.emplace(path, "image");
  } catch (detail::InputFileError const& e) {
    fail(path, e.what());
  }
  auto const read = [&](char* data, std::size_t count) {
    try {
      if (file->read(data, count) != count) fail(path, "the file shrank while it was read");
    } catch (detail::InputFileError const& e) {
      fail(path, e.what());
    }
  };
  if (file->size() == 0) fail(path, "the file is empty");
  std::string bytes(std::min<std::uint64_t>(file->size(), header_bytes), '\0');
  read(bytes.data(), bytes.size());
  bool const complete = bytes.size() == file->size();

  std::optional<PgmHeader> pgm;
  MaskImage size;
  if (bytes.size() > 2 && bytes[0] == 'P' && (bytes[1] == '2' || bytes[1] == '5') &&
      (is_space(bytes[2]) || bytes[2] == '#')) {
    pgm = read_pgm_header(path, bytes, complete);
    size = pgm->size;
  } else if (std::string_view(bytes).starts_with(png_signature)) {
    if (!has_png) png_unavailable(path);
    size = png_size(path, bytes);
  } else {
    fail(path, "not an image wave2d reads: expected a PGM (P2 or P5) or a PNG");
  }
  if (!pixels) return size;

  if (pgm && pgm->binary) {
    check_binary_pgm_size(path, bytes, complete, *pgm, file->size());
  } else {
    check_file_size(path, size, file->size());
    if (!pgm) check_png_length(path, size, file->size());
  }
  detail::check_host_memory(path, "the image file", double(file->size()));
  std::size_t const start = bytes.size();
  bytes.resize(file->size());
  read(bytes.data() + start, bytes.size() - start);
  if (pgm) return read_pgm_pixels(path, bytes, *pgm);
#if defined(WAVE2D_HAVE_PNG)
  return read_png(path, bytes);
#else
  png_unavailable(path);
#endif
}

}  // namespace

MaskImage read_mask_image(std::filesystem::path const& path) { return read_mask(path, true); }

MaskSize read_mask_size(std::filesystem::path const& path) {
  MaskImage const header = read_mask(path, false);
  return {header.width, header.height};
}

}  // namespace wave2d
