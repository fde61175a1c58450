// Checkpoints: the pair of fields and the step of a run, and the receivers' trace it
// recorded, with what is needed to refuse resuming it anywhere it would not continue bit
// for bit. HDF5 files (format 3), written by one process (rank 0 of a distributed run,
// from the ranks' blocks), and read back in blocks on any number of them; needs xxHash
// (libxxhash-dev) and HDF5 (libhdf5-dev or libhdf5-openmpi-dev):
//   /                 attributes format "wave2d checkpoint", format_version (3),
//                     wave2d_version, nx, ny, step n, scene_hash, receivers R,
//                     receivers_hash, trace_first_step f (0 <= f <= n), numerics (the text
//                     resumes compare), configuration and ranks (what ran, not compared)
//   /field/previous   float32 (ny, nx): u(t_{n-1}), row-major, x fastest
//   /field/current    float32 (ny, nx): u(t_n)
//   /receivers/trace  float32 (n - f + 1, R): u at the receivers after steps f .. n (when R > 0)
// The datasets are chunked with HDF5's Fletcher-32 checksum; the attributes are in object
// headers that HDF5 checksums (the file is made with the 1.8 format or later). Formats 1
// and 2 were raw binary files of magic "WAVE2DCK": refused, with a message saying so.
#ifndef WAVE2D_CHECKPOINT_HPP
#define WAVE2D_CHECKPOINT_HPP

#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/core/wave2d_Window.hpp>
#include <wave2d/io/wave2d_Hdf5.hpp>
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

// Whether this build reads and writes checkpoints: it needs xxHash and HDF5.
inline constexpr bool can_checkpoint =
#if defined(WAVE2D_HAVE_CHECKPOINTS) && defined(WAVE2D_HAVE_HDF5)
    true;
#else
    false;
#endif

// Why a build cannot: no xxHash, or "this build has no HDF5 (...)".
std::string checkpoints_unavailable_reason();

inline constexpr std::int64_t checkpoint_format_version = 3;

// XXH3-64 of what decides the fields of a scene: the grid, c, dx, dt, t0, the damping,
// the walls, the speed map and the sources, floats by their bits (a wall mask without a
// wall, a speed map of c in every cell, count as none). Not its name, its step count nor
// its receivers, which change no field.
std::uint64_t scene_hash(Scene const& scene);

// XXH3-64 of the receivers' cells, in order: what decides the columns of a trace. Not
// their names, which change no value.
std::uint64_t receivers_hash(Scene const& scene);

// What decides the bits a run computes: the library's version, the backend, the execution
// space, the float format. A checkpoint resumes only where this text is the same: results
// are bitwise reproducible only there (a GPU contracts to FMA; host backends agree with the
// reference today, but nothing promises that they always will). Not the backend's
// configuration nor the split over ranks: every configuration of a backend, and every
// split, gives its bits (tested), so that a checkpoint resumes on any number of ranks.
std::string numerics_text(std::string_view backend, std::string_view execution_space);

// The backend and the execution space (Kokkos' name) a numerics_text() names; nullopt for
// a text not of that form.
std::optional<std::string> numerics_backend(std::string_view numerics);
std::optional<std::string> numerics_space(std::string_view numerics);

struct CheckpointData {
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  std::int64_t step = 0;
  std::uint64_t scene_hash = 0;
  std::string numerics;  // numerics_text() of the run that wrote it
  std::string
      configuration;  // what ran (the backend's configuration, the ranks): told, not compared
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

// Collective over `processes` (every rank of a distributed run): the same, each process
// writing its owned cells of `block` (previous and current, row-major) and the trace of the
// receivers `columns` (ascending indices into the scene's) it holds, rows x columns.size();
// `header` (every process's alike) gives the rest, its fields and trace unused.
void write_checkpoint(std::filesystem::path const& path, CheckpointData const& header,
                      Window const& block, std::span<float const> previous,
                      std::span<float const> current, std::span<std::int32_t const> columns,
                      std::span<float const> trace, Processes const& processes);

// Reads and checks a checkpoint. Before its fields are read: that it is an HDF5 file of
// this format (a checkpoint of formats 1 and 2 is refused saying so), its header's values,
// its datasets' sizes against the header, the memory the fields and the trace need, then
// `check_header` (a CheckpointData without fields nor trace: to refuse a checkpoint of
// another scene before reading it). After: the checksums, and every value finite.
// CheckpointError for a missing, truncated, corrupted or foreign file, another format
// version, one too large for memory or holding a value that is not finite.
CheckpointData read_checkpoint(
    std::filesystem::path const& path,
    std::function<void(CheckpointData const& header)> const& check_header = {});

// Collective over `processes`: the same, each process reading the cells of the local grid of
// `region` (owned cells and halo: region.local_nx() x region.local_ny() from
// (origin_x(), origin_y())) into the fields, and the whole trace. On any number of
// processes, whatever split wrote it.
CheckpointData read_checkpoint(
    std::filesystem::path const& path, Window const& region, Processes const& processes,
    std::function<void(CheckpointData const& header)> const& check_header = {});

// The header alone (no field, no trace), checked as read_checkpoint checks it.
CheckpointData read_checkpoint_header(std::filesystem::path const& path);

// The first value of a pair of fields, u(t_{step-1}) then u(t_step), that is not finite, and
// its cell in the whole grid (the fields hold the local grid of `cells`); none if all are.
struct FieldValue {
  float value = 0.0f;
  std::int64_t step = 0;
  std::int64_t x = 0;
  std::int64_t y = 0;
};
std::optional<FieldValue> first_not_finite(std::span<float const> previous,
                                           std::span<float const> current, std::int64_t step,
                                           Window const& cells);

// CheckpointError naming the first value of the fields or the trace that is not finite (its
// cell in the whole grid: the fields hold the local grid of `region`): a state no run can go
// on from.
void check_checkpoint_finite(std::filesystem::path const& path, CheckpointData const& data,
                             std::optional<Window> const& region = std::nullopt);

// CheckpointError unless the checkpoint was written for this scene (hash, grid and
// receivers' cells) and with these numerics.
void check_checkpoint_matches(std::filesystem::path const& path, CheckpointData const& data,
                              Scene const& scene, std::string const& numerics);

}  // namespace wave2d

#endif
