// Checkpoints as HDF5 files (the format in wave2d_Checkpoint.hpp): written by rank 0 from
// the blocks of the grid of any number of processes, and read in blocks by each.
#include <wave2d/io/wave2d_Checkpoint.hpp>

#include <wave2d/io/detail/wave2d_InputFile.hpp>
#if defined(WAVE2D_HAVE_HDF5)
#include <wave2d/io/detail/wave2d_Hdf5Handles.hpp>
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>

namespace wave2d {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void unavailable() { throw CheckpointError(checkpoints_unavailable_reason()); }

// Formats 1 and 2 began so.
constexpr char binary_magic[8] = {'W', 'A', 'V', 'E', '2', 'D', 'C', 'K'};

// The cells of the local grid of `window` on its grid.
Window local_grid(Window const& window) {
  return {window.global_nx,
          window.global_ny,
          window.origin_x(),
          window.origin_y(),
          window.local_nx(),
          window.local_ny(),
          0};
}

void check_data(CheckpointData const& data) {
  if (data.nx <= 0 || data.ny <= 0 || data.trace_first_step < 0 ||
      data.trace_first_step > data.step || data.receivers > max_receivers) {
    throw std::invalid_argument(
        "wave2d::write_checkpoint: a grid of no cells, or a trace that does not begin between "
        "step 0 and the checkpoint's");
  }
}

}  // namespace

#if defined(WAVE2D_HAVE_HDF5)

namespace {

using detail::GridRect;
using detail::Hdf5Handle;

// The fields and the trace: chunks of at most 512 x 512 values (1 MiB), each with HDF5's
// Fletcher-32 checksum.
Hdf5Handle checksummed_dataset(hid_t file, char const* name, hsize_t rows, hsize_t columns) {
  Hdf5Handle const create = detail::creation_properties(H5P_DATASET_CREATE);
  hsize_t const chunk[2] = {std::min<hsize_t>(rows, 512), std::min<hsize_t>(columns, 512)};
  detail::check(H5Pset_chunk(create.get(), 2, chunk), "chunks");
  detail::check(H5Pset_fletcher32(create.get()), "checksums");
  // A chunk its damaged index no longer finds reads as the fill value, which no checksum
  // covers: NaN, which resuming refuses, where 0 would pass for a quiet field.
  float const missing = std::numeric_limits<float>::quiet_NaN();
  detail::check(H5Pset_fill_value(create.get(), H5T_NATIVE_FLOAT, &missing), "fill value");
  hsize_t const dims[2] = {rows, columns};
  Hdf5Handle const space = detail::dataspace(dims);
  return Hdf5Handle(
      H5Dcreate2(file, name, H5T_NATIVE_FLOAT, space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
      H5Dclose, std::string("dataset ") + name);
}

void write_header(hid_t file, CheckpointData const& header, int ranks) {
  detail::write_attribute(file, "format", std::string("wave2d checkpoint"));
  detail::write_attribute(file, "format_version", checkpoint_format_version);
  detail::write_attribute(file, "wave2d_version", std::string(WAVE2D_VERSION));
  detail::write_attribute(file, "nx", std::int64_t(header.nx));
  detail::write_attribute(file, "ny", std::int64_t(header.ny));
  detail::write_attribute(file, "step", header.step);
  // The hashes' 64 bits as a signed integer's.
  detail::write_attribute(file, "scene_hash", std::int64_t(header.scene_hash));
  detail::write_attribute(file, "receivers", std::int64_t(header.receivers));
  detail::write_attribute(file, "receivers_hash", std::int64_t(header.receivers_hash));
  detail::write_attribute(file, "trace_first_step", header.trace_first_step);
  detail::write_attribute(file, "numerics", header.numerics);
  detail::write_attribute(file, "configuration", header.configuration);
  detail::write_attribute(file, "ranks", std::int64_t(ranks));
}

// Refusals of the file at `path`: "checkpoint '<path>' <reason>".
struct Refuse {
  fs::path path;
  CheckpointError operator()(std::string const& reason) const {
    return CheckpointError("checkpoint '" + path.string() + "' " + reason);
  }
};

// Runs f, HDF5's errors in it (std::runtime_error) refusals of a corrupted file.
template <class F>
void refusing_errors(Refuse const& refuse, F&& f) {
  try {
    f();
  } catch (CheckpointError const&) {
    throw;
  } catch (std::runtime_error const& e) {
    throw refuse(std::string("is corrupted: ") + e.what());
  }
}

// On rank 0: a regular file, and an HDF5 one, not a checkpoint of formats 1 and 2.
void check_kind(fs::path const& path, Refuse const& refuse) {
  std::optional<detail::InputFile> file;
  try {
    file.emplace(path, "checkpoint");
  } catch (detail::InputFileError const& e) {
    throw refuse(e.missing() ? "does not exist" : e.what());
  }
  std::array<char, sizeof(binary_magic) + 4> start{};
  std::size_t const read = file->read(start.data(), start.size());
  if (read == start.size() && std::memcmp(start.data(), binary_magic, sizeof(binary_magic)) == 0) {
    std::uint32_t version = 0;
    std::memcpy(&version, start.data() + sizeof(binary_magic), sizeof(version));
    // Only formats 1 and 2 were binary: another number is no checkpoint's.
    if (version != 1 && version != 2) throw refuse("is not a wave2d checkpoint");
    throw refuse("is a checkpoint of format " + std::to_string(version) +
                 ", from before checkpoints were HDF5 files: this wave2d " WAVE2D_VERSION
                 " reads format " +
                 std::to_string(checkpoint_format_version) +
                 " only (resume it with the wave2d that wrote it)");
  }
  detail::Hdf5Use const use;
  if (H5Fis_hdf5(path.c_str()) <= 0) throw refuse("is not a wave2d checkpoint");
}

// The header's values, each checked possible, and the datasets' sizes against them.
CheckpointData read_header(hid_t file, Refuse const& refuse) {
  if (!detail::has_attribute(file, "format") ||
      detail::read_string_attribute(file, "format") != "wave2d checkpoint") {
    throw refuse("is not a wave2d checkpoint");
  }
  std::int64_t const version = detail::read_int_attribute(file, "format_version");
  if (version != checkpoint_format_version) {
    throw refuse("has format version " + std::to_string(version) +
                 ", this wave2d " WAVE2D_VERSION " reads version " +
                 std::to_string(checkpoint_format_version));
  }
  std::int64_t const nx = detail::read_int_attribute(file, "nx");
  std::int64_t const ny = detail::read_int_attribute(file, "ny");
  std::int64_t const receivers = detail::read_int_attribute(file, "receivers");
  CheckpointData data;
  data.step = detail::read_int_attribute(file, "step");
  data.trace_first_step = detail::read_int_attribute(file, "trace_first_step");
  std::int64_t const largest = std::numeric_limits<std::int32_t>::max();
  if (nx <= 0 || ny <= 0 || nx > largest || ny > largest || data.step < 0 || receivers < 0 ||
      receivers > std::int64_t(max_receivers) || data.trace_first_step < 0 ||
      data.trace_first_step > data.step) {
    throw refuse("is corrupted (impossible header)");
  }
  data.nx = std::int32_t(nx);
  data.ny = std::int32_t(ny);
  data.receivers = std::uint32_t(receivers);
  data.scene_hash = std::uint64_t(detail::read_int_attribute(file, "scene_hash"));
  data.receivers_hash = std::uint64_t(detail::read_int_attribute(file, "receivers_hash"));
  data.numerics = detail::read_string_attribute(file, "numerics");
  data.configuration = detail::read_string_attribute(file, "configuration");
  return data;
}

// Every chunk of `rect` of a field or the trace as written: stored, under its Fletcher-32
// checksum and of its size. HDF5 reads a chunk that its index does not list as fill values, and one
// whose index entry says it skipped the filter without its checksum: a damaged index would give
// values that no checksum covers.
void check_chunks(hid_t set, char const* name, GridRect rect, Refuse const& refuse) {
  if (rect.cells() == 0) return;
  auto const corrupted = [&](std::string const& what) {
    return refuse(std::string("is corrupted: ") + name + " " + what);
  };
  Hdf5Handle const create(H5Dget_create_plist(set), H5Pclose, name);
  hsize_t chunk[2] = {0, 0};
  unsigned flags = 0;
  std::size_t no_values = 0;
  unsigned filter_config = 0;
  if (H5Pget_layout(create.get()) != H5D_CHUNKED || H5Pget_chunk(create.get(), 2, chunk) != 2 ||
      chunk[0] == 0 || chunk[1] == 0 || H5Pget_nfilters(create.get()) != 1 ||
      H5Pget_filter2(create.get(), 0, &flags, &no_values, nullptr, 0, nullptr, &filter_config) !=
          H5Z_FILTER_FLETCHER32) {
    throw corrupted("is not stored in chunks under checksums");
  }
  hsize_t const stored_size = chunk[0] * chunk[1] * sizeof(float) + 4;  // the values, the sum
  auto const first = [](std::int64_t start, hsize_t size) { return hsize_t(start) / size * size; };
  for (hsize_t row = first(rect.y0, chunk[0]); row < hsize_t(rect.y0 + rect.ny); row += chunk[0]) {
    for (hsize_t column = first(rect.x0, chunk[1]); column < hsize_t(rect.x0 + rect.nx);
         column += chunk[1]) {
      hsize_t const offset[2] = {row, column};
      unsigned skipped = 0;
      haddr_t address = HADDR_UNDEF;
      hsize_t size = 0;
      if (H5Dget_chunk_info_by_coord(set, offset, &skipped, &address, &size) < 0 ||
          address == HADDR_UNDEF || skipped != 0 || size != stored_size) {
        throw corrupted("has a damaged chunk at row " + std::to_string(row) + ", column " +
                        std::to_string(column));
      }
    }
  }
}

// The dataset `name`, checked to be a float dataset of rows x columns.
Hdf5Handle open_dataset(hid_t file, char const* name, std::int64_t rows, std::int64_t columns,
                        Refuse const& refuse) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
    throw refuse(std::string("is corrupted: it has no ") + name);
  }
  Hdf5Handle set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, name);
  Hdf5Handle const space(H5Dget_space(set.get()), H5Sclose, name);
  Hdf5Handle const type(H5Dget_type(set.get()), H5Tclose, name);
  hsize_t dims[2] = {0, 0};
  if (H5Sget_simple_extent_ndims(space.get()) != 2 || H5Tget_class(type.get()) != H5T_FLOAT ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2 || dims[0] != hsize_t(rows) ||
      dims[1] != hsize_t(columns)) {
    throw refuse(std::string("is corrupted: ") + name + " is " + std::to_string(dims[0]) + " x " +
                 std::to_string(dims[1]) + " floats, its header says " + std::to_string(rows) +
                 " x " + std::to_string(columns));
  }
  return set;
}

// What read_checkpoint reads of the file on every process: the header, the datasets'
// sizes, the memory the region and the trace need, then the caller's check of the header.
// Collective.
struct OpenCheckpoint {
  Hdf5Handle file;
  CheckpointData header;

  OpenCheckpoint(fs::path const& path, Processes const& processes, Refuse const& refuse) {
    processes.agree([&] {
      if (processes.root()) check_kind(path, refuse);
    });
    // Every process reads its part on its own, read-only.
    processes.agree([&] {
      detail::Hdf5Use const use;
      hid_t const id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      if (id < 0) throw refuse("cannot be read: " + detail::hdf5_error());
      file = Hdf5Handle(id, H5Fclose, "opening");
      refusing_errors(refuse, [&] { header = read_header(file.get(), refuse); });
    });
  }
};

// Reads `rect` of a field, or the whole trace, into `values`, its chunks checked first. A
// checksum that does not match is HDF5's read error.
void read_values(hid_t set, GridRect rect, std::vector<float>& values, Refuse const& refuse,
                 char const* name) {
  refusing_errors(refuse, [&] { check_chunks(set, name, rect, refuse); });
  values.resize(std::size_t(rect.cells()));
  try {
    detail::read_grid_block(set, {}, rect, values.data());
  } catch (std::runtime_error const& e) {
    throw refuse(std::string("is corrupted (") + name + " cannot be read back: " + e.what() + ")");
  }
}

CheckpointData read_region(fs::path const& path, Window const& region, Processes const& processes,
                           std::function<void(CheckpointData const& header)> const& check_header) {
  Refuse const refuse{path};
  OpenCheckpoint open(path, processes, refuse);
  CheckpointData& data = open.header;
  Window const cells = local_grid(region);
  std::int64_t const rows = data.trace_rows();
  Hdf5Handle previous, current, trace;
  processes.agree([&] {
    detail::Hdf5Use const use;
    hid_t const file = open.file.get();
    refusing_errors(refuse, [&] {
      previous = open_dataset(file, "/field/previous", data.ny, data.nx, refuse);
      current = open_dataset(file, "/field/current", data.ny, data.nx, refuse);
      if (data.receivers > 0) {
        trace = open_dataset(file, "/receivers/trace", rows, data.receivers, refuse);
      }
    });
    if (check_header) check_header(data);
    if (region.global_nx != data.nx || region.global_ny != data.ny) {
      throw refuse("is of another grid: " + std::to_string(data.nx) + " x " +
                   std::to_string(data.ny) + ", this run's " + std::to_string(region.global_nx) +
                   " x " + std::to_string(region.global_ny));
    }
    double const values =
        2.0 * double(cells.nx) * double(cells.ny) + double(rows) * double(data.receivers);
    if (auto const shortfall = detail::host_memory_shortfall("its " + std::to_string(cells.nx) +
                                                                 " x " + std::to_string(cells.ny) +
                                                                 " cells with the receivers' trace",
                                                             values * sizeof(float))) {
      throw refuse("is too large: " + *shortfall);
    }
  });
  processes.agree([&] {
    detail::Hdf5Use const use;
    GridRect const rect{cells.x0, cells.y0, cells.nx, cells.ny};
    read_values(previous.get(), rect, data.previous, refuse, "/field/previous");
    read_values(current.get(), rect, data.current, refuse, "/field/current");
    if (trace) {
      read_values(trace.get(), {0, 0, data.receivers, rows}, data.trace, refuse,
                  "/receivers/trace");
    }
    check_checkpoint_finite(path, data, region);
  });
  return std::move(data);
}

}  // namespace

void write_checkpoint(fs::path const& path, CheckpointData const& header, Window const& block,
                      std::span<float const> previous, std::span<float const> current,
                      std::span<std::int32_t const> columns, std::span<float const> trace,
                      Processes const& processes) {
  if (!can_checkpoint) unavailable();
  processes.agree([&] {
    check_data(header);
    validate(block);
    std::size_t const cells = std::size_t(block.nx) * std::size_t(block.ny);
    if (block.global_nx != header.nx || block.global_ny != header.ny || previous.size() != cells ||
        current.size() != cells ||
        trace.size() != std::size_t(header.trace_rows()) * columns.size()) {
      throw std::invalid_argument(
          "wave2d::write_checkpoint: the block's fields or trace do not fit the header");
    }
  });
  detail::TemporaryHdf5File file(path, processes);
  bool const writer = processes.root();
  file.run([] {},
           [&] {
             Hdf5Handle group;
             if (writer) {
               write_header(file.get(), header, processes.size());
               group = Hdf5Handle(
                   H5Gcreate2(file.get(), "/field", H5P_DEFAULT,
                              detail::creation_properties(H5P_GROUP_CREATE).get(), H5P_DEFAULT),
                   H5Gclose, "group field");
             }
             GridRect const rect{block.x0, block.y0, block.nx, block.ny};
             for (auto [name, values] :
                  {std::pair{"/field/previous", previous}, {"/field/current", current}}) {
               Hdf5Handle set;
               if (writer) {
                 set =
                     checksummed_dataset(file.get(), name, hsize_t(header.ny), hsize_t(header.nx));
               }
               detail::write_blocks(processes, set.get(), {}, rect, values);
             }
             if (header.receivers == 0) return;
             Hdf5Handle receivers, set;
             if (writer) {
               receivers = Hdf5Handle(
                   H5Gcreate2(file.get(), "/receivers", H5P_DEFAULT,
                              detail::creation_properties(H5P_GROUP_CREATE).get(), H5P_DEFAULT),
                   H5Gclose, "group receivers");
               set = checksummed_dataset(file.get(), "/receivers/trace",
                                         hsize_t(header.trace_rows()), header.receivers);
             }
             detail::write_all_columns(processes, set.get(), header.trace_rows(), columns, trace);
           });
  file.commit();
}

CheckpointData read_checkpoint(
    fs::path const& path, Window const& region, Processes const& processes,
    std::function<void(CheckpointData const& header)> const& check_header) {
  if (!can_checkpoint) unavailable();
  return read_region(path, region, processes, check_header);
}

CheckpointData read_checkpoint_header(fs::path const& path) {
  if (!can_checkpoint) unavailable();
  Processes const alone;
  return OpenCheckpoint(path, alone, Refuse{path}).header;
}

#else  // no HDF5

void write_checkpoint(fs::path const&, CheckpointData const&, Window const&, std::span<float const>,
                      std::span<float const>, std::span<std::int32_t const>, std::span<float const>,
                      Processes const&) {
  unavailable();
}

CheckpointData read_checkpoint(fs::path const&, Window const&, Processes const&,
                               std::function<void(CheckpointData const&)> const&) {
  unavailable();
}

CheckpointData read_checkpoint_header(fs::path const&) { unavailable(); }

#endif

void write_checkpoint(fs::path const& path, CheckpointData const& data) {
  check_data(data);
  std::vector<std::int32_t> columns(data.receivers);
  for (std::uint32_t i = 0; i < data.receivers; ++i) columns[i] = std::int32_t(i);
  write_checkpoint(path, data, Window::whole(data.nx, data.ny), data.previous, data.current,
                   columns, data.trace, Processes());
}

CheckpointData read_checkpoint(
    fs::path const& path, std::function<void(CheckpointData const& header)> const& check_header) {
  if (!can_checkpoint) unavailable();
  // The grid is the checkpoint's own: read from its header first.
  CheckpointData const header = read_checkpoint_header(path);
  return read_checkpoint(path, Window::whole(header.nx, header.ny), Processes(), check_header);
}

}  // namespace wave2d
