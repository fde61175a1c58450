#include <wave2d/scene/wave2d_BuiltinScenes.hpp>

#include <cstdint>
#include <string>

namespace wave2d {

namespace {

// Square N x N grid on the unit square: c = 1, dt = dx / 4, run to t = 1.
Scene unit_square(std::string_view name, std::int32_t n) {
  Scene scene;
  scene.name = std::string(name);
  scene.nx = n;
  scene.ny = n;
  scene.c = 1.0f;
  scene.dx = 1.0f / float(n - 1);
  scene.dt = 0.25f * scene.dx / scene.c;
  float const t_end = 1.0f;
  scene.steps = std::int32_t(t_end / scene.dt);
  return scene;
}

Waveform sine(float amplitude, float frequency) {
  return {Waveform::Shape::sine, amplitude, frequency, 0.0f};
}

// Wall column at x = wall_x, open where `open(ŷ)` holds, ŷ = y / (N - 1) in float.
template <class Open>
void add_wall_column(Scene& scene, std::int32_t wall_x, Open open) {
  scene.walls.assign(std::size_t(scene.cells()), 0);
  for (std::int32_t y = 0; y < scene.ny; ++y) {
    float const yh = float(y) / float(scene.ny - 1);
    if (!open(yh)) scene.walls[scene.index(wall_x, y)] = 1;
  }
}

Scene double_slit(std::string_view name, std::int32_t n, float eps) {
  Scene scene = unit_square(name, n);
  float const half = 0.03f / 2;
  add_wall_column(scene, (n - 1) * 2 / 3, [&](float y) {
    return (y >= 0.45f - half - eps && y <= 0.45f + half + eps) ||
           (y >= 0.55f - half - eps && y <= 0.55f + half + eps);
  });
  scene.sources.push_back({(n - 1) / 6, (n - 1) / 2, sine(10.0f, 20.0f)});
  return scene;
}

Scene point_source(std::string_view name, std::int32_t n) {
  Scene scene = unit_square(name, n);
  scene.sources.push_back({(scene.nx - 1) / 2, (scene.ny - 1) / 2, sine(10.0f, 20.0f)});
  return scene;
}

Scene slit(std::string_view name) {
  Scene scene = unit_square(name, 3201);
  float const half = 0.05f / 2;
  add_wall_column(scene, (scene.nx - 1) / 2,
                  [&](float y) { return !(y < 0.5f - half || y > 0.5f + half); });
  scene.sources.push_back({(scene.nx - 1) / 4, (scene.ny - 1) / 2, sine(10.0f, 40.0f)});
  return scene;
}

}  // namespace

std::vector<BuiltinSceneInfo> const& builtin_scenes() {
  static std::vector<BuiltinSceneInfo> const scenes = {
      {"double-slit", "two slits in a wall, a 20 Hz source on the left (3201 x 3201)"},
      {"double-slit-small", "double-slit on a 201 x 201 grid, slits on whole rows"},
      {"point-source", "a 20 Hz source in the centre, no walls (3201 x 3201)"},
      {"slit", "one slit in a wall, a 40 Hz source on the left (3201 x 3201)"},
  };
  return scenes;
}

Scene builtin_scene(std::string_view name) {
  if (name == "double-slit") return double_slit(name, 3201, 0.0f);
  if (name == "double-slit-small") return double_slit(name, 201, 1e-6f);
  if (name == "point-source") return point_source(name, 3201);
  if (name == "slit") return slit(name);
  std::string known;
  for (auto const& info : builtin_scenes()) {
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  }
  throw SceneError("unknown scene '" + std::string(name) + "' (built-in scenes: " + known + ")");
}

Scene point_source_scene(std::int32_t n) {
  return point_source("point-source-" + std::to_string(n), n);
}

}  // namespace wave2d
