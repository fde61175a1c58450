// Scene files load into exactly the scene they describe, every mistake in one is
// refused with its file, line and key, and wall masks read from PGM and PNG images.
#include <wave2d/io/wave2d_MaskImage.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/wave2d_Config.hpp>
#include <wave2d_TestFiles.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

fs::path const images_dir = fs::path(WAVE2D_TEST_DATA_DIR) / "scene-files";

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (SceneError const& e) {
    return e.what();
  }
  ADD_FAILURE() << "no SceneError";
  return {};
}

// EXPECT_EQ on the start only, so that a failure still shows the whole message.
void expect_starts_with(std::string const& message, std::string const& start) {
  EXPECT_EQ(message.substr(0, start.size()), start) << message;
}

fs::path const examples_dir = fs::path(WAVE2D_TEST_DATA_DIR) / ".." / ".." / "docs" / "examples";

std::vector<std::uint8_t> mask_of(Scene const& scene,
                                  std::vector<std::pair<std::int32_t, std::int32_t>> cells) {
  std::vector<std::uint8_t> mask(std::size_t(scene.cells()), 0);
  for (auto [x, y] : cells) mask[scene.index(x, y)] = 1;
  return mask;
}

// Loads and validates, failing the test with the error's message.
Scene load_and_validate(fs::path const& file) {
  try {
    Scene scene = load_scene_file(file);
    validate(scene);
    return scene;
  } catch (SceneError const& e) {
    ADD_FAILURE() << e.what();
    return {};
  }
}

void expect_same_waveform(Waveform const& a, Waveform const& b) {
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.amplitude, b.amplitude);
  EXPECT_EQ(a.frequency, b.frequency);
  EXPECT_EQ(a.delay, b.delay);
}

void expect_same_scene(Scene const& a, Scene const& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.nx, b.nx);
  EXPECT_EQ(a.ny, b.ny);
  EXPECT_EQ(a.c, b.c);
  EXPECT_EQ(a.dx, b.dx);
  EXPECT_EQ(a.dt, b.dt);
  EXPECT_EQ(a.t0, b.t0);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.damping.width, b.damping.width);
  EXPECT_EQ(a.damping.strength, b.damping.strength);
  EXPECT_TRUE(a.walls == b.walls);
  EXPECT_TRUE(a.speed == b.speed);
  ASSERT_EQ(a.sources.size(), b.sources.size());
  for (std::size_t i = 0; i < a.sources.size(); ++i) {
    EXPECT_EQ(a.sources[i].x, b.sources[i].x);
    EXPECT_EQ(a.sources[i].y, b.sources[i].y);
    expect_same_waveform(a.sources[i].waveform, b.sources[i].waveform);
  }
}

TEST(SceneFile, DefaultsFollowTheReferenceScenes) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "defaults.toml";
  write_text(file, R"(
[grid]
nx = 301
ny = 151
[time]
t_end = 1.0
[[sources]]
x = 30
y = 75
frequency = 5
)");
  Scene const scene = load_scene_file(file);
  EXPECT_EQ(scene.name, "defaults");
  EXPECT_EQ(scene.nx, 301);
  EXPECT_EQ(scene.ny, 151);
  EXPECT_EQ(scene.c, 1.0f);
  EXPECT_EQ(scene.dx, 1.0f / 300.0f);  // along the longer side
  EXPECT_EQ(scene.dt, 0.25f * scene.dx);
  EXPECT_EQ(kappa(scene.c, scene.dx, scene.dt), 0.0625f);
  EXPECT_EQ(scene.steps, 1200);
  EXPECT_EQ(scene.t0, 0.0f);
  EXPECT_EQ(scene.damping.width, 0.1f);
  EXPECT_EQ(scene.damping.strength, 0.5f);
  EXPECT_TRUE(scene.walls.empty());
  EXPECT_TRUE(scene.speed.empty());
  ASSERT_EQ(scene.sources.size(), 1u);
  EXPECT_EQ(scene.sources[0].x, 30);
  EXPECT_EQ(scene.sources[0].y, 75);
  expect_same_waveform(scene.sources[0].waveform, {Waveform::Shape::sine, 1.0f, 5.0f, 0.0f});
  EXPECT_NO_THROW(validate(scene));
}

TEST(SceneFile, EveryKeyGiven) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "all.toml";
  write_text(file, R"(
name = "everything"
[grid]
nx = 64
ny = 48
dx = 0.5
[time]
dt = 0.01
t0 = 2.0
steps = 123
[medium]
c = 3
[damping]
width = 0.2
strength = 0.25
[[walls]]
rect = { x0 = 10, y0 = 20, x1 = 12, y1 = 21 }
[[walls]]
rect = { x0 = 30, y0 = 5, x1 = 30, y1 = 5 }
[[sources]]
x = 5
y = 6
waveform = "ricker"
amplitude = -2.5
frequency = 7.0
delay = 0.3
[[sources]]
x = 50
y = 40
waveform = "sine"
frequency = 1.5
)");
  Scene const scene = load_scene_file(file);
  EXPECT_EQ(scene.name, "everything");
  EXPECT_EQ(scene.nx, 64);
  EXPECT_EQ(scene.ny, 48);
  EXPECT_EQ(scene.dx, 0.5f);
  EXPECT_EQ(scene.dt, 0.01f);
  EXPECT_EQ(scene.t0, 2.0f);
  EXPECT_EQ(scene.steps, 123);
  EXPECT_EQ(scene.c, 3.0f);
  EXPECT_EQ(scene.damping.width, 0.2f);
  EXPECT_EQ(scene.damping.strength, 0.25f);
  // Rectangle bounds are inclusive.
  EXPECT_TRUE(
      scene.walls ==
      mask_of(scene, {{10, 20}, {11, 20}, {12, 20}, {10, 21}, {11, 21}, {12, 21}, {30, 5}}));
  EXPECT_TRUE(scene.speed.empty());
  ASSERT_EQ(scene.sources.size(), 2u);
  EXPECT_EQ(scene.sources[0].x, 5);
  EXPECT_EQ(scene.sources[0].y, 6);
  expect_same_waveform(scene.sources[0].waveform, {Waveform::Shape::ricker, -2.5f, 7.0f, 0.3f});
  EXPECT_EQ(scene.sources[1].x, 50);
  EXPECT_EQ(scene.sources[1].y, 40);
  expect_same_waveform(scene.sources[1].waveform, {Waveform::Shape::sine, 1.0f, 1.5f, 0.0f});
}

TEST(SceneFile, TEndCountsWholeStepsFromT0InFloat) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "t_end.toml";
  write_text(file, R"(
[grid]
nx = 10
ny = 10
[time]
dt = 0.3
t0 = 0.5
t_end = 1.9
)");
  EXPECT_EQ(load_scene_file(file).steps, 4);  // 1.4 / 0.3 = 4.67, truncated as the textbook does
}

TEST(SceneFile, InlineArraysAndDottedKeysAreTheSameKeys) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "inline.toml";
  write_text(file, R"(
grid.nx = 12
grid.ny = 8
time.steps = 3
walls = [{ rect = { x0 = 4, y0 = 1, x1 = 4, y1 = 2 } }]
sources = [{ x = 2, y = 2, frequency = 1 }, { x = 9, y = 5, frequency = 2 }]
)");
  Scene const scene = load_scene_file(file);
  EXPECT_EQ(scene.nx, 12);
  EXPECT_EQ(scene.ny, 8);
  EXPECT_EQ(scene.steps, 3);
  EXPECT_TRUE(scene.walls == mask_of(scene, {{4, 1}, {4, 2}}));
  ASSERT_EQ(scene.sources.size(), 2u);
  EXPECT_EQ(scene.sources[1].x, 9);
  EXPECT_EQ(scene.sources[1].waveform.frequency, 2.0f);
}

TEST(SceneFile, LaterMediumRegionsWinAndTheFastestSetsTheTimeStep) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "media.toml";
  write_text(file, R"(
[grid]
nx = 20
ny = 10
[time]
steps = 1
[medium]
c = 1.0
[[medium.region]]
c = 2.0
rect = { x0 = 0, y0 = 0, x1 = 9, y1 = 9 }
[[medium.region]]
c = 0.5
rect = { x0 = 5, y0 = 5, x1 = 14, y1 = 9 }
)");
  Scene const scene = load_scene_file(file);
  ASSERT_EQ(scene.speed.size(), 200u);
  for (std::int32_t y = 0; y < scene.ny; ++y) {
    for (std::int32_t x = 0; x < scene.nx; ++x) {
      float const expected = (x >= 5 && x <= 14 && y >= 5) ? 0.5f : x <= 9 ? 2.0f : 1.0f;
      EXPECT_EQ(scene.speed_at(x, y), expected) << "cell (" << x << ", " << y << ")";
    }
  }
  EXPECT_EQ(scene.dx, 1.0f / 19.0f);
  EXPECT_EQ(scene.dt, 0.25f * scene.dx / 2.0f);
  EXPECT_NO_THROW(validate(scene));
}

TEST(SceneFile, MasksAreFoundNextToTheFileAndMayGiveTheGridSize) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const temporary;
  fs::path const dir = temporary.path();
  // Dark (below 5 of 10) pixels are the walls, respectively the slow region.
  write_text(dir / "walls.pgm", "P2\n4 3\n10\n10 0 10 10\n10 4 10 10\n10 10 10 5\n");
  write_text(dir / "slow.pgm", "P2\n4 3\n10\n10 10 10 10\n10 10 0 10\n10 10 10 10\n");
  fs::path const file = dir / "masked.toml";
  write_text(file, R"(
[time]
steps = 2
[[walls]]
mask = "walls.pgm"
[[medium.region]]
c = 0.5
mask = "slow.pgm"
)");
  ASSERT_NE(fs::current_path(), dir);
  Scene const scene = load_scene_file(file);
  EXPECT_EQ(scene.nx, 4);
  EXPECT_EQ(scene.ny, 3);
  EXPECT_EQ(scene.dx, 1.0f / 3.0f);
  EXPECT_TRUE(scene.walls == mask_of(scene, {{1, 0}, {1, 1}}));
  std::vector<float> speed(12, 1.0f);
  speed[scene.index(2, 1)] = 0.5f;
  EXPECT_TRUE(scene.speed == speed);
}

TEST(SceneFile, DoubleSlitExampleIsTheBuiltinScene) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  Scene example = load_scene_file(examples_dir / "double-slit.toml");
  // Its own name, so that the files named after it are not the built-in scene's.
  EXPECT_EQ(example.name, "double slit from wall rectangles");
  example.name = "double-slit-small";
  expect_same_scene(example, builtin_scene("double-slit-small"));
}

// No example takes a built-in scene's name, which programs name their outputs after.
TEST(SceneFile, ExamplesHaveNamesOfTheirOwn) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  for (auto const& entry : fs::directory_iterator(examples_dir)) {
    if (entry.path().extension() != ".toml") continue;
    std::string const name = load_scene_file(entry.path()).name;
    for (auto const& info : builtin_scenes()) {
      EXPECT_NE(name, info.name) << entry.path();
    }
  }
}

TEST(SceneFile, BaseSceneGivesWhatTheFileDoesNot) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  Scene const base = builtin_scene("double-slit-small");
  Scene const scene = load_scene_file(examples_dir / "double-slit-ricker.toml");
  EXPECT_EQ(scene.name, "double slit, one pulse");
  EXPECT_EQ(scene.nx, base.nx);
  EXPECT_EQ(scene.dx, base.dx);
  EXPECT_EQ(scene.dt, base.dt);
  EXPECT_EQ(scene.steps, std::int64_t(0.6f / base.dt));
  EXPECT_TRUE(scene.walls == base.walls);
  ASSERT_EQ(scene.sources.size(), 1u);  // replaced, not added
  expect_same_waveform(scene.sources[0].waveform, {Waveform::Shape::ricker, 10.0f, 20.0f, 0.075f});

  // An empty array replaces the base's list too.
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "open.toml";
  write_text(file, R"(
base = "double-slit-small"
walls = []
[damping]
width = 0.05
)");
  Scene const open = load_scene_file(file);
  EXPECT_TRUE(open.walls.empty());
  EXPECT_EQ(open.damping.width, 0.05f);
  EXPECT_EQ(open.damping.strength, base.damping.strength);
  EXPECT_EQ(open.steps, base.steps);
  EXPECT_EQ(open.name, "open");
  ASSERT_EQ(open.sources.size(), 1u);
  EXPECT_EQ(open.sources[0].x, base.sources[0].x);
}

TEST(SceneFile, ExamplesLoadAndValidate) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  std::vector<fs::path> files;
  for (auto const& entry : fs::directory_iterator(examples_dir)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  EXPECT_GE(files.size(), 5u);
  for (auto const& file : files) {
    SCOPED_TRACE(file.string());
    Scene const scene = load_and_validate(file);
    EXPECT_GT(scene.steps, 0);
    EXPECT_FALSE(scene.sources.empty());
  }

  Scene const box = load_scene_file(examples_dir / "point-source-box.toml");
  EXPECT_EQ(box.nx, 400);
  EXPECT_EQ(box.ny, 250);
  EXPECT_EQ(box.sources[0].waveform.shape, Waveform::Shape::ricker);

  Scene const media = load_scene_file(examples_dir / "two-media.toml");
  EXPECT_EQ(media.speed_at(150, 99), 1.0f);
  EXPECT_EQ(media.speed_at(150, 100), 0.5f);
  EXPECT_EQ(media.dt, 0.25f * media.dx / 1.0f);

  Scene const room = load_scene_file(examples_dir / "room-with-pillar.toml");
  EXPECT_EQ(room.nx, 160);  // from the image
  EXPECT_EQ(room.ny, 120);
  EXPECT_TRUE(room.is_wall(80, 10));   // the wall between the rooms
  EXPECT_FALSE(room.is_wall(80, 60));  // its doorway
  EXPECT_TRUE(room.is_wall(120, 60));  // the pillar
  EXPECT_FALSE(room.is_wall(40, 60));  // the source
}

TEST(SceneFile, DocumentationExamplesLoadAndValidate) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  // The toml blocks of docs/scene-files.md, in a folder with the examples' images.
  TemporaryDirectory const dir;
  for (auto const& entry : fs::directory_iterator(examples_dir)) {
    if (entry.path().extension() == ".pgm") {
      fs::copy_file(entry.path(), dir.path() / entry.path().filename());
    }
  }
  std::string const text = read_file(examples_dir.parent_path() / "scene-files.md");
  constexpr std::string_view open = "```toml\n";
  int blocks = 0;
  for (auto start = text.find(open); start != std::string::npos; start = text.find(open, start)) {
    start += open.size();
    auto const end = text.find("```\n", start);
    ASSERT_NE(end, std::string::npos);
    fs::path const file = dir.path() / ("example" + std::to_string(blocks++) + ".toml");
    write_text(file, text.substr(start, end - start));
    SCOPED_TRACE(file.string());
    load_and_validate(file);
  }
  EXPECT_EQ(blocks, 3);
}

constexpr std::string_view grid_and_time = "[grid]\nnx = 40\nny = 30\n[time]\nsteps = 10\n";

std::string with_grid(std::string_view rest) {
  return std::string(grid_and_time) + std::string(rest);
}

TEST(SceneFile, ReceiversAnywhereWithOptionalNames) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const temporary;
  fs::path const file = temporary.path() / "receivers.toml";
  write_text(file, std::string(grid_and_time) +
                       "[[walls]]\nrect = { x0 = 10, y0 = 0, x1 = 10, y1 = 29 }\n"
                       "[[receivers]]\nx = 3\ny = 4\nname = \"mic-1\"\n"
                       "[[receivers]]\nx = 0\ny = 0\n"     // on the border
                       "[[receivers]]\nx = 10\ny = 7\n");  // on a wall
  Scene const scene = load_and_validate(file);
  ASSERT_EQ(scene.receivers.size(), 3u);
  EXPECT_EQ(scene.receivers[0].x, 3);
  EXPECT_EQ(scene.receivers[0].y, 4);
  EXPECT_EQ(receiver_name(scene, 0), "mic-1");
  EXPECT_EQ(receiver_name(scene, 1), "r1");
  EXPECT_EQ(scene.receivers[2].x, 10);
  EXPECT_TRUE(builtin_scene("double-slit").receivers.empty());
}

TEST(SceneFile, MistakesAreRefusedWithFileLineAndKey) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const temporary;
  fs::path const dir = temporary.path();
  write_text(dir / "small.pgm", "P2\n3 2\n1\n0 1 1\n1 1 1\n");
  // Each bad file and the start of its error after "<file>:"; {dir} is the file's folder.
  std::vector<std::pair<std::string, std::string_view>> const cases = {
      {"[grid]\nnx = \n", "2: Error while parsing"},
      {"[gird]\nnx = 40\n",
       "1: gird: unknown key (expected one of: name, base, grid, time, medium, damping, walls, "
       "sources, receivers)"},
      {"name = 5\n", "1: name: expected a string, got an integer"},
      {"name = \"" + std::string(129, 'a') + "\"\n",
       "1: name: is longer than 128 bytes (it names the outputs)"},
      {"base = \"double-slit-small\"\n[[receivers]]\nx = 1\ny = 1\nname = \"\"\n",
       "5: receivers[0].name: must be 1 to 64 ASCII letters, digits, '_', '-' or '.'"},
      {"base = \"double-slit-small\\u0000xx\"\n", "1: base: holds a NUL character (\\u0000)"},
      {"[[walls]]\nmask = \"small.pgm\\u0000x\"\n",
       "2: walls[0].mask: holds a NUL character (\\u0000)"},
      {"[grid]\nnx = 0\nny = 30\n", "2: grid.nx: must be positive, got 0"},
      {"[grid]\nnx = 40\nny = -3\n", "3: grid.ny: must be positive, got -3"},
      {"[grid]\nnx = 3000000000\nny = 3\n",
       "2: grid.nx: must be at most 2147483647, got 3000000000"},
      {"[grid]\nnx = 10.5\nny = 3\n",
       "2: grid.nx: expected an integer, got a floating-point number"},
      {"[grid]\nnx = 40\n", "1: grid.ny: missing"},
      {"[time]\nsteps = 1\n", " grid.nx: missing (give grid.nx and grid.ny, or a mask image"},
      {"[grid]\nnx = 40\nny = 30\ndx = -0.5\n", "4: grid.dx: must be positive, got -0.5"},
      {"[grid]\nnx = 40\nny = 30\ndx = inf\n", "4: grid.dx: must be finite"},
      {"[grid]\nnx = 40\nny = 30\ndx = 1e300\n", "4: grid.dx: is beyond single precision"},
      {"[grid]\nnx = 40\nny = 30\ndx = \"0.1\"\n", "4: grid.dx: expected a number, got a string"},
      {"[grid]\nnx = 40\nny = 30\n", " time.steps: missing (give steps or t_end)"},
      {"[grid]\nnx = 40\nny = 30\n[time]\nt0 = 1\n",
       "4: time.steps: missing (give steps or t_end)"},
      {with_grid("t_end = 1.0\n"), "6: time.t_end: give either steps or t_end, not both"},
      {"[grid]\nnx = 40\nny = 30\n[time]\nsteps = -1\n", "5: time.steps: must not be negative"},
      {"[grid]\nnx = 40\nny = 30\n[time]\nt0 = 1\nt_end = 0.5\n",
       "6: time.t_end: must not come before t0"},
      {with_grid("[damping]\nwidth = 0.7\n"),
       "7: damping.width: must lie in [0, 0.5] (a fraction of each side), got 0.7"},
      {with_grid("[damping]\nstrength = 1\n"), "7: damping.strength: must lie in [0, 1), got 1"},
      // Just past the limit: shown with the digits that set it apart.
      {with_grid("[damping]\nwidth = 0.5000001\n"),
       "7: damping.width: must lie in [0, 0.5] (a fraction of each side), got 0.5000001"},
      {with_grid("[medium]\nc = 0\n"), "7: medium.c: must be positive, got 0"},
      {with_grid("[[medium.region]]\nrect = { x0 = 1, y0 = 1, x1 = 2, y1 = 2 }\n"),
       "6: medium.region[0].c: missing"},
      {with_grid("[walls]\nrect = { x0 = 1, y0 = 1, x1 = 2, y1 = 2 }\n"),
       "6: walls: expected an array of tables, got a table"},
      {with_grid("[[walls]]\n"), "6: walls[0]: give a rect = { x0, y0, x1, y1 } or a mask"},
      {with_grid("[[walls]]\nrect = { x0 = 0, y0 = 0, x1 = 40, y1 = 3 }\n"),
       "7: walls[0].rect.x1: 40 lies outside the grid (0..39)"},
      {with_grid("[[walls]]\nrect = { x0 = 5, y0 = 0, x1 = 4, y1 = 3 }\n"),
       "7: walls[0].rect.x1: must not be less than x0"},
      {with_grid("[[walls]]\nrect = { x0 = 5, y0 = 0, x1 = 6 }\n"), "7: walls[0].rect.y1: missing"},
      {with_grid("[[walls]]\nrect = { x0 = 5, y0 = 0, x1 = 6, y1 = 0, z = 1 }\n"),
       "7: walls[0].rect.z: unknown key (expected one of: x0, y0, x1, y1)"},
      {with_grid("[[walls]]\nrect = { x0 = 5, y0 = 0, x1 = 6, y1 = 0 }\nmask = \"small.pgm\"\n"),
       "8: walls[0].mask: give either a rect or a mask, not both"},
      {with_grid("[[walls]]\nmask = \"missing.pgm\"\n"),
       "7: walls[0].mask: {dir}/missing.pgm: no such image"},
      {with_grid("[[walls]]\nmask = \"small.pgm\"\n"),
       "7: walls[0].mask: the image is 3 x 2 pixels, the grid 40 x 30 cells"},
      {"sources = [1]\n" + std::string(grid_and_time),
       "1: sources[0]: expected a table, got an integer"},
      // A key after a table header belongs to that table, which has no such key.
      {with_grid("sources = []\n"),
       "6: time.sources: unknown key (expected one of: dt, steps, t_end, t0)"},
      {with_grid("[[sources]]\nx = 5\ny = 5\nfrequency = 2.0\n[[sources]]\nx = \"9\"\ny = 5\n"),
       "11: sources[1].x: expected an integer, got a string"},
      {with_grid("[[sources]]\nx = 5\ny = 5\nfrequency = 2.0\n[[sources]]\nx = 9\ny = 5\n"
                 "frequncy = 2.0\n"),
       "13: sources[1].frequncy: unknown key (expected one of: x, y, waveform, amplitude, "
       "frequency, delay)"},
      {with_grid("[[sources]]\nx = 40\ny = 5\nfrequency = 1\n"),
       "7: sources[0].x: 40 lies outside the grid (0..39)"},
      {with_grid("[[sources]]\nx = 5\ny = -1\nfrequency = 1\n"),
       "8: sources[0].y: -1 lies outside the grid (0..29)"},
      {with_grid("[[sources]]\nx = 0\ny = 5\nfrequency = 1\n"),
       "7: sources[0].x: (0, 5) lies on the border, held at 0"},
      {with_grid("[[sources]]\nx = 5\ny = 29\nfrequency = 1\n"),
       "8: sources[0].y: (5, 29) lies on the border, held at 0"},
      {with_grid("[[walls]]\nrect = { x0 = 5, y0 = 0, x1 = 5, y1 = 29 }\n"
                 "[[sources]]\nx = 5\ny = 7\nfrequency = 1\n"),
       "8: sources[0]: (5, 7) lies on a wall, held at 0"},
      {with_grid("[[sources]]\nx = 5\ny = 5\nfrequency = 1\n[[sources]]\nx = 5\ny = 5\n"
                 "frequency = 2\n"),
       "10: sources[1]: (5, 5) is already the cell of sources[0]"},
      {with_grid("[[sources]]\nx = 5\ny = 5\nfrequency = 1\nwaveform = \"square\"\n"),
       "10: sources[0].waveform: unknown waveform 'square' (sine or ricker)"},
      {with_grid("[[sources]]\nx = 5\ny = 5\nfrequency = 1\ndelay = 0.5\n"),
       "10: sources[0].delay: only a ricker waveform has a delay"},
      {with_grid("[[sources]]\nx = 5\ny = 5\n"), "6: sources[0].frequency: missing"},
      {with_grid("[[sources]]\nx = 5\ny = 5\nfrequency = -2\n"),
       "9: sources[0].frequency: must be positive, got -2"},
      {with_grid("[[receivers]]\nx = 40\ny = 5\n"),
       "7: receivers[0].x: 40 lies outside the grid (0..39)"},
      {with_grid("[[receivers]]\nx = 4\n"), "6: receivers[0].y: missing"},
      {with_grid("[[receivers]]\nx = 4\ny = 1\nname = \"a b\"\n"),
       "9: receivers[0].name: must be 1 to 64 ASCII letters, digits, '_', '-' or '.'"},
      {with_grid("[[receivers]]\nx = 4\ny = 1\nname = \"time\"\n"),
       "9: receivers[0].name: 'time' is a column the receivers' CSV file has already"},
      {with_grid("[[receivers]]\nx = 4\ny = 1\nnom = \"a\"\n"),
       "9: receivers[0].nom: unknown key (expected one of: x, y, name)"},
      {with_grid("[[receivers]]\nx = 4\ny = 1\nname = \"r1\"\n[[receivers]]\nx = 5\ny = 1\n"),
       "10: receivers[1]: the name 'r1' is already receivers[0]'s"},
      {"base = \"tripple-slit\"\n", "1: base: unknown scene 'tripple-slit' (built-in scenes: "},
      {"base = \"double-slit-small\"\n[grid]\nnx = 300\n",
       "3: grid.nx: a scene with a base keeps the base's grid size"},
      {"base = \"double-slit-small\"\n[[walls]]\nrect = { x0 = 30, y0 = 90, x1 = 40, y1 = 110 }\n",
       "2: walls: a wall covers the base's source 0 at (33, 100), which it would hold at 0"},
      // After a header, a key is that table's: named so, not as the grid the file then lacks.
      {"[time]\nt_end = 0.5\nbase = \"double-slit-small\"\n",
       "3: time.base: unknown key (expected one of: dt, steps, t_end, t0)"},
  };
  for (auto const& [toml, error] : cases) {
    SCOPED_TRACE(toml);
    fs::path const file = dir / "bad.toml";
    write_text(file, toml);
    std::string expected = file.string() + ":" + std::string(error);
    if (auto const at = expected.find("{dir}"); at != std::string::npos) {
      expected.replace(at, 5, dir.string());
    }
    expect_starts_with(error_of([&] { load_scene_file(file); }), expected);
  }
}

// What editors write around the text: a UTF-8 byte order mark, CRLF line ends, no last
// line end. Errors keep their line numbers.
TEST(SceneFile, WhatEditorsAddIsAccepted) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "editor.toml";
  std::string const bom = "\xEF\xBB\xBF";
  std::string const lines = std::string(grid_and_time) + "[[sources]]\nx = 5\ny = 5\nfrequency = 2";
  auto const crlf = [](std::string text) {
    for (auto at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 2)) {
      text.replace(at, 1, "\r\n");
    }
    return text;
  };
  Scene expected;
  write_text(file, lines + "\n");
  expected = load_scene_file(file);
  for (std::string const& text :
       {bom + lines + "\n", crlf(lines + "\n"), bom + crlf(lines), lines}) {
    SCOPED_TRACE(text);
    write_text(file, text);
    Scene scene;
    EXPECT_NO_THROW(scene = load_scene_file(file));
    expect_same_scene(scene, expected);
  }
  write_text(file, bom + crlf("[grid]\nnx = 40\nny = 0\n"));
  EXPECT_EQ(error_of([&] { load_scene_file(file); }),
            file.string() + ":3: grid.ny: must be positive, got 0");
  // A byte order mark only at the start: elsewhere it is a character like any other.
  write_text(file, "[grid]\n" + bom + "nx = 40\n");
  EXPECT_EQ(
      error_of([&] { load_scene_file(file); }),
      file.string() + ":2: a character that is not ASCII (U+FEFF) outside a string or a comment");
  // UTF-16, as some editors save "Unicode" text, is not TOML.
  write_text(file, std::string("\xFF\xFE[\0g\0", 6));
  EXPECT_EQ(error_of([&] { load_scene_file(file); }),
            file.string() + ": is UTF-16 text; a scene file is UTF-8 (save it as UTF-8)");
  // A no-break space pasted from a web page looks like a space.
  write_text(file,
             "[grid]\nnx =\xC2\xA0"
             "40\n");
  EXPECT_EQ(
      error_of([&] { load_scene_file(file); }),
      file.string() + ":2: a character that is not ASCII (U+00A0) outside a string or a comment");
}

// What values give together (a time step from dx and c, t over the run, κ, a source's
// value) is refused at a key that gave one of them, as a value on its own is.
TEST(SceneFile, ValuesTogetherAreRefusedAtTheirKey) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const temporary;
  std::string const grid = "[grid]\nnx = 40\nny = 30\n";  // dx = 1/39, dt = dx/4
  std::string const source = "[[sources]]\nx = 5\ny = 5\n";
  std::vector<std::pair<std::string, std::string_view>> const cases = {
      {"[grid]\nnx = 40\nny = 30\ndx = 1e-45\n[time]\nsteps = 10\n",
       "4: grid.dx: dx = 1.4013e-45 and c = 1 make the time step dt = dx/(4c) = 3.50325e-46, "
       "0 in single precision (underflow); give time.dt, or another dx or c"},
      {grid + "[medium]\nc = 1e-44\n[time]\nsteps = 10\n",
       "5: medium.c: dx = 0.025641 and c = 9.80909e-45 make the time step dt = dx/(4c) = "
       "6.53502e+41, beyond single precision; give time.dt, or another dx or c"},
      {grid + "[time]\nsteps = 10\nt0 = 1e20\n",
       "6: time.t0: a step of dt = 0.00641026 does not change t = t0 + n*dt in single "
       "precision: t reaches 1e+20 by step 10, where its values lie 8.79609e+12 apart"},
      {grid + "[time]\nsteps = 10\nt0 = -1e20\n",
       "6: time.t0: a step of dt = 0.00641026 does not change t = t0 + n*dt in single "
       "precision: t reaches -1e+20 by step 10, where its values lie 8.79609e+12 apart"},
      {grid + "[time]\nt_end = 1e10\n",
       "5: time.t_end: a step of dt = 0.00641026 does not change t"},
      {grid + "[time]\nsteps = 100000000\n",
       "5: time.steps: a step of dt = 0.00641026 does not change t = t0 + n*dt in single "
       "precision: t reaches 641026 by step 100000000, where its values lie 0.0625 apart"},
      {grid + "[time]\nsteps = 10\ndt = 1e-25\n",
       "6: time.dt: c*dt/dx = 3.9e-24 makes kappa = (c*dt/dx)^2 = 1.521e-47, below single "
       "precision's normal numbers: the wave would not move"},
      {grid + "[time]\nsteps = 10\n[[medium.region]]\nc = 1e-20\n"
              "rect = { x0 = 1, y0 = 1, x1 = 2, y1 = 2 }\n",
       "7: medium.region[0].c: c*dt/dx = 2.5e-21 (the slowest c) makes kappa"},
      {grid + "[time]\nsteps = 10\ndt = 1e30\n",
       "6: time.dt: kappa = (c*dt/dx)^2 = 1.521e+63 is beyond single precision"},
      {grid + "[time]\nsteps = 10\n" + source + "frequency = 1\namplitude = 1e38\n",
       "10: sources[0].amplitude: source 0 has amplitude 1e+38, above the 4.25353e+37 that "
       "leaves the stencil's sums room in single precision"},
      {grid + "[time]\nsteps = 10\n" + source + "frequency = 1e38\n",
       "9: sources[0].frequency: source 0's value at step 0 (t = 0) is not finite in single "
       "precision"},
      {grid + "[time]\nsteps = 10\n" + source +
           "frequency = 1\nwaveform = \"ricker\"\n"
           "delay = 1e38\n",
       "11: sources[0].delay: source 0's value at step 0 (t = 0) is not finite"},
      // A base scene's dt with the file's t0.
      {"base = \"double-slit-small\"\n[time]\nt0 = 1e20\n",
       "3: time.t0: a step of dt = 0.00125 does not change t"},
  };
  fs::path const file = temporary.path() / "together.toml";
  for (auto const& [toml, error] : cases) {
    SCOPED_TRACE(toml);
    write_text(file, toml);
    expect_starts_with(error_of([&] { load_scene_file(file); }),
                       file.string() + ":" + std::string(error));
  }
}

// The loader leaves the stability bound to the caller, who may allow an unstable step;
// validate(SceneFile) names the key that set it.
TEST(SceneFile, AnUnstableStepIsNamedAtItsKey) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const temporary;
  fs::path const file = temporary.path() / "unstable.toml";
  auto const unstable_error = [&](std::string const& toml) {
    write_text(file, toml);
    SceneFile const loaded = read_scene_file(file);
    EXPECT_NO_THROW(validate(loaded, {.allow_unstable = true}));
    try {
      validate(loaded);
    } catch (UnstableTimeStep const& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "no UnstableTimeStep";
    return std::string();
  };
  EXPECT_EQ(
      unstable_error(
          "[grid]\nnx = 40\nny = 30\n[time]\nsteps = 10\ndt = 0.1\n[damping]\nwidth = 0\n"),
      file.string() +
          ":6: time.dt: unstable time step: c*dt/dx = 3.9 exceeds 1/sqrt(2) = 0.7071 (reduce dt)");
  // In the absorbing layer (double-slit-small's: d = 0.45125 next to the border) the bound
  // is lower.
  EXPECT_EQ(unstable_error("base = \"double-slit-small\"\n[medium]\nc = 5\n"),
            file.string() +
                ":3: medium.c: unstable time step: c*dt/dx = 1.25 exceeds sqrt((2 - d)/4) = "
                "0.622244, the bound where the absorbing layer damps by d = 0.45125 (reduce dt)");
  EXPECT_EQ(unstable_error("base = \"double-slit-small\"\n[[medium.region]]\nc = 0.5\n"
                           "rect = { x0 = 1, y0 = 1, x1 = 2, y1 = 2 }\n[[medium.region]]\nc = 2.6\n"
                           "rect = { x0 = 1, y0 = 1, x1 = 2, y1 = 2 }\n"),
            file.string() +
                ":6: medium.region[1].c: unstable time step: c*dt/dx = 0.65 exceeds "
                "sqrt((2 - d)/4) = 0.622244, the bound where the absorbing layer damps by d = "
                "0.45125 (reduce dt)");
  // The same region away from the layer runs (c*dt/dx = 0.65 is within 1/sqrt(2) there).
  write_text(file,
             "base = \"double-slit-small\"\n[[medium.region]]\nc = 2.6\n"
             "rect = { x0 = 90, y0 = 90, x1 = 100, y1 = 100 }\n");
  EXPECT_NO_THROW(validate(read_scene_file(file)));
}

TEST(SceneFile, MissingFileIsNamed) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "nowhere.toml";
  EXPECT_EQ(error_of([&] { load_scene_file(file); }), file.string() + ": no such scene file");
}

TEST(SceneFile, OnlyRegularFilesAreRead) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  EXPECT_EQ(error_of([&] { load_scene_file(dir.path()); }),
            dir.path().string() + ": is a directory, not a scene file");
  EXPECT_EQ(error_of([] { load_scene_file("/dev/zero"); }),
            "/dev/zero: is not a regular file (a device, FIFO or socket), so not a scene file");
  fs::path const loop = dir.path() / "loop.toml";
  fs::create_symlink(loop, loop);
  EXPECT_EQ(error_of([&] { load_scene_file(loop); }),
            loop.string() + ": cannot open the scene file: Too many levels of symbolic links");
}

// What would exhaust toml++'s stack or the memory is refused before the parser runs.
TEST(SceneFile, InputsAreBoundedBeforeTheParser) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "bounds.toml";
  std::string dotted = "a";
  for (int i = 0; i < 500000; ++i) dotted += ".b";
  std::vector<std::pair<std::string, std::string>> const cases = {
      {"\n" + dotted + " = 1\n", ":2: a dotted key of more than 32 parts"},
      {"[" + dotted + "]\n", ":1: a dotted key of more than 32 parts"},
      {"x = " + std::string(100000, '[') + std::string(100000, ']') + "\n",
       ":1: brackets and braces nested more than 32 deep"},
      {"x = " + std::string(40, '{'), ":1: brackets and braces nested more than 32 deep"},
      {std::string(300, 'k') + " = 1\n", ":1: a key longer than 256 characters"},
      // Found by tests/fuzz: undefined behaviour in toml++ 3.3, an assertion in debug builds.
      {"[grid]\nny = \xce\xbf"
       "0\n",
       ":2: a character that is not ASCII (U+03BF) outside a string or a comment"},
      {"[# x\n",
       ":1: Error while parsing key: expected bare key starting character or string "
       "delimiter, saw '#'"},
  };
  for (auto const& [toml, problem] : cases) {
    write_text(file, toml);
    EXPECT_EQ(error_of([&] { load_scene_file(file); }), file.string() + problem);
  }
  // Dots, brackets and '=' inside strings and comments are not counted.
  write_text(file, "name = \"" + dotted.substr(0, 101) + " [[[[{{{{ = \" # " + dotted +
                       " ]]]] \n[grid]\nnx = 9\nny = 9\n[time]\nsteps = 1\n"
                       "[[walls]]\nrect = { x0 = 1, y0 = 1, x1 = 2, y1 = 2 }\n");
  EXPECT_EQ(load_scene_file(file).name.size(), 101u + 12u);

  std::filesystem::resize_file(file, max_scene_file_bytes + 1);
  EXPECT_EQ(error_of([&] { load_scene_file(file); }),
            file.string() + ": the scene file has 16777217 bytes, more than the 16777216 allowed");
}

TEST(SceneFile, GridSizeIsCheckedBeforeAnyPerCellBuffer) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "big.toml";
  write_text(file,
             "[grid]\nnx = 100000\nny = 100000\n[time]\nsteps = 1\n"
             "[[walls]]\nrect = { x0 = 1, y0 = 1, x1 = 2, y1 = 2 }\n");
  std::vector<std::pair<std::int32_t, std::int32_t>> asked;
  SceneFileOptions const options{.check_grid = [&](std::int32_t nx, std::int32_t ny) {
    asked.emplace_back(nx, ny);
    throw InsufficientMemory("too large");
  }};
  // Said where the size comes from.
  auto const too_large = [&] {
    try {
      load_scene_file(file, options);
    } catch (InsufficientMemory const& e) {
      return std::string(e.what());
    }
    return std::string("no InsufficientMemory");
  };
  EXPECT_EQ(too_large(), file.string() + ":2: grid.nx: too large");
  EXPECT_EQ(asked, (std::vector<std::pair<std::int32_t, std::int32_t>>{{100000, 100000}}));

  // A mask that gives the grid: its header is read, its pixels are not.
  write_text(dir.path() / "wide.pgm", "P5\n100000 100000\n255\n");
  write_text(file, "[time]\nsteps = 1\n[[walls]]\nmask = \"wide.pgm\"\n");
  asked.clear();
  EXPECT_EQ(too_large(), file.string() + ":4: walls[0].mask: " +
                             (dir.path() / "wide.pgm").string() + ": too large");
  EXPECT_EQ(asked, (std::vector<std::pair<std::int32_t, std::int32_t>>{{100000, 100000}}));

  // Without a check, the loader's own: its per-cell buffers against the host's memory.
  write_text(file,
             "[grid]\nnx = 2147483647\nny = 2147483647\n[time]\nsteps = 1\n"
             "[[medium.region]]\nc = 0.5\nrect = { x0 = 1, y0 = 1, x1 = 2, y1 = 2 }\n");
  expect_starts_with(error_of([&] { load_scene_file(file); }),
                     file.string() +
                         ": the 2147483647 x 2147483647 grid's speed map needs 16.0 EiB "
                         "of memory, more than the ");
}

// 100000 sources: quadratic checks would outlast the test's timeout.
TEST(SceneFile, ManySourcesLoad) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "sources.toml";
  std::string toml = "[grid]\nnx = 1000\nny = 1000\n[time]\nsteps = 1\n";
  for (int i = 0; i < 100000; ++i) {
    toml += "[[sources]]\nx = " + std::to_string(1 + i % 998) +
            "\ny = " + std::to_string(1 + i / 998) + "\nfrequency = 1\n";
  }
  write_text(file, toml);
  EXPECT_EQ(load_scene_file(file).sources.size(), 100000u);
  write_text(file, toml + "[[sources]]\nx = 3\ny = 1\nfrequency = 1\n");
  expect_starts_with(
      error_of([&] { load_scene_file(file); }),
      file.string() + ":400006: sources[100000]: (3, 1) is already the cell of sources[2]");
}

#if !defined(WAVE2D_HAVE_SCENE_FILES)
TEST(SceneFile, BuildWithoutTomlSaysSo) {
  EXPECT_EQ(error_of([] { load_scene_file("any.toml"); }),
            "this build of wave2d reads no scene files nor scene dicts (install "
            "libtomlplusplus-dev and rebuild)");
}

#endif

MaskImage write_and_read_mask(fs::path const& file, std::string const& bytes) {
  write_text(file, bytes);
  return read_mask_image(file);
}

TEST(MaskImage, PlainPgmWithComments) {
  // Dark is below half the maximum gray value: below 5 of 10.
  TemporaryDirectory const dir;
  MaskImage const image = write_and_read_mask(dir.path() / "plain.pgm",
                                              "P2\n# drawn by hand\n4 2 # width, height\n"
                                              "# the maximum gray value next\n10\n"
                                              "0 4 5 6\n10 # the second row\n 9 1 2\n");
  EXPECT_EQ(image.width, 4);
  EXPECT_EQ(image.height, 2);
  EXPECT_EQ(image.dark, (std::vector<std::uint8_t>{1, 1, 0, 0, 0, 0, 1, 1}));
}

TEST(MaskImage, BinaryPgmOfOneAndTwoBytesPerPixel) {
  TemporaryDirectory const temporary;
  fs::path const dir = temporary.path();
  MaskImage const bytes = write_and_read_mask(dir / "8.pgm", "P5 2 2 255\n\x00\x7f\x80\xff"s);
  EXPECT_EQ(bytes.width, 2);
  EXPECT_EQ(bytes.height, 2);
  EXPECT_EQ(bytes.dark, (std::vector<std::uint8_t>{1, 1, 0, 0}));

  // Big-endian: 0x00ff is dark, 0xff00 light; read the other way round they swap.
  MaskImage const words =
      write_and_read_mask(dir / "16.pgm", "P5\n4 1\n65535\n\x7f\xff\x80\x00\x00\xff\xff\x00"s);
  EXPECT_EQ(words.width, 4);
  EXPECT_EQ(words.height, 1);
  EXPECT_EQ(words.dark, (std::vector<std::uint8_t>{1, 0, 1, 0}));

  MaskImage const bits = write_and_read_mask(dir / "1.pgm", "P5\n3 1\n1\n\x00\x01\x00"s);
  EXPECT_EQ(bits.dark, (std::vector<std::uint8_t>{1, 0, 1}));
}

TEST(MaskImage, BadImagesAreRefusedWithTheirProblem) {
  TemporaryDirectory const temporary;
  fs::path const dir = temporary.path();
  std::vector<std::pair<std::string, std::string>> const cases = {
      {"", "the file is empty"},
      {"P6\n1 1\n255\n\x01\x02\x03",
       "not an image wave2d reads: expected a PGM (P2 or P5) or a PNG"},
      {"P5\n2 2\n255\n\x01\x02\x03",
       "truncated pixel data: 2 x 2 pixels need 4 bytes, the file has 3"},
      {"P5\n2 2\n255\n\x01\x02\x03\x04\x05",
       "extra bytes after the pixels: 2 x 2 pixels need 4 bytes, the file has 5"},
      {"P5\n2 1\n65535\n\x01\x02\x03",
       "truncated pixel data: 2 x 1 pixels need 4 bytes, the file has 3"},
      {"P5\n2 1\n255", "truncated: the file ends after the header"},
      {"P5\n2 1", "truncated: the file ends before the maximum gray value"},
      {"P2\n2 x\n", "expected the height, found 'x'"},
      {"P5\n0 2\n255\n", "the image width is 0"},
      {"P5\n3000000000 1\n255\n", "the image width 3000000000 is too large"},
      {"P5\n1 99999999999999999999\n255\n", "the height 99999999999999999999 is too large"},
      {"P2\n1 1\n255\n99999999999999999999\n",
       "the value of pixel (0, 0) 99999999999999999999 is too large"},
      {"P5\n2 2\n70000\n", "the maximum gray value must lie in 1..65535, got 70000"},
      {"P2\n2 2\n255\n0 0 0\n", "truncated: the file ends before the value of pixel (1, 1)"},
      {"P2\n2 2\n255\n0 0 0 0 0\n", "more pixel values than the 2 x 2 of the header"},
      {"P2\n2 1\n255\n0 256\n", "pixel (1, 0) is 256, above the maximum gray value 255"},
      {"P2\n1000 1000\n255\n0 0\n",
       "truncated: 1000 x 1000 pixel values cannot fit in the 5 bytes left"},
  };
  for (auto const& [bytes, problem] : cases) {
    SCOPED_TRACE(bytes);
    fs::path const file = dir / "bad.pgm";
    write_text(file, bytes);
    EXPECT_EQ(error_of([&] { read_mask_image(file); }), file.string() + ": " + problem);
  }
  EXPECT_EQ(error_of([&] { read_mask_image(dir / "missing.pgm"); }),
            (dir / "missing.pgm").string() + ": no such image");
  EXPECT_EQ(error_of([&] { read_mask_image(dir); }),
            dir.string() + ": is a directory, not an image");
}

TEST(MaskImage, PngOfAnyColorTypeIsConvertedToGray) {
  if (!has_libpng) GTEST_SKIP() << without_libpng;
  // gray8.png: 4 x 2, gray 0 100 127 128 / 200 255 30 140.
  MaskImage const gray = read_mask_image(images_dir / "gray8.png");
  EXPECT_EQ(gray.width, 4);
  EXPECT_EQ(gray.height, 2);
  EXPECT_EQ(gray.dark, (std::vector<std::uint8_t>{1, 1, 1, 0, 0, 0, 1, 0}));

  // gray16.png: 4 x 1, 16-bit gray 0x1000 0xf000 0x0400 0x9000.
  MaskImage const deep = read_mask_image(images_dir / "gray16.png");
  EXPECT_EQ(deep.dark, (std::vector<std::uint8_t>{1, 0, 1, 0}));

  // palette1.png: 5 x 1, a 1-bit palette of white and black: white black black white black.
  MaskImage const palette = read_mask_image(images_dir / "palette1.png");
  EXPECT_EQ(palette.dark, (std::vector<std::uint8_t>{0, 1, 1, 0, 1}));

  // rgba8.png: 3 x 2, opaque black, transparent black, white / blue, yellow, blue at half
  // alpha. Only fully transparent pixels are open whatever their color.
  MaskImage const rgba = read_mask_image(images_dir / "rgba8.png");
  EXPECT_EQ(rgba.width, 3);
  EXPECT_EQ(rgba.height, 2);
  EXPECT_EQ(rgba.dark, (std::vector<std::uint8_t>{1, 0, 0, 1, 0, 1}));
}

// The file's values are compared, whatever its depth, interlacing and gamma chunk.
TEST(MaskImage, PngValuesAreComparedAsStored) {
  if (!has_libpng) GTEST_SKIP() << without_libpng;
  // gray16-interlaced.png and rgba16-interlaced.png (opaque): 11 x 9, Adam7, 16 bits,
  // 1000 where (7x + 3y) % 5 == 0, else 60000.
  std::vector<std::uint8_t> pattern;
  for (int y = 0; y < 9; ++y) {
    for (int x = 0; x < 11; ++x) pattern.push_back((7 * x + 3 * y) % 5 == 0);
  }
  for (char const* name : {"gray16-interlaced.png", "rgba16-interlaced.png"}) {
    MaskImage const interlaced = read_mask_image(images_dir / name);
    EXPECT_EQ(interlaced.width, 11);
    EXPECT_EQ(interlaced.height, 9);
    EXPECT_EQ(interlaced.dark, pattern) << name;
  }
  // gray16-half.png: 4 x 1, 16-bit gray 32767 32768 30000 14000: half of 65535 is the cut.
  EXPECT_EQ(read_mask_image(images_dir / "gray16-half.png").dark,
            (std::vector<std::uint8_t>{1, 0, 1, 1}));
  // gray8-gamma.png: 4 x 1, gray 100 127 128 200 and a gAMA chunk of 1.0.
  EXPECT_EQ(read_mask_image(images_dir / "gray8-gamma.png").dark,
            (std::vector<std::uint8_t>{1, 1, 0, 0}));
}

TEST(MaskImage, CorruptPngIsRefused) {
  if (!has_libpng) GTEST_SKIP() << without_libpng;
  TemporaryDirectory const dir;
  fs::path const file = dir.path() / "corrupt.png";
  write_text(file, "\x89PNG\r\n\x1a\nnot a PNG");
  expect_starts_with(error_of([&] { read_mask_image(file); }),
                     file.string() + ": cannot decode the PNG: ");
}

// libpng decodes both without an error of its own (an index beyond the palette as black).
TEST(MaskImage, APaletteIndexBeyondThePaletteOrExtraImageDataIsRefused) {
  if (!has_libpng) GTEST_SKIP() << without_libpng;
  // palette-beyond.png: 3 x 1, a palette of white and black, indices 0 1 2.
  fs::path const beyond = images_dir / "palette-beyond.png";
  EXPECT_EQ(error_of([&] { read_mask_image(beyond); }),
            beyond.string() + ": pixel (2, 0) has palette index 2, beyond the palette's 2 colors");
  // extra-data.png: the same 3 x 1 image, its compressed data 4 bytes longer than its pixels.
  fs::path const extra = images_dir / "extra-data.png";
  EXPECT_EQ(error_of([&] { read_mask_image(extra); }),
            extra.string() + ": cannot decode the PNG: IDAT: Too much image data");
}

#if !defined(WAVE2D_HAVE_PNG)
TEST(MaskImage, PngNeedsLibpng) {
  fs::path const file = images_dir / "gray8.png";
  expect_starts_with(error_of([&] { read_mask_image(file); }),
                     file.string() + ": PNG masks need libpng");
}

#endif

}  // namespace
}  // namespace wave2d::test
