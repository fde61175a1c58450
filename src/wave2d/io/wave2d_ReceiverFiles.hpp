// The receivers' files of a run: the trace as NPY (io/wave2d_Output.hpp), CSV and a plot.
#ifndef WAVE2D_RECEIVER_FILES_HPP
#define WAVE2D_RECEIVER_FILES_HPP

#include <wave2d/scene/wave2d_Scene.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace wave2d {

// A trace on the host: row r holds u at each receiver after first_step + r steps.
struct ReceiverTrace {
  std::vector<float> values;  // rows() x names.size(), row-major
  std::vector<std::string> names;
  std::int64_t first_step = 0;
  float t0 = 0.0f;
  float dt = 0.0f;

  std::int64_t rows() const {
    return names.empty() ? 0 : std::int64_t(values.size() / names.size());
  }
  float time(std::int64_t row) const;  // of row `row`, as the kernels compute it
};

// The scene's receivers' names, in the trace's order.
std::vector<std::string> receiver_names(Scene const& scene);

// Whether this build plots traces: it needs GNU plotutils' libplotter (libplot-dev).
bool can_plot_receivers();

// The trace as one set of files (write_streams_atomically): `npy` (io/wave2d_Output.hpp's
// write_npy), `csv` ("step,time,<names>" then a line per row, floats to 9 significant
// digits: exact) and, where given, `plot`, the traces against time as a PNG line plot
// (libplotter draws, rasterises and encodes; an OutputError when built without it).
void write_receiver_files(std::filesystem::path const& npy, std::filesystem::path const& csv,
                          std::optional<std::filesystem::path> const& plot,
                          ReceiverTrace const& trace);

}  // namespace wave2d

#endif
