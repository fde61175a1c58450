#include <wave2d/io/detail/wave2d_DigitFont.hpp>

#include <cstddef>

namespace wave2d::detail {

namespace {

struct Glyph {
  char character;
  std::uint8_t rows[glyph_height];  // top row first; bit 2 is the left column
};

constexpr Glyph glyphs[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 7, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 2, 2}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'.', {0, 0, 0, 0, 2}}, {'-', {0, 0, 7, 0, 0}},
    {'+', {0, 2, 7, 2, 0}}, {'e', {0, 7, 7, 4, 7}},
};

Glyph const* glyph_of(char c) {
  for (Glyph const& glyph : glyphs) {
    if (glyph.character == c) return &glyph;
  }
  return nullptr;
}

}  // namespace

int text_width(std::string_view text, int size) {
  return text.empty() ? 0 : int(text.size()) * (glyph_width + 1) * size - size;
}

void draw_text(std::span<std::uint8_t> rgb, std::int64_t width, std::int64_t x, std::int64_t y,
               std::string_view text, int size) {
  std::int64_t const height = std::int64_t(rgb.size() / 3) / width;
  for (char c : text) {
    if (Glyph const* glyph = glyph_of(c)) {
      for (std::int64_t row = 0; row < glyph_height * size; ++row) {
        for (std::int64_t column = 0; column < glyph_width * size; ++column) {
          bool const ink = (glyph->rows[row / size] >> (glyph_width - 1 - column / size)) & 1;
          std::int64_t const px = x + column;
          std::int64_t const py = y + row;
          if (!ink || px < 0 || px >= width || py < 0 || py >= height) continue;
          std::uint8_t* pixel = &rgb[3 * std::size_t(py * width + px)];
          pixel[0] = pixel[1] = pixel[2] = 0;
        }
      }
    }
    x += (glyph_width + 1) * size;
  }
}

}  // namespace wave2d::detail
