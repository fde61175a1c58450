#include <wave2d/io/wave2d_Output.hpp>

#include <wave2d/io/detail/wave2d_DigitFont.hpp>
#include <wave2d/io/detail/wave2d_Utf8.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <system_error>

#include <wave2d/core/wave2d_Processes.hpp>

#include <climits>
#include <csignal>

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(WAVE2D_HAVE_PNG)
#include <csetjmp>

#include <png.h>
#endif

namespace wave2d {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(fs::path const& path, std::string const& reason) {
  throw OutputError("cannot write '" + path.string() + "': " + reason);
}

std::string describe_errno() { return errno != 0 ? std::strerror(errno) : "input/output error"; }

// The temporary files being written, for the signal handler: fixed storage, written
// before a file is created and cleared after it is renamed or removed.
constexpr std::size_t temporary_slots = 8;
char temporary_names[temporary_slots][PATH_MAX];
std::atomic<bool> temporary_used[temporary_slots];

// The program the process runs meanwhile (ffmpeg), for the signal handler; 0 when none,
// starting while it is being started.
constexpr pid_t starting = -1;
std::atomic<pid_t> running_child{0};

// Async-signal-safe: nanosleep, kill, unlink, signal and raise only.
extern "C" void remove_temporaries_and_reraise(int signal_number) {
  // A program being started is named in a moment (its thread holds this signal back): wait.
  for (int wait = 0; wait < 100 && running_child.load() == starting; ++wait) {
    timespec const millisecond{0, 1000000};
    ::nanosleep(&millisecond, nullptr);
  }
  if (pid_t const child = running_child.load(); child > 0) ::kill(child, SIGTERM);
  for (std::size_t i = 0; i < temporary_slots; ++i) {
    if (temporary_used[i].load()) ::unlink(temporary_names[i]);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// Every name of `target` and of its temporary within NAME_MAX of `folder`, the whole
// within PATH_MAX: found now, not when the run ends and the temporary is made.
void check_name_lengths(fs::path const& path, fs::path const& target, fs::path const& folder) {
  long name_max = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  fs::path const temporary = temporary_path(target);
  for (auto const& name : temporary) {
    if (name.native().size() > std::size_t(name_max)) {
      fail(path, "the name '" + name.string() + "'" +
                     (name == temporary.filename() ? " of its temporary" : "") +
                     " is longer than the " + std::to_string(name_max) + " bytes a name may have");
    }
  }
  if (fs::absolute(temporary).native().size() >= PATH_MAX) {
    fail(path,
         "its path is longer than the " + std::to_string(PATH_MAX) + " bytes a path may have");
  }
}

// What chattr +i or +a says of a file or folder: nothing can replace it (or, for a folder,
// nothing in it). Empty where the file system keeps no such flags or they cannot be read.
std::string replacement_forbidden_by_flags(fs::path const& path) {
  int const fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  int flags = 0;
  int const got = ::ioctl(fd, FS_IOC_GETFLAGS, &flags);
  ::close(fd);
  if (got != 0) return {};
  if (flags & FS_IMMUTABLE_FL) return "immutable (chattr +i)";
  if (flags & FS_APPEND_FL) return "append-only (chattr +a)";
  return {};
}

bool has_effective_capability(int capability) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capget, &header, data) != 0) return ::geteuid() == 0;
  return (data[capability / 32].effective >> (capability % 32)) & 1u;
}

// The kernel's rule for removing or replacing a name in a sticky folder (/tmp): only the
// file's owner, the folder's or a CAP_FOWNER process may. A probe cannot try it without
// replacing the file, so the rule is applied as the kernel does.
void check_sticky_folder(fs::path const& path, fs::path const& target, fs::path const& folder) {
  struct stat folder_status {};
  struct stat target_status {};
  if (::stat(folder.c_str(), &folder_status) != 0 || !(folder_status.st_mode & S_ISVTX)) return;
  if (::lstat(target.c_str(), &target_status) != 0) return;  // nothing to replace
  uid_t const user = ::geteuid();
  if (target_status.st_uid == user || folder_status.st_uid == user ||
      has_effective_capability(CAP_FOWNER)) {
    return;
  }
  fail(path, "it belongs to another user (uid " + std::to_string(target_status.st_uid) +
                 ") in the sticky folder '" + folder.string() +
                 "', where only they can replace it");
}

// Creates `temporary`, renames it to a name as long and removes it: what a write will do
// in `folder`, short of replacing its target. Why it could not, when it could not.
std::optional<std::string> try_create_and_rename(fs::path const& temporary,
                                                 fs::path const& folder) {
  fs::path const renamed = fs::path(temporary).replace_extension(".new");
  RegisteredTemporary const registered(temporary);
  RegisteredTemporary const registered_renamed(renamed);
  int const fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::string const reason = describe_errno();
    return "cannot create files in '" + folder.string() + "': " + reason;
  }
  if (::close(fd) != 0) {  // a disk that fails a file of nothing fails the outputs too
    std::string const reason = describe_errno();
    ::unlink(temporary.c_str());
    return "cannot create files in '" + folder.string() + "': " + reason;
  }
  if (::rename(temporary.c_str(), renamed.c_str()) != 0) {
    std::string const reason = describe_errno();
    ::unlink(temporary.c_str());
    return "cannot rename files in '" + folder.string() + "': " + reason;
  }
  ::unlink(renamed.c_str());
  return std::nullopt;
}

// The textbook's colour map, saturating at |u| = scale: red above 0, blue below, white at
// 0. fmin saturates the NaN of an unstable run too.

void check_scale(float scale, char const* function) {
  if (!(scale > 0.0f) || !std::isfinite(scale)) {
    throw std::invalid_argument(std::string(function) +
                                ": the scale must be positive and finite, got " +
                                std::to_string(scale));
  }
}

std::size_t cells_of(std::int32_t nx, std::int32_t ny, char const* function) {
  if (nx <= 0 || ny <= 0) {
    throw std::invalid_argument(std::string(function) + ": the size must be positive, got " +
                                std::to_string(nx) + " x " + std::to_string(ny));
  }
  return std::size_t(nx) * std::size_t(ny);
}

void check_size(std::size_t size, std::size_t expected, char const* function, char const* what) {
  if (size != expected) {
    throw std::invalid_argument(std::string(function) + ": " + what + " has " +
                                std::to_string(size) + " values, expected " +
                                std::to_string(expected));
  }
}

#if defined(WAVE2D_HAVE_PNG)
using PngMessage = std::array<char, 256>;

// libpng reports errors by longjmp: keep the message and jump back to encode_png.
void on_png_error(png_structp png, png_const_charp message) {
  auto& kept = *static_cast<PngMessage*>(png_get_error_ptr(png));
  std::strncpy(kept.data(), message, kept.size() - 1);
  png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

// Stream failures are not reported here: write_stream_atomically checks the stream.
void write_to_stream(png_structp png, png_bytep data, png_size_t size) {
  static_cast<std::ostream*>(png_get_io_ptr(png))
      ->write(reinterpret_cast<char const*>(data), std::streamsize(size));
}

void flush_stream(png_structp png) { static_cast<std::ostream*>(png_get_io_ptr(png))->flush(); }

// `text` for an iTXt chunk: UTF-8, with U+FFFD for what is no UTF-8 and for control
// characters but line feeds.
std::string png_utf8_text(std::string_view text) {
  std::string utf8;
  for (std::size_t at = 0; at < text.size();) {
    auto const c = detail::utf8_char_at(text, at);
    bool const control = c && (c->code < 0x20 || (c->code >= 0x7f && c->code < 0xa0));
    if (c && (!control || c->code == '\n')) {
      utf8.append(text.substr(at, c->length));
    } else {
      utf8 += "\xef\xbf\xbd";
    }
    at += c ? c->length : 1;
  }
  return utf8;
}

// Holds no object with a destructor, so that libpng's longjmp skips none. Returns
// false, with libpng's message in `error`, when libpng fails.
bool encode_png(std::ostream& out, std::uint8_t const* rgb, png_uint_32 width, png_uint_32 height,
                png_text* text, int text_count, PngMessage& error) {
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &out, write_to_stream, flush_stream);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (text_count > 0) png_set_text(png, info, text, text_count);
  png_write_info(png, info);
  for (png_uint_32 y = 0; y < height; ++y) {
    png_write_row(png, rgb + std::size_t(y) * width * 3);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}
#endif

}  // namespace

RegisteredTemporary::RegisteredTemporary(fs::path const& path) : slot_(temporary_slots) {
  std::string const name = fs::absolute(path).string();
  for (std::size_t i = 0; i < temporary_slots && name.size() < PATH_MAX; ++i) {
    if (temporary_used[i].load()) continue;
    std::memcpy(temporary_names[i], name.c_str(), name.size() + 1);
    temporary_used[i].store(true);
    slot_ = i;
    return;
  }
}

RegisteredTemporary::~RegisteredTemporary() {
  if (slot_ < temporary_slots) temporary_used[slot_].store(false);
}

RegisteredChild::RegisteredChild() {
  sigset_t every;
  sigfillset(&every);
  ::pthread_sigmask(SIG_BLOCK, &every, &held_);
  running_child.store(starting);
}

RegisteredChild::~RegisteredChild() {
  release();
  if (holding_) ::pthread_sigmask(SIG_SETMASK, &held_, nullptr);
}

void RegisteredChild::started(pid_t pid) {
  running_child.store(pid);
  ::pthread_sigmask(SIG_SETMASK, &held_, nullptr);
  holding_ = false;
}

void RegisteredChild::release() { running_child.store(0); }

void detail::paint(float value, float scale, std::uint8_t* pixel) {
  auto const fade = std::uint8_t(255.0f - std::fmin(std::fabs(value) / scale * 255.0f, 255.0f));
  pixel[0] = value > 0.0f ? 255 : fade;
  pixel[1] = fade;
  pixel[2] = value > 0.0f ? fade : 255;
}

OutputTarget output_target(fs::path const& path) {
  // As the kernel resolves a path: at most 40 links.
  fs::path target = path;
  std::error_code error;
  for (int links = 0; fs::is_symlink(fs::symlink_status(target, error)); ++links) {
    if (links == 40) fail(path, "too many levels of symbolic links");
    fs::path const next = fs::read_symlink(target, error);
    if (error) fail(path, error.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  auto const status = fs::status(target, error);
  switch (status.type()) {
    case fs::file_type::not_found:
    case fs::file_type::regular: return {target, false};
    case fs::file_type::character: return {target, true};
    case fs::file_type::directory: fail(path, "it is a directory");
    // Opening a FIFO waits for a reader, maybe forever, and the run would be lost.
    case fs::file_type::fifo: fail(path, "it is a FIFO, which wave2d does not write to");
    case fs::file_type::block: fail(path, "it is a block device, which wave2d never writes");
    // The path itself cannot be looked up: a name too long, a loop of links, a file as a folder.
    case fs::file_type::none: fail(path, error.message());
    default: fail(path, "it is not a regular file, a character device nor a FIFO");
  }
}

fs::path temporary_path(fs::path const& target) {
  return target.parent_path() /
         ("." + target.filename().string() + "." + std::to_string(::getpid()) + ".tmp");
}

void probe_output(fs::path const& path) {
  if (path.empty()) fail(path, "the path is empty");
  OutputTarget const target = output_target(path);
  if (target.write_through) {
    // A device is opened as the write will (/dev/tty without a terminal cannot be).
    int const fd = ::open(target.path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) fail(path, describe_errno());
    ::close(fd);
    return;
  }
  if (!target.path.has_filename()) fail(path, "it is a directory");
  fs::path const folder = target.path.has_parent_path() ? target.path.parent_path() : ".";
  std::error_code error;
  auto const folder_type = fs::status(folder, error).type();
  if (folder_type == fs::file_type::not_found) {
    fail(path, "the folder '" + folder.string() + "' does not exist");
  }
  if (folder_type != fs::file_type::directory) {
    fail(path, "'" + folder.string() + "' is not a directory");
  }
  check_name_lengths(path, target.path, folder);
  if (auto const flags = replacement_forbidden_by_flags(folder); !flags.empty()) {
    fail(path, "the folder '" + folder.string() + "' is " + flags);
  }
  if (fs::exists(fs::symlink_status(target.path, error))) {
    if (auto const flags = replacement_forbidden_by_flags(target.path); !flags.empty()) {
      fail(path, "it is " + flags + ", so it cannot be replaced");
    }
    check_sticky_folder(path, target.path, folder);
  }
  if (auto const reason = try_create_and_rename(temporary_path(target.path), folder)) {
    fail(path, *reason);
  }
}

void probe_new_folder(fs::path const& folder) {
  auto const fail_to_make = [&](std::string const& reason) {
    throw OutputError("cannot make the folder '" + folder.string() + "': " + reason);
  };
  fs::path const made = folder.has_filename() ? folder : folder.parent_path();  // "o/"
  fs::path const parent = made.has_parent_path() ? made.parent_path() : ".";
  std::error_code error;
  auto const parent_type = fs::status(parent, error).type();
  if (parent_type == fs::file_type::not_found) {
    fail_to_make("the folder '" + parent.string() + "' does not exist");
  }
  if (parent_type != fs::file_type::directory) {
    fail_to_make("'" + parent.string() + "' is not a directory");
  }
  long name_max = ::pathconf(parent.c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  if (made.filename().native().size() > std::size_t(name_max)) {
    fail_to_make("the name '" + made.filename().string() + "' is longer than the " +
                 std::to_string(name_max) + " bytes a name may have");
  }
  // An append-only folder would keep the probe's own.
  if (auto const flags = replacement_forbidden_by_flags(parent); !flags.empty()) {
    fail_to_make("the folder '" + parent.string() + "' is " + flags);
  }
  char host[65] = "";
  ::gethostname(host, sizeof(host) - 1);
  fs::path const probe =
      parent / (".wave2d-probe." + std::string(host) + "." + std::to_string(::getpid()));
  if (::mkdir(probe.c_str(), 0700) != 0) fail_to_make(describe_errno());
  auto const reason = try_create_and_rename(probe / ".probe.tmp", parent);
  ::rmdir(probe.c_str());
  if (reason) fail_to_make(*reason);
}

void check_output_name_lengths(fs::path const& path, fs::path const& folder) {
  check_name_lengths(path, path, folder);
}

void remove_temporary_files_on_signals() {
  // Every signal that ends a process by default and can be caught (SIGPIPE and SIGXFSZ
  // too, where a program has not chosen to ignore them).
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
                            SIGPROF, SIGXCPU, SIGXFSZ, SIGPIPE}) {
    // A signal the parent set to be ignored (SIGINT of a shell's background job) stays so.
    if (std::signal(signal_number, remove_temporaries_and_reraise) == SIG_IGN) {
      std::signal(signal_number, SIG_IGN);
    }
  }
}

void write_file_atomically(fs::path const& path,
                           std::function<void(fs::path const& temporary)> const& write) {
  OutputTarget const target = output_target(path);
  if (target.write_through) {
    write(target.path);
    return;
  }
  auto const temporary = temporary_path(target.path);
  RegisteredTemporary const registered(temporary);
  try {
    write(temporary);
    std::error_code error;
    fs::rename(temporary, target.path, error);
    if (error) fail(path, error.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

namespace {

// A file's data on disk: a rename then never shows an empty or partial file after a crash.
void sync(fs::path const& file, fs::path const& named) {
  int const fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (::fsync(fd) != 0 && errno != EINVAL)) {  // EINVAL: a device
    std::string const reason = describe_errno();
    if (fd >= 0) ::close(fd);
    fail(named, reason);
  }
  ::close(fd);
}

// Fills `written` (a temporary of `path`, synced, or its target written through) by `write`.
void fill(fs::path const& path, fs::path const& written, bool through,
          std::function<void(std::ostream& out)> const& write) {
  errno = 0;
  std::ofstream out(written, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, describe_errno());
  write(out);
  out.flush();
  if (!out) fail(path, describe_errno());
  out.close();
  if (!out) fail(path, describe_errno());
  if (!through) sync(written, path);
}

}  // namespace

void write_stream_atomically(fs::path const& path,
                             std::function<void(std::ostream& out)> const& write) {
  StreamFile const file{path, write};
  write_streams_atomically(std::span(&file, 1));
}

void write_streams_atomically(std::span<StreamFile const> files) {
  std::vector<OutputTarget> targets;
  std::vector<fs::path> temporaries(files.size());  // none for a target written through
  std::deque<RegisteredTemporary> registered;
  std::vector<detail::SetAside> earlier;
  std::vector<std::size_t> renamed;
  try {
    for (std::size_t i = 0; i < files.size(); ++i) {
      targets.push_back(output_target(files[i].path));
      if (targets[i].write_through) continue;
      temporaries[i] = temporary_path(targets[i].path);
      registered.emplace_back(temporaries[i]);
      fill(files[i].path, temporaries[i], false, files[i].write);
    }
    // Of a set, the earlier files wait aside while the new ones take their names: no moment
    // shows files of two runs side by side. One file replaces its predecessor at once.
    for (std::size_t i = 0; files.size() > 1 && i < files.size(); ++i) {
      if (auto aside = detail::set_aside(files[i].path)) earlier.push_back(*aside);
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (targets[i].write_through) {
        fill(files[i].path, targets[i].path, true, files[i].write);
      } else if (::rename(temporaries[i].c_str(), targets[i].path.c_str()) == 0) {
        renamed.push_back(i);
      } else {
        fail(files[i].path, describe_errno());
      }
    }
  } catch (...) {
    for (std::size_t i : renamed) ::unlink(targets[i].path.c_str());
    for (auto const& temporary : temporaries) {
      if (!temporary.empty()) ::unlink(temporary.c_str());  // renamed: ENOENT
    }
    // The earlier files back; one that cannot take its name again stays aside, and is named.
    std::string kept;
    for (auto const& file : earlier) {
      if (::rename(file.aside.c_str(), file.path.c_str()) != 0) {
        kept +=
            "; the earlier '" + file.path.string() + "' is kept as '" + file.aside.string() + "'";
      }
    }
    if (kept.empty()) throw;
    try {
      throw;
    } catch (std::exception const& error) {
      throw OutputError(error.what() + kept);
    }
  }
  for (auto const& file : earlier) ::unlink(file.aside.c_str());
}

std::optional<detail::SetAside> detail::set_aside(fs::path const& path) {
  OutputTarget const earlier = output_target(path);
  if (earlier.write_through) return std::nullopt;
  fs::path aside = temporary_path(earlier.path);
  aside.replace_extension(".old");
  if (::rename(earlier.path.c_str(), aside.c_str()) != 0) {
    if (errno == ENOENT) return std::nullopt;
    fail(path, describe_errno());
  }
  return SetAside{earlier.path, aside};
}

fs::path write_temporary(fs::path const& path, std::string_view text) {
  fs::path const temporary = temporary_path(output_target(path).path);
  try {
    fill(path, temporary, false, [&](std::ostream& out) { out << text; });
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  return temporary;
}

void rename_temporary(fs::path const& temporary, fs::path const& path) {
  if (::rename(temporary.c_str(), output_target(path).path.c_str()) != 0) {
    std::string const reason = describe_errno();
    ::unlink(temporary.c_str());
    fail(path, reason);
  }
}

std::string npy_header(std::span<std::int64_t const> shape) {
  // NPY format 1.0: magic, version, a 16-bit header length, then a Python dict padded with
  // spaces and ended by '\n' so that the data starts at a multiple of 64 bytes; the shape
  // as Python writes a tuple: "2, 201, 201" (one element: "5,").
  std::string dims;
  for (std::int64_t extent : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(extent);
  if (shape.size() == 1) dims += ",";
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  std::size_t const preamble = 10;
  dict.append((64 - (preamble + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string header("\x93NUMPY\x01\x00", 8);
  header += char(dict.size() & 0xff);
  header += char(dict.size() >> 8);
  return header + dict;
}

void write_npy(fs::path const& path, std::span<float const> previous,
               std::span<float const> current, std::int32_t nx, std::int32_t ny) {
  cells_of(nx, ny, "wave2d::write_npy");
  write_npy(path, Window::whole(nx, ny), previous, current, Processes());
}

namespace {

// Writes all `bytes` at `offset`, or in order where the file has no offsets (a terminal).
void write_all(int fd, char const* data, std::size_t bytes, off_t offset, bool positioned) {
  while (bytes > 0) {
    ssize_t const written =
        positioned ? ::pwrite(fd, data, bytes, offset) : ::write(fd, data, bytes);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) throw std::system_error(errno != 0 ? errno : EIO, std::generic_category());
    data += written;
    bytes -= std::size_t(written);
    offset += written;
  }
}

}  // namespace

void write_npy(fs::path const& path, Window const& block, std::span<float const> previous,
               std::span<float const> current, Processes const& processes) {
  // '<f4' is the machine's own float layout only on little-endian machines.
  static_assert(std::endian::native == std::endian::little);
  std::size_t const owned = cells_of(block.nx, block.ny, "wave2d::write_npy");
  check_size(previous.size(), owned, "wave2d::write_npy", "previous");
  check_size(current.size(), owned, "wave2d::write_npy", "current");
  std::int64_t const shape[] = {2, block.global_ny, block.global_nx};
  std::string const header = npy_header(shape);
  // The target and the name written, rank 0's; one process writes a whole grid in order.
  std::string target;
  std::string written;
  std::optional<RegisteredTemporary> registered;
  processes.agree([&] {
    if (!processes.root()) return;
    OutputTarget const output = output_target(path);
    target = output.path.string();
    written = output.write_through ? target : temporary_path(output.path).string();
    if (written != target) registered.emplace(written);
  });
  processes.broadcast(target);
  processes.broadcast(written);
  bool const through = target == written;
  bool const whole = block.nx == block.global_nx && block.ny == block.global_ny;
  auto const remove_temporary = [&] {
    if (processes.root() && !through) ::unlink(written.c_str());
  };
  try {
    processes.agree([&] {
      if (!processes.root()) return;
      int const flags = O_WRONLY | O_CREAT | O_CLOEXEC | (through ? 0 : O_EXCL | O_TRUNC);
      int const fd = ::open(written.c_str(), flags, 0666);
      if (fd < 0) fail(path, describe_errno());
      bool const regular = !through;
      int status = 0;
      try {
        if (whole) {
          write_all(fd, header.data(), header.size(), 0, false);
        } else {
          write_all(fd, header.data(), header.size(), 0, true);
          // Its full size, so that every rank writes inside the file.
          off_t const size = off_t(header.size()) +
                             off_t(2 * sizeof(float)) * off_t(block.global_nx) * block.global_ny;
          if (regular && ::ftruncate(fd, size) != 0) {
            throw std::system_error(errno, std::generic_category());
          }
        }
      } catch (std::system_error const& e) {
        status = e.code().value();
      }
      if (!whole || status != 0) {
        if (::close(fd) != 0 && status == 0) status = errno;
      } else {
        // One process: the fields follow in the same descriptor.
        try {
          for (auto const field : {previous, current}) {
            write_all(fd, reinterpret_cast<char const*>(field.data()), field.size_bytes(), 0,
                      false);
          }
          if (regular && ::fsync(fd) != 0) status = errno;
        } catch (std::system_error const& e) {
          status = e.code().value();
        }
        if (::close(fd) != 0 && status == 0) status = errno;
      }
      if (status != 0) fail(path, std::strerror(status));
    });
    if (!whole) {
      processes.agree([&] {
        int const fd = ::open(written.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) fail(path, describe_errno());
        int status = 0;
        try {
          auto const row_bytes = std::size_t(block.nx) * sizeof(float);
          for (int f = 0; f < 2; ++f) {
            float const* field = (f == 0 ? previous : current).data();
            for (std::int32_t y = 0; y < block.ny; ++y) {
              off_t const cell = off_t(f) * block.global_ny * off_t(block.global_nx) +
                                 off_t(block.y0 + y) * block.global_nx + block.x0;
              write_all(fd, reinterpret_cast<char const*>(field + std::size_t(y) * block.nx),
                        row_bytes, off_t(header.size()) + cell * off_t(sizeof(float)), true);
            }
          }
          if (!through && ::fsync(fd) != 0) status = errno;
        } catch (std::system_error const& e) {
          status = e.code().value() == ESPIPE ? ENOTSUP : e.code().value();
        }
        if (::close(fd) != 0 && status == 0) status = errno;
        if (status == ENOTSUP) fail(path, "the blocks of several processes need a seekable file");
        if (status != 0) fail(path, std::strerror(status));
      });
    }
    processes.agree([&] {
      if (!processes.root() || through) return;
      std::error_code error;
      fs::rename(written, target, error);
      if (error) fail(path, error.message());
    });
  } catch (...) {
    remove_temporary();
    throw;
  }
}

void write_npy(std::ostream& out, std::span<float const> values, std::int64_t rows,
               std::int64_t columns) {
  static_assert(std::endian::native == std::endian::little);
  if (rows < 0 || columns < 0 || std::uint64_t(rows) * std::uint64_t(columns) != values.size()) {
    throw std::invalid_argument("wave2d::write_npy: " + std::to_string(values.size()) +
                                " values are not " + std::to_string(rows) + " x " +
                                std::to_string(columns));
  }
  std::int64_t const shape[] = {rows, columns};
  out << npy_header(shape);
  out.write(reinterpret_cast<char const*>(values.data()), std::streamsize(values.size_bytes()));
}

std::vector<std::uint8_t> render_field(std::span<float const> u,
                                       std::span<std::uint8_t const> walls, std::int32_t nx,
                                       std::int32_t ny, float scale) {
  auto const cells = cells_of(nx, ny, "wave2d::render_field");
  check_size(u.size(), cells, "wave2d::render_field", "the field");
  if (!walls.empty()) check_size(walls.size(), cells, "wave2d::render_field", "the wall mask");
  check_scale(scale, "wave2d::render_field");
  std::vector<std::uint8_t> rgb(3 * cells);
  for (std::size_t i = 0; i < cells; ++i) {
    if (!walls.empty() && walls[i] != 0) continue;  // black
    detail::paint(u[i], scale, &rgb[3 * i]);
  }
  return rgb;
}

float largest_amplitude(std::span<float const> u, std::span<std::uint8_t const> walls) {
  float largest = 0.0f;
  for (std::size_t i = 0; i < u.size(); ++i) {
    if ((walls.empty() || walls[i] == 0) && std::isfinite(u[i])) {
      largest = std::fmax(largest, std::fabs(u[i]));
    }
  }
  return largest;
}

std::string colour_bar_label(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", double(value));
  return text;
}

RgbImage render_field_with_colour_bar(std::span<float const> u, std::span<std::uint8_t const> walls,
                                      std::int32_t nx, std::int32_t ny, float scale,
                                      LabelRoom room) {
  return with_colour_bar(render_field(u, walls, nx, ny, scale), nx, ny, scale, room);
}

RgbImage with_colour_bar(std::span<std::uint8_t const> field, std::int32_t nx, std::int32_t ny,
                         float scale, LabelRoom room) {
  check_size(field.size(), 3 * cells_of(nx, ny, "wave2d::with_colour_bar"),
             "wave2d::with_colour_bar", "the picture");
  check_scale(scale, "wave2d::with_colour_bar");
  int const size = std::max(1, ny / 100);  // of a font pixel: the labels grow with the picture
  int const gap = 2 * size;
  int const bar = 4 * size;  // inside its frame of one black pixel
  std::string const labels[] = {colour_bar_label(scale), "0", colour_bar_label(-scale)};
  // "%.3g" of a negative float takes at most 9 characters ("-1.23e-05", "-0.000123").
  int label_width = room == LabelRoom::any_scale ? detail::text_width("-1.23e-05", size) : 0;
  for (auto const& label : labels)
    label_width = std::max(label_width, detail::text_width(label, size));
  std::int64_t const width = std::int64_t(nx) + gap + bar + 2 + gap + label_width + gap;
  std::int64_t const height = std::max<std::int64_t>(ny, 3 * detail::glyph_height * size + 2 * gap);
  if (width > std::numeric_limits<std::int32_t>::max()) {
    throw std::invalid_argument("wave2d::render_field_with_colour_bar: " + std::to_string(nx) +
                                " columns leave no room for the colour bar");
  }
  RgbImage image{std::vector<std::uint8_t>(3 * std::size_t(width * height), 255),
                 std::int32_t(width), std::int32_t(height)};
  auto const pixel = [&](std::int64_t x, std::int64_t y) {
    return &image.rgb[3 * std::size_t(y * width + x)];
  };
  for (std::int64_t y = 0; y < ny; ++y) {
    std::copy_n(&field[3 * std::size_t(y) * std::size_t(nx)], 3 * std::size_t(nx), pixel(0, y));
  }
  // +scale at the top row, -scale at the bottom one, in the field's colours.
  std::int64_t const left = std::int64_t(nx) + gap;
  for (std::int64_t y = 0; y < height; ++y) {
    float const value = scale * (1.0f - 2.0f * float(y) / float(height - 1));
    for (std::int64_t x = left; x < left + bar + 2; ++x) {
      bool const frame = x == left || x == left + bar + 1 || y == 0 || y == height - 1;
      std::uint8_t* p = pixel(x, y);
      if (frame) {
        p[0] = p[1] = p[2] = 0;
      } else {
        detail::paint(value, scale, p);
      }
    }
  }
  std::int64_t const text_left = left + bar + 2 + gap;
  std::int64_t const text_height = detail::glyph_height * size;
  std::int64_t const rows[] = {0, (height - text_height) / 2, height - text_height};
  for (int i = 0; i < 3; ++i) {
    detail::draw_text(image.rgb, width, text_left, rows[i], labels[i], size);
  }
  return image;
}

void write_png(fs::path const& path, std::span<std::uint8_t const> rgb, std::int32_t width,
               std::int32_t height, std::vector<PngText> const& text) {
  auto const pixels = cells_of(width, height, "wave2d::write_png");
  check_size(rgb.size(), 3 * pixels, "wave2d::write_png", "the RGB image");
  for (auto const& chunk : text) {
    if (chunk.keyword.empty() || chunk.keyword.size() > 79) {
      throw std::invalid_argument("wave2d::write_png: a tEXt keyword has 1 to 79 characters, '" +
                                  chunk.keyword + "' has " + std::to_string(chunk.keyword.size()));
    }
  }
#if defined(WAVE2D_HAVE_PNG)
  // libpng copies the texts: these point into `texts`, which outlives the call.
  std::vector<std::string> texts(text.size());
  std::vector<png_text> chunks(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    bool const plain = std::ranges::all_of(
        text[i].text, [](char c) { return (c >= 0x20 && c < 0x7f) || c == '\n'; });
    texts[i] = plain ? text[i].text : png_utf8_text(text[i].text);
    chunks[i].compression = plain ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
    chunks[i].key = const_cast<char*>(text[i].keyword.c_str());
    chunks[i].text = texts[i].data();
    if (plain) {
      chunks[i].text_length = texts[i].size();
    } else {
      chunks[i].itxt_length = texts[i].size();
      chunks[i].lang = nullptr;
      chunks[i].lang_key = nullptr;
    }
  }
  write_stream_atomically(path, [&](std::ostream& out) {
    PngMessage error{};
    if (!encode_png(out, rgb.data(), png_uint_32(width), png_uint_32(height), chunks.data(),
                    int(chunks.size()), error)) {
      fail(path, "libpng: " + std::string(error.data()));
    }
  });
#else
  fail(path, "wave2d was built without libpng (install libpng-dev and rebuild)");
#endif
}

}  // namespace wave2d
