#include <wave2d/io/wave2d_Hdf5.hpp>

#include <wave2d/io/wave2d_Output.hpp>

#if defined(WAVE2D_HAVE_HDF5)
#include <wave2d/io/detail/wave2d_Hdf5Driver.hpp>
#include <wave2d/io/detail/wave2d_Hdf5Handles.hpp>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace wave2d {

#if defined(WAVE2D_HAVE_HDF5)
namespace detail {

Hdf5Handle::Hdf5Handle(hid_t id, Close close, std::string const& doing) : id_(id), close_(close) {
  if (id < 0) throw std::runtime_error(doing + ": " + hdf5_error());
}

Hdf5Handle& Hdf5Handle::operator=(Hdf5Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, H5I_INVALID_HID);
    close_ = other.close_;
  }
  return *this;
}

void Hdf5Handle::close(std::string const& doing) {
  std::lock_guard const held(hdf5_mutex());
  hid_t const id = std::exchange(id_, H5I_INVALID_HID);
  if (id >= 0) check(close_(id), doing);
}

void Hdf5Handle::reset() noexcept {
  std::lock_guard const held(hdf5_mutex());
  if (id_ >= 0) close_(std::exchange(id_, H5I_INVALID_HID));
}

namespace {

herr_t innermost(unsigned n, H5E_error2_t const* error, void* data) {
  if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(data) = error->desc;
  return 0;
}

}  // namespace

std::string hdf5_error() {
  std::string message;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &message);
  H5Eclear2(H5E_DEFAULT);
  // A system call's failure, as HDF5 words it ("..., errno = 28, error message = '...'"):
  // the system's message alone.
  if (auto const at = message.find("errno = "); at != std::string::npos) {
    int const error = std::atoi(message.c_str() + at + 8);
    if (error > 0) return std::strerror(error);
  }
  message = message.substr(0, message.find_first_of("\r\n"));
  return message.empty() ? "HDF5 error" : "HDF5: " + message;
}

void check(herr_t status, std::string const& doing) {
  if (status < 0) throw std::runtime_error(doing + ": " + hdf5_error());
}

Hdf5Handle creation_properties(hid_t kind) {
  Hdf5Handle properties(H5Pcreate(kind), H5Pclose, "creation properties");
  check(H5Pset_obj_track_times(properties.get(), false), "creation properties");
  return properties;
}

std::recursive_mutex& hdf5_mutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

Hdf5Use::Hdf5Use() : held_(hdf5_mutex()) {
  H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Hdf5Use::~Hdf5Use() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

Hdf5Handle dataspace(std::span<hsize_t const> dims, std::span<hsize_t const> maxima) {
  return Hdf5Handle(
      H5Screate_simple(int(dims.size()), dims.data(), maxima.empty() ? nullptr : maxima.data()),
      H5Sclose, "dataspace");
}

namespace {

// The file's selection of rect at `leading`, and the memory's of rect's cells.
std::pair<Hdf5Handle, Hdf5Handle> grid_selection(hid_t dataset, std::span<hsize_t const> leading,
                                                 GridRect rect) {
  Hdf5Handle file_space(H5Dget_space(dataset), H5Sclose, "dataset space");
  int const rank = H5Sget_simple_extent_ndims(file_space.get());
  if (rank != int(leading.size()) + 2) throw std::runtime_error("dataset of another rank");
  std::vector<hsize_t> start(leading.begin(), leading.end());
  std::vector<hsize_t> count(leading.size(), 1);
  start.insert(start.end(), {hsize_t(rect.y0), hsize_t(rect.x0)});
  count.insert(count.end(), {hsize_t(rect.ny), hsize_t(rect.nx)});
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                            nullptr),
        "block selection");
  return {std::move(file_space), dataspace(count)};
}

}  // namespace

void write_grid_block(hid_t dataset, std::span<hsize_t const> leading, GridRect rect,
                      float const* values) {
  if (rect.cells() == 0) return;
  auto const [file_space, memory_space] = grid_selection(dataset, leading, rect);
  check(H5Dwrite(dataset, H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(), H5P_DEFAULT,
                 values),
        "writing");
}

void read_grid_block(hid_t dataset, std::span<hsize_t const> leading, GridRect rect,
                     float* values) {
  if (rect.cells() == 0) return;
  auto const [file_space, memory_space] = grid_selection(dataset, leading, rect);
  check(
      H5Dread(dataset, H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(), H5P_DEFAULT, values),
      "reading");
}

namespace {

void write_attribute(hid_t object, char const* name, hid_t type, void const* value) {
  Hdf5Handle const space(H5Screate(H5S_SCALAR), H5Sclose, "attribute space");
  Hdf5Handle const attribute(H5Acreate2(object, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                             H5Aclose, std::string("attribute ") + name);
  check(H5Awrite(attribute.get(), type, value), std::string("attribute ") + name);
}

// The attribute, checked to be a scalar of `type_class`.
Hdf5Handle open_attribute(hid_t object, char const* name, H5T_class_t type_class) {
  std::string const what = std::string("attribute '") + name + "'";
  if (H5Aexists(object, name) <= 0) throw std::runtime_error("no " + what);
  Hdf5Handle attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose, what);
  Hdf5Handle const type(H5Aget_type(attribute.get()), H5Tclose, what);
  Hdf5Handle const space(H5Aget_space(attribute.get()), H5Sclose, what);
  if (H5Tget_class(type.get()) != type_class ||
      H5Sget_simple_extent_type(space.get()) != H5S_SCALAR) {
    throw std::runtime_error(what + " is of another type");
  }
  return attribute;
}

}  // namespace

void write_attribute(hid_t object, char const* name, std::int64_t value) {
  write_attribute(object, name, H5T_NATIVE_INT64, &value);
}

void write_attribute(hid_t object, char const* name, double value) {
  write_attribute(object, name, H5T_NATIVE_DOUBLE, &value);
}

void write_attribute(hid_t object, char const* name, std::string const& value) {
  Hdf5Handle const type = string_type(std::max<std::size_t>(value.size(), 1));
  std::string padded = value;
  padded.resize(std::max<std::size_t>(value.size(), 1), '\0');
  write_attribute(object, name, type.get(), padded.data());
}

std::int64_t read_int_attribute(hid_t object, char const* name) {
  Hdf5Handle const attribute = open_attribute(object, name, H5T_INTEGER);
  std::int64_t value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_INT64, &value), std::string("attribute ") + name);
  return value;
}

std::string read_string_attribute(hid_t object, char const* name) {
  Hdf5Handle const attribute = open_attribute(object, name, H5T_STRING);
  Hdf5Handle const stored(H5Aget_type(attribute.get()), H5Tclose, name);
  if (H5Tis_variable_str(stored.get()) != 0) {
    throw std::runtime_error(std::string("attribute '") + name + "' is of another type");
  }
  std::size_t const width = H5Tget_size(stored.get());
  if (width == 0 || width > (1u << 20)) {
    throw std::runtime_error(std::string("attribute '") + name + "' is too long");
  }
  // Read as stored (ASCII or UTF-8, which HDF5 does not convert into each other).
  std::string value(width, '\0');
  check(H5Aread(attribute.get(), stored.get(), value.data()), std::string("attribute ") + name);
  value.resize(std::strlen(value.c_str()));
  if (H5Tget_strpad(stored.get()) == H5T_STR_SPACEPAD) {
    value.erase(value.find_last_not_of(' ') + 1);
  }
  return value;
}

bool has_attribute(hid_t object, char const* name) { return H5Aexists(object, name) > 0; }

void write_columns(hid_t dataset, std::int64_t rows, std::span<std::int32_t const> columns,
                   std::span<float const> values) {
  if (columns.empty() || rows == 0) return;
  // Each column rows x 1 at (0, column): the union of the selections is ordered as the
  // file is, row-major, which is the values' own order.
  Hdf5Handle const file_space(H5Dget_space(dataset), H5Sclose, "dataset space");
  check(H5Sselect_none(file_space.get()), "selection");
  for (std::int32_t column : columns) {
    hsize_t const start[2] = {0, hsize_t(column)};
    hsize_t const count[2] = {hsize_t(rows), 1};
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_OR, start, nullptr, count, nullptr),
          "column selection");
  }
  hsize_t const held = values.size();
  Hdf5Handle const memory = dataspace({&held, 1});
  check(H5Dwrite(dataset, H5T_NATIVE_FLOAT, memory.get(), file_space.get(), H5P_DEFAULT,
                 values.data()),
        "writing the receivers' trace");
}

namespace {

// Data and metadata on disk before the rename makes the file visible under its name.
void sync_file(std::filesystem::path const& path, std::filesystem::path const& named) {
  int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (::fsync(fd) != 0 && errno != EINVAL)) {
    std::string const reason = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw OutputError("cannot write '" + named.string() + "': " + reason);
  }
  ::close(fd);
}

}  // namespace

TemporaryHdf5File::TemporaryHdf5File(std::filesystem::path const& path, Processes const& processes)
    : processes_(processes), path_(path) {
  processes_.agree([&] {
    if (!processes_.root()) return;
    OutputTarget const resolved = output_target(path);
    if (resolved.write_through) {
      throw OutputError("cannot write '" + path.string() +
                        "': an HDF5 file is written to a regular file, not a device");
    }
    target_ = resolved.path;
    temporary_ = temporary_path(resolved.path);
    registered_.emplace(temporary_);
    Hdf5Use const use;
    try {
      Hdf5Handle const access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access properties");
      check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST), "file format");
      use_recording_driver(access.get());
      take_refused_open();
      Hdf5Handle const create = creation_properties(H5P_FILE_CREATE);
      hid_t const id = H5Fcreate(temporary_.c_str(), H5F_ACC_EXCL, create.get(), access.get());
      if (id < 0) {
        int const refused = take_refused_open();
        throw OutputError("cannot write '" + path.string() +
                          "': " + (refused != 0 ? std::strerror(refused) : hdf5_error()));
      }
      file_ = Hdf5Handle(id, H5Fclose, "creating the file");
      fail_if_refused();
    } catch (...) {
      abandon();
      throw;
    }
  });
}

TemporaryHdf5File::~TemporaryHdf5File() {
  if (!committed_) abandon();
}

void TemporaryHdf5File::abandon() noexcept {
  if (!processes_.root()) return;
  Hdf5Use const use;
  file_.reset();  // the driver refuses HDF5 nothing, so that the close succeeds
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  registered_.reset();
}

void TemporaryHdf5File::fail_if_refused() const {
  if (file_.get() < 0) return;  // closed: commit() said what it refused
  if (int const error = recorded_error(file_.get())) {
    throw OutputError("cannot write '" + path_.string() + "': " + std::strerror(error));
  }
}

void TemporaryHdf5File::run(std::function<void()> const& checks,
                            std::function<void()> const& f) const {
  processes_.agree(checks);
  processes_.agree([&] {
    Hdf5Use const use;
    try {
      f();
    } catch (OutputError const&) {
      if (processes_.root()) fail_if_refused();
      throw;
    } catch (std::runtime_error const& e) {
      // HDF5 reading back what the disk refused fails for that: say the refusal.
      if (processes_.root()) fail_if_refused();
      throw OutputError("cannot write '" + path_.string() + "': " + e.what());
    }
    if (processes_.root()) fail_if_refused();
  });
}

void TemporaryHdf5File::commit(std::function<void()> const& before_rename) {
  processes_.agree([&] {
    if (!processes_.root()) return;
    Hdf5Use const use;
    int closed = 0;
    report_error_at_close(file_.get(), &closed);
    try {
      file_.close("closing the file");
    } catch (std::runtime_error const& e) {
      throw OutputError("cannot write '" + path_.string() + "': " + e.what());
    }
    if (closed != 0) {
      throw OutputError("cannot write '" + path_.string() + "': " + std::strerror(closed));
    }
    sync_file(temporary_, path_);
    if (before_rename) before_rename();
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
      throw OutputError("cannot write '" + path_.string() + "': " + std::strerror(errno));
    }
    registered_.reset();
    committed_ = true;
  });
  committed_ = true;
}

std::vector<std::byte> pack_block(GridRect rect, std::span<float const> values) {
  std::int64_t const head[4] = {rect.x0, rect.y0, rect.nx, rect.ny};
  std::vector<std::byte> bytes(sizeof head + values.size_bytes());
  std::memcpy(bytes.data(), head, sizeof head);
  if (!values.empty()) std::memcpy(bytes.data() + sizeof head, values.data(), values.size_bytes());
  return bytes;
}

void write_blocks(Processes const& processes, hid_t dataset, std::span<hsize_t const> leading,
                  GridRect mine, std::span<float const> values) {
  processes.each_to_root(pack_block(mine, values), [&](int, std::span<std::byte const> bytes) {
    std::int64_t head[4];
    std::memcpy(head, bytes.data(), sizeof head);
    GridRect const rect{head[0], head[1], head[2], head[3]};
    auto const* cells = reinterpret_cast<float const*>(bytes.data() + sizeof head);
    write_grid_block(dataset, leading, rect, cells);
  });
}

void write_all_columns(Processes const& processes, hid_t dataset, std::int64_t rows,
                       std::span<std::int32_t const> columns, std::span<float const> values) {
  std::int64_t const head[2] = {rows, std::int64_t(columns.size())};
  std::vector<std::byte> mine(sizeof head + columns.size_bytes() + values.size_bytes());
  std::memcpy(mine.data(), head, sizeof head);
  if (!columns.empty()) {
    std::memcpy(mine.data() + sizeof head, columns.data(), columns.size_bytes());
  }
  if (!values.empty()) {
    std::memcpy(mine.data() + sizeof head + columns.size_bytes(), values.data(),
                values.size_bytes());
  }
  processes.each_to_root(mine, [&](int, std::span<std::byte const> bytes) {
    std::int64_t got[2];
    std::memcpy(got, bytes.data(), sizeof got);
    auto const count = std::size_t(got[1]);
    auto const* at = bytes.data() + sizeof got;
    std::span<std::int32_t const> const held(reinterpret_cast<std::int32_t const*>(at), count);
    std::span<float const> const trace(
        reinterpret_cast<float const*>(at + count * sizeof(std::int32_t)),
        std::size_t(got[0]) * count);
    write_columns(dataset, got[0], held, trace);
  });
}

Hdf5Handle string_type(std::size_t width) {
  Hdf5Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
  check(H5Tset_size(type.get(), width), "string type");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "string type");
  return type;
}

}  // namespace detail

void quiet_hdf5_errors() {
  std::lock_guard const held(detail::hdf5_mutex());
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}
#else
void quiet_hdf5_errors() {}
#endif

}  // namespace wave2d
