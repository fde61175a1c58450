// Scenes described in TOML files (docs/scene-files.md gives the format).
#ifndef WAVE2D_SCENE_FILE_HPP
#define WAVE2D_SCENE_FILE_HPP

#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/wave2d_Config.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d {

// What the loader refuses before toml++ parses a file, so that no input can exhaust
// the parser's stack or the memory: the file's size, the nesting of brackets and
// braces, the parts of a dotted key and the length of a key.
inline constexpr std::uint64_t max_scene_file_bytes = 16u << 20;
inline constexpr int max_scene_file_nesting = 32;
inline constexpr int max_scene_file_key_parts = 32;
inline constexpr std::size_t max_scene_file_key_length = 256;

// Whether this build reads scene files (and Python's scene dicts): it needs toml++.
inline constexpr bool can_read_scene_files =
#if defined(WAVE2D_HAVE_SCENE_FILES)
    true;
#else
    false;
#endif

// The refusal of a build without toml++.
inline constexpr char const* no_scene_files_reason =
    "this build of wave2d reads no scene files nor scene dicts (install libtomlplusplus-dev and "
    "rebuild)";

struct SceneFileOptions {
  // Called with the grid's size as soon as it is known (from grid.nx and grid.ny, the
  // base scene or a mask's header), before any per-cell buffer is made or any mask
  // pixel decoded: a program checks there that its run fits in memory, and throws.
  std::function<void(std::int32_t nx, std::int32_t ny)> check_grid;
  // The steps a run makes where it overrides the file's: what steps give (t's spacing, the
  // sources' values) is checked over these.
  std::optional<std::int64_t> steps;
};

// A key of a scene file and its line ("time.dt", 8); an empty path for none.
struct SceneFileKey {
  std::string path;
  std::uint32_t line = 0;
  std::filesystem::path file;  // as its reader was given it, for messages
};

struct SceneFile {
  Scene scene;
  std::vector<std::filesystem::path> files;  // read to make it, absolute: the file, its masks
  // The key that set what the Courant number c·dt/dx comes from: time.dt, else grid.dx,
  // else a wave speed; none when the file sets none of them (a base scene's).
  SceneFileKey time_step_key;
};

// Reads and checks a scene file; mask images are found relative to it. Throws
// SceneError naming the file, the line and the key of the first problem
// ("scene.toml:12: sources[1].x: ..."), also in a build without toml++; a problem of
// values together (a time step that underflows, a t that a step does not change) is
// named at a key that gave one of them. The scene file and its masks must be regular
// files; per-cell buffers must fit in the host's available memory. Checks all that
// validate() does but the stability bound, which the caller may allow: call
// validate(SceneFile) on the result.
SceneFile read_scene_file(std::filesystem::path const& path, SceneFileOptions const& options = {});

// The same for TOML text read from elsewhere: `path` names it in the errors and its
// directory is where masks are found.
SceneFile read_scene_text(std::string_view text, std::filesystem::path const& path,
                          SceneFileOptions const& options = {});

// validate() on the file's scene, an UnstableTimeStep named at the file's
// time_step_key ("scene.toml:8: time.dt: unstable time step: ...").
void validate(SceneFile const& file, ValidationOptions const& options = {});

// The same of a scene read from `files` (the scene file first; none for a scene of no file)
// whose time step `key` set.
void validate(Scene const& scene, SceneFileKey const& key,
              std::vector<std::filesystem::path> const& files,
              ValidationOptions const& options = {});

// read_scene_file's scene.
Scene load_scene_file(std::filesystem::path const& path, SceneFileOptions const& options = {});

}  // namespace wave2d

#endif
