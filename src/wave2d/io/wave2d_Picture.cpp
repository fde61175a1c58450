#include <wave2d/io/wave2d_Picture.hpp>

#include <wave2d/io/wave2d_Output.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wave2d {

namespace {

// |v|, and below every finite value a value that is not: a pixel shows its largest finite
// value where it has one.
float magnitude(float v) { return std::isfinite(v) ? std::fabs(v) : -1.0f; }

// a or b, whichever has the value of larger magnitude (on a tie the larger value): an
// order-free choice, so that the blocks merge to the same picture in any order.
PixelPart merged(PixelPart a, PixelPart const& b) {
  bool const take_b =
      b.open > 0 && (a.open == 0 || magnitude(b.value) > magnitude(a.value) ||
                     (magnitude(b.value) == magnitude(a.value) && b.value > a.value));
  return {take_b ? b.value : a.value, a.open + b.open, a.walls + b.walls};
}

// The picture of a whole nx x ny grid, its pixels not made.
PicturePart empty_picture(std::int32_t nx, std::int32_t ny) {
  if (nx <= 0 || ny <= 0) throw std::invalid_argument("wave2d::whole_picture: empty grid");
  std::int32_t const side = std::max(nx, ny);
  std::int32_t const scale = (side + max_picture_side - 1) / max_picture_side;
  return {scale, 0, 0, (nx + scale - 1) / scale, (ny + scale - 1) / scale, {}};
}

}  // namespace

PicturePart whole_picture(std::int32_t nx, std::int32_t ny) {
  PicturePart picture = empty_picture(nx, ny);
  picture.pixels.resize(std::size_t(picture.width) * std::size_t(picture.height));
  return picture;
}

double picture_bytes(std::int32_t nx, std::int32_t ny) {
  PicturePart const picture = empty_picture(nx, ny);
  double const width = picture.width;
  double const height = picture.height;
  // with_colour_bar's: under 50 font pixels across beside the picture, 19 down, each
  // height / 100 image pixels a side; and what libpng and zlib hold while they write.
  double const font = std::max(1.0, std::floor(height / 100.0));
  double const bar = 3.0 * (width + 50.0 * font + 2.0) * std::max(height, 19.0 * font);
  return width * height * (sizeof(PixelPart) + 3.0) + bar + double(1 << 20);
}

PicturePart picture_part(std::span<float const> u, std::span<std::uint8_t const> walls,
                         Window const& block) {
  validate(block);
  std::int64_t const global = std::int64_t(block.global_nx) * block.global_ny;
  if (u.size() != std::size_t(block.nx) * std::size_t(block.ny) ||
      (!walls.empty() && walls.size() != std::size_t(global))) {
    throw std::invalid_argument("wave2d::picture_part: the field or walls do not fit the block");
  }
  std::int32_t const scale = empty_picture(block.global_nx, block.global_ny).scale;
  PicturePart part{scale,
                   block.x0 / scale,
                   block.y0 / scale,
                   (block.x0 + block.nx - 1) / scale - block.x0 / scale + 1,
                   (block.y0 + block.ny - 1) / scale - block.y0 / scale + 1,
                   {}};
  part.pixels.resize(std::size_t(part.width) * std::size_t(part.height));
  for (std::int32_t y = 0; y < block.ny; ++y) {
    std::int32_t const gy = block.y0 + y;
    PixelPart* row = &part.pixels[std::size_t(gy / scale - part.y0) * std::size_t(part.width)];
    for (std::int32_t x = 0; x < block.nx; ++x) {
      std::int32_t const gx = block.x0 + x;
      PixelPart& pixel = row[gx / scale - part.x0];
      bool const wall = !walls.empty() && walls[std::size_t(gy) * block.global_nx + gx] != 0;
      PixelPart const cell{u[std::size_t(y) * block.nx + x], wall ? 0 : 1, wall ? 1 : 0};
      pixel = merged(pixel, cell);
    }
  }
  return part;
}

void merge_picture(PicturePart& picture, PicturePart const& part) {
  if (part.scale != picture.scale || part.x0 < picture.x0 || part.y0 < picture.y0 ||
      part.x0 + part.width > picture.x0 + picture.width ||
      part.y0 + part.height > picture.y0 + picture.height ||
      part.pixels.size() != std::size_t(part.width) * std::size_t(part.height)) {
    throw std::invalid_argument("wave2d::merge_picture: the part is not of the picture");
  }
  for (std::int32_t y = 0; y < part.height; ++y) {
    for (std::int32_t x = 0; x < part.width; ++x) {
      PixelPart& pixel = picture.pixels[std::size_t(part.y0 - picture.y0 + y) * picture.width +
                                        std::size_t(part.x0 - picture.x0 + x)];
      pixel = merged(pixel, part.pixels[std::size_t(y) * part.width + x]);
    }
  }
}

std::vector<std::uint8_t> render_picture(PicturePart const& picture, float amplitude) {
  std::vector<std::uint8_t> rgb(3 * picture.pixels.size());
  for (std::size_t i = 0; i < picture.pixels.size(); ++i) {
    PixelPart const& pixel = picture.pixels[i];
    if (pixel.open == 0 || 2 * std::int64_t(pixel.walls) > pixel.open + pixel.walls) continue;
    detail::paint(pixel.value, amplitude, &rgb[3 * i]);
  }
  return rgb;
}

float picture_amplitude(PicturePart const& picture) {
  float amplitude = 0.0f;
  for (PixelPart const& pixel : picture.pixels) {
    if (pixel.open > 0) amplitude = std::max(amplitude, magnitude(pixel.value));
  }
  return amplitude;
}

}  // namespace wave2d
