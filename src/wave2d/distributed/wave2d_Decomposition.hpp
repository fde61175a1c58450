// How a global grid splits over a 2D Cartesian grid of ranks: plain arithmetic, no MPI.
#ifndef WAVE2D_DECOMPOSITION_HPP
#define WAVE2D_DECOMPOSITION_HPP

#include <wave2d/core/wave2d_Window.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wave2d {

// Cells [start, start + size) of n split into `parts` blocks, block `index`: the first
// n % parts blocks are one cell larger.
struct Block {
  std::int32_t start = 0;
  std::int32_t size = 0;
};
constexpr Block block_of(std::int32_t n, int parts, int index) {
  std::int32_t const base = n / parts;
  std::int32_t const extra = n % parts;
  return {index * base + (index < extra ? index : extra), base + (index < extra ? 1 : 0)};
}

// The window of the rank at Cartesian coordinates (cx, cy) of a ranks[0] x ranks[1] grid
// of ranks (x first), with a halo of `halo` cells.
inline Window window_of(std::int32_t nx, std::int32_t ny, std::array<int, 2> ranks,
                        std::array<int, 2> coords, std::int32_t halo) {
  Block const x = block_of(nx, ranks[0], coords[0]);
  Block const y = block_of(ny, ranks[1], coords[1]);
  return {nx, ny, x.start, y.start, x.size, y.size, halo};
}

// Whether every rank owns at least `halo` cells in each direction (a halo is filled from
// the next rank alone) and at least one cell.
inline bool fits_decomposition(std::int32_t nx, std::int32_t ny, std::array<int, 2> ranks,
                               std::int32_t halo) {
  std::int32_t const least = std::max(1, halo);
  return ranks[0] >= 1 && ranks[1] >= 1 && nx / ranks[0] >= least && ny / ranks[1] >= least;
}

// Throws std::invalid_argument unless fits_decomposition.
inline void check_decomposition(std::int32_t nx, std::int32_t ny, std::array<int, 2> ranks,
                                std::int32_t halo) {
  std::int32_t const least = std::max(1, halo);
  if (!fits_decomposition(nx, ny, ranks, halo)) {
    throw std::invalid_argument(
        "cannot split a " + std::to_string(nx) + " x " + std::to_string(ny) + " grid over " +
        std::to_string(ranks[0]) + " x " + std::to_string(ranks[1]) + " ranks with a halo of " +
        std::to_string(halo) + ": every rank must own at least " + std::to_string(least) +
        (least == 1 ? " cell" : " cells") + " each way");
  }
}

}  // namespace wave2d

#endif
