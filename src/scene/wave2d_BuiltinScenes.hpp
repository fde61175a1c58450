// The reference scenes of the seed chapter's lab, with exactly their parameters.
#ifndef WAVE2D_BUILTIN_SCENES_HPP
#define WAVE2D_BUILTIN_SCENES_HPP

#include <scene/wave2d_Scene.hpp>

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

}  // namespace wave2d

#endif
