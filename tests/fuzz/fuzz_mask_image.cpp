// libFuzzer: any bytes as a mask image (PGM or PNG). Refusing an input (SceneError) is
// fine; any other exception, a crash or a sanitizer report is a bug.
#include <wave2d/io/wave2d_MaskImage.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  static std::filesystem::path const file = [] {
    std::string name = (std::filesystem::temp_directory_path() / "wave2d-fuzz-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) std::abort();
    return std::filesystem::path(name) / "mask";
  }();
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<char const*>(data), std::streamsize(size));
  try {
    // As the loader does: the header first, the pixels only for a size worth decoding.
    wave2d::MaskSize const mask_size = wave2d::read_mask_size(file);
    if (std::int64_t(mask_size.width) * mask_size.height > (1 << 22)) return 0;
    wave2d::MaskImage const image = wave2d::read_mask_image(file);
    if (image.dark.size() != std::size_t(image.width) * std::size_t(image.height)) std::abort();
  } catch (wave2d::SceneError const&) {
  }
  return 0;
}
