// cuda-stream's tuning, per architecture, as data: how a grid is cut into windows and
// what each kind of window costs. A device takes the entry of the highest architecture
// not above its own (CUB's tuning policies work so). Plain C++, tested where no GPU is.
#ifndef WAVE2D_STREAM_TUNING_HPP
#define WAVE2D_STREAM_TUNING_HPP

#include <wave2d/cuda/wave2d_CudaKernels.hpp>

#include <array>

namespace wave2d::cuda::detail {

struct StreamTuning {
  int architecture;  // compute capability x 10 this entry starts at; 0: any GPU
  // A grid too small to give every warp a window of min_rows gets short segments (down
  // to fewest_rows), a window each: there the walk's serial chain, not the rows read
  // twice, sets the time. A grid whose strips in windows of the longest rows would leave
  // warps idle has segments of merged_rows rows merged into one window of about equal
  // cost per warp. Larger grids keep segments of min_rows or more, about
  // windows_per_warp windows per resident warp, taken from the queue costliest first.
  int min_rows;
  int fewest_rows;
  int merged_rows;
  int windows_per_warp;
  // Per row of a window by StreamWindowKind (interior, damped, walled, general), and the
  // fused steps' rows more for its first and last rows: a fit, not a model.
  std::array<std::int32_t, 4> cost_per_row;
  char const* measured;  // where the figures come from
};

inline constexpr std::array<StreamTuning, 2> stream_tunings{{
    // Other GPUs: the H200's figures, measured nowhere else. The costs follow the work
    // per cell of each kind's walk, which is the kernel's more than the chip's.
    {0, 24, 4, 1, 3, {185, 340, 460, 850}, "unmeasured: sm_90's figures"},
    // H200 (docs/results/h200/cuda-stream.txt; bench/tuning/wave2d_cuda_tuning): 201 x 201
    // 8.7 GCells/s with 4-row segments against 3.8 with 24; double-slit 617 merged against
    // 567 with 24-row windows from the queue, 866 with segments of a row against 824 with
    // 8; 8192² 846 with 3 windows a warp against 800 merged; the costs: of 36 sets on seven
    // grids, the one whose worst grid was least far from that grid's best.
    {90, 24, 4, 1, 3, {185, 340, 460, 850}, "H200, CUDA 13.0"},
}};

// The entry for a device of compute capability major.minor.
constexpr StreamTuning const& stream_tuning_for(int major, int minor) {
  int const architecture = 10 * major + minor;
  std::size_t chosen = 0;
  for (std::size_t i = 0; i < stream_tunings.size(); ++i) {
    if (stream_tunings[i].architecture <= architecture) chosen = i;
  }
  return stream_tunings[chosen];
}

}  // namespace wave2d::cuda::detail

#endif
