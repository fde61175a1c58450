// A scene: the grid, the medium, walls, sources and damping layer, as runtime values.
#ifndef WAVE2D_SCENE_HPP
#define WAVE2D_SCENE_HPP

#include <wave2d/core/wave2d_CellRule.hpp>
#include <wave2d/core/wave2d_Coefficients.hpp>
#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/core/wave2d_Window.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d {

// The most c·dt/dx a cell without damping allows: 1/√2. A damped cell allows less
// (stability_limit).
inline constexpr double max_stable_courant = 0.70710678118654752;

// A time step above the stability bound: the one SceneError that a caller may choose to
// allow (ValidationOptions::allow_unstable). Its message names the front end's way of
// allowing it, ValidationOptions::how_to_allow_unstable, where one is given.
class UnstableTimeStep : public SceneError {
 public:
  UnstableTimeStep(std::string const& message, double courant, double bound = max_stable_courant)
      : SceneError(message), courant_(courant), bound_(bound) {}
  // c·dt/dx of the cell furthest past its bound, and that bound.
  double courant() const { return courant_; }
  double bound() const { return bound_; }

 private:
  double courant_;
  double bound_;
};

struct Source {
  std::int32_t x = 0;
  std::int32_t y = 0;
  Waveform waveform;
};

// A cell whose u is recorded at every step (Simulation::receivers()). `name` may be
// empty: receiver_name() then gives "r<index>".
struct Receiver {
  std::int32_t x = 0;
  std::int32_t y = 0;
  std::string name;
};

// Sources a scene may have: a cell's code holds a source's index as a float (-2 - i), exact
// up to 2^24.
inline constexpr std::size_t max_sources = (std::size_t(1) << 24) - 1;

// Receivers a scene may list: a trace row holds one float per receiver.
inline constexpr std::size_t max_receivers = 4096;
inline constexpr std::size_t max_receiver_name = 64;
// The receivers' CSV file's own columns, which no receiver may be named.
inline bool is_trace_column(std::string_view name) { return name == "step" || name == "time"; }

// Quadratic absorbing layer along the four sides: in a band `width` (a fraction of
// each side's length) the damping ramps from 0 to `strength` at the border.
struct Damping {
  float width = 0.1f;
  float strength = 0.5f;
};

struct Scene {
  std::string name;
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  float c = 1.0f;          // wave speed, unless `speed` is given
  float dx = 1.0f;         // cell size
  float dt = 0.25f;        // time step
  float t0 = 0.0f;         // time of step 0
  std::int64_t steps = 0;  // default number of steps of a run
  Damping damping;
  std::vector<std::uint8_t> walls;  // nx * ny, row-major, nonzero = wall; empty = none
  std::vector<Source> sources;
  std::vector<float> speed;         // nx * ny wave speed per cell; empty = c everywhere
  std::vector<Receiver> receivers;  // in the order of the trace's columns

  std::int64_t cells() const { return std::int64_t(nx) * ny; }
  std::int64_t index(std::int32_t x, std::int32_t y) const { return std::int64_t(y) * nx + x; }
  bool is_wall(std::int32_t x, std::int32_t y) const {
    return !walls.empty() && walls[index(x, y)] != 0;
  }
  float speed_at(std::int32_t x, std::int32_t y) const {
    return speed.empty() ? c : speed[index(x, y)];
  }
};

// κ = (c·dt/dx)², formed in double and rounded once to float: scale-free, so that a
// stable Courant number gives a finite κ whatever the units of c, dt and dx.
float kappa(float c, float dx, float dt);

// The damping d(x, y) of the quadratic layer, in float, as the reference scenes do.
float damping_at(Scene const& scene, std::int32_t x, std::int32_t y);

// Largest Courant number c·dt/dx over the grid (the border's cells too).
double courant_number(Scene const& scene);

// A cell's stability bound: with damping d the rule's fastest (checkerboard) mode grows
// unless κ ≤ (2 − d)/4, that is c·dt/dx ≤ √((2 − d)/4): 1/√2 without damping, 0.61 at the
// default strength 0.5. Of the cells updated (off the border; where the speed varies, not
// walls), the one with the largest c·dt/dx relative to its bound: its c·dt/dx, bound and
// damping (on a grid without such cells, courant_number and 1/√2). A uniform speed is
// checked at the two most damped cells, walls or not.
struct StabilityLimit {
  double courant = 0.0;
  double bound = max_stable_courant;
  float damping = 0.0f;
};
StabilityLimit stability_limit(Scene const& scene);

struct ValidationOptions {
  bool allow_unstable = false;
  // How the caller's users allow an unstable time step (e.g. "--allow-unstable"), named in
  // its error; empty: not named.
  std::string how_to_allow_unstable;
  // The caller validated the scene with these options already (run/wave2d_Experiment.hpp's
  // check() does): what it sets up does not validate it again.
  bool validated = false;
};

// The stencil adds four neighbours and twice the cell: a field as large as a source's
// amplitude must leave that much headroom below the largest float.
inline constexpr float max_source_amplitude = std::numeric_limits<float>::max() / 8.0f;

// Receiver i's name: its own, or "r<i>" when it has none.
std::string receiver_name(Scene const& scene, std::size_t i);

// The scene's receivers in the owned cells of `window`: their indices, ascending.
std::vector<std::size_t> owned_receivers(Scene const& scene, Window const& window);

// Throws SceneError naming the first problem: sizes, parameters, masks of the wrong
// size, sources outside the grid, sharing a cell or more than max_sources of them (a source
// on the border or a wall is the rule's: held at 0), receivers outside the grid, more
// than max_receivers of them, or names that are not unique or not [A-Za-z0-9_.-]+, an unstable time
// step (an UnstableTimeStep, unless allowed), a κ or a source value (at the steps made, 0 ..
// scene.steps − 1) that single precision cannot hold. Nothing when options.validated says the
// caller did.
void validate(Scene const& scene, ValidationOptions const& options = {});

// Parts of validate() about what several values give together, for a reader that names
// the input those values came from (a scene file's keys); each throws as validate() would.
// That t = t0 + n·dt (time_of_step, in single precision) changes at every step of
// 0 .. max(steps, 1), where dt, t0 and steps are valid on their own.
void validate_time_axis(Scene const& scene);
// The stability bound, and κ = (c·dt/dx)² of the fastest and slowest cells within single
// precision's normal numbers (a κ that rounds to 0 would freeze the wave).
void validate_kappa(Scene const& scene, ValidationOptions const& options = {});
// Source i's value finite at every step made, 0 .. scene.steps − 1 (the first step where it
// is not named), its amplitude within max_source_amplitude.
void validate_source_values(Scene const& scene, std::size_t i);

// std::invalid_argument unless `window` is a valid window of the scene's grid.
void validate_window(Scene const& scene, Window const& window);

// `value` to 6 significant digits, or to as many more (up to 9) as keep its text apart from
// `bound`'s: a value just past a limit would otherwise read as the limit.
std::string number_text_beside(double value, double bound);

// The window's cell codes and κ, taken from the global scene, with the border rule
// applied to the local grid's outer ring.
HostCoefficients precompute_coefficients(Scene const& scene, Window const& window);
inline HostCoefficients precompute_coefficients(Scene const& scene) {
  return precompute_coefficients(scene, Window::whole(scene.nx, scene.ny));
}

}  // namespace wave2d

#endif
