// cuda-stream's column strips: which columns each strip's window covers and writes. Plain
// C++ (host and device), so that the tiling is tested where no GPU is.
#ifndef WAVE2D_STREAM_STRIPS_HPP
#define WAVE2D_STREAM_STRIPS_HPP

#include <wave2d/core/wave2d_CellRule.hpp>

#include <algorithm>

namespace wave2d::cuda {

// A window is Shape::window_x columns wide, and wrong values creep in from its sides one
// column per level, so a strip writes the columns at least Shape::steps from both sides,
// tile_x of them. But where a side is the grid's border column, fixed, nothing creeps in:
// so the first strip's window starts at column 0 and the last's ends at column nx - 1,
// each writing up to that edge, and the strips between write tile_x columns each, from
// column tile_x + steps on. Where the grid is at least a window wide, no window reaches
// outside it.
template <class Shape>
WAVE2D_HOST_DEVICE inline int strips_of(int nx) {
  if (nx <= Shape::window_x) return 1;
  return 1 + (nx - Shape::window_x + Shape::tile_x - 1) / Shape::tile_x;
}

// Strip `strip`'s window: its first column x (negative only in grids narrower than a
// window), and the grid's columns [begin, end) it writes.
struct StripColumns {
  int x;
  int begin;
  int end;
};

template <class Shape>
WAVE2D_HOST_DEVICE inline StripColumns strip_columns(int strip, int strips, int nx) {
  bool const last = strip == strips - 1;
  return {last && strip > 0 ? nx - Shape::window_x : strip * Shape::tile_x,
          strip == 0 ? 0 : strip * Shape::tile_x + Shape::steps,
          last ? nx : (strip + 1) * Shape::tile_x + Shape::steps};
}

// The strip that writes column x (0 <= x < nx).
template <class Shape>
inline int strip_of_column(int x, int strips) {
  return std::clamp((x - Shape::steps) / Shape::tile_x, 0, strips - 1);
}

}  // namespace wave2d::cuda

#endif
