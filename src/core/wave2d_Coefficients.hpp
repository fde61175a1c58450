// Per-cell coefficients: what the backends read instead of evaluating the scene's
// damping function, walls and sources in their inner loops. Computed once per scene.
#ifndef WAVE2D_COEFFICIENTS_HPP
#define WAVE2D_COEFFICIENTS_HPP

#include <core/wave2d_CellRule.hpp>
#include <scene/wave2d_Scene.hpp>

#include <cstdint>
#include <vector>

namespace wave2d {

struct HostCoefficients {
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  std::vector<float> code;   // nx * ny cell codes (core/wave2d_CellRule.hpp)
  std::vector<float> kappa;  // nx * ny κ per cell; empty when κ is uniform
  float kappa_uniform = 0.0f;
  std::vector<Waveform> sources;  // indexed by the source codes
  float t0 = 0.0f;
  float dt = 0.0f;
};

HostCoefficients precompute_coefficients(Scene const& scene);

}  // namespace wave2d

#endif
