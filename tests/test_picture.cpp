// Pictures of at most max_picture_side pixels a side, merged from blocks of the grid: at
// scale 1 they are render_field's; any split of the grid, merged in any order, gives the
// picture of the whole.
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_Picture.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace wave2d::test {
namespace {

struct Field {
  std::vector<float> u;
  std::vector<std::uint8_t> walls;
};

// Values of both signs and up to 2 in magnitude, with equal magnitudes and ties; walls
// on about a third of the cells.
Field random_field(std::int32_t nx, std::int32_t ny, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> level(-8, 8);
  std::uniform_int_distribution<int> wall(0, 2);
  Field field;
  for (std::int64_t i = 0; i < std::int64_t(nx) * ny; ++i) {
    field.u.push_back(float(level(generator)) / 4.0f);
    field.walls.push_back(wall(generator) == 0 ? 1 : 0);
  }
  return field;
}

std::vector<float> cells_of(Field const& field, Window const& block) {
  std::vector<float> cells;
  for (std::int32_t y = block.y0; y < block.y0 + block.ny; ++y) {
    for (std::int32_t x = block.x0; x < block.x0 + block.nx; ++x) {
      cells.push_back(field.u[std::size_t(y) * block.global_nx + x]);
    }
  }
  return cells;
}

TEST(Picture, AtScaleOneIsRenderFields) {
  Field const field = random_field(37, 23, 1);
  PicturePart const picture = picture_part(field.u, field.walls, Window::whole(37, 23));
  EXPECT_EQ(picture.scale, 1);
  EXPECT_EQ(render_picture(picture), render_field(field.u, field.walls, 37, 23));
  PicturePart const open = picture_part(field.u, {}, Window::whole(37, 23));
  EXPECT_EQ(render_picture(open), render_field(field.u, {}, 37, 23));
}

TEST(Picture, IsAtMostMaxPictureSidePixelsASide) {
  PicturePart const wide = whole_picture(3 * max_picture_side + 1, 5);
  EXPECT_EQ(wide.scale, 4);
  EXPECT_EQ(wide.width, (3 * max_picture_side + 1 + 3) / 4);
  EXPECT_EQ(wide.height, 2);
  EXPECT_EQ(whole_picture(max_picture_side, max_picture_side).scale, 1);
  EXPECT_EQ(whole_picture(max_picture_side + 1, 1).scale, 2);
}

// picture_bytes, which the memory check counts, covers what drawing a picture holds: its
// part, its colours and the colours beside their widest colour bar; and not twice over.
TEST(Picture, PictureBytesCoverWhatDrawingOneHolds) {
  for (auto const [nx, ny] : {std::pair{1, 1},
                              {37, 23},
                              {5, 3000},
                              {3000, 7},
                              {1000, 1000},
                              {max_picture_side + 1, 900}}) {
    PicturePart const picture = whole_picture(nx, ny);
    std::vector<std::uint8_t> const colours = render_picture(picture, 1.0f);
    RgbImage const image =
        with_colour_bar(colours, picture.width, picture.height, 1.0e-5f, LabelRoom::any_scale);
    double const held = double(picture.pixels.size() * sizeof(PixelPart)) + double(colours.size()) +
                        double(image.rgb.size());
    EXPECT_GE(picture_bytes(nx, ny), held) << nx << " x " << ny;
    EXPECT_LE(picture_bytes(nx, ny), 1.5 * held + double(1 << 20)) << nx << " x " << ny;
  }
}

// A pixel is black when most of its cells are walls, else the colour of its value of
// largest magnitude.
TEST(Picture, APixelShowsItsLargestValueOrItsWalls) {
  std::int32_t const nx = 2 * max_picture_side;
  std::vector<float> u(std::size_t(nx) * 2, 0.0f);
  std::vector<std::uint8_t> walls(u.size(), 0);
  u[0] = 0.25f;
  u[1] = -0.5f;  // pixel 0: cells (0, 0), (1, 0), (0, 1), (1, 1)
  walls[2] = walls[3] = walls[std::size_t(nx) + 2] = 1;  // pixel 1: three walls of four
  walls[4] = walls[5] = 1;                               // pixel 2: two of four
  u[std::size_t(nx) + 4] = 1.0f;
  PicturePart const picture = picture_part(u, walls, Window::whole(nx, 2));
  ASSERT_EQ(picture.scale, 2);
  std::vector<std::uint8_t> const rgb = render_picture(picture);
  EXPECT_EQ(std::vector<std::uint8_t>(rgb.begin(), rgb.begin() + 9),
            (std::vector<std::uint8_t>{127, 127, 255, 0, 0, 0, 255, 0, 0}));
}

TEST(Picture, AnySplitMergedInAnyOrderIsThePictureOfTheWhole) {
  std::int32_t const nx = 2 * max_picture_side + 5;
  std::int32_t const ny = 9;
  Field const field = random_field(nx, ny, 2);
  PicturePart const whole = picture_part(field.u, field.walls, Window::whole(nx, ny));
  ASSERT_EQ(whole.scale, 3);
  std::mt19937 generator(3);
  for (auto [px, py] : {std::pair{3, 2}, {5, 1}, {1, 4}, {7, 3}}) {
    std::vector<Window> blocks;
    for (int i = 0; i < px; ++i) {
      for (int j = 0; j < py; ++j) {
        std::int32_t const x0 = nx * i / px;
        std::int32_t const y0 = ny * j / py;
        blocks.push_back({nx, ny, x0, y0, nx * (i + 1) / px - x0, ny * (j + 1) / py - y0, 0});
      }
    }
    for (int order = 0; order < 3; ++order) {
      std::shuffle(blocks.begin(), blocks.end(), generator);
      PicturePart merged = whole_picture(nx, ny);
      for (Window const& block : blocks) {
        merge_picture(merged, picture_part(cells_of(field, block), field.walls, block));
      }
      EXPECT_EQ(render_picture(merged), render_picture(whole)) << px << " x " << py;
    }
  }
}

TEST(Picture, RefusesAFieldOrPartThatDoesNotFit) {
  std::vector<float> const u(12);
  EXPECT_THROW(picture_part(u, {}, Window::whole(5, 2)), std::invalid_argument);
  std::vector<std::uint8_t> const walls(11);
  EXPECT_THROW(picture_part(u, walls, Window::whole(6, 2)), std::invalid_argument);
  PicturePart picture = whole_picture(6, 2);
  PicturePart const other = picture_part(u, {}, Window::whole(4, 3));
  EXPECT_THROW(merge_picture(picture, other), std::invalid_argument);
}

}  // namespace
}  // namespace wave2d::test
