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

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(FileDescriptor const&) = delete;
  FileDescriptor& operator=(FileDescriptor const&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

void check_host_memory(std::filesystem::path const& path, std::string_view what, double bytes) {
  // A size_t must also hold it: beyond that no allocation can even be asked for.
  bool const too_large = bytes > double(std::numeric_limits<std::ptrdiff_t>::max());
  auto const available = host_available_bytes();
  if (too_large || (available && bytes > *available)) {
    fail(path, std::string(what) + " needs " + human_bytes(bytes) + " of memory, more than the " +
                   (available ? human_bytes(*available) : std::string("address space")) +
                   " available");
  }
}

std::string read_input_file(std::filesystem::path const& path, std::string_view kind,
                            std::uint64_t max_bytes) {
  // Non-blocking: opening a FIFO must not wait for a writer before it is refused.
  FileDescriptor const file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (file.get() < 0) {
    fail(path, errno == ENOENT
                   ? "no such " + std::string(kind)
                   : "cannot open the " + std::string(kind) + ": " + std::strerror(errno));
  }
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) fail(path, std::strerror(errno));
  std::string const a_kind =
      (std::string_view("aeiou").find(kind.front()) != std::string_view::npos ? "an " : "a ") +
      std::string(kind);
  if (S_ISDIR(status.st_mode)) fail(path, "is a directory, not " + a_kind);
  if (!S_ISREG(status.st_mode)) {
    fail(path, "is not a regular file (a device, FIFO or socket), so not " + a_kind);
  }
  auto const size = std::uint64_t(status.st_size);
  if (size > max_bytes) {
    fail(path, "the " + std::string(kind) + " has " + std::to_string(size) +
                   " bytes, more than the " + std::to_string(max_bytes) + " allowed");
  }
  std::string bytes(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    ssize_t const n = ::read(file.get(), bytes.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot read the " + std::string(kind) + ": " + std::strerror(errno));
    if (n == 0) break;  // shrunk while read
    done += std::size_t(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace wave2d::detail
