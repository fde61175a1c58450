#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_ReceiverFiles.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

#if defined(WAVE2D_HAVE_PLOTTER)
// Debian's libplotter has the PNG plotter; its header shows it only when told so.
#define INCLUDE_PNG_SUPPORT 1
#include <plotter.h>  // last: it says `using namespace std`
#endif

namespace wave2d {

namespace fs = std::filesystem;

float ReceiverTrace::time(std::int64_t row) const { return time_of_step(t0, dt, first_step + row); }

std::vector<std::string> receiver_names(Scene const& scene) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < scene.receivers.size(); ++i) {
    names.push_back(receiver_name(scene, i));
  }
  return names;
}

namespace {

std::string number(double value, int digits = 9) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

void write_csv(std::ostream& out, ReceiverTrace const& trace) {
  out << "step,time";
  for (auto const& name : trace.names) out << ',' << name;
  out << '\n';
  std::size_t const columns = trace.names.size();
  for (std::int64_t row = 0; row < trace.rows(); ++row) {
    out << trace.first_step + row << ',' << number(trace.time(row));
    for (std::size_t i = 0; i < columns; ++i) {
      out << ',' << number(trace.values[std::size_t(row) * columns + i]);
    }
    out << '\n';
  }
}

void plot(std::ostream& file, fs::path const& path, ReceiverTrace const& trace);

}  // namespace

void write_receiver_files(fs::path const& npy, fs::path const& csv,
                          std::optional<fs::path> const& plot_path, ReceiverTrace const& trace) {
  std::vector<StreamFile> files{{npy,
                                 [&](std::ostream& out) {
                                   write_npy(out, trace.values, trace.rows(),
                                             std::int64_t(trace.names.size()));
                                 }},
                                {csv, [&](std::ostream& out) { write_csv(out, trace); }}};
  if (plot_path) {
    files.push_back({*plot_path, [&](std::ostream& out) { plot(out, *plot_path, trace); }});
  }
  write_streams_atomically(files);
}

bool can_plot_receivers() {
#if defined(WAVE2D_HAVE_PLOTTER)
  return true;
#else
  return false;
#endif
}

#if defined(WAVE2D_HAVE_PLOTTER)
namespace {

// Distinct colours, cycled (libplot's X11 colour names).
constexpr char const* palette[] = {"blue",       "red",         "forestgreen", "darkorange",
                                   "purple",     "saddlebrown", "deeppink",    "gray40",
                                   "olivedrab",  "darkcyan",    "navy",        "firebrick",
                                   "darkviolet", "goldenrod",   "teal",        "black"};
constexpr int legend_entries = 16;

// The PNG without its "Creation Time" text chunk, which libplot stamps with the clock: the
// same trace then gives the same bytes, as a resumed run must. An ancillary chunk: the
// image stays a valid PNG.
std::string without_creation_time(std::string const& png) {
  constexpr std::size_t signature = 8;
  std::string kept = png.substr(0, signature);
  std::size_t at = signature;
  while (at + 12 <= png.size()) {
    auto const byte = [&](std::size_t i) { return std::uint32_t(std::uint8_t(png[at + i])); };
    std::size_t const length = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
    std::size_t const size = std::min(png.size() - at, 12 + length);
    std::string_view const chunk(png.data() + at, size);
    if (!(chunk.substr(4, 4) == "tEXt" &&
          chunk.substr(8).starts_with(std::string_view("Creation Time\0", 14)))) {
      kept += chunk;
    }
    at += size;
  }
  return kept + png.substr(at);
}

void plot(std::ostream& file, fs::path const& path, ReceiverTrace const& trace) {
  std::size_t const columns = trace.names.size();
  std::int64_t const rows = trace.rows();
  float lo = 0.0f;
  float hi = 0.0f;
  for (float v : trace.values) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (hi - lo <= 0.0f) lo = -1.0f, hi = 1.0f;
  double const t_first = trace.time(0);
  double const t_last = rows > 1 ? trace.time(rows - 1) : t_first + 1.0;
  // Plot coordinates: 1000 x 600 units, the axes' box inside the margins.
  double const x0 = 90, x1 = 800, y0 = 60, y1 = 560;
  auto const px = [&](double t) { return x0 + (t - t_first) / (t_last - t_first) * (x1 - x0); };
  auto const py = [&](double u) { return y0 + (u - lo) / (double(hi) - lo) * (y1 - y0); };

  {
    std::ostringstream out;  // then to the file, without its creation time
    PlotterParams params;
    params.setplparam("BITMAPSIZE", const_cast<char*>("1000x600"));
    params.setplparam("BG_COLOR", const_cast<char*>("white"));
    params.setplparam("INTERLACE", const_cast<char*>("no"));
    std::ostringstream errors;
    std::istringstream none;
    PNGPlotter plotter(none, out, errors, params);
    if (plotter.openpl() < 0) throw OutputError("cannot write '" + path.string() + "': libplot");
    plotter.fspace(0, 0, 1000, 600);
    plotter.erase();
    plotter.fontname("HersheySans");
    plotter.ffontsize(14);
    plotter.pencolorname("black");
    plotter.flinewidth(1);
    plotter.filltype(0);
    plotter.fbox(x0, y0, x1, y1);
    if (lo < 0.0f && hi > 0.0f) {  // u = 0
      plotter.pencolorname("gray70");
      plotter.fline(x0, py(0.0), x1, py(0.0));
      plotter.pencolorname("black");
    }
    for (int k = 0; k <= 4; ++k) {  // ticks and their values
      double const t = t_first + (t_last - t_first) * k / 4.0;
      double const u = lo + (double(hi) - lo) * k / 4.0;
      plotter.fline(px(t), y0, px(t), y0 - 6);
      plotter.fmove(px(t), y0 - 10);
      plotter.alabel('c', 't', number(t, 4).c_str());
      plotter.fline(x0, py(u), x0 - 6, py(u));
      plotter.fmove(x0 - 10, py(u));
      plotter.alabel('r', 'c', number(u, 4).c_str());
    }
    plotter.fmove((x0 + x1) / 2, 12);
    plotter.alabel('c', 'b', "time");
    plotter.fmove(x0, y1 + 12);
    plotter.alabel('c', 'b', "u");
    plotter.fmove((x0 + x1) / 2, y1 + 12);
    plotter.alabel('c', 'b',
                   ("receivers, steps " + std::to_string(trace.first_step) + " to " +
                    std::to_string(trace.first_step + rows - 1))
                       .c_str());
    // A point per pixel column at most: long runs would draw their points over each other.
    std::int64_t const stride = std::max<std::int64_t>(1, rows / 2000);
    for (std::size_t i = 0; i < columns; ++i) {
      plotter.pencolorname(palette[i % std::size(palette)]);
      plotter.flinewidth(1.5);
      for (std::int64_t row = 0; row < rows; row += stride) {
        float const v = trace.values[std::size_t(row) * columns + i];
        double const y = py(std::isfinite(v) ? std::clamp(v, lo, hi) : 0.0f);
        row == 0 ? plotter.fmove(px(trace.time(row)), y) : plotter.fcont(px(trace.time(row)), y);
      }
      plotter.endpath();
      if (int(i) < legend_entries) {
        double const y = y1 - 14 - 22 * double(i);
        plotter.fline(x1 + 15, y, x1 + 45, y);
        plotter.pencolorname("black");
        plotter.fmove(x1 + 52, y);
        plotter.alabel('l', 'c', trace.names[i].c_str());
      }
    }
    if (columns > std::size_t(legend_entries)) {
      plotter.pencolorname("black");
      plotter.fmove(x1 + 15, y1 - 14 - 22 * legend_entries);
      plotter.alabel('l', 'c',
                     ("and " + std::to_string(columns - legend_entries) + " more").c_str());
    }
    if (plotter.closepl() < 0) {
      throw OutputError("cannot write '" + path.string() + "': libplot: " + errors.str());
    }
    file << without_creation_time(out.str());
  }
}

}  // namespace
#else
namespace {

void plot(std::ostream&, fs::path const& path, ReceiverTrace const&) {
  throw OutputError("cannot write '" + path.string() +
                    "': built without libplot (install libplot-dev and rebuild)");
}

}  // namespace
#endif

}  // namespace wave2d
