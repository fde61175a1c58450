// A 3 x 5 pixel font of the characters numbers are written with, so that a picture can
// carry its scale without a font library. Plain C++: no Kokkos.
#ifndef WAVE2D_IO_DIGIT_FONT_HPP
#define WAVE2D_IO_DIGIT_FONT_HPP

#include <cstdint>
#include <span>
#include <string_view>

namespace wave2d::detail {

// The characters drawn: digits, '.', '-', '+' and 'e'; any other is a blank.
inline constexpr int glyph_width = 3;
inline constexpr int glyph_height = 5;

// Pixels `text` takes across, each glyph pixel `size` x `size`, a pixel column between
// glyphs.
int text_width(std::string_view text, int size);

// Draws `text` in black with its top-left corner at (x, y) on an RGB8 image `rgb` of
// `width` pixels a row; what falls outside the image is not drawn.
void draw_text(std::span<std::uint8_t> rgb, std::int64_t width, std::int64_t x, std::int64_t y,
               std::string_view text, int size);

}  // namespace wave2d::detail

#endif
