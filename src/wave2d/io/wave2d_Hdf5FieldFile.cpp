#include <wave2d/io/wave2d_Hdf5FieldFile.hpp>

#include <wave2d/io/detail/wave2d_Utf8.hpp>
#include <wave2d/io/wave2d_Output.hpp>

#if defined(WAVE2D_HAVE_HDF5)
#include <wave2d/io/detail/wave2d_Hdf5Handles.hpp>
#endif

#include <algorithm>
#include <cerrno>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace wave2d {

namespace fs = std::filesystem;

fs::path xdmf_path(fs::path const& file) { return fs::path(file.string() + ".xmf"); }

namespace {

// Whether `text` is UTF-8 of characters XML 1.0 allows beside control characters: the
// sidecar declares no encoding, so XML reads it as UTF-8, and U+FFFE and U+FFFF are no XML
// characters.
bool is_xml_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    auto const c = detail::utf8_char_at(text, at);
    if (!c || c->code == 0xfffe || c->code == 0xffff) return false;
    at += c->length;
  }
  return true;
}

}  // namespace

std::optional<std::string> sidecar_naming_problem(fs::path const& file) {
  std::string const name = file.filename().string();
  if (name.find(':') != std::string::npos) {
    return "its XDMF sidecar could not name a file with ':' in its name (XDMF readers end the "
           "name there)";
  }
  if (std::ranges::any_of(name, [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    return "its XDMF sidecar could not name a file with a control character in its name (XML "
           "has no place for one)";
  }
  if (!is_xml_utf8(name)) {
    return "its XDMF sidecar could not name a file whose name is not text XML can hold (UTF-8, "
           "no U+FFFE or U+FFFF)";
  }
  return std::nullopt;
}

#if defined(WAVE2D_HAVE_HDF5)

namespace {

using detail::GridRect;
using detail::Hdf5Handle;

// Text as XML character data and attribute values take it.
std::string xml_escaped(std::string_view text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&apos;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

// The XDMF 2 sidecar: each frame a uniform grid of ny x nx nodes, spacing dx, its u a
// hyperslab of /frames/u; then the final field. `name` is the HDF5 file's, beside it.
std::string xdmf_text(std::string const& name, std::int32_t nx, std::int32_t ny, float dx,
                      std::vector<double> const& frame_times, std::optional<double> field_time) {
  std::string const file = xml_escaped(name);
  std::ostringstream out;
  out.precision(17);
  std::string const dims = std::to_string(ny) + " " + std::to_string(nx);
  auto const grid = [&](std::string const& name, double time) {
    out << "    <Grid Name=\"" << name << "\" GridType=\"Uniform\">\n"
        << "      <Time Value=\"" << time << "\"/>\n"
        << "      <Topology TopologyType=\"2DCoRectMesh\" Dimensions=\"" << dims << "\"/>\n"
        << "      <Geometry GeometryType=\"ORIGIN_DXDY\">\n"
        << "        <DataItem Format=\"XML\" Dimensions=\"2\">0 0</DataItem>\n"
        << "        <DataItem Format=\"XML\" Dimensions=\"2\">" << dx << " " << dx
        << "</DataItem>\n"
        << "      </Geometry>\n";
  };
  auto const item = [&](std::string const& dataset) {
    return "<DataItem Dimensions=\"" + dims + "\" NumberType=\"Float\" Precision=\"4\" " +
           "Format=\"HDF\">" + file + ":" + dataset + "</DataItem>";
  };
  out << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<Xdmf Version=\"2.0\">\n  <Domain>\n";
  if (!frame_times.empty()) {
    out << "  <Grid Name=\"frames\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (std::size_t f = 0; f < frame_times.size(); ++f) {
      grid("frame " + std::to_string(f), frame_times[f]);
      out << "      <Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Node\">\n"
          << "        <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << dims
          << "\" Type=\"HyperSlab\">\n"
          << "          <DataItem Dimensions=\"3 3\" Format=\"XML\">" << f << " 0 0 1 1 1 1 "
          << dims << "</DataItem>\n"
          << "          <DataItem Dimensions=\"" << frame_times.size() << " " << dims
          << "\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">" << file
          << ":/frames/u</DataItem>\n"
          << "        </DataItem>\n      </Attribute>\n    </Grid>\n";
    }
    out << "  </Grid>\n";
  }
  if (field_time) {
    grid("field", *field_time);
    out << "      <Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Node\">\n        "
        << item("/field/current") << "\n      </Attribute>\n"
        << "      <Attribute Name=\"u_previous\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        << "        " << item("/field/previous") << "\n      </Attribute>\n    </Grid>\n";
  }
  out << "  </Domain>\n</Xdmf>\n";
  return out.str();
}

}  // namespace

struct FieldFile::State {
  std::optional<detail::TemporaryHdf5File> file;
  GridRect block;
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  float dx = 0.0f;
  float dt = 0.0f;
  float t0 = 0.0f;
  std::vector<Receiver> receivers;
  // Rank 0's: the file is its alone.
  Hdf5Handle frames_u;
  Hdf5Handle frames_step;
  Hdf5Handle frames_time;
  std::vector<double> frame_times;
  std::optional<double> field_time;

  Processes const& processes() const { return file->processes(); }
  bool writer() const { return processes().root(); }
  void run(std::function<void()> const& checks, std::function<void()> const& f) const {
    file->run(checks, f);
  }

  double time(std::int64_t step) const { return double(time_of_step(t0, dt, step)); }

  void check_block(std::span<float const> values, char const* what) const {
    if (values.size() != std::size_t(block.cells())) {
      throw std::invalid_argument("wave2d::FieldFile: " + std::string(what) + " has " +
                                  std::to_string(values.size()) + " values, the block " +
                                  std::to_string(block.cells()));
    }
  }

  Hdf5Handle group(char const* name) const {
    Hdf5Handle const create = detail::creation_properties(H5P_GROUP_CREATE);
    return Hdf5Handle(H5Gcreate2(file->get(), name, H5P_DEFAULT, create.get(), H5P_DEFAULT),
                      H5Gclose, std::string("group ") + name);
  }

  // A dataset of `type` and `dims`, chunked as `chunk` when given (then extendible along
  // its first dimension).
  Hdf5Handle dataset(char const* name, hid_t type, std::vector<hsize_t> const& dims,
                     std::vector<hsize_t> const& chunk = {}) const {
    Hdf5Handle const create = detail::creation_properties(H5P_DATASET_CREATE);
    std::vector<hsize_t> maxima;
    if (!chunk.empty()) {
      detail::check(H5Pset_chunk(create.get(), int(chunk.size()), chunk.data()), "chunks");
      maxima = dims;
      maxima[0] = H5S_UNLIMITED;
    }
    Hdf5Handle const space = detail::dataspace(dims, maxima);
    return Hdf5Handle(
        H5Dcreate2(file->get(), name, type, space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
        H5Dclose, std::string("dataset ") + name);
  }

  // Element `index` of a 1-D dataset.
  static void write_element(hid_t set, hid_t type, hsize_t index, void const* value) {
    Hdf5Handle const file_space(H5Dget_space(set), H5Sclose, "dataset space");
    hsize_t const one = 1;
    Hdf5Handle const memory = detail::dataspace({&one, 1});
    detail::check(
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &index, nullptr, &one, nullptr),
        "element selection");
    detail::check(H5Dwrite(set, type, memory.get(), file_space.get(), H5P_DEFAULT, value),
                  "writing");
  }

  void create_frames() {
    Hdf5Handle const frames = group("frames");
    // Chunks of at most 1024 x 1024 cells (4 MiB): h5py and ParaView read a frame in few.
    std::vector<hsize_t> const dims{0, hsize_t(ny), hsize_t(nx)};
    std::vector<hsize_t> const chunk{1, hsize_t(std::min(ny, 1024)), hsize_t(std::min(nx, 1024))};
    frames_u = dataset("/frames/u", H5T_NATIVE_FLOAT, dims, chunk);
    frames_step = dataset("/frames/step", H5T_NATIVE_INT64, {0}, {1024});
    frames_time = dataset("/frames/time", H5T_NATIVE_DOUBLE, {0}, {1024});
  }

  void write_receiver_cells() const {
    Hdf5Handle const group_handle = group("receivers");
    std::vector<std::int32_t> x;
    std::vector<std::int32_t> y;
    std::vector<std::string> names;
    std::size_t width = 1;
    Scene named;  // receiver_name() reads the scene's receivers only
    named.receivers = receivers;
    for (std::size_t i = 0; i < receivers.size(); ++i) {
      x.push_back(receivers[i].x);
      y.push_back(receivers[i].y);
      names.push_back(receiver_name(named, i));
      width = std::max(width, names.back().size());
    }
    std::string packed(width * names.size(), '\0');
    for (std::size_t i = 0; i < names.size(); ++i) names[i].copy(&packed[i * width], width);
    Hdf5Handle const type = detail::string_type(width);
    std::vector<hsize_t> const count{hsize_t(receivers.size())};
    auto const write_all = [&](char const* name, hid_t file_type, hid_t memory_type,
                               void const* values) {
      Hdf5Handle const set = dataset(name, file_type, count);
      detail::check(H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values),
                    std::string("writing ") + name);
    };
    write_all("/receivers/x", H5T_NATIVE_INT32, H5T_NATIVE_INT32, x.data());
    write_all("/receivers/y", H5T_NATIVE_INT32, H5T_NATIVE_INT32, y.data());
    write_all("/receivers/name", type.get(), type.get(), packed.data());
  }
};

FieldFile::FieldFile(fs::path const& path, Scene const& scene, Window const& block,
                     Processes const& processes)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.nx = scene.nx;
  s.ny = scene.ny;
  s.dx = scene.dx;
  s.dt = scene.dt;
  s.t0 = scene.t0;
  s.receivers = scene.receivers;
  s.block = {block.x0, block.y0, block.nx, block.ny};
  processes.agree([&] {
    if (block.global_nx != scene.nx || block.global_ny != scene.ny) {
      throw std::invalid_argument("wave2d::FieldFile: the block is of another grid");
    }
    validate(block);
    if (auto const problem = sidecar_naming_problem(path)) {
      throw OutputError("cannot write '" + path.string() + "': " + *problem);
    }
  });
  s.file.emplace(path, processes);
  s.run([] {},
        [&] {
          if (!s.writer()) return;
          hid_t const root = s.file->get();
          detail::write_attribute(root, "format", std::string("wave2d fields"));
          detail::write_attribute(root, "format_version", field_file_format_version);
          detail::write_attribute(root, "wave2d_version", std::string(WAVE2D_VERSION));
          detail::write_attribute(root, "scene", scene.name);
          detail::write_attribute(root, "nx", std::int64_t(scene.nx));
          detail::write_attribute(root, "ny", std::int64_t(scene.ny));
          detail::write_attribute(root, "dx", double(scene.dx));
          detail::write_attribute(root, "dt", double(scene.dt));
          detail::write_attribute(root, "t0", double(scene.t0));
        });
}

FieldFile::FieldFile(FieldFile&&) noexcept = default;

// The file's temporary, if not committed, goes with it.
FieldFile::~FieldFile() {
  if (!state_) return;
  detail::Hdf5Use const use;
  for (Hdf5Handle* handle : {&state_->frames_u, &state_->frames_step, &state_->frames_time}) {
    handle->reset();
  }
}

std::int64_t FieldFile::frames() const { return std::int64_t(state_->frame_times.size()); }

void FieldFile::write_frame(std::int64_t step, std::span<float const> u) {
  State& s = *state_;
  hsize_t const index = s.frame_times.size();
  double const time = s.time(step);
  s.run([&] { s.check_block(u, "the frame"); },
        [&] {
          if (s.writer()) {
            if (!s.frames_u) s.create_frames();
            hsize_t const grown[3] = {index + 1, hsize_t(s.ny), hsize_t(s.nx)};
            detail::check(H5Dset_extent(s.frames_u.get(), grown), "growing /frames/u");
            detail::check(H5Dset_extent(s.frames_step.get(), grown), "growing /frames/step");
            detail::check(H5Dset_extent(s.frames_time.get(), grown), "growing /frames/time");
            s.write_element(s.frames_step.get(), H5T_NATIVE_INT64, index, &step);
            s.write_element(s.frames_time.get(), H5T_NATIVE_DOUBLE, index, &time);
          }
          detail::write_blocks(s.processes(), s.frames_u.get(), {&index, 1}, s.block, u);
        });
  s.frame_times.push_back(time);
}

void FieldFile::write_field(std::int64_t step, std::span<float const> previous,
                            std::span<float const> current) {
  State& s = *state_;
  s.run(
      [&] {
        s.check_block(previous, "previous");
        s.check_block(current, "current");
        if (s.field_time) throw std::invalid_argument("wave2d::FieldFile: the field is written");
      },
      [&] {
        Hdf5Handle group;
        std::vector<hsize_t> const dims{hsize_t(s.ny), hsize_t(s.nx)};
        if (s.writer()) group = s.group("field");
        for (auto [name, values] :
             {std::pair{"/field/previous", previous}, {"/field/current", current}}) {
          Hdf5Handle set;
          if (s.writer()) set = s.dataset(name, H5T_NATIVE_FLOAT, dims);
          detail::write_blocks(s.processes(), set.get(), {}, s.block, values);
        }
        if (s.writer()) {
          detail::write_attribute(group.get(), "step", step);
          detail::write_attribute(group.get(), "time", s.time(step));
        }
      });
  s.field_time = s.time(step);
}

void FieldFile::write_receivers(std::int64_t first_step, std::int64_t rows,
                                std::span<std::int32_t const> columns,
                                std::span<float const> values) {
  State& s = *state_;
  std::int64_t const receivers = std::int64_t(s.receivers.size());
  s.run(
      [&] {
        if (rows < 0 || values.size() != std::size_t(rows) * columns.size()) {
          throw std::invalid_argument(
              "wave2d::FieldFile::write_receivers: " + std::to_string(values.size()) +
              " values are not " + std::to_string(rows) + " rows of " +
              std::to_string(columns.size()) + " receivers");
        }
        for (std::size_t i = 0; i < columns.size(); ++i) {
          if (columns[i] < 0 || columns[i] >= receivers ||
              (i > 0 && columns[i] <= columns[i - 1])) {
            throw std::invalid_argument(
                "wave2d::FieldFile::write_receivers: columns must ascend within the receivers");
          }
        }
      },
      [&] {
        Hdf5Handle trace;
        if (s.writer()) {
          s.write_receiver_cells();
          trace =
              s.dataset("/receivers/trace", H5T_NATIVE_FLOAT, {hsize_t(rows), hsize_t(receivers)});
          Hdf5Handle const group(H5Gopen2(s.file->get(), "receivers", H5P_DEFAULT), H5Gclose,
                                 "group receivers");
          detail::write_attribute(group.get(), "first_step", first_step);
        }
        detail::write_all_columns(s.processes(), trace.get(), rows, columns, values);
      });
}

void FieldFile::commit() {
  State& s = *state_;
  s.run([] {},
        [&] {
          for (Hdf5Handle* handle : {&s.frames_u, &s.frames_step, &s.frames_time}) {
            handle->close("closing a dataset");
          }
        });
  fs::path const& path = s.file->path();
  // The sidecar is made before the file takes its name, and takes its own after. Meanwhile
  // the earlier sidecar, which describes the earlier file, waits under a hidden name: no
  // moment, a kill's included, shows the new file beside it. It is put back when the file
  // cannot take its name (removed if even that fails: the earlier file then stands alone)
  // and removed once the file took its name. A sidecar that cannot be written leaves the
  // file as it was; one that cannot take its name leaves the new file alone.
  std::optional<fs::path> sidecar;
  std::optional<detail::SetAside> earlier;
  bool file_renamed = false;
  try {
    s.file->commit([&] {
      std::string const text =
          xdmf_text(path.filename().string(), s.nx, s.ny, s.dx, s.frame_times, s.field_time);
      sidecar = write_temporary(xdmf_path(path), text);
      earlier = detail::set_aside(xdmf_path(path));
    });
    file_renamed = true;
    s.run([] {},
          [&] {
            if (!s.writer()) return;
            rename_temporary(*sidecar, xdmf_path(path));
            sidecar.reset();
          });
  } catch (...) {
    if (sidecar) ::unlink(sidecar->c_str());
    if (earlier && (file_renamed || ::rename(earlier->aside.c_str(), earlier->path.c_str()) != 0)) {
      ::unlink(earlier->aside.c_str());
    }
    throw;
  }
  if (earlier) ::unlink(earlier->aside.c_str());
}

#else  // no HDF5

struct FieldFile::State {};

FieldFile::FieldFile(fs::path const& path, Scene const&, Window const&, Processes const&) {
  throw OutputError("cannot write '" + path.string() + "': " + no_hdf5_reason);
}
FieldFile::FieldFile(FieldFile&&) noexcept = default;
FieldFile::~FieldFile() = default;
std::int64_t FieldFile::frames() const { return 0; }
void FieldFile::write_frame(std::int64_t, std::span<float const>) {}
void FieldFile::write_field(std::int64_t, std::span<float const>, std::span<float const>) {}
void FieldFile::write_receivers(std::int64_t, std::int64_t, std::span<std::int32_t const>,
                                std::span<float const>) {}
void FieldFile::commit() {}

#endif

}  // namespace wave2d
