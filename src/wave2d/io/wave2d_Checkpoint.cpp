#include <wave2d/io/wave2d_Checkpoint.hpp>

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

static_assert(std::endian::native == std::endian::little, "the hashes read floats by their bits");

[[noreturn]] void unavailable() { throw CheckpointError(checkpoints_unavailable_reason()); }

std::uint64_t hash_bytes(void const* data, std::size_t size) {
#if defined(WAVE2D_HAVE_CHECKPOINTS)
  return XXH3_64bits(data, size);
#else
  (void)data;
  (void)size;
  unavailable();
#endif
}

template <class T>
void append(std::string& bytes, T const& value) {
  bytes.append(reinterpret_cast<char const*>(&value), sizeof(T));
}

}  // namespace

std::uint64_t scene_hash(Scene const& scene) {
  // A map that changes no field (no wall, c in every cell) counts as none.
  bool const walls = std::ranges::any_of(scene.walls, [](std::uint8_t w) { return w != 0; });
  bool const speed = std::ranges::any_of(scene.speed, [&](float v) { return v != scene.c; });
  std::string bytes;
  append(bytes, scene.nx);
  append(bytes, scene.ny);
  for (float value :
       {scene.c, scene.dx, scene.dt, scene.t0, scene.damping.width, scene.damping.strength}) {
    append(bytes, std::bit_cast<std::uint32_t>(value));
  }
  // Sizes first, so that the parts cannot be mistaken for one another.
  append(bytes, std::uint64_t(walls ? scene.walls.size() : 0));
  if (walls) {
    for (std::uint8_t wall : scene.walls) bytes += char(wall != 0);
  }
  append(bytes, std::uint64_t(speed ? scene.speed.size() : 0));
  if (speed) {
    for (float value : scene.speed) append(bytes, std::bit_cast<std::uint32_t>(value));
  }
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

std::optional<std::string> numerics_space(std::string_view numerics) {
  auto const backend = numerics_backend(numerics);
  if (!backend) return std::nullopt;
  std::string const marker = ", backend " + *backend + " on ";
  auto const start = numerics.find(marker);
  if (start == std::string_view::npos) return std::nullopt;
  auto const end = numerics.find(',', start + marker.size());
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(numerics.substr(start + marker.size(), end - start - marker.size()));
}

std::string numerics_text(std::string_view backend, std::string_view execution_space) {
  return "wave2d " WAVE2D_VERSION ", backend " + std::string(backend) + " on " +
         std::string(execution_space) + ", IEEE-754 binary32";
}

std::string checkpoints_unavailable_reason() {
#if !defined(WAVE2D_HAVE_CHECKPOINTS) && !defined(WAVE2D_HAVE_HDF5)
  return "this build of wave2d has no checkpoints (install libxxhash-dev and libhdf5-dev or "
         "libhdf5-openmpi-dev, and rebuild)";
#elif !defined(WAVE2D_HAVE_CHECKPOINTS)
  return "this build of wave2d has no checkpoints (install libxxhash-dev and rebuild)";
#else
  return no_hdf5_reason;
#endif
}

std::optional<FieldValue> first_not_finite(std::span<float const> previous,
                                           std::span<float const> current, std::int64_t step,
                                           Window const& cells) {
  std::size_t const nx = std::size_t(std::max(cells.local_nx(), 1));
  for (auto const& [field, at] : {std::pair(previous, step - 1), std::pair(current, step)}) {
    auto const bad = std::ranges::find_if(field, [](float value) { return !std::isfinite(value); });
    if (bad != field.end()) {
      auto const i = std::size_t(bad - field.begin());
      return FieldValue{*bad, at, cells.origin_x() + std::int64_t(i % nx),
                        cells.origin_y() + std::int64_t(i / nx)};
    }
  }
  return std::nullopt;
}

void check_checkpoint_finite(fs::path const& path, CheckpointData const& data,
                             std::optional<Window> const& region) {
  auto const refuse = [&](float value, std::string const& where) {
    throw CheckpointError("checkpoint '" + path.string() + "' holds " + std::to_string(value) +
                          " in " + where + ": no run can go on from a state that is not finite");
  };
  if (auto const bad = first_not_finite(data.previous, data.current, data.step,
                                        region ? *region : Window::whole(data.nx, data.ny))) {
    refuse(bad->value, "u at step " + std::to_string(bad->step) + ", cell (" +
                           std::to_string(bad->x) + ", " + std::to_string(bad->y) + ")");
  }
  auto const trace_value =
      std::ranges::find_if(data.trace, [](float value) { return !std::isfinite(value); });
  if (trace_value != data.trace.end()) {
    auto const i = std::size_t(trace_value - data.trace.begin());
    refuse(*trace_value,
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
                          std::to_string(data.receivers) +
                          (data.receivers == 1 ? " receiver" : " receivers") + ", this scene has " +
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
