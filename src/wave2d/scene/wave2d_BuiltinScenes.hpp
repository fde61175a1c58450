// The reference scenes of the textbook's lab, with exactly their parameters.
#ifndef WAVE2D_BUILTIN_SCENES_HPP
#define WAVE2D_BUILTIN_SCENES_HPP

#include <wave2d/scene/wave2d_Scene.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace wave2d {

struct BuiltinSceneInfo {
  std::string_view name;
  std::string_view description;
};

std::vector<BuiltinSceneInfo> const& builtin_scenes();

// Throws SceneError listing the known names when `name` is not one of them.
Scene builtin_scene(std::string_view name);

// point-source's geometry on an n x n grid, by the same rules (the benches' size sweep).
Scene point_source_scene(std::int32_t n);

}  // namespace wave2d

#endif
