// The part of the global grid that one kernel advances: owned cells and a halo.
#ifndef WAVE2D_WINDOW_HPP
#define WAVE2D_WINDOW_HPP

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wave2d {

// A rectangle of owned cells of a global_nx x global_ny grid, stored with up to `halo`
// cells around it (fewer where the grid ends). The stored cells form the local grid,
// whose outer ring is fixed like the global border (cell codes, wave2d_CellRule.hpp):
// the error this brings into halo cells moves one cell per step, so the owned cells of
// a window whose halo is H cells wide stay exact for H steps.
struct Window {
  std::int32_t global_nx = 0;
  std::int32_t global_ny = 0;
  std::int32_t x0 = 0;  // first owned cell
  std::int32_t y0 = 0;
  std::int32_t nx = 0;  // owned extent
  std::int32_t ny = 0;
  std::int32_t halo = 0;

  // The whole grid, no halo: the single-domain case.
  static constexpr Window whole(std::int32_t nx, std::int32_t ny) {
    return {nx, ny, 0, 0, nx, ny, 0};
  }

  // The local grid's first cell and extent, in global cells.
  constexpr std::int32_t origin_x() const { return std::max(0, x0 - halo); }
  constexpr std::int32_t origin_y() const { return std::max(0, y0 - halo); }
  constexpr std::int32_t local_nx() const {
    return std::min<std::int64_t>(global_nx, std::int64_t(x0) + nx + halo) - origin_x();
  }
  constexpr std::int32_t local_ny() const {
    return std::min<std::int64_t>(global_ny, std::int64_t(y0) + ny + halo) - origin_y();
  }
  constexpr std::int64_t local_cells() const { return std::int64_t(local_nx()) * local_ny(); }
  // Where the owned cells start in the local grid.
  constexpr std::int32_t owned_x() const { return x0 - origin_x(); }
  constexpr std::int32_t owned_y() const { return y0 - origin_y(); }
};

// Throws std::invalid_argument unless the owned cells are a non-empty part of the grid
// and the halo is not negative.
inline void validate(Window const& window) {
  bool const inside = window.nx > 0 && window.ny > 0 && window.x0 >= 0 && window.y0 >= 0 &&
                      std::int64_t(window.x0) + window.nx <= window.global_nx &&
                      std::int64_t(window.y0) + window.ny <= window.global_ny;
  if (!inside || window.halo < 0) {
    throw std::invalid_argument(
        "window: owned cells [" + std::to_string(window.x0) + ", +" + std::to_string(window.nx) +
        ") x [" + std::to_string(window.y0) + ", +" + std::to_string(window.ny) + "), halo " +
        std::to_string(window.halo) + ", do not fit a " + std::to_string(window.global_nx) + " x " +
        std::to_string(window.global_ny) + " grid");
  }
}

}  // namespace wave2d

#endif
