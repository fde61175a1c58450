// libFuzzer: any bytes as a scene file, next to a small PGM and PNG mask it may name.
// Refusing an input (SceneError) is fine; any other exception, a crash or a sanitizer
// report is a bug.
#include <wave2d/io/wave2d_SceneFile.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

std::filesystem::path const& directory() {
  static std::filesystem::path const path = [] {
    std::string name = (std::filesystem::temp_directory_path() / "wave2d-fuzz-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) std::abort();
    std::ofstream(std::filesystem::path(name) / "mask.pgm", std::ios::binary)
        << "P2\n4 3\n1\n1 0 1 1\n1 1 0 1\n0 1 1 1\n";
    return std::filesystem::path(name);
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  auto const file = directory() / "scene.toml";
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<char const*>(data), std::streamsize(size));
  // As a program would: no grid beyond a million cells is built.
  wave2d::SceneFileOptions const options{.check_grid = [](std::int32_t nx, std::int32_t ny) {
    if (std::int64_t(nx) * ny > (1 << 20)) throw wave2d::SceneError("grid too large");
  }};
  try {
    wave2d::Scene const scene = wave2d::load_scene_file(file, options);
    wave2d::validate(scene, {.allow_unstable = true});
  } catch (wave2d::SceneError const&) {
  }
  return 0;
}
