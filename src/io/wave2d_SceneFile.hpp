// Scenes described in TOML files (docs/scene-files.md gives the format).
#ifndef WAVE2D_SCENE_FILE_HPP
#define WAVE2D_SCENE_FILE_HPP

#include <scene/wave2d_Scene.hpp>

#include <filesystem>

namespace wave2d {

// Reads and checks a scene file; mask images are found relative to it. Throws
// SceneError naming the file, the line and the key of the first problem
// ("scene.toml:12: sources[1].x: ..."), also in a build without toml++. Does not
// check stability: call validate() on the result.
Scene load_scene_file(std::filesystem::path const& path);

}  // namespace wave2d

#endif
