// Hand-written CUDA kernels on raw device pointers: no Kokkos here. The steppers of
// wave2d_CudaSteppers.hpp run them as the cuda-* backends; the raw-pointer tests and the
// tuning program call them directly.
#ifndef WAVE2D_CUDA_KERNELS_HPP
#define WAVE2D_CUDA_KERNELS_HPP

#include <wave2d/core/wave2d_Coefficients.hpp>
#include <wave2d/core/wave2d_KernelParams.hpp>

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <string>

namespace wave2d::cuda {

// u(t_{n-1}) and u(t_n), device pointers with the params' pitch.
struct FieldPointers {
  float* previous = nullptr;
  float* current = nullptr;
};

// cuda-naive: one launch per step, in place (u_next overwrites previous). Returns the
// pair after n_steps: the same two pointers, swapped when n_steps is odd.
FieldPointers advance_naive(KernelParams const& params, FieldPointers fields,
                            std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream);
std::string naive_configuration();

// cuda-onepass: cuda-naive's launches, four cells per thread in 16-byte loads and stores
// (the fair one-pass baseline: its bytes per cell-step at copy bandwidth). The fields and
// per-cell arrays must be 16-byte aligned; any pitch.
FieldPointers advance_onepass(KernelParams const& params, FieldPointers fields,
                              std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream);
std::string onepass_configuration();

// Time steps cuda-shmem fuses per launch, in every tile shape.
inline constexpr int shmem_fused_steps = 8;

// The compiled shapes of cuda-shmem's tile, named by their output tile.
enum class ShmemTile {
  tile_112x48,  // 1 x 16 cells per thread: tuned for sm_90 (docs/kernels/cuda-shmem.md)
  tile_32x32,   // 2 x 2 cells per thread, unpadded: the textbook configuration
};

// The tile cuda-shmem runs on this grid on `device`: 112 x 48, unless the grid has fewer
// such tiles than the device has multiprocessors (most of it would idle): then 32 x 32.
ShmemTile shmem_tile_for(KernelParams const& params, int device);
std::string describe(ShmemTile tile);  // "tile 112x48, 1x16 cells/thread, T=8, unpadded"

// cuda-shmem: T steps per launch in shared memory. Each launch reads one pair and
// writes the other (no block reads what another block of the same launch writes);
// `scratch` is that other pair. Returns whichever pair holds the result.
FieldPointers advance_shmem(ShmemTile tile, KernelParams const& params, FieldPointers fields,
                            FieldPointers scratch, std::int64_t first_step, std::int64_t n_steps,
                            cudaStream_t stream);

// cuda-stream (wave2d_StreamKernel.cuh): T steps per launch, each warp walking down a
// strip of columns with the T levels in registers. Two compiled shapes: T = 8 at 4
// blocks/SM, the backend's depth (its halo, its trial's pass), and T = 12 at 3, which
// grids of stream_deep_min_cells cells or more run in multiples of 12 steps
// (docs/kernels/cuda-stream.md: faster from 4096², slower at 2048², even at 3201²).
inline constexpr int stream_fused_steps = 8;
inline constexpr int stream_deep_fused_steps = 12;
inline constexpr std::int64_t stream_deep_min_cells = std::int64_t(4096) * 4096;

// A window's cost, to merge and order windows: per_row[kind] for each of its rows and
// rows_added more (what its levels add).
struct StreamWindowCosts {
  std::array<std::int32_t, 4> per_row{};
  int rows_added = 0;
};

// How a grid is cut into the warps' windows: column strips by row segments, and each
// strip's consecutive segments merged into windows of about equal cost (by what they
// hold), about windows_per_warp windows per resident warp; 0: a window per segment.
struct StreamLayout {
  int strips = 0;
  int segments = 0;         // per strip
  int rows = 0;             // output rows per segment
  int resident_blocks = 0;  // blocks of the kernel the device holds at once
  double windows_per_warp = 0.0;
  StreamWindowCosts window_costs;
  int fused_steps = stream_fused_steps;  // which compiled shape

  // Segments of all strips, numbered strip-major: strip * segments + segment.
  WAVE2D_HOST_DEVICE std::int64_t total_segments() const { return std::int64_t(strips) * segments; }
};

// The plan in device memory, std::uint32_t entries: two counters of the windows taken (by
// alternate launches); two entries a window, in the order they are taken (at most one
// window a segment); by segment, where its receivers start in the ids that follow
// (total_segments + 1 offsets); the receivers' ids.
struct StreamPlanLayout {
  std::int64_t segments;  // total
  std::int32_t receivers;

  static constexpr std::int64_t counters = 0;
  static constexpr std::int64_t entries = 2;
  WAVE2D_HOST_DEVICE std::int64_t receiver_offsets() const { return 2 + 2 * segments; }
  // After the segments + 1 offsets.
  WAVE2D_HOST_DEVICE std::int64_t receiver_ids() const { return 3 + 3 * segments; }
  WAVE2D_HOST_DEVICE std::int64_t size() const { return receiver_ids() + receivers; }
};

// What a window holds, and so what its walk reads per cell; in the order of their cost.
enum class StreamWindowKind : std::uint32_t {
  interior,  // inside the grid, no damping, no fixed cell, uniform κ: nothing per cell
  damped,    // inside the grid, no fixed cell: damping (and κ) per cell
  walled,    // inside the grid, no source: damping, κ and fixed cells (walls, border)
  general,   // anything: sources, receivers, cells outside the grid
};

// The layout of a grid on `device`, the current device, which then runs its launches
// (allowed there the kernel's shared memory).
// The layout of the compiled shape that fuses `fused_steps` (stream_fused_steps or
// stream_deep_fused_steps).
StreamLayout stream_layout(KernelParams const& params, int device,
                           int fused_steps = stream_fused_steps);
std::string describe(
    StreamLayout const& layout);  // "warp strips 80 of 96 columns x segments of 1 row merged
                                  // by cost, 1 per warp, T=8, 4 blocks/SM, 3 columns a lane"
// The number of plan entries (device std::uint32_t) a layout and its receivers need.
inline std::size_t stream_plan_size(StreamLayout const& layout, std::int32_t receivers) {
  return std::size_t(StreamPlanLayout{layout.total_segments(), receivers}.size());
}
// Fills the plan: the windows' kinds, the order they are taken in, and which receivers
// (params.receivers.cells) each records; once per grid. Synchronizes `stream`.
void plan_stream_windows(KernelParams const& params, StreamLayout const& layout,
                         std::uint32_t* plan, cudaStream_t stream);
// Like advance_shmem; n_steps % T steps at the end run one per launch.
FieldPointers advance_stream(KernelParams const& params, StreamLayout const& layout,
                             std::uint32_t* plan, FieldPointers fields, FieldPointers scratch,
                             std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream);

// Rows of nx cells padded to a multiple of `multiple` cells.
inline std::int64_t padded_pitch(std::int64_t nx, std::int64_t multiple) {
  return (nx + multiple - 1) / multiple * multiple;
}

// cuda-stream's rows, padded to a multiple of 32 cells (128 bytes) where a run is long
// enough to repay copying the fields in and out (StreamStepper): on the H200, 6% faster
// on double-slit's 3201-wide grid (docs/kernels/cuda-stream.md). The copies cost about as much
// as 10 steps (estimated from the copy bandwidth): under 2% of a run of 512 steps.
inline std::int64_t stream_pitch(std::int64_t nx) { return padded_pitch(nx, 32); }
inline constexpr std::int64_t stream_padded_min_steps = 512;

// Copies `rows` rows of `width` floats, device to device on `stream`, from rows
// `src_pitch` apart to rows `dst_pitch` apart (the copy engine: no kernel).
void copy_rows(float* dst, std::int64_t dst_pitch, float const* src, std::int64_t src_pitch,
               std::int64_t width, std::int64_t rows, cudaStream_t stream);

// A window's coefficients in device memory, rows `pitch` elements apart, for callers
// without Kokkos (the raw-pointer tests and the tuning program).
class DeviceCoefficients {
 public:
  DeviceCoefficients(HostCoefficients const& host, std::int64_t pitch);
  ~DeviceCoefficients();
  DeviceCoefficients(DeviceCoefficients const&) = delete;
  DeviceCoefficients& operator=(DeviceCoefficients const&) = delete;

  KernelParams const& params() const { return params_; }

 private:
  void release();

  float* code_ = nullptr;
  float* kappa_ = nullptr;
  Waveform* sources_ = nullptr;
  ReceiverCell* receivers_ = nullptr;
  KernelParams params_;
};

// Whether a CUDA device is usable here, and if not, why.
bool device_available(char const** reason = nullptr);

}  // namespace wave2d::cuda

#endif
