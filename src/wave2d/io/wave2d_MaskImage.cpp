#include <wave2d/io/wave2d_MaskImage.hpp>

#include <wave2d/core/detail/wave2d_HostMemory.hpp>
#include <wave2d/io/detail/wave2d_InputFile.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/wave2d_Config.hpp>

#if defined(WAVE2D_HAVE_PNG)
#include <png.h>
#endif

#include <charconv>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

namespace wave2d {

namespace {

[[noreturn]] void fail(std::filesystem::path const& path, std::string const& problem) {
  throw SceneError(path.string() + ": " + problem);
}

// The whole image, read only when it fits in memory.
std::string read_bytes(std::filesystem::path const& path) {
  auto const available = detail::host_available_bytes();
  return detail::read_input_file(
      path, "image",
      available ? std::uint64_t(*available) : std::numeric_limits<std::uint64_t>::max());
}

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
  PgmText(std::filesystem::path const& path, std::string_view bytes, std::size_t position)
      : path_(path), bytes_(bytes), position_(position) {}

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
    position_ = std::size_t(last - bytes_.data());
    return error == std::errc::result_out_of_range ? std::numeric_limits<std::uint64_t>::max()
                                                   : value;
  }

  // A binary PGM's pixels start after the single whitespace byte that ends the header.
  std::size_t binary_data_start() const {
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
  }

  std::filesystem::path const& path_;
  std::string_view bytes_;
  std::size_t position_;
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

// With `pixels` false, only the header is read: the mask's size, no pixels.
MaskImage read_pgm(std::filesystem::path const& path, std::string_view bytes, bool pixels) {
  bool const binary = bytes[1] == '5';
  PgmText text(path, bytes, 2);
  MaskImage mask;
  mask.width = image_extent(path, text.number("width"), "width");
  mask.height = image_extent(path, text.number("height"), "height");
  std::uint64_t const maxval = text.number("maximum gray value");
  if (maxval == 0 || maxval > 65535) {
    fail(path, "the maximum gray value must lie in 1..65535, got " + std::to_string(maxval));
  }
  if (!pixels) return mask;
  auto const count = std::uint64_t(mask.width) * std::uint64_t(mask.height);
  auto const check = [&](std::uint64_t i, std::uint64_t value) {
    if (value > maxval) {
      fail(path, pixel_name(i, mask.width) + " is " + std::to_string(value) +
                     ", above the maximum gray value " + std::to_string(maxval));
    }
    return std::uint8_t(2 * value < maxval);
  };

  if (binary) {
    std::uint64_t const sample_size = maxval < 256 ? 1 : 2;
    std::size_t const start = text.binary_data_start();
    std::uint64_t const expected = count * sample_size;
    std::uint64_t const found = bytes.size() - start;
    if (found != expected) {
      fail(path, (found < expected ? "truncated pixel data: " : "extra bytes after the pixels: ") +
                     std::to_string(mask.width) + " x " + std::to_string(mask.height) +
                     " pixels need " + std::to_string(expected) + " bytes, the file has " +
                     std::to_string(found));
    }
    auto const* data = reinterpret_cast<unsigned char const*>(bytes.data() + start);
    check_pixel_memory(path, mask, 0.0);
    mask.dark.resize(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      // Two-byte samples are big-endian.
      std::uint64_t const value =
          sample_size == 1 ? data[i] : (std::uint64_t(data[2 * i]) << 8) | data[2 * i + 1];
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

#if defined(WAVE2D_HAVE_PNG)
MaskImage read_png(std::filesystem::path const& path, std::string_view bytes, bool pixels) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
    fail(path, std::string("cannot decode the PNG: ") + image.message);
  }
  MaskImage mask;
  // PNG itself limits both sizes to 2^31 - 1.
  mask.width = std::int32_t(image.width);
  mask.height = std::int32_t(image.height);
  if (!pixels) {
    png_image_free(&image);
    return mask;
  }
  try {
    check_pixel_memory(path, mask, 2.0);
  } catch (...) {
    png_image_free(&image);
    throw;
  }
  // Gray and alpha, 8 bits each: libpng converts any color type and depth.
  image.format = PNG_FORMAT_GA;
  std::vector<png_byte> gray_alpha(std::size_t(image.width) * image.height * 2);
  // libpng releases the image itself, on success and on failure.
  if (!png_image_finish_read(&image, nullptr, gray_alpha.data(), 0, nullptr)) {
    fail(path, std::string("cannot decode the PNG: ") + image.message);
  }
  mask.dark.resize(gray_alpha.size() / 2);
  for (std::size_t i = 0; i < mask.dark.size(); ++i) {
    png_byte const gray = gray_alpha[2 * i];
    png_byte const alpha = gray_alpha[2 * i + 1];
    mask.dark[i] = alpha != 0 && 2 * gray < 255;
  }
  return mask;
}
#endif

MaskImage read_mask(std::filesystem::path const& path, bool pixels) {
  std::string const bytes = read_bytes(path);
  if (bytes.empty()) fail(path, "the file is empty");
  if (bytes.size() > 2 && bytes[0] == 'P' && (bytes[1] == '2' || bytes[1] == '5') &&
      (is_space(bytes[2]) || bytes[2] == '#')) {
    return read_pgm(path, bytes, pixels);
  }
  if (std::string_view(bytes).starts_with(png_signature)) {
#if defined(WAVE2D_HAVE_PNG)
    return read_png(path, bytes, pixels);
#else
    fail(path,
         "PNG masks need libpng, and this build of wave2d has none "
         "(install libpng-dev and rebuild, or convert the mask to PGM)");
#endif
  }
  fail(path, "not an image wave2d reads: expected a PGM (P2 or P5) or a PNG");
}

}  // namespace

MaskImage read_mask_image(std::filesystem::path const& path) { return read_mask(path, true); }

MaskSize read_mask_size(std::filesystem::path const& path) {
  MaskImage const header = read_mask(path, false);
  return {header.width, header.height};
}

}  // namespace wave2d
