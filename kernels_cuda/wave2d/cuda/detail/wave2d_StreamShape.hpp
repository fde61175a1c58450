// cuda-stream's shapes: a warp's window, the steps it fuses, the blocks an SM holds. Plain
// C++, so that the host code and tests built on them use the kernel's own figures.
#ifndef WAVE2D_STREAM_SHAPE_HPP
#define WAVE2D_STREAM_SHAPE_HPP

#include <wave2d/cuda/wave2d_CudaKernels.hpp>

#include <cstdio>
#include <string>

namespace wave2d::cuda {

// The defaults are the shipped shape (StreamRegistryShape); the tuning program
// (bench/tuning) compiles others.
template <int FusedSteps = stream_fused_steps, int BlocksPerSM = 4, int CellsX = 3,
          int UnrolledKinds = 1>
struct StreamShape {
  static constexpr int steps = FusedSteps;
  static constexpr int blocks_per_sm = BlocksPerSM;  // asked of the compiler
  static constexpr int cells_x = CellsX;             // adjacent columns per lane
  // The kinds of window (StreamWindowKind, in order: interior, damped, ...) whose walks
  // take the rows where every level is needed three at a time (Walk::run): code three
  // times as long, and beyond the interior kind more registers than 4 blocks/SM leave
  // (spills).
  static constexpr int unrolled_kinds = UnrolledKinds;
  static constexpr int window_x = 32 * cells_x;
  static constexpr int tile_x = window_x - 2 * FusedSteps;  // columns a warp writes
  static constexpr int warps = 4;                           // per block
  static constexpr int threads = 32 * warps;
  // Rows read beyond a segment's output rows, above and below: a window is inside the
  // grid when these are.
  static constexpr int rows_above = 2 * FusedSteps + 1;
  static constexpr int rows_below = FusedSteps + 3;

  static std::string describe(StreamLayout const& layout) {
    char per_warp[64] = "";
    if (layout.windows_per_warp > 0) {
      std::snprintf(per_warp, sizeof per_warp, " merged by cost, %g per warp",
                    layout.windows_per_warp);
    }
    return "warp strips " + std::to_string(tile_x) + " of " + std::to_string(window_x) +
           " columns x segments of " + std::to_string(layout.rows) +
           (layout.rows == 1 ? " row" : " rows") + per_warp + ", T=" + std::to_string(steps) +
           ", " + std::to_string(BlocksPerSM) + " blocks/SM, " + std::to_string(CellsX) +
           " columns a lane" +
           (UnrolledKinds != 1 ? ", " + std::to_string(UnrolledKinds) + " kinds unrolled" : "");
  }
};

// The registry's shape. 3 columns a lane at 4 blocks/SM: 1% faster than 4 columns at 3 on
// double-slit and 8192², 7% at 2048² (docs/kernels/cuda-stream.md).
using StreamRegistryShape = StreamShape<>;
// The registry's shape on large grids (stream_deep_min_cells): 12 steps at 3 blocks/SM,
// 168 registers a thread, no spills.
using StreamDeepShape = StreamShape<stream_deep_fused_steps, 3>;

}  // namespace wave2d::cuda

#endif
