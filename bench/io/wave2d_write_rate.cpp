// The rate at which a run's final pair of fields reaches the disk: as --save-h5 writes it
// (FieldFile, HDF5), as --save-npy writes it, and as a plain write of the same bytes with a
// sync, each the median of several writes, in GB/s of the 8 nx ny bytes. Host memory to
// file only: a GPU run adds its copy to the host (about 8 nx ny bytes at the link's rate).
//   wave2d_write_rate [--size N] [--repetitions R] [--directory DIR]
#include <wave2d/io/wave2d_Hdf5FieldFile.hpp>
#include <wave2d/io/wave2d_Output.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

double median_seconds(int repetitions, std::function<void()> const& write) {
  std::vector<double> seconds;
  for (int r = 0; r < repetitions; ++r) {
    auto const start = std::chrono::steady_clock::now();
    write();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return seconds[seconds.size() / 2];
}

// The bytes with write(2) and an fsync: what the disk itself allows.
void plain_write(fs::path const& path, std::vector<float> const& a, std::vector<float> const& b) {
  int const fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + path.string());
  for (auto const* field : {&a, &b}) {
    auto const* bytes = reinterpret_cast<char const*>(field->data());
    std::size_t left = field->size() * sizeof(float);
    while (left > 0) {
      ssize_t const written = ::write(fd, bytes, left);
      if (written <= 0) throw std::runtime_error("cannot write " + path.string());
      bytes += written;
      left -= std::size_t(written);
    }
  }
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

int main(int argc, char* argv[]) {
  std::int32_t n = 4096;
  int repetitions = 5;
  fs::path directory = ".";
  char const* const usage =
      "usage: wave2d_write_rate [--size N] [--repetitions R] [--directory DIR]\n"
      "  writes N x N pairs (default 4096) R times (default 5) in DIR (default .)\n";
  for (int i = 1; i < argc; i += 2) {
    std::string const key = argv[i];
    if (key == "--help" || key == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (i + 1 == argc) {
      std::fprintf(stderr, "%s needs a value\n%s", key.c_str(), usage);
      return 2;
    }
    try {
      if (key == "--size")
        n = std::stoi(argv[i + 1]);
      else if (key == "--repetitions")
        repetitions = std::stoi(argv[i + 1]);
      else if (key == "--directory")
        directory = argv[i + 1];
      else {
        std::fprintf(stderr, "unknown argument %s\n%s", key.c_str(), usage);
        return 2;
      }
    } catch (std::exception const&) {
      std::fprintf(stderr, "%s: not a number: %s\n", key.c_str(), argv[i + 1]);
      return 2;
    }
    if (n < 1 || repetitions < 1) {
      std::fprintf(stderr, "%s must be at least 1\n", key.c_str());
      return 2;
    }
  }
  wave2d::Scene scene;
  scene.name = "write rate";
  scene.nx = scene.ny = n;
  std::vector<float> previous(std::size_t(n) * n), current(previous.size());
  for (std::size_t i = 0; i < previous.size(); ++i) {
    previous[i] = float(i % 1000) / 1000.0f;
    current[i] = -previous[i];
  }
  double const gigabytes = 8.0 * double(n) * double(n) / 1e9;
  struct Way {
    char const* name;
    fs::path file;
    std::function<void(fs::path const&)> write;
  };
  std::vector<Way> const ways = {
      {"plain write + fsync", directory / "rate.raw",
       [&](fs::path const& path) { plain_write(path, previous, current); }},
      {"--save-npy", directory / "rate.npy",
       [&](fs::path const& path) { wave2d::write_npy(path, previous, current, n, n); }},
      {"--save-h5", directory / "rate.h5", [&](fs::path const& path) {
         wave2d::FieldFile file(path, scene, wave2d::Window::whole(n, n));
         file.write_field(0, previous, current);
         file.commit();
       }}};
  std::printf("%d x %d cells, %.3f GB a write, median of %d\n", n, n, gigabytes, repetitions);
  for (auto const& way : ways) {
    double const seconds = median_seconds(repetitions, [&] { way.write(way.file); });
    std::printf("%-20s %8.3f s  %7.2f GB/s\n", way.name, seconds, gigabytes / seconds);
    fs::remove(way.file);
    fs::remove(wave2d::xdmf_path(way.file));
  }
  return 0;
}
