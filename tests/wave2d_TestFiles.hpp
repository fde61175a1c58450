// Files for the tests of output: a fresh directory per test, and reading files back.
#ifndef WAVE2D_TEST_FILES_HPP
#define WAVE2D_TEST_FILES_HPP

#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/wave2d_Config.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace wave2d::test {

// The optional features of this build: the tests of one it left out skip, saying so.
inline constexpr bool has_scene_files =
#if defined(WAVE2D_HAVE_SCENE_FILES)
    true;
#else
    false;
#endif
inline constexpr bool has_libpng =
#if defined(WAVE2D_HAVE_PNG)
    true;
#else
    false;
#endif
inline constexpr char const* without_toml =
    "built without toml++ (libtomlplusplus-dev): no scene files";
inline constexpr char const* without_libpng = "built without libpng (libpng-dev): no PNG images";

// A new empty directory, removed with all it holds when the object goes.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string name = (std::filesystem::temp_directory_path() / "wave2d-test-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = name;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(TemporaryDirectory const&) = delete;
  TemporaryDirectory& operator=(TemporaryDirectory const&) = delete;

  std::filesystem::path const& path() const { return path_; }

  // Everything inside, hidden files included, as sorted relative paths ("o", "o/a.png").
  std::vector<std::string> contents() const {
    std::vector<std::string> names;
    for (auto const& entry : std::filesystem::recursive_directory_iterator(path_)) {
      names.push_back(std::filesystem::relative(entry.path(), path_).string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_text(std::filesystem::path const& path, std::string const& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The parts of a NumPy .npy v1.0 file, as read back by hand.
struct Npy {
  std::string header;       // the dict, padding and '\n' included
  std::vector<float> data;  // everything after the header
};

inline Npy parse_npy(std::string const& bytes) {
  Npy npy;
  EXPECT_GE(bytes.size(), 10u);
  if (bytes.size() < 10) return npy;
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  std::size_t const length = std::size_t(static_cast<unsigned char>(bytes[8])) |
                             std::size_t(static_cast<unsigned char>(bytes[9])) << 8;
  EXPECT_EQ((10 + length) % 64, 0u) << "the data must start on a multiple of 64 bytes";
  EXPECT_LE(10 + length, bytes.size());
  if (10 + length > bytes.size()) return npy;
  npy.header = bytes.substr(10, length);
  EXPECT_EQ(npy.header.back(), '\n');
  std::string const payload = bytes.substr(10 + length);
  EXPECT_EQ(payload.size() % sizeof(float), 0u);
  npy.data.resize(payload.size() / sizeof(float));
  std::memcpy(npy.data.data(), payload.data(), npy.data.size() * sizeof(float));
  return npy;
}

// read_checkpoint's error ("no error" when it reads the file), and how long it took to give it.
struct Refusal {
  std::string message;
  double seconds = 0.0;
};

inline Refusal refusal(std::filesystem::path const& path,
                       std::function<void(CheckpointData const&)> const& check_header = {}) {
  auto const start = std::chrono::steady_clock::now();
  std::string message = "no error";
  try {
    read_checkpoint(path, check_header);
  } catch (CheckpointError const& e) {
    message = e.what();
  }
  return {message, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

}  // namespace wave2d::test

#endif
