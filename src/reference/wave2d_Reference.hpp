// The sequential reference: the seed's wave_cpu_step for a runtime Scene, evaluating
// the scene's geometry cell by cell. Plain C++, the oracle every backend is tested against.
#ifndef WAVE2D_REFERENCE_HPP
#define WAVE2D_REFERENCE_HPP

#include <scene/wave2d_Scene.hpp>

#include <cstdint>
#include <utility>

namespace wave2d::reference {

// u0 <- u(t + dt), given u0 = u(t - dt) and u1 = u(t), both nx * ny row-major.
void step(Scene const& scene, float t, float* u0, float const* u1);

// Runs global steps first_step .. first_step + n_steps - 1 (step s at t0 + s * dt).
// Returns {u(t_{n-1}), u(t_n)}: the two buffers, swapped when n_steps is odd.
std::pair<float*, float*> run(Scene const& scene, std::int64_t first_step,
                              std::int64_t n_steps, float* u0, float* u1);

}  // namespace wave2d::reference

#endif
