// The built-in scenes reproduce the reference scenes (docs/update-rule.md); validation
// refuses what cannot be simulated.
#include <wave2d_TestHelpers.hpp>

#include <algorithm>
#include <utility>

namespace wave2d::test {
namespace {

std::vector<std::int32_t> open_rows(Scene const& scene, std::int32_t wall_x) {
  std::vector<std::int32_t> rows;
  for (std::int32_t y = 0; y < scene.ny; ++y) {
    if (!scene.is_wall(wall_x, y)) rows.push_back(y);
  }
  return rows;
}

std::vector<std::int32_t> range(std::int32_t first, std::int32_t last) {
  std::vector<std::int32_t> rows;
  for (auto y = first; y <= last; ++y) rows.push_back(y);
  return rows;
}

TEST(BuiltinScenes, DoubleSlitSmallMatchesTheLab) {
  Scene const scene = builtin_scene("double-slit-small");
  EXPECT_EQ(scene.nx, 201);
  EXPECT_EQ(scene.ny, 201);
  EXPECT_EQ(scene.steps, 800);
  EXPECT_EQ(kappa(scene.c, scene.dx, scene.dt), 0.0625f);
  auto expected = range(87, 93);
  for (auto y : range(107, 113)) expected.push_back(y);
  EXPECT_EQ(open_rows(scene, 133), expected);
  std::int64_t walls = 0;
  for (auto w : scene.walls) walls += w;
  EXPECT_EQ(walls, 201 - 14);  // the wall column only
  ASSERT_EQ(scene.sources.size(), 1u);
  EXPECT_EQ(scene.sources[0].x, 33);
  EXPECT_EQ(scene.sources[0].y, 100);
  EXPECT_EQ(scene.sources[0].waveform.value(0.0125f),
            10.0f * sinf(2.0f * 3.14159265359f * 20.0f * 0.0125f));
}

TEST(BuiltinScenes, LargeScenesMatchTheLab) {
  Scene const slits = builtin_scene("double-slit");
  EXPECT_EQ(slits.nx, 3201);
  EXPECT_EQ(slits.steps, 12800);
  EXPECT_EQ(kappa(slits.c, slits.dx, slits.dt), 0.0625f);
  EXPECT_FALSE(slits.is_wall(2133, 1440));
  EXPECT_FALSE(slits.is_wall(2133, 1760));
  EXPECT_TRUE(slits.is_wall(2133, 1600));
  EXPECT_EQ(slits.sources[0].x, 533);
  EXPECT_EQ(slits.sources[0].y, 1600);

  Scene const point = builtin_scene("point-source");
  EXPECT_TRUE(point.walls.empty());
  EXPECT_EQ(point.sources[0].x, 1600);
  EXPECT_EQ(point.sources[0].y, 1600);

  Scene const slit = builtin_scene("slit");
  EXPECT_EQ(slit.sources[0].x, 800);
  EXPECT_EQ(slit.sources[0].waveform.frequency, 40.0f);
  EXPECT_FALSE(slit.is_wall(1600, 1600));
  EXPECT_TRUE(slit.is_wall(1600, 1500));
}

TEST(BuiltinScenes, UnknownNameIsRefusedWithTheList) {
  try {
    builtin_scene("tripple-slit");
    FAIL() << "no error";
  } catch (SceneError const& e) {
    EXPECT_NE(std::string(e.what()).find("unknown scene 'tripple-slit'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("double-slit-small"), std::string::npos);
  }
}

TEST(BuiltinScenes, AllValidate) {
  for (auto const& info : builtin_scenes()) {
    EXPECT_NO_THROW(validate(builtin_scene(info.name))) << info.name;
  }
}

TEST(Damping, QuadraticRampOfTheLab) {
  Scene const scene = builtin_scene("double-slit-small");
  EXPECT_EQ(damping_at(scene, 0, 100), 0.5f);
  EXPECT_EQ(damping_at(scene, 100, 100), 0.0f);
  EXPECT_EQ(damping_at(scene, 20, 100), 0.0f);
  EXPECT_NEAR(damping_at(scene, 10, 100), 0.5f * 0.25f, 1e-6f);
}

void expect_refused(Scene const& scene, std::string const& fragment,
                    ValidationOptions options = {}) {
  try {
    validate(scene, options);
    FAIL() << "accepted a scene that should fail with: " << fragment;
  } catch (SceneError const& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Validation, RefusesWhatCannotBeSimulated) {
  Scene const good = builtin_scene("double-slit-small");
  Scene s = good;
  s.nx = 0;
  expect_refused(s, "grid size must be positive");
  s = good;
  s.ny = -3;
  expect_refused(s, "grid size must be positive");
  s = good;
  s.dt = 0.9f * s.dx;
  expect_refused(s, "unstable time step");
  EXPECT_NO_THROW(validate(s, {.allow_unstable = true}));
  s = good;
  s.sources.push_back({201, 5, {}});
  expect_refused(s, "outside the 201 x 201 grid");
  s = good;
  s.sources.push_back(s.sources[0]);
  expect_refused(s, "two sources share the cell (33, 100)");
  s = good;
  s.walls.resize(10);
  expect_refused(s, "wall mask has 10 cells");
  s = good;
  s.speed.assign(s.cells(), 1.0f);
  s.speed[5] = -1.0f;
  expect_refused(s, "wave speed must be positive");
  s = good;
  s.speed.assign(s.cells(), 3.0f);
  expect_refused(s, "unstable time step");
  s = good;
  s.steps = -1;
  expect_refused(s, "steps must not be negative");
}

// A front end tells an unstable step from other problems by its type, and adds its own
// way of allowing it: the library's message names none.
TEST(Validation, AnUnstableStepIsItsOwnError) {
  Scene s = builtin_scene("double-slit-small");
  s.damping.width = 0.0f;  // the bound without damping (below: with it)
  s.dt = 0.9f * s.dx;
  try {
    validate(s);
    FAIL() << "accepted an unstable time step";
  } catch (UnstableTimeStep const& e) {
    std::string const message = e.what();
    EXPECT_NE(message.find("unstable time step: c*dt/dx = 0.9 exceeds 1/sqrt(2)"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("allow"), std::string::npos) << message;
    EXPECT_NEAR(e.courant(), 0.9, 1e-6);
  }
  // Just past the bound, with the digits that set it apart (0.707107 would read as the bound).
  s.dx = 1.0f;
  s.dt = 0.70710683f;
  EXPECT_THROW(
      {
        try {
          validate(s);
        } catch (UnstableTimeStep const& e) {
          EXPECT_NE(std::string(e.what()).find("c*dt/dx = 0.70710683 exceeds"), std::string::npos)
              << e.what();
          throw;
        }
      },
      UnstableTimeStep);
  EXPECT_NO_THROW(validate(s, {.allow_unstable = true}));
  s = builtin_scene("double-slit-small");
  s.nx = 0;
  try {
    validate(s);
    FAIL() << "accepted an empty grid";
  } catch (UnstableTimeStep const&) {
    FAIL() << "an empty grid reported as an unstable time step";
  } catch (SceneError const&) {
  }
}

// In the absorbing layer a cell damped by d lets the rule's checkerboard mode grow unless
// κ ≤ (2 − d)/4: c·dt/dx ≤ √((2 − d)/4), less than 1/√2. The bound is the most damped
// updated cell's, per cell where the speed varies.
TEST(Validation, TheAbsorbingLayerLowersTheBound) {
  Scene s = builtin_scene("double-slit-small");  // 201², the default layer: width 0.1, strength 0.5
  // The most damped updated cells are next to the corners (in float, not all four alike).
  float const d = std::max(damping_at(s, 1, 1), damping_at(s, s.nx - 2, s.ny - 2));
  EXPECT_GT(d, 0.4f);
  double const bound = std::sqrt((2.0 - double(d)) / 4.0);
  s.dx = 1.0f;
  s.dt = float(0.999 * bound);
  EXPECT_NO_THROW(validate(s));
  s.dt = float(1.001 * bound);
  try {
    validate(s);
    FAIL() << "accepted c*dt/dx = " << s.dt << " with damping " << d;
  } catch (UnstableTimeStep const& e) {
    std::string const message = e.what();
    EXPECT_NE(message.find("exceeds sqrt((2 - d)/4) = 0.6"), std::string::npos) << message;
    EXPECT_NE(message.find("damps by d = 0.4"), std::string::npos) << message;
    EXPECT_NEAR(e.courant(), 1.001 * bound, 1e-6);
    EXPECT_NEAR(e.bound(), bound, 1e-12);
  }
  // Without the layer 1/√2 holds again.
  s.damping.width = 0.0f;
  EXPECT_NO_THROW(validate(s));

  // Per cell: c·dt/dx = 0.7 is stable where no cell is damped, not in the layer.
  s = builtin_scene("double-slit-small");
  s.dx = 1.0f;
  s.dt = 0.5f;
  s.speed.assign(s.cells(), 1.0f);
  s.speed[s.index(100, 100)] = 1.4f;
  StabilityLimit const centre = stability_limit(s);
  EXPECT_FLOAT_EQ(float(centre.courant), 0.7f);
  EXPECT_EQ(centre.damping, 0.0f);
  EXPECT_NO_THROW(validate(s));
  s.speed[s.index(100, 100)] = 1.0f;
  s.speed[s.index(100, 1)] = 1.4f;
  StabilityLimit const edge = stability_limit(s);
  EXPECT_FLOAT_EQ(float(edge.courant), 0.7f);
  EXPECT_EQ(edge.damping, damping_at(s, 100, 1));
  EXPECT_THROW(validate(s), UnstableTimeStep);
  // Nor is a wall: a fast wall cell in the layer bounds nothing.
  std::vector<std::uint8_t> const slits = s.walls;
  s.walls[s.index(100, 1)] = 1;
  EXPECT_NO_THROW(validate(s));
  EXPECT_FLOAT_EQ(float(stability_limit(s).courant), 0.5f);
  s.walls = slits;
  // The border is never updated: a fast border cell bounds nothing, damped or not.
  s.speed[s.index(100, 1)] = 1.0f;
  s.speed[s.index(100, 0)] = 1.5f;
  EXPECT_NO_THROW(validate(s));
  s.damping.width = 0.0f;
  EXPECT_NO_THROW(validate(s));
  EXPECT_FLOAT_EQ(float(stability_limit(s).courant), 0.5f);
}

// The damped bound is the rule's: from random fields the reference stays bounded just inside
// it and grows past it (where 1/√2 would have let it run).
TEST(Validation, TheDampedBoundIsWhereTheFieldStartsToGrow) {
  Scene s = plain_scene(101, 101);
  s.damping = {0.2f, 0.5f};
  s.sources.clear();
  s.dx = 1.0f;
  double const bound =
      std::sqrt((2.0 - double(std::max(damping_at(s, 1, 1), damping_at(s, 99, 99)))) / 4.0);
  auto const largest_after = [&](double courant, std::int64_t steps) {
    s.dt = float(courant);
    HostPair const pair = run_reference(s, random_pair(s, 7), 0, steps);
    float largest = 0.0f;
    for (float v : pair.current)
      largest = std::isfinite(v) ? std::max(largest, std::abs(v)) : INFINITY;
    return largest;
  };
  s.dt = float(0.98 * bound);
  EXPECT_NO_THROW(validate(s));
  EXPECT_LT(largest_after(0.98 * bound, 2000), 4.0f);
  s.dt = float(1.05 * bound);
  EXPECT_THROW(validate(s), UnstableTimeStep);
  EXPECT_LT(1.05 * bound, max_stable_courant);
  EXPECT_GT(largest_after(1.05 * bound, 2000), 1e6f);
}

TEST(Kappa, IsScaleFree) {
  // c²·dt²/dx² in float under- or overflows at these scales; (c·dt/dx)² does not.
  EXPECT_EQ(kappa(1.0f, 1e-30f, 0.25e-30f), 0.0625f);
  EXPECT_EQ(kappa(1.0f, 1e20f, 0.25e20f), 0.0625f);
  EXPECT_EQ(kappa(1e20f, 1.0f, 0.25e-20f), 0.0625f);
  EXPECT_EQ(kappa(1e-20f, 1e-20f, 0.25f), 0.0625f);
}

// Scenes at Courant number 0.25 in extreme units, where c·dt/dx in float overflows or
// underflows: κ is still finite, and so is the run.
TEST(Kappa, ExtremeUnitsGiveAFiniteRun) {
  for (auto [c, dx] : {std::pair{1.0f, 1e-30f}, std::pair{1.0f, 1e20f}, std::pair{1e20f, 1.0f}}) {
    Scene scene = plain_scene(40, 30);
    scene.c = c;
    scene.dx = dx;
    scene.dt = 0.25f * dx / c;
    // One oscillation per 40 steps, whatever the unit of time.
    float const frequency = 1.0f / (40.0f * scene.dt);
    scene.sources.push_back({20, 15, {Waveform::Shape::sine, 1.0f, frequency, 0.0f}});
    scene.steps = 200;
    ASSERT_NO_THROW(validate(scene)) << "c = " << c << ", dx = " << dx;
    HostPair const pair = run_reference(scene, zeros(scene), 0, scene.steps);
    for (auto const* field : {&pair.previous, &pair.current}) {
      EXPECT_TRUE(
          std::all_of(field->begin(), field->end(), [](float u) { return std::isfinite(u); }))
          << "c = " << c << ", dx = " << dx;
    }
    EXPECT_NE(pair.current[scene.index(21, 15)], 0.0f) << "the wave did not move";
  }
}

TEST(Validation, RefusesValuesSinglePrecisionCannotHold) {
  Scene const good = builtin_scene("double-slit-small");
  Scene s = good;
  s.sources[0].waveform.amplitude = 3e38f;
  expect_refused(s, "source 0 has amplitude 3e+38, above the");
  s = good;
  s.sources[0].waveform = {Waveform::Shape::ricker, 1.0f, 1e30f, 0.0f};
  expect_refused(s, "source 0's value at step 1 (t = 0.00125) is not finite in single precision");
  s = good;
  s.sources[0].waveform.frequency = 1e38f;  // 2·pi·f is infinite, times t = 0 is NaN
  expect_refused(s, "source 0's value at step 0 (t = 0) is not finite");
  s = good;
  s.t0 = 100.0f;  // 2·pi·f·t overflows
  s.sources[0].waveform.frequency = 1e36f;
  expect_refused(s, "source 0's value at step 0 (t = 100) is not finite");
  // A Ricker wavelet whose 1 - 2a² overflows part way: the first step made that it reaches
  // is named; a run that ends before it is valid (its steps are 0 .. steps - 1).
  s = good;
  s.sources[0].waveform = {Waveform::Shape::ricker, 1.0f, 8.3e18f, 0.0f};
  std::int64_t first = 0;
  while (std::isfinite(s.sources[0].waveform.value(time_of_step(s.t0, s.dt, first)))) ++first;
  ASSERT_GT(first, 100);
  ASSERT_LT(first, s.steps - 100);
  expect_refused(s, "source 0's value at step " + std::to_string(first) + " (t = ");
  s.steps = first;
  EXPECT_NO_THROW(validate(s));
  s.steps = first + 1;
  expect_refused(s, "source 0's value at step " + std::to_string(first) + " (t = ");
  s = good;
  s.dt = 1e30f;
  s.dx = 1e-30f;
  expect_refused(s, "kappa = (c*dt/dx)^2 = 1e+120 is beyond single precision",
                 {.allow_unstable = true});
}

// t = t0 + n·dt in single precision: a step too small for t's spacing would freeze the
// sources' time and the traces' time column without a sign.
TEST(Validation, RefusesATimeThatAStepDoesNotChange) {
  Scene const good = builtin_scene("double-slit-small");  // dt = 1/800
  Scene s = good;
  s.t0 = 1e20f;
  expect_refused(s,
                 "a step of dt = 0.00125 does not change t = t0 + n*dt in single precision: "
                 "t reaches 1e+20 by step 800, where its values lie 8.79609e+12 apart");
  s.t0 = 2e4f;  // values 0.00195 apart
  expect_refused(s, "t reaches 20001 by step 800, where its values lie 0.00195312 apart");
  s.t0 = 1e4f;  // values 0.000977 apart: every step still moves t by one or two of them
  EXPECT_NO_THROW(validate(s));
  s.t0 = -1e20f;
  s.steps = 0;  // step 0 alone: its next step still counts
  expect_refused(s, "a step of dt = 0.00125 does not change t");
  s = good;
  s.steps = std::int64_t(1) << 24;  // n·dt's spacing, 0.00195, is more than dt
  expect_refused(s, "t reaches 20971.5 by step 16777216, where its values lie 0.00195312 apart");
  s.steps = std::int64_t(1) << 20;
  EXPECT_NO_THROW(validate(s));
  s.t0 = 3e38f;
  s.steps = 800;
  expect_refused(s, "a step of dt = 0.00125 does not change t");
  s.dt = 1e36f;
  s.dx = 1e37f;
  expect_refused(s, "a step of dt = 1e+36 takes t = t0 + n*dt beyond single precision by step 800");
  // One step to the largest float: t moves by far more than its spacing there, 2^104.
  s = good;
  s.t0 = 0.0f;
  s.steps = 1;
  s.dt = std::numeric_limits<float>::max();
  s.dx = s.dt;
  s.c = 0.1f;
  EXPECT_NO_THROW(validate(s));
}

TEST(Validation, RefusesAKappaThatRoundsAwayTheWave) {
  Scene s = builtin_scene("double-slit-small");
  s.dt = 1e-25f;
  expect_refused(s,
                 "c*dt/dx = 2e-23 makes kappa = (c*dt/dx)^2 = 4e-46, below single "
                 "precision's normal numbers: the wave would not move");
  s.dt = 1e-18f;  // kappa 4e-32: slow, but it moves
  s.steps = 10;
  EXPECT_NO_THROW(validate(s));
  s.speed.assign(std::size_t(s.cells()), 1.0f);
  s.speed[5] = 1e-10f;
  expect_refused(s, "c*dt/dx = 2e-26 (the slowest c) makes kappa");
}

TEST(Validation, NamesTheValueThatIsNotPositive) {
  Scene s = builtin_scene("double-slit-small");
  s.dt = 0.0f;
  expect_refused(s, "dt must be positive and finite, got 0");
  s = builtin_scene("double-slit-small");
  s.dx = -1.0f;
  expect_refused(s, "dx must be positive and finite, got -1");
}

TEST(Coefficients, CodesFollowTheRule) {
  Scene scene = builtin_scene("double-slit-small");
  scene.sources.push_back({133, 10, {}});  // on the wall: the wall wins
  auto const c = precompute_coefficients(scene);
  EXPECT_EQ(c.code[scene.index(0, 50)], cell_code::fixed_zero);
  EXPECT_EQ(c.code[scene.index(133, 0)], cell_code::fixed_zero);
  EXPECT_EQ(c.code[scene.index(133, 10)], cell_code::fixed_zero);
  EXPECT_EQ(c.code[scene.index(133, 90)], damping_at(scene, 133, 90));
  EXPECT_EQ(c.code[scene.index(33, 100)], cell_code::source(0));
  EXPECT_EQ(cell_code::source_index(cell_code::source(12345)), 12345);
  EXPECT_TRUE(c.kappa.empty());
  EXPECT_EQ(c.kappa_uniform, 0.0625f);
}

}  // namespace
}  // namespace wave2d::test
