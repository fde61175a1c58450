// wave2d: explicit 2D wave-equation simulation on Kokkos execution spaces (target
// wave2d::wave2d). Files in and out (io/: scene files, masks, NPY, PNG) are the
// separate target wave2d::io.
#ifndef WAVE2D_HPP
#define WAVE2D_HPP

#include <wave2d_Config.hpp>

#include <core/wave2d_CellRule.hpp>
#include <core/wave2d_Coefficients.hpp>
#include <core/wave2d_KernelParams.hpp>
#include <core/wave2d_Window.hpp>
#include <reference/wave2d_Reference.hpp>
#include <scene/wave2d_BuiltinScenes.hpp>
#include <scene/wave2d_Scene.hpp>
#include <simulation/wave2d_AvailableMemory.hpp>
#include <simulation/wave2d_Backends.hpp>
#include <simulation/wave2d_FiniteCheck.hpp>
#include <simulation/wave2d_Simulation.hpp>

#endif
