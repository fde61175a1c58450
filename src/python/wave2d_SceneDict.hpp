// Scenes from Python dicts, through the library's scene-file loader: plain C++ (nvcc
// trips over toml++), apart from the module's Kokkos code.
#ifndef WAVE2D_PYTHON_SCENE_DICT_HPP
#define WAVE2D_PYTHON_SCENE_DICT_HPP

#include <wave2d/scene/wave2d_Scene.hpp>

#include <pybind11/pybind11.h>

namespace wave2d::python {

// The dict's keys are those of a scene file (docs/scene-files.md): toml++ writes it as
// TOML text, read_scene_text() reads that, masks relative to the working directory.
// SceneError as for a file (named "<dict>"); TypeError for a value TOML has no type for.
Scene scene_from_dict(pybind11::dict const& dict);

}  // namespace wave2d::python

#endif
