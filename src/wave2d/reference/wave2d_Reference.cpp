#include <wave2d/reference/wave2d_Reference.hpp>

#include <utility>

namespace wave2d::reference {

void step(Scene const& scene, Window const& window, float t, float* u0, float const* u1) {
  std::int32_t const nx = window.local_nx();
  std::int32_t const ny = window.local_ny();
  std::int32_t const ox = window.origin_x();
  std::int32_t const oy = window.origin_y();
  auto const fixed_at_zero = [&](std::int32_t x, std::int32_t y) {
    return x == 0 || x == nx - 1 || y == 0 || y == ny - 1 || scene.is_wall(ox + x, oy + y);
  };
  for (std::int32_t y = 0; y < ny; ++y) {
    for (std::int32_t x = 0; x < nx; ++x) {
      std::int64_t const idx = std::int64_t(y) * nx + x;
      std::int32_t const gx = ox + x;
      std::int32_t const gy = oy + y;
      float u_next;
      if (fixed_at_zero(x, y)) {
        u_next = 0.0f;
      } else {
        float const coeff = kappa(scene.speed_at(gx, gy), scene.dx, scene.dt);
        float const damping = damping_at(scene, gx, gy);
        u_next = (2.0f - damping - 4.0f * coeff) * u1[idx] - (1.0f - damping) * u0[idx] +
                 coeff * (u1[idx - 1] + u1[idx + 1] + u1[idx - nx] + u1[idx + nx]);
      }
      u0[idx] = u_next;
    }
  }
  // Sources then take their cells (a cell's update reads no other cell of u0), unless the
  // border or a wall holds them at 0.
  for (Source const& source : scene.sources) {
    std::int32_t const x = source.x - ox;
    std::int32_t const y = source.y - oy;
    if (x < 0 || x >= nx || y < 0 || y >= ny || fixed_at_zero(x, y)) continue;
    u0[std::int64_t(y) * nx + x] = source.waveform.value(t);
  }
}

std::pair<float*, float*> run(Scene const& scene, Window const& window, std::int64_t first_step,
                              std::int64_t n_steps, float* u0, float* u1) {
  for (std::int64_t s = first_step; s < first_step + n_steps; ++s) {
    step(scene, window, scene.t0 + float(s) * scene.dt, u0, u1);
    std::swap(u0, u1);
  }
  return {u0, u1};
}

}  // namespace wave2d::reference
