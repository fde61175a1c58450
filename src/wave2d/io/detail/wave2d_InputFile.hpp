// Reading input files with bounds: regular files only, their size known before a byte is
// read, so that a device, a FIFO or a huge file cannot make a reader hang or exhaust
// memory. Plain C++: no Kokkos.
#ifndef WAVE2D_IO_INPUT_FILE_HPP
#define WAVE2D_IO_INPUT_FILE_HPP

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace wave2d::detail {

// Why an input file cannot be read: a phrase to follow its path ("is a directory, not a
// scene file"). missing(): there is no such file.
class InputFileError : public std::runtime_error {
 public:
  InputFileError(std::string const& problem, bool missing)
      : std::runtime_error(problem), missing_(missing) {}
  bool missing() const { return missing_; }

 private:
  bool missing_;
};

// A regular file open for reading. Opened without blocking, so that a FIFO is refused
// rather than waited on. Throws InputFileError; `kind` names the file in its phrases.
class InputFile {
 public:
  InputFile(std::filesystem::path const& path, std::string_view kind);
  ~InputFile();
  InputFile(InputFile const&) = delete;
  InputFile& operator=(InputFile const&) = delete;

  // Its size when it was opened.
  std::uint64_t size() const { return size_; }
  // Reads the next `count` bytes into `data`: fewer only where the file ends first.
  std::size_t read(void* data, std::size_t count);

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string kind_;
};

// "<what> needs 1.5 GiB of memory, more than the 1 GiB available" when `bytes` cannot be
// allocated on the host (nor held by a size_t); nothing when they can.
std::optional<std::string> host_memory_shortfall(std::string_view what, double bytes);

// Throws SceneError("<path>: " + the shortfall) when `bytes` cannot be allocated.
void check_host_memory(std::filesystem::path const& path, std::string_view what, double bytes);

// The whole file, which must be a regular file of at most `max_bytes`; `kind` names it in
// errors ("scene file"). Throws SceneError naming the path and the problem.
std::string read_input_file(std::filesystem::path const& path, std::string_view kind,
                            std::uint64_t max_bytes);

}  // namespace wave2d::detail

#endif
