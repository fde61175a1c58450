#include <wave2d/scene/wave2d_Scene.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

namespace wave2d {

float kappa(float c, float dx, float dt) {
  double const courant = double(c) * double(dt) / double(dx);
  return float(courant * courant);
}

namespace {

// The layer's ramp along one axis, 1 at the border to 0 at `ramp` (a fraction of the side)
// from it, at index i of n. A grid one cell wide is all border: its damping is never read.
float ramp_at(std::int32_t i, std::int32_t n, float ramp) {
  float const h = n > 1 ? float(i) / float(n - 1) : 0.0f;
  return 1.0f - std::min(std::min(h, 1.0f - h), ramp) / ramp;
}

bool has_damping(Scene const& scene) {
  return scene.damping.width > 0.0f && scene.damping.strength != 0.0f;
}

// d from the ramps of a cell's column and row. Same float expression as the reference
// scenes' boundary_damping.
float damping_of_ramps(Scene const& scene, float column_ramp, float row_ramp) {
  float const f = std::max(column_ramp, row_ramp);
  return scene.damping.strength * f * f;
}

}  // namespace

float damping_at(Scene const& scene, std::int32_t x, std::int32_t y) {
  if (!has_damping(scene)) return 0.0f;
  float const ramp = scene.damping.width;
  return damping_of_ramps(scene, ramp_at(x, scene.nx, ramp), ramp_at(y, scene.ny, ramp));
}

std::vector<std::size_t> owned_receivers(Scene const& scene, Window const& window) {
  std::vector<std::size_t> owned;
  for (std::size_t i = 0; i < scene.receivers.size(); ++i) {
    Receiver const& r = scene.receivers[i];
    if (r.x >= window.x0 && r.x < window.x0 + window.nx && r.y >= window.y0 &&
        r.y < window.y0 + window.ny) {
      owned.push_back(i);
    }
  }
  return owned;
}

std::string receiver_name(Scene const& scene, std::size_t i) {
  auto const& name = scene.receivers.at(i).name;
  return name.empty() ? "r" + std::to_string(i) : name;
}

double courant_number(Scene const& scene) {
  double c_max = scene.c;
  if (!scene.speed.empty()) {
    c_max = *std::max_element(scene.speed.begin(), scene.speed.end());
  }
  return c_max * double(scene.dt) / double(scene.dx);
}

StabilityLimit stability_limit(Scene const& scene) {
  StabilityLimit limit{courant_number(scene), max_stable_courant, 0.0f};
  // Only cells off the border are updated; damping grows toward it.
  if (scene.nx < 3 || scene.ny < 3) return limit;
  auto const bound_of = [](float d) { return std::sqrt((2.0 - double(d)) / 4.0); };
  bool const damped = has_damping(scene);
  if (scene.speed.empty()) {
    for (auto const [x, y] : {std::pair{1, 1}, std::pair{scene.nx - 2, scene.ny - 2}}) {
      float const d = damping_at(scene, x, y);
      if (d > limit.damping) limit = {limit.courant, bound_of(d), d};
    }
    return limit;
  }
  // Per cell: the ramps of each column and row once.
  std::vector<float> column_ramp(std::size_t(scene.nx)), row_ramp(std::size_t(scene.ny));
  if (damped) {
    float const ramp = scene.damping.width;
    for (std::int32_t x = 0; x < scene.nx; ++x) column_ramp[x] = ramp_at(x, scene.nx, ramp);
    for (std::int32_t y = 0; y < scene.ny; ++y) row_ramp[y] = ramp_at(y, scene.ny, ramp);
  }
  double const per_speed = double(scene.dt) / double(scene.dx);
  double worst = -1.0;  // the largest (c·dt/dx / bound)²
  for (std::int32_t y = 1; y + 1 < scene.ny; ++y) {
    for (std::int32_t x = 1; x + 1 < scene.nx; ++x) {
      if (scene.is_wall(x, y)) continue;  // never updated: its speed moves nothing
      float const d = damped ? damping_of_ramps(scene, column_ramp[x], row_ramp[y]) : 0.0f;
      double const courant = double(scene.speed[scene.index(x, y)]) * per_speed;
      double const ratio = courant * courant * 4.0 / (2.0 - double(d));
      if (ratio > worst) {
        worst = ratio;
        limit = {courant, bound_of(d), d};
      }
    }
  }
  return limit;
}

namespace {

[[noreturn]] void fail(std::string const& message) { throw SceneError(message); }

std::string position(std::int32_t x, std::int32_t y) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ")";
}

std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

// Names go into CSV headers and plot legends unquoted.
bool is_plain_name(std::string const& name) {
  if (name.empty() || name.size() > max_receiver_name) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

void check_receivers(Scene const& scene) {
  if (scene.receivers.size() > max_receivers) {
    fail(std::to_string(scene.receivers.size()) + " receivers, more than the " +
         std::to_string(max_receivers) + " a scene may have");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < scene.receivers.size(); ++i) {
    auto const& r = scene.receivers[i];
    if (r.x < 0 || r.x >= scene.nx || r.y < 0 || r.y >= scene.ny) {
      fail("receiver " + std::to_string(i) + " at " + position(r.x, r.y) + " lies outside the " +
           std::to_string(scene.nx) + " x " + std::to_string(scene.ny) + " grid");
    }
    std::string const name = receiver_name(scene, i);
    if (!is_plain_name(name)) {
      fail("receiver " + std::to_string(i) + "'s name must be 1 to " +
           std::to_string(max_receiver_name) + " letters, digits, '_', '-' or '.'");
    }
    if (is_trace_column(name)) {
      fail("receiver " + std::to_string(i) + " is named '" + name +
           "', a column the receivers' CSV file has already");
    }
    if (!names.insert(name).second) fail("two receivers are named '" + name + "'");
  }
}

// Distance from `value` to the next float up in magnitude: what rounding to float may
// change a value near `value` by.
double float_spacing(double value) {
  float const magnitude = std::fabs(float(value));
  float const next = std::nextafter(magnitude, std::numeric_limits<float>::infinity());
  // Above the largest float there is none: the spacing below it, that of its binade.
  if (std::isinf(next)) return double(magnitude) - std::nextafter(magnitude, 0.0f);
  return double(next) - magnitude;
}

}  // namespace

// A waveform's float expression grows with |t| and |t - delay| (sine: its argument;
// ricker: a, a² and amplitude·(1 − 2a²)), so it is finite at every step of a range when
// it is finite at the range's first and last steps, and where it is not at the last, the
// steps where it is not are the range's end from the first of them on. The steps made are
// 0 .. steps − 1, each at its own t.
void validate_source_values(Scene const& scene, std::size_t i) {
  Waveform const& w = scene.sources.at(i).waveform;
  if (!std::isfinite(w.amplitude) || !std::isfinite(w.frequency) || !std::isfinite(w.delay)) {
    fail("source " + std::to_string(i) + " has a waveform parameter that is not finite");
  }
  if (std::fabs(w.amplitude) > max_source_amplitude) {
    fail("source " + std::to_string(i) + " has amplitude " + number_text(w.amplitude) +
         ", above the " + number_text(max_source_amplitude) +
         " that leaves the stencil's sums room in single precision");
  }
  auto const finite_at = [&](std::int64_t step) {
    return std::isfinite(w.value(time_of_step(scene.t0, scene.dt, step)));
  };
  auto const refuse = [&](std::int64_t step) {
    fail("source " + std::to_string(i) + "'s value at step " + std::to_string(step) +
         " (t = " + number_text(time_of_step(scene.t0, scene.dt, step)) +
         ") is not finite in single precision");
  };
  if (!finite_at(0)) refuse(0);
  std::int64_t const last = std::max<std::int64_t>(scene.steps - 1, 0);
  if (finite_at(last)) return;
  std::int64_t finite = 0, not_finite = last;  // the first step that is not: (finite, not_finite]
  while (not_finite - finite > 1) {
    std::int64_t const middle = finite + (not_finite - finite) / 2;
    (finite_at(middle) ? finite : not_finite) = middle;
  }
  refuse(not_finite);
}

// t(n) = fl(t0 + fl(n·dt)) grows by the exact dt less two roundings: the product's, and
// the sum's (none when t0 is 0). Both are largest at the run's ends, where |t| and |n·dt|
// are; a dt above the two spacings there changes t at every step.
void validate_time_axis(Scene const& scene) {
  std::int64_t const last = std::max<std::int64_t>(scene.steps, 1);
  float const t_last = time_of_step(scene.t0, scene.dt, last);
  std::string const step = "a step of dt = " + number_text(scene.dt);
  if (!std::isfinite(t_last)) {
    fail(step + " takes t = t0 + n*dt beyond single precision by step " + std::to_string(last));
  }
  double const product = double(float(last) * scene.dt);
  // The end of largest |t|, whose rounding loses the most; the product's alone when t0 is 0.
  double const t_far = std::fabs(scene.t0) >= std::fabs(t_last) ? scene.t0 : t_last;
  double const lost = float_spacing(product) + (scene.t0 != 0.0f ? float_spacing(t_far) : 0.0);
  if (!(double(scene.dt) > lost)) {
    double const shown = scene.t0 != 0.0f ? t_far : product;
    fail(step + " does not change t = t0 + n*dt in single precision: t reaches " +
         number_text(shown) + " by step " + std::to_string(last) + ", where its values lie " +
         number_text(float_spacing(shown)) + " apart");
  }
}

std::string number_text_beside(double value, double bound) {
  std::string text;
  for (int digits = 6; digits <= 9; ++digits) {
    std::ostringstream value_text, bound_text;
    value_text.precision(digits);
    bound_text.precision(digits);
    value_text << value;
    bound_text << bound;
    text = value_text.str();
    if (text != bound_text.str()) break;
  }
  return text;
}

void validate_kappa(Scene const& scene, ValidationOptions const& options) {
  if (!options.allow_unstable) {
    StabilityLimit const limit = stability_limit(scene);
    if (limit.courant > limit.bound) {
      std::string const& how = options.how_to_allow_unstable;
      std::string const bound =
          limit.damping == 0.0f
              ? "1/sqrt(2) = 0.7071"
              : "sqrt((2 - d)/4) = " + number_text_beside(limit.bound, limit.courant) +
                    ", the bound where the absorbing layer damps by d = " +
                    number_text(limit.damping);
      throw UnstableTimeStep(
          "unstable time step: c*dt/dx = " + number_text_beside(limit.courant, limit.bound) +
              " exceeds " + bound + " (reduce dt)" +
              (how.empty() ? "" : "; " + how + " runs it anyway"),
          limit.courant, limit.bound);
    }
  }
  double const courant = courant_number(scene);
  // Only an allowed unstable step can get here with κ beyond float.
  if (!std::isfinite(float(courant * courant))) {
    fail("kappa = (c*dt/dx)^2 = " + number_text(courant * courant) + " is beyond single precision");
  }
  double const c_min =
      scene.speed.empty() ? scene.c : *std::min_element(scene.speed.begin(), scene.speed.end());
  double const slowest = c_min * double(scene.dt) / double(scene.dx);
  if (float(slowest * slowest) < std::numeric_limits<float>::min()) {
    fail("c*dt/dx = " + number_text(slowest) + (scene.speed.empty() ? "" : " (the slowest c)") +
         " makes kappa = (c*dt/dx)^2 = " + number_text(slowest * slowest) +
         ", below single precision's normal numbers: the wave would not move");
  }
}

void validate(Scene const& scene, ValidationOptions const& options) {
  if (options.validated) return;
  if (scene.nx <= 0 || scene.ny <= 0) {
    fail("grid size must be positive, got " + std::to_string(scene.nx) + " x " +
         std::to_string(scene.ny));
  }
  for (auto [name, value] : {std::pair{"dx", scene.dx}, {"dt", scene.dt}, {"c", scene.c}}) {
    if (!(value > 0.0f) || !std::isfinite(value)) {
      fail(std::string(name) + " must be positive and finite, got " + number_text(value));
    }
  }
  if (!std::isfinite(scene.t0)) fail("t0 must be finite, got " + number_text(scene.t0));
  if (scene.steps < 0) fail("the number of steps must not be negative");
  validate_time_axis(scene);
  if (!(scene.damping.width >= 0.0f && scene.damping.width <= 0.5f)) {
    fail("damping width must lie in [0, 0.5] (a fraction of each side)");
  }
  if (!(scene.damping.strength >= 0.0f && scene.damping.strength < 1.0f)) {
    fail("damping strength must lie in [0, 1)");
  }
  auto const cells = std::size_t(scene.cells());
  if (!scene.walls.empty() && scene.walls.size() != cells) {
    fail("wall mask has " + std::to_string(scene.walls.size()) + " cells, the grid " +
         std::to_string(cells));
  }
  if (!scene.speed.empty()) {
    if (scene.speed.size() != cells) {
      fail("speed map has " + std::to_string(scene.speed.size()) + " cells, the grid " +
           std::to_string(cells));
    }
    for (std::size_t i = 0; i < cells; ++i) {
      if (!(scene.speed[i] > 0.0f) || !std::isfinite(scene.speed[i])) {
        fail("wave speed must be positive and finite, got " + std::to_string(scene.speed[i]) +
             " at cell " + position(std::int32_t(i % scene.nx), std::int32_t(i / scene.nx)));
      }
    }
  }
  if (scene.sources.size() > max_sources) {
    fail(std::to_string(scene.sources.size()) + " sources, more than the " +
         std::to_string(max_sources) + " a scene may have");
  }
  std::set<std::pair<std::int32_t, std::int32_t>> taken;
  for (std::size_t i = 0; i < scene.sources.size(); ++i) {
    auto const& s = scene.sources[i];
    if (s.x < 0 || s.x >= scene.nx || s.y < 0 || s.y >= scene.ny) {
      fail("source " + std::to_string(i) + " at " + position(s.x, s.y) + " lies outside the " +
           std::to_string(scene.nx) + " x " + std::to_string(scene.ny) + " grid");
    }
    if (!taken.insert({s.x, s.y}).second) {
      fail("two sources share the cell " + position(s.x, s.y));
    }
    validate_source_values(scene, i);
  }
  check_receivers(scene);
  validate_kappa(scene, options);
}

}  // namespace wave2d
