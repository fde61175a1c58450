// Checkpoints as HDF5 files: read back in any block of the grid; refused, each with its
// one-line reason, before their fields are read when they are of another format, too large,
// or not what their header says; refused after when a checksum or a value is wrong. Files
// that the writer would not make are made with HDF5's own API.
#include <wave2d/core/detail/wave2d_HostMemory.hpp>
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_Hdf5FieldFile.hpp>
#include <wave2d_TestFiles.hpp>

#include <gtest/gtest.h>

#if defined(WAVE2D_HAVE_HDF5)
#include <hdf5.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;

bool contains(std::string const& text, std::string const& part) {
  return text.find(part) != std::string::npos;
}

// A 7 x 5 checkpoint at step 9 with three receivers, every value its own.
CheckpointData small_checkpoint() {
  CheckpointData data;
  data.nx = 7;
  data.ny = 5;
  data.step = 9;
  data.scene_hash = 0x8000000000000001u;  // all 64 bits kept
  data.receivers_hash = 42;
  data.numerics = "wave2d test numerics";
  data.configuration = "a test";
  for (int i = 0; i < 35; ++i) {
    data.previous.push_back(float(i) / 8.0f);
    data.current.push_back(-float(i) / 16.0f);
  }
  data.receivers = 3;
  data.trace_first_step = 6;
  for (int i = 0; i < 4 * 3; ++i) data.trace.push_back(float(i) / 4.0f);
  return data;
}

class Hdf5Checkpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  }
  fs::path path(std::string const& name) const { return directory_.path() / name; }
  std::string refused(std::string const& name) const {
    return "checkpoint '" + path(name).string() + "' ";
  }

 private:
  TemporaryDirectory directory_;
};

TEST_F(Hdf5Checkpoint, ReadsBackAnyBlockOfWhatWasWritten) {
  CheckpointData const data = small_checkpoint();
  write_checkpoint(path("ck"), data);
  CheckpointData const whole = read_checkpoint(path("ck"));
  EXPECT_EQ(whole.previous, data.previous);
  EXPECT_EQ(whole.current, data.current);
  EXPECT_EQ(whole.trace, data.trace);
  EXPECT_EQ(whole.scene_hash, data.scene_hash);
  EXPECT_EQ(whole.receivers_hash, data.receivers_hash);
  EXPECT_EQ(whole.numerics, data.numerics);
  EXPECT_EQ(whole.configuration, data.configuration);
  EXPECT_EQ(whole.trace_first_step, 6);
  EXPECT_EQ(whole.step, 9);
  // Owned cells x 2..3, y 1..3 with a halo of 2: the local grid x 0..5, y 0..4.
  Window const window{7, 5, 2, 1, 2, 3, 2};
  CheckpointData const block = read_checkpoint(path("ck"), window, Processes());
  ASSERT_EQ(block.current.size(), std::size_t(window.local_cells()));
  for (std::int32_t y = 0; y < window.local_ny(); ++y) {
    for (std::int32_t x = 0; x < window.local_nx(); ++x) {
      std::size_t const global = std::size_t(window.origin_y() + y) * 7 + window.origin_x() + x;
      EXPECT_EQ(block.current[std::size_t(y * window.local_nx() + x)], data.current[global]);
      EXPECT_EQ(block.previous[std::size_t(y * window.local_nx() + x)], data.previous[global]);
    }
  }
  EXPECT_EQ(block.trace, data.trace);
  EXPECT_EQ(read_checkpoint_header(path("ck")).current.size(), 0u);
}

// HDF5 itself is not thread-safe (Debian's builds): every use of it holds one lock.
TEST_F(Hdf5Checkpoint, ThreadsWriteAndReadTheirOwnFilesAtOnce) {
  CheckpointData const data = small_checkpoint();
  Scene scene;
  scene.nx = data.nx;
  scene.ny = data.ny;
  scene.receivers = {{1, 1, "a"}, {2, 3, "b"}, {6, 4, "c"}};
  std::int32_t const columns[] = {0, 1, 2};
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < failures.size(); ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 25; ++i) {
          std::string const name = std::to_string(t) + "." + std::to_string(i);
          FieldFile fields(path(name + ".h5"), scene, Window::whole(data.nx, data.ny));
          for (std::int64_t step = 0; step < 3; ++step) fields.write_frame(step, data.current);
          fields.write_field(9, data.previous, data.current);
          fields.write_receivers(6, 4, columns, data.trace);
          fields.commit();
          write_checkpoint(path(name + ".ck"), data);
          CheckpointData const back = read_checkpoint(path(name + ".ck"));
          if (back.current != data.current || back.trace != data.trace) {
            throw std::runtime_error(name + ": read back other values");
          }
          EXPECT_TRUE(fs::exists(xdmf_path(path(name + ".h5"))));
        }
      } catch (std::exception const& e) {
        failures[t] = e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::string const& failure : failures) EXPECT_EQ(failure, "");
}

TEST_F(Hdf5Checkpoint, ACheckpointOfTheBinaryFormatIsRefusedSayingSo) {
  write_text(path("old"), std::string("WAVE2DCK\x02\x00\x00\x00", 12) + std::string(100, '\0'));
  EXPECT_EQ(refusal(path("old")).message,
            refused("old") +
                "is a checkpoint of format 2, from before checkpoints were HDF5 "
                "files: this wave2d " WAVE2D_VERSION
                " reads format 3 only (resume it with the wave2d that wrote it)");
}

TEST_F(Hdf5Checkpoint, FilesThatAreNoCheckpointAreRefused) {
  write_text(path("text"), "a text\n");
  EXPECT_EQ(refusal(path("text")).message, refused("text") + "is not a wave2d checkpoint");
  // The binary formats' first bytes, then text where their number would be.
  write_text(path("magic"), "WAVE2DCK garbage garbage");
  EXPECT_EQ(refusal(path("magic")).message, refused("magic") + "is not a wave2d checkpoint");
  EXPECT_EQ(refusal(path("missing")).message, refused("missing") + "does not exist");
  Scene scene;
  scene.nx = 4;
  scene.ny = 3;
  FieldFile fields(path("fields.h5"), scene, Window::whole(4, 3));
  fields.commit();
  EXPECT_EQ(refusal(path("fields.h5")).message,
            refused("fields.h5") + "is not a wave2d checkpoint");
  // 20 GB of zeros that are not there: HDF5 looks for its signature at a few offsets only.
  write_text(path("zeros"), "");
  if (::truncate(path("zeros").c_str(), off_t(20ull << 30)) != 0) {
    GTEST_SKIP() << "this file system holds no 20 GB sparse file";
  }
  Refusal const zeros = refusal(path("zeros"));
  EXPECT_EQ(zeros.message, refused("zeros") + "is not a wave2d checkpoint");
  EXPECT_LT(zeros.seconds, 0.5);
}

TEST_F(Hdf5Checkpoint, ATruncatedFileIsRefused) {
  write_checkpoint(path("ck"), small_checkpoint());
  std::string const bytes = read_file(path("ck"));
  write_text(path("truncated"), bytes.substr(0, bytes.size() - 100));
  EXPECT_TRUE(contains(refusal(path("truncated")).message,
                       refused("truncated") + "cannot be read: HDF5: truncated file"))
      << refusal(path("truncated")).message;
}

#if defined(WAVE2D_HAVE_HDF5)
// The file's attribute `name`, an int64, set to `value`.
void set_attribute(fs::path const& path, char const* name, std::int64_t value) {
  hid_t const file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t const attribute = H5Aopen(file, name, H5P_DEFAULT);
  ASSERT_GE(H5Awrite(attribute, H5T_NATIVE_INT64, &value), 0);
  H5Aclose(attribute);
  H5Fclose(file);
}

// A checkpoint of `data`'s header but an nx x ny grid, whose fields (chunked, none of their
// chunks written) take no room on disk: a file of a few kB that says it holds 8 nx ny bytes.
void write_sparse_checkpoint(fs::path const& path, CheckpointData data, std::int64_t nx,
                             std::int64_t ny, std::int64_t fields_nx = 0) {
  data.receivers = 0;
  data.trace.clear();
  write_checkpoint(path, data);
  hid_t const file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  for (char const* name : {"/field/previous", "/field/current"}) {
    ASSERT_GE(H5Ldelete(file, name, H5P_DEFAULT), 0);
    hsize_t const dims[2] = {hsize_t(ny), hsize_t(fields_nx > 0 ? fields_nx : nx)};
    hsize_t const chunk[2] = {std::min<hsize_t>(dims[0], 64), std::min<hsize_t>(dims[1], 64)};
    hid_t const space = H5Screate_simple(2, dims, nullptr);
    hid_t const create = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(create, 2, chunk);
    H5Pset_fletcher32(create);
    hid_t const set =
        H5Dcreate2(file, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, create, H5P_DEFAULT);
    ASSERT_GE(set, 0);
    H5Dclose(set);
    H5Pclose(create);
    H5Sclose(space);
  }
  H5Fclose(file);
  set_attribute(path, "nx", nx);
  set_attribute(path, "ny", ny);
}
#endif

TEST_F(Hdf5Checkpoint, AHeaderOfAHugeGridIsCheckedBeforeTheFieldsAreRead) {
#if defined(WAVE2D_HAVE_HDF5)
  write_sparse_checkpoint(path("large"), small_checkpoint(), 50000, 50000);
  EXPECT_LT(fs::file_size(path("large")), 1u << 20);
  std::int64_t seen_nx = 0;
  Refusal const another_scene = refusal(path("large"), [&](CheckpointData const& header) {
    seen_nx = header.nx;
    EXPECT_TRUE(header.previous.empty() && header.current.empty() && header.trace.empty());
    throw CheckpointError("of another scene");
  });
  EXPECT_EQ(another_scene.message, "of another scene");
  EXPECT_EQ(seen_nx, 50000);
  EXPECT_LT(another_scene.seconds, 0.5);
#endif
}

// Fields that need twice the host's available memory: refused before anything is allocated.
TEST_F(Hdf5Checkpoint, FieldsLargerThanMemoryAreRefusedBeforeTheyAreRead) {
#if defined(WAVE2D_HAVE_HDF5)
  auto const available = detail::host_available_bytes();
  if (!available) GTEST_SKIP() << "the host's available memory is unknown (no /proc/meminfo)";
  auto const n = std::int64_t(std::ceil(std::sqrt(*available / 4.0)));  // 8 n^2 = 2 available
  write_sparse_checkpoint(path("huge"), small_checkpoint(), n, n);
  Refusal const too_large = refusal(path("huge"));
  EXPECT_TRUE(contains(too_large.message, refused("huge") + "is too large: its " +
                                              std::to_string(n) + " x " + std::to_string(n) +
                                              " cells with the receivers' trace needs "))
      << too_large.message;
  EXPECT_LT(too_large.seconds, 0.5);
#endif
}

TEST_F(Hdf5Checkpoint, DatasetsOfAnotherSizeThanTheHeaderSaysAreRefused) {
#if defined(WAVE2D_HAVE_HDF5)
  write_sparse_checkpoint(path("wider"), small_checkpoint(), 7, 5, 8);
  EXPECT_EQ(
      refusal(path("wider")).message,
      refused("wider") + "is corrupted: /field/previous is 5 x 8 floats, its header says 5 x 7");
#endif
}

TEST_F(Hdf5Checkpoint, AnotherFormatVersionOrAnImpossibleHeaderIsRefused) {
#if defined(WAVE2D_HAVE_HDF5)
  write_checkpoint(path("v4"), small_checkpoint());
  set_attribute(path("v4"), "format_version", 4);
  EXPECT_EQ(refusal(path("v4")).message,
            refused("v4") + "has format version 4, this wave2d " WAVE2D_VERSION " reads version 3");
  write_checkpoint(path("first"), small_checkpoint());
  set_attribute(path("first"), "trace_first_step", 10);  // after the step
  EXPECT_EQ(refusal(path("first")).message, refused("first") + "is corrupted (impossible header)");
#endif
}

// A bit of the fields flipped on disk: Fletcher-32 of its chunk no longer matches.
TEST_F(Hdf5Checkpoint, AFlippedBitOfTheFieldsIsCaughtByItsChecksum) {
#if defined(WAVE2D_HAVE_HDF5)
  write_checkpoint(path("ck"), small_checkpoint());
  hid_t const file = H5Fopen(path("ck").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t const set = H5Dopen2(file, "/field/current", H5P_DEFAULT);
  hsize_t const chunk[2] = {0, 0};
  unsigned mask = 0;
  haddr_t address = 0;
  hsize_t size = 0;
  ASSERT_GE(H5Dget_chunk_info_by_coord(set, chunk, &mask, &address, &size), 0);
  H5Dclose(set);
  H5Fclose(file);
  std::string bytes = read_file(path("ck"));
  bytes[std::size_t(address) + 17] ^= 0x04;
  write_text(path("flipped"), bytes);
  EXPECT_TRUE(contains(refusal(path("flipped")).message,
                       refused("flipped") + "is corrupted (/field/current cannot be read back: "))
      << refusal(path("flipped")).message;
#endif
}

// A field chunk of small_checkpoint() as stored: the values, the checksum.
constexpr std::uint32_t small_field_chunk = 5 * 7 * sizeof(float) + 4;

// Where the index entry of a field's chunk starts in a checkpoint's bytes (a version 1
// B-tree node: "TREE", its header, then per chunk its stored size, its filter mask and its
// offsets, the last of them 0); npos when there is none.
std::size_t field_chunk_entry(std::string const& bytes) {
  for (auto at = bytes.find("TREE"); at != std::string::npos; at = bytes.find("TREE", at + 1)) {
    std::uint32_t size = 0;
    if (at + 64 <= bytes.size() && bytes[at + 4] == 1) std::memcpy(&size, &bytes[at + 24], 4);
    if (size == small_field_chunk) return at + 24;
  }
  return std::string::npos;
}

// A chunk's index entry that says the chunk skipped its checksum, or is shorter than
// written: HDF5 would read such a chunk unchecked, zeros past its end.
TEST_F(Hdf5Checkpoint, AChunkWhoseIndexEntryIsDamagedIsRefused) {
  write_checkpoint(path("ck"), small_checkpoint());
  std::string const bytes = read_file(path("ck"));
  std::size_t const entry = field_chunk_entry(bytes);
  ASSERT_NE(entry, std::string::npos) << "no index entry of a field's chunk found";
  for (std::uint32_t const shorter : {0u, 60u}) {
    std::string damaged = bytes;
    std::uint32_t const size = small_field_chunk - shorter;
    std::uint32_t const skipped_checksum = 1;
    std::memcpy(&damaged[entry], &size, 4);
    std::memcpy(&damaged[entry + 4], &skipped_checksum, 4);
    write_text(path("damaged"), damaged);
    std::string const message = refusal(path("damaged")).message;
    EXPECT_TRUE(contains(message, refused("damaged") + "is corrupted: /field/") &&
                contains(message, " has a damaged chunk at row 0, column 0"))
        << "the entry " << shorter << " bytes short: " << message;
  }
}

// The same entry's offsets (after the size and the mask: row, column, and a last one that
// is 0) damaged where the lookup by coordinates still finds the chunk but the read does not:
// the read gives the fill value, NaN, which no state may hold.
TEST_F(Hdf5Checkpoint, AChunkTheReadNoLongerFindsIsRefused) {
  write_checkpoint(path("ck"), small_checkpoint());
  std::string const bytes = read_file(path("ck"));
  std::size_t const entry = field_chunk_entry(bytes);
  ASSERT_NE(entry, std::string::npos) << "no index entry of a field's chunk found";
  std::string damaged = bytes;
  damaged[entry + 8 + 23] ^= 0x01;  // the last offset's highest byte
  write_text(path("damaged"), damaged);
  std::string const message = refusal(path("damaged")).message;
  EXPECT_TRUE(contains(message, refused("damaged") + "holds nan in u at step ")) << message;
}

TEST_F(Hdf5Checkpoint, RefusesValuesThatAreNotFiniteNamingTheirCellInTheGrid) {
  CheckpointData data = small_checkpoint();
  data.current[7 * 3 + 4] = std::numeric_limits<float>::quiet_NaN();
  write_checkpoint(path("nan"), data);
  std::string const message = ": no run can go on from a state that is not finite";
  EXPECT_EQ(refusal(path("nan")).message,
            refused("nan") + "holds nan in u at step 9, cell (4, 3)" + message);
  try {
    read_checkpoint(path("nan"), Window{7, 5, 3, 2, 3, 3, 1}, Processes());
    ADD_FAILURE() << "a block with the NaN was read";
  } catch (CheckpointError const& e) {
    EXPECT_EQ(e.what(), refused("nan") + "holds nan in u at step 9, cell (4, 3)" + message);
  }
}

// The fuzz target's corpus (tests/fuzz/corpus/checkpoint), inputs it found among them: each
// read whole or refused with a CheckpointError, nothing else thrown.
TEST_F(Hdf5Checkpoint, TheFuzzCorpusIsReadOrRefused) {
  std::vector<std::string> read;
  for (auto const& entry : fs::directory_iterator(WAVE2D_CHECKPOINT_CORPUS)) {
    try {
      CheckpointData const data = read_checkpoint(entry.path());
      EXPECT_EQ(data.current.size(), std::size_t(data.nx) * std::size_t(data.ny));
      read.push_back(entry.path().filename().string());
    } catch (CheckpointError const&) {
    }
  }
  std::ranges::sort(read);
  EXPECT_EQ(read, (std::vector<std::string>{"no-receivers.ck", "tiny.ck"}));
}

// A build without HDF5 or without xxHash refuses checkpoints, saying which it lacks.
TEST(Hdf5CheckpointUnavailable, IsRefusedWithTheReason) {
  if (can_checkpoint) GTEST_SKIP() << "this build has checkpoints: they are tested above";
#if defined(WAVE2D_HAVE_CHECKPOINTS)  // xxHash is there: HDF5 is not
  EXPECT_EQ(checkpoints_unavailable_reason(), no_hdf5_reason);
#elif defined(WAVE2D_HAVE_HDF5)
  EXPECT_EQ(checkpoints_unavailable_reason(),
            "this build of wave2d has no checkpoints (install libxxhash-dev and rebuild)");
#else  // both missing: both named
  EXPECT_EQ(checkpoints_unavailable_reason(),
            "this build of wave2d has no checkpoints (install libxxhash-dev and libhdf5-dev or "
            "libhdf5-openmpi-dev, and rebuild)");
#endif
  try {
    write_checkpoint("never", small_checkpoint());
    ADD_FAILURE() << "written";
  } catch (CheckpointError const& e) {
    EXPECT_TRUE(contains(e.what(), checkpoints_unavailable_reason())) << e.what();
  }
  EXPECT_FALSE(fs::exists("never"));
}

// A checkpoint's numerics name the backend and the space that wrote it (a resume that names
// neither takes them); a text not of that form names neither.
TEST(CheckpointNumerics, NameTheBackendAndTheSpace) {
  std::string const text = numerics_text("kokkos-tiled", "OpenMP");
  EXPECT_EQ(numerics_backend(text), "kokkos-tiled");
  EXPECT_EQ(numerics_space(text), "OpenMP");
  for (std::string_view other : {"wave2d 0.1.0, backend kokkos-tiled on", "backend x on y",
                                 "wave2d 0.1.0, backend kokkos-tiled off OpenMP, x", ""}) {
    EXPECT_EQ(numerics_space(other), std::nullopt) << other;
  }
}

}  // namespace
}  // namespace wave2d::test
