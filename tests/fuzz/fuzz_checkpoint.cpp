// libFuzzer: any bytes as a checkpoint. Refusing an input (CheckpointError) is fine; any
// other exception, a crash, a sanitizer report or a checkpoint read back inconsistent is a
// bug. The corpus: a tiny checkpoint (4 x 3, two receivers) and one without receivers, as
// wave2d::write_checkpoint writes them, and mutations of it (truncated, its header alone,
// format 1, a bit flipped, a NaN with a valid checksum).
#include <wave2d/io/wave2d_Checkpoint.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

bool all_finite(std::vector<float> const& values) {
  for (float value : values) {
    if (!std::isfinite(value)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  static std::filesystem::path const file = [] {
    std::string name = (std::filesystem::temp_directory_path() / "wave2d-fuzz-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) std::abort();
    return std::filesystem::path(name) / "checkpoint";
  }();
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<char const*>(data), std::streamsize(size));
  try {
    // Sized by its header before its fields are read: never more than the file holds.
    wave2d::CheckpointData const read = wave2d::read_checkpoint(file);
    auto const cells = std::size_t(read.nx) * std::size_t(read.ny);
    if (read.previous.size() != cells || read.current.size() != cells ||
        read.trace.size() != std::size_t(read.trace_rows()) * read.receivers ||
        !all_finite(read.previous) || !all_finite(read.current) || !all_finite(read.trace)) {
      std::abort();
    }
  } catch (wave2d::CheckpointError const&) {
  }
  return 0;
}
