// Checkpoints: the pair of fields and the step of a run, and the receivers' trace it
// recorded, with what is needed to refuse resuming it anywhere it would not continue bit
// for bit. Needs xxHash (libxxhash-dev).
//
// File format 2, little-endian, every integer unsigned unless said:
//   8 bytes   magic "WAVE2DCK"
//   u32       format version (2)
//   i32, i32  nx, ny
//   i64       step n: the fields are u(t_{n-1}) and u(t_n)
//   u64       scene hash (scene_hash)
//   u32       receivers R (0 .. max_receivers)
//   u64       receivers hash (receivers_hash)
//   i64       the trace's first step f, 0 <= f <= n: 0 unless the run began at a set state
//   u64       numerics hash: XXH3-64 of the numerics text
//   u32, ...  length of the numerics text, then its bytes (for the error messages)
//   f32 x 2 nx ny        u(t_{n-1}) then u(t_n), row-major, x fastest
//   f32 x (n-f+1) R      the trace: u at the receivers after steps f .. n, a row per
//                        step, receivers in the scene's order (nothing when R = 0)
//   u64       XXH3-64 of every byte before it
// Format 1 was the same without R, the receivers hash, f and the trace.
#ifndef WAVE2D_CHECKPOINT_HPP
#define WAVE2D_CHECKPOINT_HPP

#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/wave2d_Config.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d {

// Whether this build reads and writes checkpoints: it needs xxHash.
inline constexpr bool can_checkpoint =
#if defined(WAVE2D_HAVE_CHECKPOINTS)
    true;
#else
    false;
#endif

inline constexpr std::uint32_t checkpoint_format_version = 2;

// A checkpoint that cannot be read or does not belong to the run: a one-line message
// naming the file.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// XXH3-64 of what decides the fields of a scene: the grid, c, dx, dt, t0, the damping,
// the walls, the speed map and the sources, floats by their bits. Not its name, its
// step count nor its receivers, which change no field.
std::uint64_t scene_hash(Scene const& scene);

// XXH3-64 of the receivers' cells, in order: what decides the columns of a trace. Not
// their names, which change no value.
std::uint64_t receivers_hash(Scene const& scene);

// What decides the bits a backend computes: the library's version, the backend, what it
// runs for this grid, the execution space, the float format. A checkpoint resumes only
// where this text is the same: results are bitwise reproducible only there (a GPU
// contracts to FMA; host backends agree with the reference today, but nothing promises
// that they always will).
// The backend a numerics_text() names; nullopt for a text not of that form.
std::optional<std::string> numerics_backend(std::string_view numerics);

std::string numerics_text(std::string_view backend, std::string_view configuration,
                          std::string_view execution_space);

struct CheckpointData {
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  std::int64_t step = 0;
  std::uint64_t scene_hash = 0;
  std::string numerics;         // numerics_text() of the run that wrote it
  std::vector<float> previous;  // u(t_{step-1}), ny x nx
  std::vector<float> current;   // u(t_step)
  std::uint32_t receivers = 0;  // the trace's columns
  std::uint64_t receivers_hash = 0;
  std::int64_t trace_first_step = 0;
  std::vector<float> trace;  // (step - trace_first_step + 1) x receivers, row-major

  std::int64_t trace_rows() const { return step - trace_first_step + 1; }
};

// Writes the checkpoint atomically (a temporary beside it, synced, then renamed): the
// file is the previous checkpoint or this one, never a mix. OutputError when it cannot.
void write_checkpoint(std::filesystem::path const& path, CheckpointData const& data);

// Reads and checks a checkpoint. Before its fields are read: the magic, the format
// version, the header's sizes against the file's, the memory the fields and the trace
// need, then `check_header` (a CheckpointData without fields nor trace: to refuse a
// checkpoint of another scene before reading it). After: the checksum, and every value
// finite. CheckpointError for a missing, truncated, corrupted or foreign file, another
// format version, one too large for memory or holding a value that is not finite.
CheckpointData read_checkpoint(
    std::filesystem::path const& path,
    std::function<void(CheckpointData const& header)> const& check_header = {});

// CheckpointError unless the fields and trace the header of `data` describes fit in the
// host's available memory: for a reader to call before it allocates them.
void check_checkpoint_memory(std::filesystem::path const& path, CheckpointData const& header);

// CheckpointError naming the first value of the fields or the trace that is not finite: a
// state no run can go on from.
void check_checkpoint_finite(std::filesystem::path const& path, CheckpointData const& data);

// CheckpointError unless the checkpoint was written for this scene (hash, grid and
// receivers' cells) and with these numerics.
void check_checkpoint_matches(std::filesystem::path const& path, CheckpointData const& data,
                              Scene const& scene, std::string const& numerics);

}  // namespace wave2d

#endif
