#include <core/wave2d_Coefficients.hpp>

namespace wave2d {

HostCoefficients precompute_coefficients(Scene const& scene) {
  HostCoefficients coefficients;
  coefficients.nx = scene.nx;
  coefficients.ny = scene.ny;
  coefficients.t0 = scene.t0;
  coefficients.dt = scene.dt;
  coefficients.kappa_uniform = kappa(scene.c, scene.dx, scene.dt);
  auto const cells = std::size_t(scene.cells());
  coefficients.code.resize(cells);
  for (std::int32_t y = 0; y < scene.ny; ++y) {
    for (std::int32_t x = 0; x < scene.nx; ++x) {
      coefficients.code[scene.index(x, y)] = damping_at(scene, x, y);
    }
  }
  for (std::size_t i = 0; i < scene.sources.size(); ++i) {
    auto const& source = scene.sources[i];
    coefficients.code[scene.index(source.x, source.y)] = cell_code::source(std::int32_t(i));
    coefficients.sources.push_back(source.waveform);
  }
  // Border and walls win over sources, as in the rule.
  for (std::int32_t y = 0; y < scene.ny; ++y) {
    for (std::int32_t x = 0; x < scene.nx; ++x) {
      bool const border = x == 0 || x == scene.nx - 1 || y == 0 || y == scene.ny - 1;
      if (border || scene.is_wall(x, y)) {
        coefficients.code[scene.index(x, y)] = cell_code::fixed_zero;
      }
    }
  }
  if (!scene.speed.empty()) {
    coefficients.kappa.resize(cells);
    for (std::size_t i = 0; i < cells; ++i) {
      coefficients.kappa[i] = kappa(scene.speed[i], scene.dx, scene.dt);
    }
  }
  return coefficients;
}

}  // namespace wave2d
