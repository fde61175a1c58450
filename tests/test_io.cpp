// Output files: the .npy layout NumPy reads, the textbook's colour map, valid PNGs,
// and files that are complete or not there at all.
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/wave2d_Config.hpp>
#include <wave2d_TestFiles.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;

using Rgb = std::array<int, 3>;

Rgb pixel(std::vector<std::uint8_t> const& rgb, std::size_t i) {
  return {rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]};
}

std::uint32_t big_endian_32(std::string const& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
  }
  return value;
}

TEST(Npy, RoundTripsThePairWithItsShape) {
  TemporaryDirectory directory;
  std::vector<float> const previous = {1.0f, -2.5f, 0.0f, 3.25f, 1e-7f, -0.0f};
  std::vector<float> const current = {6.0f, 5.0f, 4.0f, 3.0f, 2.0f, 1.0f};
  auto const path = directory.path() / "pair.npy";
  write_npy(path, previous, current, 3, 2);

  Npy const npy = parse_npy(read_file(path));
  EXPECT_EQ(npy.header.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 3), }"), 0u)
      << npy.header;
  std::vector<float> expected = previous;
  expected.insert(expected.end(), current.begin(), current.end());
  EXPECT_EQ(npy.data, expected);
  EXPECT_EQ(directory.contents(), std::vector<std::string>{"pair.npy"});
}

TEST(Npy, RefusesFieldsOfTheWrongSize) {
  TemporaryDirectory directory;
  std::vector<float> const six(6), five(5);
  EXPECT_THROW(write_npy(directory.path() / "a.npy", six, five, 3, 2), std::invalid_argument);
  EXPECT_THROW(write_npy(directory.path() / "a.npy", six, six, 0, 2), std::invalid_argument);
  EXPECT_TRUE(directory.contents().empty());
}

TEST(RenderField, UsesTheTextbooksColourMap) {
  float const nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> const u = {0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 7.0f, -7.0f, 0.25f, nan};
  std::vector<std::uint8_t> walls(u.size(), 0);
  walls[7] = 1;
  auto const rgb = render_field(u, walls, 3, 3);
  ASSERT_EQ(rgb.size(), 27u);
  EXPECT_EQ(pixel(rgb, 0), (Rgb{255, 255, 255}));  // white at 0
  EXPECT_EQ(pixel(rgb, 1), (Rgb{255, 0, 0}));
  EXPECT_EQ(pixel(rgb, 2), (Rgb{0, 0, 255}));
  EXPECT_EQ(pixel(rgb, 3), (Rgb{255, 127, 127}));  // 255 - 127.5, truncated as the textbook does
  EXPECT_EQ(pixel(rgb, 4), (Rgb{127, 127, 255}));
  EXPECT_EQ(pixel(rgb, 5), (Rgb{255, 0, 0}));  // saturated
  EXPECT_EQ(pixel(rgb, 6), (Rgb{0, 0, 255}));
  EXPECT_EQ(pixel(rgb, 7), (Rgb{0, 0, 0}));    // a wall, whatever its value
  EXPECT_EQ(pixel(rgb, 8), (Rgb{0, 0, 255}));  // NaN saturates

  auto const no_walls = render_field(u, {}, 3, 3);
  EXPECT_EQ(pixel(no_walls, 7), (Rgb{255, 191, 191}));
  EXPECT_THROW(render_field(u, walls, 4, 2), std::invalid_argument);
}

// The first skips in a build without libpng; the second is there only in one.
TEST(Png, IsAValidRgbImageOfTheRightSize) {
  if (!has_libpng) GTEST_SKIP() << without_libpng;
  TemporaryDirectory directory;
  std::int32_t const width = 5, height = 3;
  std::vector<std::uint8_t> rgb(3 * width * height);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = std::uint8_t(i * 7);
  auto const path = directory.path() / "image.png";
  write_png(path, rgb, width, height);

  std::string const png = read_file(path);
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(big_endian_32(png, 8), 13u);  // IHDR comes first, 13 bytes long
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(big_endian_32(png, 16), std::uint32_t(width));
  EXPECT_EQ(big_endian_32(png, 20), std::uint32_t(height));
  EXPECT_EQ(int(png[24]), 8);  // bits per channel
  EXPECT_EQ(int(png[25]), 2);  // RGB
  EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
  EXPECT_EQ(directory.contents(), std::vector<std::string>{"image.png"});
}

#if !defined(WAVE2D_HAVE_PNG)
TEST(Png, WithoutLibpngIsAClearError) {
  TemporaryDirectory directory;
  std::vector<std::uint8_t> const rgb(3);
  try {
    write_png(directory.path() / "image.png", rgb, 1, 1);
    FAIL() << "no error";
  } catch (OutputError const& e) {
    EXPECT_NE(std::string(e.what()).find("libpng"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(directory.contents().empty());
}
#endif

TEST(AtomicWriting, AMissingDirectoryLeavesNothing) {
  TemporaryDirectory directory;
  std::vector<float> const one(1);
  auto const path = directory.path() / "missing" / "pair.npy";
  try {
    write_npy(path, one, one, 1, 1);
    FAIL() << "no error";
  } catch (OutputError const& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(directory.contents().empty());
}

TEST(AtomicWriting, AFailingWriterLeavesNoTemporaryAndKeepsTheOldFile) {
  TemporaryDirectory directory;
  auto const path = directory.path() / "result.bin";
  EXPECT_THROW(write_stream_atomically(path,
                                       [](std::ostream& out) {
                                         out << "half of it";
                                         throw std::runtime_error("writer failed");
                                       }),
               std::runtime_error);
  EXPECT_TRUE(directory.contents().empty());

  write_text(path, "old");
  EXPECT_THROW(write_file_atomically(path,
                                     [](fs::path const& temporary) {
                                       write_text(temporary, "new, but not finished");
                                       throw std::runtime_error("writer failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(read_file(path), "old");
  EXPECT_EQ(directory.contents(), std::vector<std::string>{"result.bin"});
}

TEST(AtomicWriting, ASetIsReplacedWholeOrNotAtAll) {
  TemporaryDirectory directory;
  auto const a = directory.path() / "run.a";
  auto const b = directory.path() / "run.b";
  write_text(a, "earlier a");
  write_text(b, "earlier b");
  auto const text = [](std::string what) { return [what](std::ostream& out) { out << what; }; };
  std::vector<StreamFile> files{{a, text("new a")},
                                {b, [](std::ostream& out) {
                                   out << "half of b";
                                   throw OutputError("cannot write 'run.b': no room");
                                 }}};
  EXPECT_THROW(write_streams_atomically(files), OutputError);
  EXPECT_EQ(read_file(a), "earlier a");  // the first was written, but never took its name
  EXPECT_EQ(read_file(b), "earlier b");
  EXPECT_EQ(directory.contents(), (std::vector<std::string>{"run.a", "run.b"}));

  files[1].write = text("new b");
  files.push_back({directory.path() / "run.c", text("new c")});
  write_streams_atomically(files);
  EXPECT_EQ(read_file(a), "new a");
  EXPECT_EQ(read_file(b), "new b");
  EXPECT_EQ(read_file(directory.path() / "run.c"), "new c");
  EXPECT_EQ(directory.contents(), (std::vector<std::string>{"run.a", "run.b", "run.c"}));
}

TEST(AtomicWriting, WritesBesideTheFileThenReplacesIt) {
  TemporaryDirectory directory;
  auto const path = directory.path() / "result.bin";
  write_text(path, "old");
  write_file_atomically(path, [&](fs::path const& temporary) {
    EXPECT_EQ(temporary.parent_path(), path.parent_path());  // so that rename is atomic
    EXPECT_NE(temporary, path);
    EXPECT_EQ(read_file(path), "old");  // untouched until the new file is complete
    write_text(temporary, "new");
  });
  EXPECT_EQ(read_file(path), "new");
  EXPECT_EQ(directory.contents(), std::vector<std::string>{"result.bin"});
}

}  // namespace
}  // namespace wave2d::test
