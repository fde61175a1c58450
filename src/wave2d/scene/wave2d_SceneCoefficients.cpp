#include <wave2d/scene/wave2d_Scene.hpp>

#include <stdexcept>
#include <string>

namespace wave2d {

void validate_window(Scene const& scene, Window const& window) {
  validate(window);
  if (window.global_nx != scene.nx || window.global_ny != scene.ny) {
    throw std::invalid_argument("window: made for a " + std::to_string(window.global_nx) + " x " +
                                std::to_string(window.global_ny) + " grid, the scene is " +
                                std::to_string(scene.nx) + " x " + std::to_string(scene.ny));
  }
}

HostCoefficients precompute_coefficients(Scene const& scene, Window const& window) {
  validate_window(scene, window);
  HostCoefficients coefficients;
  coefficients.window = window;
  coefficients.t0 = scene.t0;
  coefficients.dt = scene.dt;
  coefficients.kappa_uniform = kappa(scene.c, scene.dx, scene.dt);
  std::int32_t const nx = window.local_nx();
  std::int32_t const ny = window.local_ny();
  std::int32_t const ox = window.origin_x();
  std::int32_t const oy = window.origin_y();
  auto const local = [nx](std::int32_t x, std::int32_t y) { return std::size_t(y) * nx + x; };
  coefficients.code.resize(std::size_t(window.local_cells()));
  for (std::int32_t y = 0; y < ny; ++y) {
    for (std::int32_t x = 0; x < nx; ++x) {
      coefficients.code[local(x, y)] = damping_at(scene, ox + x, oy + y);
    }
  }
  for (std::size_t i = 0; i < scene.sources.size(); ++i) {
    auto const& source = scene.sources[i];
    std::int32_t const x = source.x - ox;
    std::int32_t const y = source.y - oy;
    if (x >= 0 && x < nx && y >= 0 && y < ny) {
      coefficients.code[local(x, y)] = cell_code::source(std::int32_t(i));
    }
    coefficients.sources.push_back(source.waveform);
  }
  // The border rule: the ring and the walls win over sources, as in the rule.
  for (std::int32_t y = 0; y < ny; ++y) {
    for (std::int32_t x = 0; x < nx; ++x) {
      bool const ring = x == 0 || x == nx - 1 || y == 0 || y == ny - 1;
      if (ring || scene.is_wall(ox + x, oy + y)) {
        coefficients.code[local(x, y)] = cell_code::fixed_zero;
      }
    }
  }
  // Receivers of the owned cells only: a halo copy is not exact for long, and a receiver
  // belongs to one window of a decomposition.
  coefficients.receiver_columns = std::int32_t(scene.receivers.size());
  for (std::size_t i = 0; i < scene.receivers.size(); ++i) {
    auto const& r = scene.receivers[i];
    bool const owned = r.x >= window.x0 && r.x < window.x0 + window.nx && r.y >= window.y0 &&
                       r.y < window.y0 + window.ny;
    if (owned) coefficients.receivers.push_back({r.x - ox, r.y - oy, std::int32_t(i)});
  }
  if (!scene.speed.empty()) {
    coefficients.kappa.resize(std::size_t(window.local_cells()));
    for (std::int32_t y = 0; y < ny; ++y) {
      for (std::int32_t x = 0; x < nx; ++x) {
        coefficients.kappa[local(x, y)] = kappa(scene.speed_at(ox + x, oy + y), scene.dx, scene.dt);
      }
    }
  }
  return coefficients;
}

}  // namespace wave2d
