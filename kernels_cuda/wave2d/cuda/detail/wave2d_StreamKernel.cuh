// The cuda-stream kernel template: T time steps per launch, each warp streaming down a
// strip of columns with all T levels in flight in its registers. Shared memory only for
// each warp's own ring of coefficients, and no block barriers: a warp depends on nobody
// but itself. docs/kernels/cuda-stream.md explains the design and its figures.
//
// A warp's window is 32·C columns wide, C adjacent columns per lane (3 in the registry's
// shape: 96 columns; 4 need more registers, 2 recompute more sides). It walks down the
// rows of its window, one or more segments of the strip (plus T rows above and below):
// at row r it loads u(t) of row r + 1 and u(t - dt) of row r, then advances every level
// k = 1..T by one row, row r - k + 1 of level k from rows r - k .. r - k + 2 of level
// k - 1, made earlier in the same walk. Each level keeps its last three rows in
// registers, and neighbours across lanes come by shuffles. A level skips the rows no
// later level needs; only the window's sides are recomputed halo: wrong values creep in
// from them one column per level, so a warp writes its middle 32·C - 2T columns (up to
// its edge where that edge is the grid's border column: wave2d_StreamStrips.hpp), rows of
// level T - 1 and T, the new pair. Each launch reads one pair of global fields and writes
// the other.
//
// Most windows of a scene hold no wall, source or border cell and many no damping: their
// walk reads no per-cell coefficients (interior) or only the damping (damped); a window
// with walls but no source reads the codes and masks the fixed cells (walled). None of
// them tests bounds or calls a source. The kinds that read coefficients read each row's
// once, a walk row ahead, into the warp's CoefficientRing, where the levels find them.
// Which kind each segment's window is, is found once per grid (plan_stream_windows_of),
// and so how costly each is: warps stay resident and take windows from a queue,
// costliest first, until none is left. Where the grid is not much larger than the warps'
// windows, a strip's segments are merged into windows of about equal cost, one per warp
// (stream_layout_for, with the device's entry of wave2d_StreamTuning.hpp).
//
// Receivers are recorded where each level computes them: a window whose output cells
// hold receivers is walked as a general one, with its receivers' list (by row) from the
// plan; the other windows' walks hold no trace of them.
#ifndef WAVE2D_STREAM_KERNEL_CUH
#define WAVE2D_STREAM_KERNEL_CUH

#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>
#include <wave2d/cuda/detail/wave2d_StreamPlan.hpp>
#include <wave2d/cuda/detail/wave2d_StreamShape.hpp>
#include <wave2d/cuda/detail/wave2d_StreamStrips.hpp>
#include <wave2d/cuda/detail/wave2d_StreamTuning.hpp>
#include <wave2d/cuda/detail/wave2d_StreamWalk.cuh>
#include <wave2d/cuda/wave2d_CudaKernels.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace wave2d::cuda {

namespace detail {

// A plan entry, two words: the window's first segment (strip-major: strip * segments +
// segment) with its kind in the top bits, and its number of segments (0: no window).
inline constexpr int window_kind_shift = 30;
inline constexpr std::uint32_t window_index_mask = (1u << window_kind_shift) - 1;

// The plan's parts (StreamPlanLayout) in a buffer of its size.
struct PlanParts {
  std::uint32_t* counters;
  std::uint32_t* entries;
  std::uint32_t* receiver_offsets;
  std::uint32_t* receiver_ids;
};

__host__ __device__ inline PlanParts plan_parts(std::uint32_t* plan, std::int64_t total_segments) {
  StreamPlanLayout const layout{total_segments, 0};
  return {plan + layout.counters, plan + layout.entries, plan + layout.receiver_offsets(),
          plan + layout.receiver_ids()};
}

// The segment whose output cells hold cell (x, y).
template <class Shape>
inline std::int64_t segment_of_cell(StreamLayout const& layout, int x, int y) {
  return std::int64_t(strip_of_column<Shape>(x, layout.strips)) * layout.segments + y / layout.rows;
}

// The window of `count` segments from segment `index`.
template <class Shape>
__device__ inline WindowBounds bounds_of(StreamLayout const& layout, KernelParams const& p,
                                         std::int64_t index, int count) {
  StripColumns const columns =
      strip_columns<Shape>(int(index / layout.segments), layout.strips, p.nx);
  int const y0 = int(index % layout.segments) * layout.rows;
  return {columns.x, columns.begin - columns.x, columns.end - columns.x, y0,
          min(y0 + count * layout.rows, p.ny)};
}

}  // namespace detail

// Shape::blocks_per_sm blocks of four warps per multiprocessor (3: at most 170 registers
// a thread, 4: 128). The grid is what stays resident; each warp takes windows from plan's
// queue (the windows, costliest first) until none is left, so that the slow windows start
// first and the fast ones fill the end. The queue's counter is plan[parity]; the launch
// zeroes the other for the next launch, so that no memset stands between two launches.
// Recording: whether the launch records receivers (a kernel of its own, so that runs
// without them carry none of its code).
template <class Shape, bool UniformKappa, bool Recording>
__global__ void __launch_bounds__(Shape::threads, Shape::blocks_per_sm)
    stream_steps(KernelParams params, StreamLayout layout, std::uint32_t* plan, int parity,
                 FieldPointers in, FieldPointers out, std::int64_t first_step) {
  using namespace detail;
  using Ring = CoefficientRing<Shape>;
  extern __shared__ float2 folded[];  // Ring::shared_bytes
  Ring const ring{folded + int(threadIdx.x) / 32 * Ring::cells};
  // In 32 bits: the plan holds at most window_index_mask segments.
  std::uint32_t const total_segments = std::uint32_t(layout.strips) * layout.segments;
  PlanParts const parts = plan_parts(plan, total_segments);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Launched programmatically (advance_stream_of), the next launch's blocks may take an SM
  // as soon as one of this launch's leaves it, and wait there until this launch is done and
  // its writes are visible: the gap between launches overlaps this one's end. Nothing is
  // read or written before the wait.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  if (blockIdx.x == 0 && threadIdx.x == 0) parts.counters[1 - parity] = 0;
  for (;;) {
    std::uint32_t taken = 0;
    if (threadIdx.x % 32 == 0) taken = atomicAdd(parts.counters + parity, 1u);
    taken = __shfl_sync(0xffffffffu, taken, 0);
    if (taken >= total_segments) return;
    std::uint32_t const entry = parts.entries[2 * taken];
    int const count = int(parts.entries[2 * taken + 1]);
    if (count == 0) return;  // the windows are all taken
    std::uint32_t const index = entry & window_index_mask;
    auto const w = bounds_of<Shape>(layout, params, index, count);
    using K = StreamWindowKind;
    switch (K(entry >> window_kind_shift)) {
      case K::interior:
        if constexpr (UniformKappa) {
          walk<Shape, K::interior, UniformKappa, false>(params, in, out, first_step, w, {}, ring);
          break;
        }
        [[fallthrough]];
      case K::damped:
        walk<Shape, K::damped, UniformKappa, false>(params, in, out, first_step, w, {}, ring);
        break;
      case K::walled:
        walk<Shape, K::walled, UniformKappa, false>(params, in, out, first_step, w, {}, ring);
        break;
      default: {
        WindowReceivers receivers;
        if constexpr (Recording) {
          receivers = {parts.receiver_ids, int(parts.receiver_offsets[index]),
                       int(parts.receiver_offsets[index + count])};
        }
        walk<Shape, K::general, UniformKappa, Recording>(params, in, out, first_step, w, receivers,
                                                         ring);
      }
    }
  }
}

// One thread per row of a strip (strip-major: strip * ny + row): the kind of a window that
// held that row of the strip's columns alone, a byte each. A segment's window takes the
// costliest kind of the rows it reads (segment_kinds), so each row is read once, however
// short the segments (merged grids have segments of a row).
template <class Shape>
__global__ void classify_rows(KernelParams params, StreamLayout layout, std::uint8_t* kinds) {
  std::int64_t const index = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= std::int64_t(layout.strips) * params.ny) return;
  int const strip = int(index / params.ny), y = int(index % params.ny);
  int const x0 = strip_columns<Shape>(strip, layout.strips, params.nx).x;
  auto kind = StreamWindowKind::interior;
  if (x0 < 0 || x0 + Shape::window_x > params.nx) {
    kind = StreamWindowKind::general;
  } else {
    for (int x = x0; x < x0 + Shape::window_x; ++x) {
      float const code = params.code[std::int64_t(y) * params.pitch + x];
      if (code < cell_code::fixed_zero) {
        kind = StreamWindowKind::general;
        break;
      }
      if (code < 0.0f) kind = StreamWindowKind::walled;
      if (kind == StreamWindowKind::interior && (code != 0.0f || !params.uniform_kappa())) {
        kind = StreamWindowKind::damped;
      }
    }
  }
  kinds[index] = std::uint8_t(kind);
}

// stream_steps' dynamic shared memory (the coefficient rings) allowed on the current
// device, for each of its kernels: some shapes need more than the 48 KB a launch gets
// without asking.
template <class Shape>
void allow_stream_rings() {
  int const bytes = int(detail::CoefficientRing<Shape>::shared_bytes);
  for (auto const kernel : {stream_steps<Shape, true, false>, stream_steps<Shape, true, true>,
                            stream_steps<Shape, false, false>, stream_steps<Shape, false, true>}) {
    WAVE2D_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  }
}

// The layout of a grid on `device`, the current device, which runs its launches, cut as
// the device's tuning entry says (StreamTuning).
template <class Shape>
StreamLayout stream_layout_for(KernelParams const& params, int device) {
  StreamLayout layout;
  layout.strips = strips_of<Shape>(params.nx);
  int multiprocessors = 0, blocks_per_sm = 0, major = 0, minor = 0;
  WAVE2D_CUDA_CHECK(
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  WAVE2D_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  WAVE2D_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  allow_stream_rings<Shape>();
  WAVE2D_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_per_sm, stream_steps<Shape, true, false>, Shape::threads,
      detail::CoefficientRing<Shape>::shared_bytes));
  layout.resident_blocks = multiprocessors * blocks_per_sm;
  detail::StreamTuning const& tuning = detail::stream_tuning_for(major, minor);
  std::int64_t const warps = std::int64_t(layout.resident_blocks) * Shape::warps;
  std::int64_t const strip_rows = std::int64_t(layout.strips) * params.ny;
  auto const windows_of = [&](int rows) {
    return std::int64_t(layout.strips) * ((params.ny + rows - 1) / rows);
  };
  if (windows_of(tuning.min_rows) < warps) {
    layout.rows =
        int(std::clamp<std::int64_t>(strip_rows / warps, tuning.fewest_rows, tuning.min_rows));
  } else if (windows_of(detail::max_window_rows) <= warps) {
    layout.rows = tuning.merged_rows;
    layout.windows_per_warp = 1.0;
  } else {
    layout.rows =
        int(std::clamp<std::int64_t>(strip_rows / (std::int64_t(tuning.windows_per_warp) * warps),
                                     tuning.min_rows, detail::max_window_rows));
  }
  layout.segments = (params.ny + layout.rows - 1) / layout.rows;
  layout.window_costs = {tuning.cost_per_row, Shape::steps};
  layout.fused_steps = Shape::steps;
  return layout;
}

namespace detail {

// Each row of each strip's kind (classify_rows), computed on the device, and the
// receivers' cells, copied to the host.
template <class Shape>
void classify_on_device(KernelParams const& params, StreamLayout const& layout,
                        std::vector<std::uint8_t>& row_kinds, std::vector<ReceiverCell>& cells,
                        cudaStream_t stream) {
  std::int64_t const strip_rows = std::int64_t(layout.strips) * params.ny;
  row_kinds.assign(std::size_t(strip_rows), 0);
  cells.resize(std::size_t(params.receivers.count));
  struct StreamOrderedBytes {  // freed in stream order, also when a check throws
    std::uint8_t* bytes = nullptr;
    cudaStream_t stream;
    ~StreamOrderedBytes() {
      if (bytes != nullptr) cudaFreeAsync(bytes, stream);
    }
  } device{nullptr, stream};
  WAVE2D_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&device.bytes), strip_rows, stream));
  classify_rows<Shape>
      <<<unsigned((strip_rows + 127) / 128), 128, 0, stream>>>(params, layout, device.bytes);
  WAVE2D_CUDA_CHECK(cudaGetLastError());
  WAVE2D_CUDA_CHECK(cudaMemcpyAsync(row_kinds.data(), device.bytes, row_kinds.size(),
                                    cudaMemcpyDeviceToHost, stream));
  if (!cells.empty()) {
    WAVE2D_CUDA_CHECK(cudaMemcpyAsync(cells.data(), params.receivers.cells,
                                      cells.size() * sizeof(ReceiverCell), cudaMemcpyDeviceToHost,
                                      stream));
  }
  WAVE2D_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Each segment's receivers, by row (a counting sort by segment of the receivers sorted by
// row, so a window's are its segments' in a row), into the plan's parts; their segments
// become general, the only kind that records.
template <class Shape>
void place_receivers(StreamLayout const& layout, std::vector<ReceiverCell> const& cells,
                     PlanParts const& parts, std::vector<std::uint32_t>& kinds) {
  std::int64_t const total_segments = layout.total_segments();
  std::vector<std::uint32_t> by_row(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) by_row[i] = std::uint32_t(i);
  std::stable_sort(by_row.begin(), by_row.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return cells[a].y < cells[b].y; });
  for (auto const& cell : cells) {
    ++parts.receiver_offsets[segment_of_cell<Shape>(layout, cell.x, cell.y) + 1];
  }
  for (std::int64_t i = 0; i < total_segments; ++i) {
    parts.receiver_offsets[i + 1] += parts.receiver_offsets[i];
  }
  std::vector<std::uint32_t> filled(parts.receiver_offsets,
                                    parts.receiver_offsets + total_segments);
  for (std::uint32_t id : by_row) {
    std::int64_t const segment = segment_of_cell<Shape>(layout, cells[id].x, cells[id].y);
    parts.receiver_ids[filled[segment]++] = id;
    kinds[segment] = std::uint32_t(StreamWindowKind::general);
  }
}

}  // namespace detail

// plan: stream_plan_size(layout, params.receivers.count) entries of device memory.
template <class Shape>
void plan_stream_windows_of(KernelParams const& params, StreamLayout const& layout,
                            std::uint32_t* plan, cudaStream_t stream) {
  using namespace detail;
  std::int64_t const total_segments = layout.total_segments();
  if (total_segments > std::int64_t(window_index_mask)) {
    throw std::length_error("cuda-stream: too many windows for this grid");
  }
  std::vector<std::uint32_t> host(stream_plan_size(layout, params.receivers.count));
  PlanParts const parts = plan_parts(host.data(), total_segments);
  std::vector<std::uint8_t> row_kinds;
  std::vector<ReceiverCell> cells;
  classify_on_device<Shape>(params, layout, row_kinds, cells, stream);
  std::vector<std::uint32_t> kinds = segment_kinds<Shape>(layout, params.ny, row_kinds);
  place_receivers<Shape>(layout, cells, parts, kinds);

  // The costliest windows first; the entries past the last stay 0 (no window).
  auto windows = plan_windows<Shape>(layout, params.ny, kinds);
  std::stable_sort(windows.begin(), windows.end(),
                   [](PlannedWindow const& a, PlannedWindow const& b) { return a.cost > b.cost; });
  for (std::size_t i = 0; i < windows.size(); ++i) {
    parts.entries[2 * i] = windows[i].first | std::uint32_t(windows[i].kind) << window_kind_shift;
    parts.entries[2 * i + 1] = std::uint32_t(windows[i].count);
  }
  WAVE2D_CUDA_CHECK(cudaMemcpyAsync(plan, host.data(), host.size() * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice, stream));
  WAVE2D_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Runs n_steps as launches of Shape::steps, alternating between the two pairs, and the
// remainder (fewer than Shape::steps) one step per launch. Returns the pair that holds
// the result. The fused launches are programmatic (each may start while the one before
// ends; stream_steps waits for it) and need no memset between them (plan's two counters):
// on the H200, 3% on double-slit and 6% at 2048², where a launch lasts about 90 and 46 µs.
template <class Shape>
FieldPointers advance_stream_of(KernelParams const& params, StreamLayout const& layout,
                                std::uint32_t* plan, FieldPointers fields, FieldPointers scratch,
                                std::int64_t first_step, std::int64_t n_steps,
                                cudaStream_t stream) {
  bool const recording = params.receivers.active();
  auto const kernel =
      params.uniform_kappa()
          ? (recording ? stream_steps<Shape, true, true> : stream_steps<Shape, true, false>)
          : (recording ? stream_steps<Shape, false, true> : stream_steps<Shape, false, false>);
  std::size_t const shared_bytes = detail::CoefficientRing<Shape>::shared_bytes;
  std::int64_t const windows = layout.total_segments();  // at most
  unsigned const blocks = unsigned(
      std::min<std::int64_t>((windows + Shape::warps - 1) / Shape::warps, layout.resident_blocks));
  std::int64_t const fused = n_steps - n_steps % Shape::steps;
  if (fused > 0) {
    WAVE2D_CUDA_CHECK(cudaMemsetAsync(plan, 0, sizeof(std::uint32_t), stream));  // parity 0
  }
  cudaLaunchAttribute programmatic;
  programmatic.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  programmatic.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(Shape::threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &programmatic;
  config.numAttrs = 1;
  for (std::int64_t s = 0; s < fused; s += Shape::steps) {
    int const parity = int(s / Shape::steps % 2);
    WAVE2D_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, params, layout, plan, parity, fields,
                                         scratch, first_step + s));
    std::swap(fields, scratch);
  }
  return advance_naive(params, fields, first_step + fused, n_steps - fused, stream);
}

}  // namespace wave2d::cuda

#endif
