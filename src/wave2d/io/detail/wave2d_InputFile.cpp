#include <wave2d/io/detail/wave2d_InputFile.hpp>

#include <wave2d/core/detail/wave2d_HostMemory.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>

#include <cerrno>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wave2d::detail {

namespace {

[[noreturn]] void fail(std::filesystem::path const& path, std::string const& problem) {
  throw SceneError(path.string() + ": " + problem);
}

}  // namespace

InputFile::InputFile(std::filesystem::path const& path, std::string_view kind) : kind_(kind) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    if (errno == ENOENT) throw InputFileError("no such " + kind_, true);
    throw InputFileError("cannot open the " + kind_ + ": " + std::strerror(errno), false);
  }
  struct stat status {};
  std::string problem;
  if (::fstat(fd_, &status) != 0) {
    problem = std::strerror(errno);
  } else if (!S_ISREG(status.st_mode)) {
    std::string const a_kind =
        (std::string_view("aeiou").find(kind.front()) != std::string_view::npos ? "an " : "a ") +
        kind_;
    problem = S_ISDIR(status.st_mode)
                  ? "is a directory, not " + a_kind
                  : "is not a regular file (a device, FIFO or socket), so not " + a_kind;
  }
  if (!problem.empty()) {
    ::close(fd_);
    throw InputFileError(problem, false);
  }
  size_ = std::uint64_t(status.st_size);
}

InputFile::~InputFile() { ::close(fd_); }

std::size_t InputFile::read(void* data, std::size_t count) {
  auto* bytes = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < count) {
    ssize_t const n = ::read(fd_, bytes + done, count - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw InputFileError("cannot read the " + kind_ + ": " + std::strerror(errno), false);
    }
    if (n == 0) break;
    done += std::size_t(n);
  }
  return done;
}

std::optional<std::string> host_memory_shortfall(std::string_view what, double bytes) {
  // A size_t must also hold it: beyond that no allocation can even be asked for.
  bool const too_large = bytes > double(std::numeric_limits<std::ptrdiff_t>::max());
  auto const available = host_available_bytes();
  if (!too_large && !(available && bytes > *available)) return std::nullopt;
  auto const [needed, had] = human_bytes_apart(bytes, available.value_or(0.0));
  return std::string(what) + " needs " + needed + " of memory, more than the " +
         (available ? had : std::string("address space")) + " available";
}

void check_host_memory(std::filesystem::path const& path, std::string_view what, double bytes) {
  if (auto const shortfall = host_memory_shortfall(what, bytes)) fail(path, *shortfall);
}

std::string read_input_file(std::filesystem::path const& path, std::string_view kind,
                            std::uint64_t max_bytes) {
  try {
    InputFile file(path, kind);
    if (file.size() > max_bytes) {
      fail(path, "the " + std::string(kind) + " has " + std::to_string(file.size()) +
                     " bytes, more than the " + std::to_string(max_bytes) + " allowed");
    }
    std::string bytes(file.size(), '\0');
    bytes.resize(file.read(bytes.data(), bytes.size()));  // shorter if it shrank meanwhile
    return bytes;
  } catch (InputFileError const& e) {
    fail(path, e.what());
  }
}

}  // namespace wave2d::detail
