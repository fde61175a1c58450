// Scenes from Python dicts, through the library's scene-file loader: plain C++ (nvcc
// trips over toml++), apart from the module's Kokkos code.
#ifndef WAVE2D_PYTHON_SCENE_DICT_HPP
#define WAVE2D_PYTHON_SCENE_DICT_HPP

#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>

#include <pybind11/pybind11.h>

namespace wave2d::python {

// The dict's keys are those of a scene file (docs/scene-files.md): toml++ writes it as
// TOML text, read_scene_text() reads that with `options`, masks relative to the working
// directory. SceneError naming the key path ("scene dict: sources[1].frequency: ..."),
// also for a dict nested deeper, larger or with longer keys than a scene file may be, or
// one that contains itself; TypeError for a value TOML has no type for. Its files are the
// masks alone, and it names no key for the time step: a dict is no file, and its lines are
// those of TOML that no user saw.
SceneFile scene_from_dict(pybind11::handle dict, SceneFileOptions const& options = {});

}  // namespace wave2d::python

#endif
