// Input files: their sizes are checked before they are read, so that a huge file is
// refused at once; a checkpoint's state that is not finite is never resumed.
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_MaskImage.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d_TestFiles.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include <unistd.h>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;

// A 4 x 3 checkpoint at step 5 with two receivers, its values all finite.
CheckpointData tiny_checkpoint() {
  CheckpointData data;
  data.nx = 4;
  data.ny = 3;
  data.step = 5;
  data.numerics = "wave2d test numerics";
  data.previous.assign(12, 0.25f);
  data.current.assign(12, -0.5f);
  data.receivers = 2;
  data.trace_first_step = 2;
  data.trace.assign(std::size_t(data.trace_rows()) * 2, 0.125f);
  return data;
}

// The file made `size` bytes long without writing them: a sparse file.
bool resize(fs::path const& path, std::uint64_t size) {
  return ::truncate(path.c_str(), off_t(size)) == 0;
}

TEST(CheckpointReader, ReadsWhatTheWriterWrote) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  TemporaryDirectory directory;
  CheckpointData const data = tiny_checkpoint();
  write_checkpoint(directory.path() / "ck", data);
  CheckpointData const read = read_checkpoint(directory.path() / "ck");
  EXPECT_EQ(read.previous, data.previous);
  EXPECT_EQ(read.current, data.current);
  EXPECT_EQ(read.trace, data.trace);
  EXPECT_EQ(read.numerics, data.numerics);
  EXPECT_EQ(read.step, 5);
}

// Sizes before reading: test_hdf5_checkpoint.cpp.

// The writer writes what it is given, with a valid checksum; the reader refuses a state
// no run can go on from, naming the first value that is not finite.
TEST(CheckpointReader, RefusesValuesThatAreNotFinite) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  TemporaryDirectory directory;
  fs::path const path = directory.path() / "ck";
  float const nan = std::numeric_limits<float>::quiet_NaN();
  float const infinity = std::numeric_limits<float>::infinity();
  struct Case {
    std::function<void(CheckpointData&)> spoil;
    std::string where;
  };
  std::vector<Case> const cases = {
      {[&](CheckpointData& d) { d.current[4 * 1 + 3] = nan; },
       "holds nan in u at step 5, cell (3, 1)"},
      {[&](CheckpointData& d) { d.previous[2] = -infinity; },
       "holds -inf in u at step 4, cell (2, 0)"},
      {[&](CheckpointData& d) { d.trace[2 * 2 + 1] = infinity; },
       "holds inf in the receivers' trace after step 4, receiver 1"},
  };
  for (auto const& [spoil, where] : cases) {
    CheckpointData data = tiny_checkpoint();
    spoil(data);
    write_checkpoint(path, data);
    EXPECT_EQ(refusal(path).message, "checkpoint '" + path.string() + "' " + where +
                                         ": no run can go on from a state that is not finite");
  }
}

// The error `read` throws, and how long it took to give it.
template <class Read>
Refusal scene_refusal(Read const& read) {
  auto const start = std::chrono::steady_clock::now();
  std::string message = "no error";
  try {
    read();
  } catch (SceneError const& e) {
    message = e.what();
  }
  return {message, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

// A PNG whose IHDR says 20000 x 20000 pixels in 45 bytes: refused before libpng decodes it
// (it took the 400 MB of its rows first).
TEST(MaskImageSize, APngTooShortForItsSizeIsRefusedBeforeItIsDecoded) {
  if (!has_libpng) GTEST_SKIP() << "built without libpng: no PNG masks";
  TemporaryDirectory directory;
  fs::path const file = directory.path() / "huge.png";
  // The signature, an IHDR of 20000 x 20000 8-bit gray (0x4e20 each way) and its CRC, an IEND.
  write_text(file, std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x4e\x20\0\0\x4e\x20\x08\0\0\0\0"
                               "\x00\x00\x00\x00\0\0\0\0IEND\xae\x42\x60\x82",
                               45));
  EXPECT_EQ(read_mask_size(file).width, 20000);
  Refusal const refused = scene_refusal([&] { read_mask_image(file); });
  EXPECT_EQ(refused.message, file.string() +
                                 ": the file has 45 bytes, fewer than the 48468 any PNG of "
                                 "20000 x 20000 pixels takes");
  EXPECT_LT(refused.seconds, 0.5);
}

// Masks: the header first, then the file's size against what an image of that size may
// take, before the rest is read.
TEST(MaskImageSize, A20GBFileIsRefusedBeforeItIsRead) {
  TemporaryDirectory directory;
  std::uint64_t const twenty_gb = 20ull << 30;
  struct Case {
    std::string name;
    std::string header;
    std::string problem;
  };
  std::vector<Case> cases = {
      {"binary.pgm", "P5\n10 10\n255\n",
       "extra bytes after the pixels: 10 x 10 pixels need 100 bytes, the file has 21474836467"},
      {"plain.pgm", "P2\n10 10\n255\n",
       "the file has 21474836480 bytes, more than the 67115264 an image of 10 x 10 pixels may "
       "take"},
  };
  if (has_libpng) {
    // A PNG signature and IHDR (10 x 10, 8-bit gray) with its CRC.
    cases.push_back({"image.png",
                     std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x0a\0\0\0\x0a\x08\0\0\0\0"
                                 "\xa8\x59\x90\x61",
                                 33),
                     "the file has 21474836480 bytes, more than the 67115264 an image of 10 x 10 "
                     "pixels may take"});
  }
  for (auto const& [name, header, problem] : cases) {
    fs::path const file = directory.path() / name;
    write_text(file, header);
    if (!resize(file, twenty_gb)) GTEST_SKIP() << "this file system holds no 20 GB sparse file";
    EXPECT_EQ(read_mask_size(file).width, 10) << name;
    Refusal const refused = scene_refusal([&] { read_mask_image(file); });
    EXPECT_EQ(refused.message, file.string() + ": " + problem);
    EXPECT_LT(refused.seconds, 0.5) << name;
  }
}

// A header longer than what is read for it is said to be so, not truncated.
TEST(MaskImageSize, AHeaderLongerThanItsBoundIsSaidToBe) {
  TemporaryDirectory directory;
  fs::path const file = directory.path() / "long-comment.pgm";
  write_text(file, "P2\n# " + std::string(70000, 'c') + "\n1 1\n1\n0\n");
  EXPECT_EQ(scene_refusal([&] { read_mask_size(file); }).message,
            file.string() + ": the header is longer than the 65536 bytes read for it");
}

TEST(SceneFileSize, A20GBFileIsRefusedBeforeItIsRead) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory directory;
  fs::path const file = directory.path() / "huge.toml";
  write_text(file, "[grid]\nnx = 10\nny = 10\n");
  if (!resize(file, 20ull << 30)) GTEST_SKIP() << "this file system holds no 20 GB sparse file";
  Refusal const refused = scene_refusal([&] { load_scene_file(file); });
  EXPECT_EQ(refused.message, file.string() +
                                 ": the scene file has 21474836480 bytes, more than "
                                 "the 16777216 allowed");
  EXPECT_LT(refused.seconds, 0.5);
}

}  // namespace
}  // namespace wave2d::test
