// HDF5's C API as the HDF5 files of wave2d use it: handles closed when they go, errors as
// one-line exceptions, the processes' file access and transfer properties. Internal:
// included by wave2d_Hdf5*.cpp only, in builds with HDF5.
#ifndef WAVE2D_HDF5_HANDLES_HPP
#define WAVE2D_HDF5_HANDLES_HPP

#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/io/wave2d_Output.hpp>

#include <hdf5.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#if defined(WAVE2D_HAVE_PARALLEL_HDF5)
#include <mpi.h>
#endif

namespace wave2d {

namespace detail {

// An HDF5 identifier, closed by its kind's function when it goes.
class Hdf5Handle {
 public:
  using Close = herr_t (*)(hid_t);
  Hdf5Handle() = default;
  // Throws std::runtime_error("<doing>: <HDF5's message>") for a negative id.
  Hdf5Handle(hid_t id, Close close, std::string const& doing);
  Hdf5Handle(Hdf5Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  Hdf5Handle& operator=(Hdf5Handle&& other) noexcept;
  ~Hdf5Handle() { reset(); }

  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  // Closes now, and throws if HDF5 could not (a file's last writes fail here).
  void close(std::string const& doing);
  void reset() noexcept;

 private:
  hid_t id_ = H5I_INVALID_HID;
  Close close_ = nullptr;
};

// Creation properties (`kind`: H5P_FILE_CREATE, H5P_GROUP_CREATE or H5P_DATASET_CREATE) that
// record no times in the objects' headers: the same results make the same bytes.
Hdf5Handle creation_properties(hid_t kind);

// HDF5's innermost error message, the most specific, as one line.
std::string hdf5_error();
// Throws std::runtime_error("<doing>: <HDF5's message>") for a negative status.
void check(herr_t status, std::string const& doing);

// The process's HDF5 lock, recursive: Debian's HDF5 builds are not thread-safe, and
// simulations on several threads each write their own files. Held by Hdf5Use and by handles
// as they close.
std::recursive_mutex& hdf5_mutex();

// One thread's use of HDF5 while it lives: it holds hdf5_mutex(), and HDF5 prints no error
// stacks (errors become exceptions). Nests.
class Hdf5Use {
 public:
  Hdf5Use();
  ~Hdf5Use();
  Hdf5Use(Hdf5Use const&) = delete;
  Hdf5Use& operator=(Hdf5Use const&) = delete;

 private:
  std::lock_guard<std::recursive_mutex> held_;
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

// A dataspace of these dimensions; maxima for an extendible one.
Hdf5Handle dataspace(std::span<hsize_t const> dims, std::span<hsize_t const> maxima = {});

// Cells [x0, x0 + nx) x [y0, y0 + ny) of a grid.
struct GridRect {
  std::int64_t x0 = 0;
  std::int64_t y0 = 0;
  std::int64_t nx = 0;
  std::int64_t ny = 0;
  std::int64_t cells() const { return nx * ny; }
};

// Writes `values` (rect's cells, row-major) into a float dataset whose last two
// dimensions are the grid's y and x, at index `leading` along the dimensions before them.
void write_grid_block(hid_t dataset, std::span<hsize_t const> leading, GridRect rect,
                      float const* values);
// Reads the same, into `values`.
void read_grid_block(hid_t dataset, std::span<hsize_t const> leading, GridRect rect, float* values);

// Attributes of a file, group or dataset, each written by every process alike.
void write_attribute(hid_t object, char const* name, std::int64_t value);
void write_attribute(hid_t object, char const* name, double value);
void write_attribute(hid_t object, char const* name, std::string const& value);
// Read back; std::runtime_error naming the attribute when it is missing or of another kind.
std::int64_t read_int_attribute(hid_t object, char const* name);
std::string read_string_attribute(hid_t object, char const* name);
bool has_attribute(hid_t object, char const* name);

// Fixed-length strings (h5py reads them as bytes), `width` bytes each.
Hdf5Handle string_type(std::size_t width);

// Writes the trace of the receivers `columns` (ascending), `values` rows x columns.size()
// row-major, into a (rows, receivers) float dataset.
void write_columns(hid_t dataset, std::int64_t rows, std::span<std::int32_t const> columns,
                   std::span<float const> values);

// Every process's block (`mine`, its cells `values` row-major) of a float dataset whose
// last two dimensions are the grid's, at `leading` before them, written by rank 0 as the
// blocks come (`dataset` is rank 0's). Collective.
void write_blocks(Processes const& processes, hid_t dataset, std::span<hsize_t const> leading,
                  GridRect mine, std::span<float const> values);
// The same of a trace: every process's receivers' columns, written by rank 0.
void write_all_columns(Processes const& processes, hid_t dataset, std::int64_t rows,
                       std::span<std::int32_t const> columns, std::span<float const> values);

// An HDF5 file of the processes, written by rank 0 alone (the others send it their blocks:
// Processes::each_to_root) under a temporary name beside `path`, with the recording driver
// (wave2d_Hdf5Driver.hpp), and renamed into place by commit(); removed, `path` left as it
// was, when it goes without. Errors are OutputError("cannot write '<path>': ...") on every
// process.
class TemporaryHdf5File {
 public:
  // Collective: creates the temporary (the 1.8 format or later, whose object headers,
  // the attributes', carry checksums).
  TemporaryHdf5File(std::filesystem::path const& path, Processes const& processes);
  ~TemporaryHdf5File();
  TemporaryHdf5File(TemporaryHdf5File const&) = delete;
  TemporaryHdf5File& operator=(TemporaryHdf5File const&) = delete;

  hid_t get() const { return file_.get(); }  // on rank 0
  Processes const& processes() const { return processes_; }
  std::filesystem::path const& path() const { return path_; }

  // Runs `checks` on every process, then, when none failed, `f` on every process; a write
  // the disk refused on rank 0 is its failure.
  void run(std::function<void()> const& checks, std::function<void()> const& f) const;
  // Collective, every handle into the file closed: closes it, syncs it to disk, runs
  // `before_rename` (rank 0) and renames it to `path`.
  void commit(std::function<void()> const& before_rename = {});

 private:
  void fail_if_refused() const;
  void abandon() noexcept;

  Processes processes_;
  std::filesystem::path path_;
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::optional<RegisteredTemporary> registered_;
  Hdf5Handle file_;
  bool committed_ = false;
};

}  // namespace detail
}  // namespace wave2d

#endif
