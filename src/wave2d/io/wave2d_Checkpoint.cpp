#include <wave2d/io/wave2d_Checkpoint.hpp>

#include <wave2d/io/detail/wave2d_InputFile.hpp>
#include <wave2d/io/wave2d_Output.hpp>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include <fcntl.h>
#include <unistd.h>

#if defined(WAVE2D_HAVE_CHECKPOINTS)
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

namespace wave2d {

namespace {

namespace fs = std::filesystem;

constexpr char magic[8] = {'W', 'A', 'V', 'E', '2', 'D', 'C', 'K'};
// magic, version, nx, ny, step, scene hash, receivers, receivers hash, trace's first
// step, numerics hash, numerics length
constexpr std::size_t fixed_header_bytes = 8 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 4;
constexpr std::size_t checksum_bytes = 8;

static_assert(std::endian::native == std::endian::little, "checkpoints are little-endian");

[[noreturn]] void unavailable() {
  throw CheckpointError(
      "this build of wave2d has no checkpoints (install libxxhash-dev and rebuild)");
}

std::uint64_t hash_bytes(void const* data, std::size_t size) {
#if defined(WAVE2D_HAVE_CHECKPOINTS)
  return XXH3_64bits(data, size);
#else
  (void)data;
  (void)size;
  unavailable();
#endif
}

// XXH3-64 of bytes given in parts, as they are written or read.
class Checksum {
 public:
#if defined(WAVE2D_HAVE_CHECKPOINTS)
  Checksum() : state_(XXH3_createState()) {
    if (state_ == nullptr) throw std::bad_alloc();
    XXH3_64bits_reset(state_);
  }
  ~Checksum() { XXH3_freeState(state_); }
  void update(void const* data, std::size_t size) { XXH3_64bits_update(state_, data, size); }
  std::uint64_t digest() const { return XXH3_64bits_digest(state_); }

 private:
  XXH3_state_t* state_;
#else
  Checksum() = default;
  void update(void const*, std::size_t) {}
  std::uint64_t digest() const { unavailable(); }
#endif
 public:
  Checksum(Checksum const&) = delete;
  Checksum& operator=(Checksum const&) = delete;
};

template <class T>
void append(std::string& bytes, T const& value) {
  bytes.append(reinterpret_cast<char const*>(&value), sizeof(T));
}

template <class T>
T take(std::string_view& bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  bytes.remove_prefix(sizeof(T));
  return value;
}

std::string header_bytes(CheckpointData const& data) {
  std::string bytes(magic, sizeof(magic));
  append(bytes, checkpoint_format_version);
  append(bytes, data.nx);
  append(bytes, data.ny);
  append(bytes, data.step);
  append(bytes, data.scene_hash);
  append(bytes, data.receivers);
  append(bytes, data.receivers_hash);
  append(bytes, data.trace_first_step);
  append(bytes, hash_bytes(data.numerics.data(), data.numerics.size()));
  append(bytes, std::uint32_t(data.numerics.size()));
  bytes += data.numerics;
  return bytes;
}

void write_all(int fd, void const* data, std::size_t size, fs::path const& path) {
  auto const* bytes = static_cast<char const*>(data);
  while (size > 0) {
    ssize_t const written = ::write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw OutputError("cannot write '" + path.string() + "': " + std::strerror(errno));
    }
    bytes += written;
    size -= std::size_t(written);
  }
}

}  // namespace

std::uint64_t scene_hash(Scene const& scene) {
  std::string bytes;
  append(bytes, scene.nx);
  append(bytes, scene.ny);
  for (float value :
       {scene.c, scene.dx, scene.dt, scene.t0, scene.damping.width, scene.damping.strength}) {
    append(bytes, std::bit_cast<std::uint32_t>(value));
  }
  // Sizes first, so that the parts cannot be mistaken for one another.
  append(bytes, std::uint64_t(scene.walls.size()));
  for (std::uint8_t wall : scene.walls) bytes += char(wall != 0);
  append(bytes, std::uint64_t(scene.speed.size()));
  for (float value : scene.speed) append(bytes, std::bit_cast<std::uint32_t>(value));
  append(bytes, std::uint64_t(scene.sources.size()));
  for (Source const& source : scene.sources) {
    append(bytes, source.x);
    append(bytes, source.y);
    append(bytes, std::int32_t(source.waveform.shape));
    for (float value :
         {source.waveform.amplitude, source.waveform.frequency, source.waveform.delay}) {
      append(bytes, std::bit_cast<std::uint32_t>(value));
    }
  }
  return hash_bytes(bytes.data(), bytes.size());
}

std::uint64_t receivers_hash(Scene const& scene) {
  std::string bytes;
  append(bytes, std::uint64_t(scene.receivers.size()));
  for (Receiver const& receiver : scene.receivers) {
    append(bytes, receiver.x);
    append(bytes, receiver.y);
  }
  return hash_bytes(bytes.data(), bytes.size());
}

std::optional<std::string> numerics_backend(std::string_view numerics) {
  constexpr std::string_view marker = ", backend ";
  auto const start = numerics.find(marker);
  if (start == std::string_view::npos) return std::nullopt;
  auto const name = start + marker.size();
  auto const end = numerics.find(' ', name);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(numerics.substr(name, end - name));
}

std::string numerics_text(std::string_view backend, std::string_view configuration,
                          std::string_view execution_space) {
  return "wave2d " WAVE2D_VERSION ", backend " + std::string(backend) + " (" +
         std::string(configuration) + ") on " + std::string(execution_space) +
         ", IEEE-754 binary32";
}

void write_checkpoint(fs::path const& path, CheckpointData const& data) {
  if (!can_checkpoint) unavailable();
  std::size_t const cells = std::size_t(data.nx) * std::size_t(data.ny);
  if (data.nx <= 0 || data.ny <= 0 || data.previous.size() != cells ||
      data.current.size() != cells) {
    throw std::invalid_argument("wave2d::write_checkpoint: the fields must be ny x nx");
  }
  if (data.trace_first_step < 0 || data.trace_first_step > data.step ||
      data.receivers > max_receivers ||
      data.trace.size() != std::size_t(data.trace_rows()) * data.receivers) {
    throw std::invalid_argument(
        "wave2d::write_checkpoint: the trace must be (step - trace_first_step + 1) x receivers");
  }
  std::string const header = header_bytes(data);
  std::size_t const field_bytes = cells * sizeof(float);
  std::size_t const trace_bytes = data.trace.size() * sizeof(float);
  Checksum hash;
  hash.update(header.data(), header.size());
  hash.update(data.previous.data(), field_bytes);
  hash.update(data.current.data(), field_bytes);
  hash.update(data.trace.data(), trace_bytes);
  std::uint64_t const checksum = hash.digest();
  write_file_atomically(path, [&](fs::path const& temporary) {
    int const fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw OutputError("cannot write '" + path.string() + "': " + std::strerror(errno));
    }
    try {
      write_all(fd, header.data(), header.size(), path);
      write_all(fd, data.previous.data(), field_bytes, path);
      write_all(fd, data.current.data(), field_bytes, path);
      write_all(fd, data.trace.data(), trace_bytes, path);
      write_all(fd, &checksum, sizeof(checksum), path);
      // On disk before the rename makes it the checkpoint: a crash leaves the old one.
      if (::fsync(fd) != 0 && errno != EINVAL) {
        throw OutputError("cannot write '" + path.string() + "': " + std::strerror(errno));
      }
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) {
      throw OutputError("cannot write '" + path.string() + "': " + std::strerror(errno));
    }
  });
}

namespace {

// What the fixed header says, checked to be possible: sizes that add up without overflow.
struct Header {
  CheckpointData data;  // without numerics, fields nor trace
  std::uint64_t numerics_hash = 0;
  std::uint32_t numerics_size = 0;
  std::size_t field_bytes = 0;
  std::size_t trace_bytes = 0;

  std::size_t file_bytes() const {
    return fixed_header_bytes + numerics_size + 2 * field_bytes + trace_bytes + checksum_bytes;
  }
};

template <class Refuse>
Header parse_header(std::string_view bytes, Refuse const& refuse) {
  if (bytes.size() < sizeof(magic) || std::memcmp(bytes.data(), magic, sizeof(magic)) != 0) {
    throw refuse("is not a wave2d checkpoint");
  }
  if (bytes.size() < fixed_header_bytes) throw refuse("is truncated (in its header)");
  bytes.remove_prefix(sizeof(magic));
  auto const version = take<std::uint32_t>(bytes);
  if (version != checkpoint_format_version) {
    throw refuse("has format version " + std::to_string(version) +
                 ", this wave2d " WAVE2D_VERSION " reads version " +
                 std::to_string(checkpoint_format_version));
  }
  Header header;
  CheckpointData& data = header.data;
  data.nx = take<std::int32_t>(bytes);
  data.ny = take<std::int32_t>(bytes);
  data.step = take<std::int64_t>(bytes);
  data.scene_hash = take<std::uint64_t>(bytes);
  data.receivers = take<std::uint32_t>(bytes);
  data.receivers_hash = take<std::uint64_t>(bytes);
  data.trace_first_step = take<std::int64_t>(bytes);
  header.numerics_hash = take<std::uint64_t>(bytes);
  header.numerics_size = take<std::uint32_t>(bytes);
  if (data.nx <= 0 || data.ny <= 0 || data.step < 0 || header.numerics_size > 4096 ||
      data.receivers > max_receivers || data.trace_first_step < 0 ||
      data.trace_first_step > data.step) {
    throw refuse("is corrupted (impossible header)");
  }
  header.field_bytes = std::size_t(data.nx) * std::size_t(data.ny) * sizeof(float);
  if (header.field_bytes / sizeof(float) / std::size_t(data.nx) != std::size_t(data.ny) ||
      header.field_bytes > (std::numeric_limits<std::size_t>::max() - 8192) / 4) {
    throw refuse("is corrupted (impossible header)");
  }
  // The trace, bounded as the fields are: file_bytes() cannot overflow.
  std::uint64_t const rows = std::uint64_t(data.step - data.trace_first_step) + 1;
  std::size_t const row_bytes = std::size_t(data.receivers) * sizeof(float);
  if (row_bytes != 0 && rows > std::numeric_limits<std::size_t>::max() / 4 / row_bytes) {
    throw refuse("is corrupted (impossible header)");
  }
  header.trace_bytes = row_bytes == 0 ? 0 : std::size_t(rows) * row_bytes;
  return header;
}

}  // namespace

CheckpointData read_checkpoint(
    fs::path const& path, std::function<void(CheckpointData const& header)> const& check_header) {
  if (!can_checkpoint) unavailable();
  std::string const name = "checkpoint '" + path.string() + "'";
  auto const refuse = [&](std::string const& reason) -> CheckpointError {
    return CheckpointError(name + " " + reason);
  };
  std::optional<detail::InputFile> file;
  try {
    file.emplace(path, "checkpoint");
  } catch (detail::InputFileError const& e) {
    throw refuse(e.missing() ? "does not exist" : e.what());
  }
  auto const read = [&](void* data, std::size_t count) {
    try {
      if (file->read(data, count) != count) throw refuse("is truncated: it shrank while read");
    } catch (detail::InputFileError const& e) {
      throw refuse(e.what());
    }
  };
  // The sizes first: nothing more is read of a file that is not the size its header gives,
  // nor allocated beyond the host's memory.
  std::string fixed(std::min<std::uint64_t>(file->size(), fixed_header_bytes), '\0');
  read(fixed.data(), fixed.size());
  Header header = parse_header(fixed, refuse);
  if (file->size() != header.file_bytes()) {
    throw refuse((file->size() < header.file_bytes() ? "is truncated: " : "is corrupted: ") +
                 std::to_string(file->size()) + " bytes, expected " +
                 std::to_string(header.file_bytes()));
  }
  CheckpointData& data = header.data;
  check_checkpoint_memory(path, data);
  data.numerics.resize(header.numerics_size);
  read(data.numerics.data(), data.numerics.size());
  if (hash_bytes(data.numerics.data(), data.numerics.size()) != header.numerics_hash) {
    throw refuse("is corrupted (its numerics hash does not match)");
  }
  if (check_header) check_header(data);

  Checksum checksum;
  checksum.update(fixed.data(), fixed.size());
  checksum.update(data.numerics.data(), data.numerics.size());
  auto const read_values = [&](std::vector<float>& values, std::size_t bytes) {
    values.resize(bytes / sizeof(float));
    read(values.data(), bytes);
    checksum.update(values.data(), bytes);
  };
  read_values(data.previous, header.field_bytes);
  read_values(data.current, header.field_bytes);
  read_values(data.trace, header.trace_bytes);
  std::uint64_t stored = 0;
  read(&stored, sizeof(stored));
  if (checksum.digest() != stored) throw refuse("is corrupted (its checksum does not match)");
  check_checkpoint_finite(path, data);
  return std::move(data);
}

void check_checkpoint_memory(fs::path const& path, CheckpointData const& header) {
  double const values = 2.0 * double(header.nx) * double(header.ny) +
                        double(header.trace_rows()) * double(header.receivers);
  if (auto const shortfall = detail::host_memory_shortfall("its " + std::to_string(header.nx) +
                                                               " x " + std::to_string(header.ny) +
                                                               " grid with the receivers' trace",
                                                           values * sizeof(float))) {
    throw CheckpointError("checkpoint '" + path.string() + "' is too large: " + *shortfall);
  }
}

void check_checkpoint_finite(fs::path const& path, CheckpointData const& data) {
  auto const first_not_finite = [](std::vector<float> const& values) {
    return std::size_t(std::find_if(values.begin(), values.end(),
                                    [](float value) { return !std::isfinite(value); }) -
                       values.begin());
  };
  auto const refuse = [&](float value, std::string const& where) {
    throw CheckpointError("checkpoint '" + path.string() + "' holds " + std::to_string(value) +
                          " in " + where + ": no run can go on from a state that is not finite");
  };
  std::size_t const nx = std::size_t(std::max(data.nx, 1));
  for (auto const& [field, step] :
       {std::pair(&data.previous, data.step - 1), std::pair(&data.current, data.step)}) {
    if (std::size_t const i = first_not_finite(*field); i < field->size()) {
      refuse((*field)[i], "u at step " + std::to_string(step) + ", cell (" +
                              std::to_string(i % nx) + ", " + std::to_string(i / nx) + ")");
    }
  }
  if (std::size_t const i = first_not_finite(data.trace); i < data.trace.size()) {
    refuse(data.trace[i],
           "the receivers' trace after step " +
               std::to_string(data.trace_first_step + std::int64_t(i / data.receivers)) +
               ", receiver " + std::to_string(i % data.receivers));
  }
}

void check_checkpoint_matches(fs::path const& path, CheckpointData const& data, Scene const& scene,
                              std::string const& numerics) {
  std::string const name = "checkpoint '" + path.string() + "'";
  if (data.nx != scene.nx || data.ny != scene.ny) {
    throw CheckpointError(name + " is of another scene: its grid is " + std::to_string(data.nx) +
                          " x " + std::to_string(data.ny) + ", this scene's " +
                          std::to_string(scene.nx) + " x " + std::to_string(scene.ny));
  }
  if (data.scene_hash != scene_hash(scene)) {
    throw CheckpointError(name +
                          " is of another scene: its medium, walls, sources or time step differ");
  }
  // Its trace's columns must be this scene's, for the run's trace to go on from it.
  if (data.receivers != scene.receivers.size()) {
    throw CheckpointError(name + " is of another scene: it has the trace of " +
                          std::to_string(data.receivers) + " receivers, this scene has " +
                          std::to_string(scene.receivers.size()));
  }
  if (data.receivers_hash != receivers_hash(scene)) {
    throw CheckpointError(name + " is of another scene: its receivers are at other cells");
  }
  if (data.numerics != numerics) {
    throw CheckpointError(name + " was written by " + data.numerics + ", not by " + numerics +
                          ": resume it with the same wave2d, backend and execution space");
  }
}

}  // namespace wave2d
