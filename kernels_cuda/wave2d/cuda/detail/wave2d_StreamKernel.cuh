// The cuda-stream kernel template: T time steps per launch, each warp streaming down a
// strip of columns with all T levels in flight in its registers. Shared memory only for
// each warp's own ring of coefficients, and no block barriers: a warp depends on nobody
// but itself.
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
// once, a walk row ahead, into the warp's ring (CoefficientRing), where the levels find
// them. Which kind each segment's window is, is found once per grid
// (plan_stream_windows_of), and so how costly each is: warps stay resident and take
// windows from a queue, costliest first, until none is left. Where the grid is not much
// larger than the warps' windows, a strip's segments are merged into windows of about
// equal cost, one per warp (stream_layout_for).
//
// Receivers are recorded where each level computes them: a window whose output cells
// hold receivers is walked as a general one, with its receivers' list (by row) from the
// plan; the other windows' walks hold no trace of them.
#ifndef WAVE2D_STREAM_KERNEL_CUH
#define WAVE2D_STREAM_KERNEL_CUH

#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>
#include <wave2d/cuda/wave2d_CudaKernels.hpp>
#include <wave2d/cuda/detail/wave2d_StreamPlan.hpp>
#include <wave2d/cuda/detail/wave2d_StreamShape.hpp>
#include <wave2d/cuda/detail/wave2d_StreamStrips.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace wave2d::cuda {

namespace stream_detail {

template <class Shape>
struct Window {
  int x;            // the window's first column (negative only in grids narrower than it)
  int write_begin;  // the columns it writes, from x: [write_begin, write_end)
  int write_end;
  int y0;     // first output row
  int y_end;  // one past the last output row
};

// A plan entry, two words: the window's first segment (strip-major: strip * segments +
// segment) with its kind in the top bits, and its number of segments (0: no window).
inline constexpr int window_kind_shift = 30;
inline constexpr std::uint32_t window_index_mask = (1u << window_kind_shift) - 1;

// The receivers in a window's output cells: ids[begin, end), indices into
// params.receivers.cells, by row.
struct WindowReceivers {
  std::uint32_t const* ids = nullptr;
  int begin = 0;
  int end = 0;
};

// The plan (stream_plan_size): plan[0] and plan[1] count the windows taken, by
// alternate launches; then the windows' entries in the order they are taken (at most one
// window a segment); then, by segment, where each segment's receivers start in the ids
// that follow (segments + 1 offsets).
struct PlanParts {
  std::uint32_t* counters;
  std::uint32_t* entries;
  std::uint32_t* receiver_offsets;
  std::uint32_t* receiver_ids;
};

__host__ __device__ inline PlanParts plan_parts(std::uint32_t* plan, std::int64_t segments) {
  return {plan, plan + 2, plan + 2 + 2 * segments, plan + 3 + 3 * segments};
}

// The segment whose output cells hold cell (x, y).
template <class Shape>
inline std::int64_t segment_of_cell(StreamLayout const& layout, int x, int y) {
  return std::int64_t(strip_of_column<Shape>(x, layout.strips)) * layout.segments + y / layout.rows;
}

// The window of `count` segments from segment `index`.
template <class Shape>
__device__ inline Window<Shape> window_of(StreamLayout const& layout, KernelParams const& p,
                                          std::int64_t index, int count) {
  StripColumns const columns =
      strip_columns<Shape>(int(index / layout.segments), layout.strips, p.nx);
  int const y0 = int(index % layout.segments) * layout.rows;
  return {columns.x, columns.begin - columns.x, columns.end - columns.x, y0,
          min(y0 + count * layout.rows, p.ny)};
}

// A warp's ring of folded coefficients (cu, cp) in shared memory: T rows of its window's
// columns, each twice, at slots row mod T and row mod T + T. So the T rows the levels read
// at a walk row are at fixed distances below the newest one's second copy: one address a
// walk row, not one a level. Each lane reads only the columns it writes, so the warp needs
// no barrier.
template <class Shape>
struct CoefficientRing {
  static constexpr int cells = 2 * Shape::steps * Shape::window_x;  // a warp's
  // After the warps' rings, with Shape::coalesced_stores, each warp's row of the new pair.
  static constexpr int store_floats = Shape::coalesced_stores ? 2 * Shape::window_x : 0;
  static constexpr std::size_t shared_bytes =
      std::size_t(Shape::warps) * (cells * sizeof(float2) + store_floats * sizeof(float));
  float2* folded;
  float* stores;

  // Row `row`'s second copy, from column `column` of the window: row - i is i rows below
  // it (i < T), and its first copy T rows below. Rows start no more than 2T above the
  // grid (a general window's first rows).
  __device__ float2* newest(int row, int column) const {
    constexpr int T = Shape::steps;
    return folded + (int(unsigned(row + 4 * T) % T) + T) * Shape::window_x + column;
  }
  __host__ __device__ static constexpr int rows_below(int i) { return -i * Shape::window_x; }
};

// A hard source's value: rare, and large inline (sinf, expf), so kept out of the walk's
// code, which must fit the instruction cache.
__device__ __noinline__ inline float source_value(Waveform const* sources, float code, float t) {
  return sources[cell_code::source_index(code)].value(t);
}

// Walks one window. Kind: what the window holds (StreamWindowKind); general windows also
// test bounds (only they reach outside the grid) and, when Recording, record receivers.
template <class Shape, StreamWindowKind Kind, bool UniformKappa, bool Recording>
__device__ __forceinline__ void walk(KernelParams const& p, FieldPointers in, FieldPointers out,
                                     std::int64_t first_step, Window<Shape> const w,
                                     [[maybe_unused]] WindowReceivers const receivers,
                                     CoefficientRing<Shape> const ring_of_rows) {
  constexpr int T = Shape::steps;
  constexpr int C = Shape::cells_x;
  static_assert(T >= 3, "the next row's fields are loaded at levels 2 and 3");
  using Ring = CoefficientRing<Shape>;
  constexpr bool checked = Kind == StreamWindowKind::general;
  constexpr bool recording = checked && Recording;
  constexpr bool per_cell = Kind != StreamWindowKind::interior || !UniformKappa;
  int const lane = int(threadIdx.x) % 32;
  int const x = w.x + lane * C;  // the lane's first column

  bool column_inside[C];
  bool column_written[C];
#pragma unroll
  for (int j = 0; j < C; ++j) {
    column_inside[j] = x + j >= 0 && x + j < p.nx;
    int const lx = lane * C + j;
    column_written[j] = column_inside[j] && lx >= w.write_begin && lx < w.write_end;
  }
  // Column lane + 32j of the window, written where the stores are coalesced.
  [[maybe_unused]] bool lane_column_written[C];
#pragma unroll
  for (int j = 0; j < C; ++j) {
    int const lx = lane + 32 * j;
    lane_column_written[j] = lx >= w.write_begin && lx < w.write_end;
  }
  auto load_row = [&](float const* field, int row, float(&v)[C]) {
    bool const row_inside = !checked || (row >= 0 && row < p.ny);
    float const* const at = field + std::int64_t(row) * p.pitch + x;
#pragma unroll
    for (int j = 0; j < C; ++j) {
      v[j] = row_inside && (!checked || column_inside[j]) ? __ldg(at + j) : 0.0f;
    }
  };

  // Level k's last three rows (newest, middle, older), in slots by the walk's phase.
  float ring[T][3][C];
#pragma unroll
  for (int k = 0; k < T; ++k)
#pragma unroll
    for (int s = 0; s < 3; ++s)
#pragma unroll
      for (int j = 0; j < C; ++j) ring[k][s][j] = 0.0f;

  int r = w.y0 - T - 1;  // the walk's row: level 0 takes row r + 1 and level k row r - k + 1
  int const r_end = w.y_end + T - 2;  // level 1's last needed row
  // Per-cell coefficients of a row, fixed-zero outside the grid.
  auto load_coefficients = [&](int row, float(&code)[C], float(&kappa)[C]) {
    if constexpr (Kind != StreamWindowKind::interior) {
      load_row(p.code, row, code);
      if constexpr (checked) {
        bool const row_inside = row >= 0 && row < p.ny;
#pragma unroll
        for (int j = 0; j < C; ++j) {
          if (!(row_inside && column_inside[j])) code[j] = cell_code::fixed_zero;
        }
      }
    }
    if constexpr (!UniformKappa) load_row(p.kappa, row, kappa);
  };

  // The folded coefficients of the rows the levels are at (r - T + 1 .. r) wait in the
  // ring: a row's codes are read once, a walk row ahead like the fields, and folded once,
  // instead of read by each level within the levels' chain. κ per cell, where a scene has
  // it, is still read by each level. The fields too are read a walk row ahead: u(t) of the
  // next row straight into level 0's newest slot, u(t - dt) of the row into previous_row,
  // each once its registers are free.
  float previous_row[C];
  [[maybe_unused]] float next_code[C], next_kappa[C];
  load_row(in.current, r + 1, ring[0][0]);
  load_row(in.previous, r, previous_row);
  if constexpr (per_cell) load_coefficients(r, next_code, next_kappa);

  // The receivers on the rows the levels compute at this walk row, r - T + 1 .. r:
  // [first_receiver, last_receiver) of the window's list.
  [[maybe_unused]] int first_receiver = receivers.begin, last_receiver = receivers.begin;
  [[maybe_unused]] auto receiver_cell = [&](int i) { return p.receivers.cells[receivers.ids[i]]; };

  // One row of the walk, the levels' rows in slots by Phase: with the three
  // slots renamed from row to row (Phase 0, 1, 2, 0, ...) instead of moved, a walk unrolled
  // by three rows moves no registers. Tested: each level skips the rows no later level
  // needs (the walk's first 2T rows, where the levels start one after another).
  auto advance_row = [&](int const walk_row, auto phase, auto tested) {
    constexpr int P = decltype(phase)::value;
    // P rows after phase 0 each role sits P slots further back, modulo 3.
    constexpr int newest = (3 - P) % 3, middle = (4 - P) % 3, older = (5 - P) % 3;
    if constexpr (recording) {
      while (last_receiver < receivers.end && receiver_cell(last_receiver).y <= walk_row)
        ++last_receiver;
      while (first_receiver < last_receiver && receiver_cell(first_receiver).y < walk_row - T + 1) {
        ++first_receiver;
      }
    }
    [[maybe_unused]] float2* const folded_rows = ring_of_rows.newest(walk_row, lane * C);
    if constexpr (per_cell) {
#pragma unroll
      for (int j = 0; j < C; ++j) {
        float const kk = UniformKappa ? p.kappa_uniform : next_kappa[j];
        float2 const f = make_float2(folded_cu(next_code[j], kk), folded_cp(next_code[j]));
        folded_rows[j] = f;
        folded_rows[Ring::rows_below(T) + j] = f;
      }
      load_coefficients(walk_row + 1, next_code, next_kappa);
    }

#pragma unroll
    for (int k = 1; k <= T; ++k) {
      // The next walk row's fields, loaded where their registers are free: level 1 is the
      // last to read previous_row, level 2 the last to read level 0's older row.
      if (k == 2) load_row(in.previous, walk_row + 1, previous_row);
      if (k == 3) load_row(in.current, walk_row + 2, ring[0][older]);
      int const row = walk_row - k + 1;
      // Level k is needed T - k rows around the segment: skip the rows beyond (the same
      // for the whole warp, so the shuffles stay converged).
      if constexpr (decltype(tested)::value) {
        if (row < w.y0 - (T - k) || row >= w.y_end + (T - k)) continue;
      }
      // Untested, a straight walk's level T reaches rows outside the segment: not stored.
      bool const row_stored = decltype(tested)::value || !Shape::straight_walk ||
                              (row >= w.y0 && row < w.y_end);
      float(&from)[3][C] = ring[k - 1];
      float const left = __shfl_up_sync(0xffffffffu, from[middle][C - 1], 1);
      float const right = __shfl_down_sync(0xffffffffu, from[middle][0], 1);
      [[maybe_unused]] float kappa[C];
      if constexpr (!UniformKappa) load_row(p.kappa, row, kappa);
      [[maybe_unused]] float2 const* const folded = folded_rows + Ring::rows_below(k - 1);
      float v[C];
#pragma unroll
      for (int j = 0; j < C; ++j) {
        float const u_prev = k == 1 ? previous_row[j] : ring[k >= 2 ? k - 2 : 0][older][j];
        float const sum = (j == 0 ? left : from[middle][j - 1]) +
                          (j == C - 1 ? right : from[middle][j + 1]) + from[older][j] +
                          from[newest][j];
        if constexpr (!per_cell) {
          v[j] = stencil(0.0f, p.kappa_uniform, u_prev, from[middle][j], sum);
        } else {
          float2 const f = folded[j];  // (cu, cp)
          float const kk = UniformKappa ? p.kappa_uniform : kappa[j];
          v[j] = f.x * from[middle][j] - f.y * u_prev + kk * sum;  // stencil(), folded
          if constexpr (Kind != StreamWindowKind::damped) v[j] = kept_or_zero(f.y == f.y, v[j]);
          if constexpr (checked) {
            if (f.x < cell_code::fixed_zero && f.y != f.y) {
              v[j] = source_value(p.sources, f.x, p.time(first_step + k - 1));
            }
          }
        }
      }
      if constexpr (recording) {
        // u after first_step + k steps, recorded by the lane that holds the cell.
        for (int i = first_receiver; i < last_receiver; ++i) {
          ReceiverCell const cell = receiver_cell(i);
          int const j = cell.x - x;
          if (cell.y != row || j < 0 || j >= C) continue;
          float value = v[0];
#pragma unroll
          for (int jj = 1; jj < C; ++jj) value = j == jj ? v[jj] : value;
          p.receivers.record(int(receivers.ids[i]), first_step + k, value);
        }
      }
      if (k < T) {
#pragma unroll
        for (int j = 0; j < C; ++j) ring[k][newest][j] = v[j];
      } else if constexpr (Shape::coalesced_stores) {
        float* const staged = ring_of_rows.stores;  // the pair's row, window_x apart
        __syncwarp();  // every lane has stored the previous row's
#pragma unroll
        for (int j = 0; j < C; ++j) {
          staged[lane * C + j] = ring[T - 1][middle][j];
          staged[Shape::window_x + lane * C + j] = v[j];
        }
        __syncwarp();
        std::int64_t const at = std::int64_t(row) * p.pitch + w.x + lane;
        float* const previous_out = out.previous + at;
        float* const current_out = out.current + at;
#pragma unroll
        for (int j = 0; j < C; ++j) {
          float const u_previous = staged[lane + 32 * j];
          float const u_current = staged[Shape::window_x + lane + 32 * j];
          if (row_stored && lane_column_written[j]) {
            previous_out[32 * j] = u_previous;
            current_out[32 * j] = u_current;
          }
        }
      } else {
        std::int64_t const at = std::int64_t(row) * p.pitch + x;
#pragma unroll
        for (int j = 0; j < C; ++j) {
          if (row_stored && column_written[j]) {
            out.previous[at + j] = ring[T - 1][middle][j];
            out.current[at + j] = v[j];
          }
        }
      }
    }
  };
  using Phase0 = std::integral_constant<int, 0>;
  using Phase1 = std::integral_constant<int, 1>;
  using Phase2 = std::integral_constant<int, 2>;
  using Tested = std::true_type;
  using Untested = std::false_type;

  if constexpr (Shape::straight_walk && int(Kind) < Shape::unrolled_kinds) {
    // Every row three at a time, up to two past the last: the last reads row
    // y_end - 1 + T + 3, the deepest that rows_below lets a window of these kinds read.
    static_assert(Shape::rows_below >= T + 3);
    for (; r <= r_end; r += 3) {
      advance_row(r, Phase0{}, Untested{});
      advance_row(r + 1, Phase1{}, Untested{});
      advance_row(r + 2, Phase2{}, Untested{});
    }
    return;
  }
  // The first 2T rows (the levels starting) and the last rows % 3 row by row, moving the
  // slots down after each; the rows between three at a time.
  int until = w.y0 + T - 1;  // the first row at which every level is needed
  for (;;) {
    for (; r < until; ++r) {
      advance_row(r, Phase0{}, Tested{});
#pragma unroll
      for (int k = 0; k < T; ++k) {
#pragma unroll
        for (int j = 0; j < C; ++j) {
          // Level 0's older slot holds the next row, loaded there: it becomes the newest.
          float const next = ring[k][2][j];
          ring[k][2][j] = ring[k][1][j];
          ring[k][1][j] = ring[k][0][j];
          if (k == 0) ring[k][0][j] = next;
        }
      }
    }
    if (until > r_end) break;
    if constexpr (int(Kind) < Shape::unrolled_kinds) {
      for (; r + 2 <= r_end; r += 3) {
        advance_row(r, Phase0{}, Untested{});
        advance_row(r + 1, Phase1{}, Untested{});
        advance_row(r + 2, Phase2{}, Untested{});
      }
    }
    until = r_end + 1;
  }
}

}  // namespace stream_detail

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
  using namespace stream_detail;
  using Ring = CoefficientRing<Shape>;
  extern __shared__ float2 folded[];  // Ring::shared_bytes
  int const warp = int(threadIdx.x) / 32;
  Ring const ring{folded + warp * Ring::cells,
                  reinterpret_cast<float*>(folded + Shape::warps * Ring::cells) +
                      warp * Ring::store_floats};
  std::uint32_t const segments = std::uint32_t(layout.strips) * layout.segments;
  PlanParts const parts = plan_parts(plan, segments);
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
    if (taken >= segments) return;
    std::uint32_t const entry = parts.entries[2 * taken];
    int const count = int(parts.entries[2 * taken + 1]);
    if (count == 0) return;  // the windows are all taken
    std::uint32_t const index = entry & window_index_mask;
    auto const w = window_of<Shape>(layout, params, index, count);
    switch (StreamWindowKind(entry >> window_kind_shift)) {
      case StreamWindowKind::interior:
        if constexpr (UniformKappa) {
          walk<Shape, StreamWindowKind::interior, UniformKappa, false>(params, in, out, first_step,
                                                                       w, {}, ring);
          break;
        }
        [[fallthrough]];
      case StreamWindowKind::damped:
        walk<Shape, StreamWindowKind::damped, UniformKappa, false>(params, in, out, first_step, w,
                                                                   {}, ring);
        break;
      case StreamWindowKind::walled:
        walk<Shape, StreamWindowKind::walled, UniformKappa, false>(params, in, out, first_step, w,
                                                                   {}, ring);
        break;
      default: {
        WindowReceivers receivers;
        if constexpr (Recording) {
          receivers = {parts.receiver_ids, int(parts.receiver_offsets[index]),
                       int(parts.receiver_offsets[index + count])};
        }
        walk<Shape, StreamWindowKind::general, UniformKappa, Recording>(params, in, out, first_step,
                                                                        w, receivers, ring);
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
  int const bytes = int(stream_detail::CoefficientRing<Shape>::shared_bytes);
  for (auto const kernel : {stream_steps<Shape, true, false>, stream_steps<Shape, true, true>,
                            stream_steps<Shape, false, false>, stream_steps<Shape, false, true>}) {
    WAVE2D_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  }
}

// The layout of a grid on `device`, the current device, which runs its launches.
template <class Shape>
StreamLayout stream_layout_for(KernelParams const& params, int device) {
  StreamLayout layout;
  layout.strips = strips_of<Shape>(params.nx);
  int multiprocessors = 0, blocks_per_sm = 0;
  WAVE2D_CUDA_CHECK(
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  allow_stream_rings<Shape>();
  WAVE2D_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_per_sm, stream_steps<Shape, true, false>, Shape::threads,
      stream_detail::CoefficientRing<Shape>::shared_bytes));
  layout.resident_blocks = multiprocessors * blocks_per_sm;
  // A grid too small to give every warp a window of min_rows gets short segments (down to
  // fewest_rows), a window each: there the walk's serial chain, not the rows read twice,
  // sets the time (201 x 201: 8.7 GCells/s with 4 rows, 3.8 with 24, on the H200). A grid
  // whose strips in windows of max_rows would leave warps without one has its rows merged
  // into a window of about equal cost per warp (plan_windows): long windows read few rows
  // twice, and equal ones end together (H200, double-slit: 617 GCells/s against 567 with
  // 24-row windows taken from the queue, 2048²: 502 against 423 with 12). Segments of a
  // row let windows end at any row: 866 against 824 with segments of 8 on double-slit,
  // 654 against 627 at 2048² (docs/cuda-kernels.md). Larger grids keep windows of one
  // segment, about 3 per warp, from the queue, slowest kind first (8192²: 846 GCells/s;
  // merged, 2 a warp, 800).
  constexpr int min_rows = 24, max_rows = stream_detail::max_window_rows, fewest_rows = 4,
                merged_rows = 1, windows_per_warp = 3;
  std::int64_t const warps = std::int64_t(layout.resident_blocks) * Shape::warps;
  std::int64_t const strip_rows = std::int64_t(layout.strips) * params.ny;
  auto const windows_of = [&](int rows) {
    return std::int64_t(layout.strips) * ((params.ny + rows - 1) / rows);
  };
  if (windows_of(min_rows) < warps) {
    layout.rows = int(std::clamp<std::int64_t>(strip_rows / warps, fewest_rows, min_rows));
  } else if (windows_of(max_rows) <= warps) {
    layout.rows = merged_rows;
    layout.windows_per_warp = 1.0;
  } else {
    layout.rows = int(std::clamp<std::int64_t>(
        strip_rows / (std::int64_t(windows_per_warp) * warps), min_rows, max_rows));
  }
  layout.segments = (params.ny + layout.rows - 1) / layout.rows;
  // Per row of a window, by kind: interior 1, damped 1.84, walled 2.49, general 4.6, and
  // T rows more for its first rows and last (the levels starting and ending, row by
  // row): of 36 sets scanned on seven grids the one whose worst grid was least far from
  // that grid's best, and ahead of the former set (185/310/430/650 + 2T) in two more calls
  // (docs/cuda-kernels.md). A fit to this kernel on the H200, not a model.
  layout.window_costs = {{185, 340, 460, 850}, Shape::steps};
  return layout;
}

// plan: stream_plan_size(layout, params.receivers.count) entries of device memory.
template <class Shape>
void plan_stream_windows_of(KernelParams const& params, StreamLayout const& layout,
                            std::uint32_t* plan, cudaStream_t stream) {
  using namespace stream_detail;
  std::int64_t const segments = std::int64_t(layout.strips) * layout.segments;
  if (segments > std::int64_t(window_index_mask)) {
    throw std::length_error("cuda-stream: too many windows for this grid");
  }
  std::vector<std::uint32_t> host(stream_plan_size(layout, params.receivers.count));
  PlanParts const parts = plan_parts(host.data(), segments);
  std::int64_t const strip_rows = std::int64_t(layout.strips) * params.ny;
  std::vector<std::uint8_t> row_kinds(std::size_t(strip_rows), 0);
  std::vector<ReceiverCell> cells(std::size_t(params.receivers.count));
  {
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
  std::vector<std::uint32_t> kinds = segment_kinds<Shape>(layout, params.ny, row_kinds);

  // Each segment's receivers, by row (a counting sort by segment of the receivers sorted
  // by row, so a window's are its segments' in a row); their windows walk as general
  // ones, the only kind that records.
  std::vector<std::uint32_t> by_row(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) by_row[i] = std::uint32_t(i);
  std::stable_sort(by_row.begin(), by_row.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return cells[a].y < cells[b].y; });
  for (auto const& cell : cells) {
    ++parts.receiver_offsets[segment_of_cell<Shape>(layout, cell.x, cell.y) + 1];
  }
  for (std::int64_t i = 0; i < segments; ++i) {
    parts.receiver_offsets[i + 1] += parts.receiver_offsets[i];
  }
  std::vector<std::uint32_t> filled(parts.receiver_offsets, parts.receiver_offsets + segments);
  for (std::uint32_t id : by_row) {
    std::int64_t const segment = segment_of_cell<Shape>(layout, cells[id].x, cells[id].y);
    parts.receiver_ids[filled[segment]++] = id;
    kinds[segment] = std::uint32_t(StreamWindowKind::general);
  }

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
  std::size_t const shared_bytes = stream_detail::CoefficientRing<Shape>::shared_bytes;
  std::int64_t const windows = std::int64_t(layout.strips) * layout.segments;  // at most
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
