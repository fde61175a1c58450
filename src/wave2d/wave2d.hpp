// wave2d: explicit 2D wave-equation simulation on Kokkos execution spaces (target
// wave2d::wave2d). Files in and out (io/: scene files, masks, NPY, PNG) are the
// separate target wave2d::io.
#ifndef WAVE2D_HPP
#define WAVE2D_HPP

#include <wave2d/wave2d_Config.hpp>

#include <wave2d/core/wave2d_CellRule.hpp>
#include <wave2d/core/wave2d_Coefficients.hpp>
#include <wave2d/core/wave2d_KernelParams.hpp>
#include <wave2d/core/wave2d_Window.hpp>
#include <wave2d/plan/wave2d_Backends.hpp>
#include <wave2d/plan/wave2d_PlanCache.hpp>
#include <wave2d/plan/wave2d_Planner.hpp>
#include <wave2d/reference/wave2d_Reference.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/simulation/wave2d_AvailableMemory.hpp>
#include <wave2d/simulation/wave2d_FiniteCheck.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#endif
