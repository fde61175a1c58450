// The sequential reference: the textbook's wave_cpu_step for a runtime Scene, evaluating
// the scene's geometry cell by cell. Plain C++, the oracle every backend is tested against.
#ifndef WAVE2D_REFERENCE_HPP
#define WAVE2D_REFERENCE_HPP

#include <wave2d/core/wave2d_Window.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>

#include <cstdint>
#include <utility>

namespace wave2d::reference {

// u0 <- u(t + dt) on the window's local grid, given u0 = u(t - dt) and u1 = u(t), both
// local_nx * local_ny row-major. The local grid's outer ring is fixed (the border rule).
void step(Scene const& scene, Window const& window, float t, float* u0, float const* u1);

// Runs global steps first_step .. first_step + n_steps - 1 (step s at t0 + s * dt).
// Returns {u(t_{n-1}), u(t_n)}: the two buffers, swapped when n_steps is odd.
std::pair<float*, float*> run(Scene const& scene, Window const& window, std::int64_t first_step,
                              std::int64_t n_steps, float* u0, float* u1);

// The same on the whole grid.
inline std::pair<float*, float*> run(Scene const& scene, std::int64_t first_step,
                                     std::int64_t n_steps, float* u0, float* u1) {
  return run(scene, Window::whole(scene.nx, scene.ny), first_step, n_steps, u0, u1);
}

}  // namespace wave2d::reference

#endif
