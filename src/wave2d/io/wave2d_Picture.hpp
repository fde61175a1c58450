// The picture of a field (the colours of render_field) at most max_picture_side pixels a
// side: a pixel stands for a square of scale x scale cells. Made from blocks of the grid,
// each reduced to the pixels it overlaps and merged in any order with the same result, so
// that the ranks of a distributed run draw it without the whole grid on one of them.
#ifndef WAVE2D_PICTURE_HPP
#define WAVE2D_PICTURE_HPP

#include <wave2d/core/wave2d_Window.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace wave2d {

inline constexpr std::int32_t max_picture_side = 4096;

// What the cells of one pixel that a block holds contribute: the value of largest magnitude
// of its open cells (on a tie, the larger value) and how many cells are open and walls.
struct PixelPart {
  float value = 0.0f;
  std::int32_t open = 0;
  std::int32_t walls = 0;
};

// Pixels [x0, x0 + width) x [y0, y0 + height) of a picture of a grid, row-major.
struct PicturePart {
  std::int32_t scale = 1;  // cells per pixel, each way
  std::int32_t x0 = 0;
  std::int32_t y0 = 0;
  std::int32_t width = 0;
  std::int32_t height = 0;
  std::vector<PixelPart> pixels;
};

// The picture of a whole nx x ny grid: scale the smallest that fits max_picture_side, x0 = y0
// = 0, every pixel empty.
PicturePart whole_picture(std::int32_t nx, std::int32_t ny);

// What drawing and writing the picture of a whole nx x ny grid holds at its peak, in bytes,
// generously: its pixels' parts, their colours and the colours beside their colour bar.
double picture_bytes(std::int32_t nx, std::int32_t ny);

// The pixels that the owned cells of `block` overlap, from u (those cells, row-major) and
// `walls` (the whole grid's mask, nx * ny, or empty: none).
PicturePart picture_part(std::span<float const> u, std::span<std::uint8_t const> walls,
                         Window const& block);

// Adds `part` into `picture` (whose pixels cover it), in any order alike.
void merge_picture(PicturePart& picture, PicturePart const& part);

// RGB8 pixels, row 0 first: black where more than half the cells are walls, else the
// colour render_field gives the pixel's value at `amplitude` (render_field's scale). A
// picture of scale 1 is render_field's.
std::vector<std::uint8_t> render_picture(PicturePart const& picture, float amplitude = 1.0f);

// The largest |u| of the picture's finite values outside walls (largest_amplitude of the
// field it was made from), 0 for none.
float picture_amplitude(PicturePart const& picture);

}  // namespace wave2d

#endif
