// Pictures of a field: the colour map at any scale, a colour bar with its limits written
// beside the field, and the scale in the PNG's text.
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d_TestFiles.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>

namespace wave2d::test {
namespace {

using Rgb = std::array<int, 3>;

Rgb pixel_at(RgbImage const& image, std::int64_t x, std::int64_t y) {
  std::size_t const i = 3 * std::size_t(y * image.width + x);
  return {image.rgb[i], image.rgb[i + 1], image.rgb[i + 2]};
}

TEST(ColourMap, SaturatesAtTheScale) {
  std::vector<float> const u = {0.25f, -0.25f, 0.5f, 3.0f, 0.0f};
  auto const rgb = render_field(u, {}, 5, 1, 0.5f);
  auto const textbook = render_field(std::vector<float>{0.5f, -0.5f, 1.0f, 6.0f, 0.0f}, {}, 5, 1);
  EXPECT_EQ(rgb, textbook);  // u / scale is what is drawn
  EXPECT_EQ((Rgb{rgb[0], rgb[1], rgb[2]}), (Rgb{255, 127, 127}));
  EXPECT_THROW(render_field(u, {}, 5, 1, 0.0f), std::invalid_argument);
  EXPECT_THROW(render_field(u, {}, 5, 1, std::numeric_limits<float>::infinity()),
               std::invalid_argument);
}

TEST(ColourMap, TheLargestAmplitudeLeavesOutWallsAndWhatIsNotFinite) {
  std::vector<float> const u = {0.5f, -2.0f, 9.0f, std::numeric_limits<float>::quiet_NaN()};
  std::vector<std::uint8_t> const walls = {0, 0, 1, 0};
  EXPECT_EQ(largest_amplitude(u, walls), 2.0f);
  EXPECT_EQ(largest_amplitude(u, {}), 9.0f);
  EXPECT_EQ(largest_amplitude(std::vector<float>(4, 0.0f), {}), 0.0f);
}

// A 40 x 30 field: font pixels of 1, so the bar is 4 wide in a 1-pixel frame, 2 pixels
// from the field, its labels "1", "0" and "-1" 2 pixels on.
TEST(ColourBar, StandsBesideTheFieldWithItsLimits) {
  std::int32_t const nx = 40, ny = 30;
  std::vector<float> u(nx * ny, 0.0f);
  u[5] = 1.0f;
  u[6] = -0.5f;
  RgbImage const image = render_field_with_colour_bar(u, {}, nx, ny, 1.0f);
  int const label_width = 7;  // "-1": two glyphs of 3 and a column between
  EXPECT_EQ(image.width, nx + 2 + 6 + 2 + label_width + 2);
  EXPECT_EQ(image.height, ny);
  EXPECT_EQ(pixel_at(image, 5, 0), (Rgb{255, 0, 0}));  // the field, unchanged
  EXPECT_EQ(pixel_at(image, 6, 0), (Rgb{127, 127, 255}));
  EXPECT_EQ(pixel_at(image, 40, 0), (Rgb{255, 255, 255}));  // the gap
  int const bar = nx + 2;
  for (int y = 0; y < ny; ++y) {
    EXPECT_EQ(pixel_at(image, bar, y), (Rgb{0, 0, 0})) << y;  // the frame
    EXPECT_EQ(pixel_at(image, bar + 5, y), (Rgb{0, 0, 0})) << y;
  }
  EXPECT_EQ(pixel_at(image, bar + 2, 1), (Rgb{255, 17, 17}));       // near +1: red
  EXPECT_EQ(pixel_at(image, bar + 2, ny - 2), (Rgb{17, 17, 255}));  // near -1: blue
  Rgb const middle = pixel_at(image, bar + 2, ny / 2);
  EXPECT_GT(middle[1], 230) << "near 0: nearly white";
  // "1" at the top of the labels, in the font's rows 010, 110, 010, 010, 111.
  int const left = bar + 6 + 2;
  std::array<std::array<int, 3>, 5> const one = {
      {{0, 1, 0}, {1, 1, 0}, {0, 1, 0}, {0, 1, 0}, {1, 1, 1}}};
  for (int row = 0; row < 5; ++row) {
    for (int column = 0; column < 3; ++column) {
      Rgb const expected = one[row][column] ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
      EXPECT_EQ(pixel_at(image, left + column, row), expected) << row << ", " << column;
    }
  }
  // "-1" at the bottom: its minus sign across the middle row of the glyph.
  for (int column = 0; column < 3; ++column) {
    EXPECT_EQ(pixel_at(image, left + column, ny - 5 + 2), (Rgb{0, 0, 0})) << column;
  }
}

TEST(ColourBar, LabelsTheScaleWithThreeDigits) {
  EXPECT_EQ(colour_bar_label(1.0f), "1");
  EXPECT_EQ(colour_bar_label(-0.25f), "-0.25");
  EXPECT_EQ(colour_bar_label(4.31234f), "4.31");
  EXPECT_EQ(colour_bar_label(1.5e-5f), "1.5e-05");
}

// A field smaller than the labels: the picture is made tall enough for them.
TEST(ColourBar, ATinyFieldGetsRoomForItsLabels) {
  RgbImage const image = render_field_with_colour_bar(std::vector<float>(4, 0.0f), {}, 2, 2, 1.0f);
  EXPECT_EQ(image.height, 3 * 5 + 2 * 2);
  EXPECT_EQ(pixel_at(image, 0, 5), (Rgb{255, 255, 255}));  // below the field
}

// Room for any scale's labels: pictures of one field size, each at its own scale, have one
// size, as wide as the widest labels.
TEST(ColourBar, RoomForAnyScaleGivesOneSize) {
  std::vector<float> const u(40 * 30, 0.0f);
  std::int32_t const widest =
      render_field_with_colour_bar(u, {}, 40, 30, 1.23e-5f, LabelRoom::fitted).width;
  for (float const scale : {1.0f, 0.25f, 1.23e-5f, 1.23e-4f, 3e38f}) {
    RgbImage const image = render_field_with_colour_bar(u, {}, 40, 30, scale, LabelRoom::any_scale);
    EXPECT_EQ(image.width, widest) << scale;
    EXPECT_LE(render_field_with_colour_bar(u, {}, 40, 30, scale).width, widest) << scale;
  }
}

TEST(Png, CarriesItsTextChunks) {
  if (!has_libpng) GTEST_SKIP() << without_libpng;
  TemporaryDirectory directory;
  std::vector<std::uint8_t> const rgb(3 * 2 * 2, 255);
  write_png(directory.path() / "p.png", rgb, 2, 2, {{"wave2d scale", "0.5"}});
  std::string const png = read_file(directory.path() / "p.png");
  EXPECT_NE(png.find(std::string("tEXtwave2d scale\0000.5", 20)), std::string::npos);
  EXPECT_THROW(write_png(directory.path() / "q.png", rgb, 2, 2, {{"", "no keyword"}}),
               std::invalid_argument);
}

// tEXt holds Latin-1 and no control characters but line feeds: other text goes as iTXt,
// UTF-8, with U+FFFD for a control character (here a bell) and for bytes that are no UTF-8
// (here a Latin-1 'é').
TEST(Png, WritesOtherTextAsUtf8) {
  if (!has_libpng) GTEST_SKIP() << without_libpng;
  TemporaryDirectory directory;
  std::vector<std::uint8_t> const rgb(3 * 2 * 2, 255);
  write_png(directory.path() / "p.png", rgb, 2, 2, {{"Description", "w\xc3\xa4ve\x07\xe9\nok"}});
  std::string const png = read_file(directory.path() / "p.png");
  std::string const itxt =
      std::string("iTXtDescription\0\0\0\0\0", 20) + "w\xc3\xa4ve\xef\xbf\xbd\xef\xbf\xbd\nok";
  EXPECT_NE(png.find(itxt), std::string::npos);
  EXPECT_EQ(png.find("tEXtDescription"), std::string::npos);
}

}  // namespace
}  // namespace wave2d::test
