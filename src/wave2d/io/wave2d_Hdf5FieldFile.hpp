// A run's results as one HDF5 file, written by one process or by every rank of a
// distributed run, each its block of the grid (nothing is gathered):
//   /                 attributes format "wave2d fields", format_version, wave2d_version,
//                     scene, nx, ny, dx, dt, t0
//   /field/previous   float32 (ny, nx): u(t_{n-1})   attributes step (n), time
//   /field/current    float32 (ny, nx): u(t_n)
//   /frames/u         float32 (frames, ny, nx), chunked, one frame per write_frame
//   /frames/step      int64 (frames), /frames/time float64 (frames)
//   /receivers/trace  float32 (rows, receivers): u at the receivers after steps
//                     first_step, first_step + 1, ... (/receivers has the attribute
//                     first_step)
//   /receivers/x, /receivers/y int32, /receivers/name fixed-length UTF-8 strings
// Written under a temporary name and renamed by commit(), with the XDMF sidecar
// FILE.xmf that ParaView and VisIt open (the frames as a time series, and the field).
#ifndef WAVE2D_HDF5_FIELD_FILE_HPP
#define WAVE2D_HDF5_FIELD_FILE_HPP

#include <wave2d/core/wave2d_Window.hpp>
#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace wave2d {

inline constexpr std::int64_t field_file_format_version = 1;

// The sidecar of an HDF5 file: FILE.xmf beside FILE.
std::filesystem::path xdmf_path(std::filesystem::path const& file);

// Why the sidecar could not name `file`, if it could not: XDMF readers take a data item's
// file up to the first ':' of its name, and XML has no control characters. FieldFile refuses
// such a path; a run, before it starts.
std::optional<std::string> sidecar_naming_problem(std::filesystem::path const& file);

class FieldFile {
 public:
  // Collective over `processes`. Creates the file under a temporary name beside `path`;
  // this process writes the owned cells of `block` (a window of scene's grid; its halo
  // is ignored), row-major. OutputError when it cannot, on every process.
  FieldFile(std::filesystem::path const& path, Scene const& scene, Window const& block,
            Processes const& processes = {});
  // Without commit(): the temporary is removed and `path` is as it was. Collective.
  ~FieldFile();
  FieldFile(FieldFile&&) noexcept;
  FieldFile& operator=(FieldFile&&) = delete;

  // Collective: u(t_step) over the block as the next frame.
  void write_frame(std::int64_t step, std::span<float const> u);
  // Collective: the final pair u(t_{step-1}), u(t_step) over the block.
  void write_field(std::int64_t step, std::span<float const> previous,
                   std::span<float const> current);
  // Collective: the trace's `rows` rows from first_step on, of the receivers `columns`
  // (indices into scene.receivers, ascending) that this process holds; `values` is
  // rows x columns.size(), row-major. Every process gives the same first_step and rows.
  void write_receivers(std::int64_t first_step, std::int64_t rows,
                       std::span<std::int32_t const> columns, std::span<float const> values);
  // Collective: closes the file, syncs it, renames it to `path` and writes the sidecar.
  void commit();

  std::int64_t frames() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wave2d

#endif
