// One warp's walk down one window of cuda-stream (wave2d_StreamKernel.cuh says how the
// walk goes): the window's bounds, its coefficient ring, and the walk in named steps.
// Every step is inlined into the walk, which the compiler unrolls whole: the register
// arrays (levels, rows ahead) stay in registers.
#ifndef WAVE2D_STREAM_WALK_CUH
#define WAVE2D_STREAM_WALK_CUH

#include <wave2d/cuda/detail/wave2d_Sources.cuh>
#include <wave2d/cuda/wave2d_CudaKernels.hpp>

#include <cstdint>

namespace wave2d::cuda::detail {

// The cells a warp's walk covers: its columns from x, and its output rows.
struct WindowBounds {
  int x;            // the window's first column (negative only in grids narrower than it)
  int write_begin;  // the columns it writes, from x: [write_begin, write_end)
  int write_end;
  int y0;     // first output row
  int y_end;  // one past the last output row
};

// The receivers in a window's output cells: ids[begin, end), indices into
// params.receivers.cells, by row.
struct WindowReceivers {
  std::uint32_t const* ids = nullptr;
  int begin = 0;
  int end = 0;
};

// A warp's ring of folded coefficients (cu, cp) in shared memory: T rows of its window's
// columns, each twice, at slots row mod T and row mod T + T. So the T rows the levels read
// at a walk row are at fixed distances below the newest one's second copy: one address a
// walk row, not one a level. Each lane reads only the columns it writes, so the warp needs
// no barrier.
template <class Shape>
struct CoefficientRing {
  static constexpr int cells = 2 * Shape::steps * Shape::window_x;  // a warp's
  static constexpr std::size_t shared_bytes = std::size_t(Shape::warps) * cells * sizeof(float2);
  float2* folded;

  // Row `row`'s second copy, from column `column` of the window: row - i is i rows below
  // it (i < T), and its first copy T rows below. Rows start no more than 2T above the
  // grid (a general window's first rows).
  __device__ float2* newest(int row, int column) const {
    constexpr int T = Shape::steps;
    return folded + (int(unsigned(row + 4 * T) % T) + T) * Shape::window_x + column;
  }
  __host__ __device__ static constexpr int rows_below(int i) { return -i * Shape::window_x; }
};

// Walks one window. Kind: what the window holds (StreamWindowKind); general windows also
// test bounds (only they reach outside the grid) and, when Recording, record receivers.
// Level k's last three rows sit in slots renamed from row to row by the walk's phase P
// (0, 1, 2, 0, ...) instead of moved: a walk unrolled by three rows moves no registers.
template <class Shape, StreamWindowKind Kind, bool UniformKappa, bool Recording>
struct Walk {
  static constexpr int T = Shape::steps;
  static constexpr int C = Shape::cells_x;
  static_assert(T >= 3, "the next row's fields are loaded at levels 2 and 3");
  using Ring = CoefficientRing<Shape>;
  static constexpr bool checked = Kind == StreamWindowKind::general;
  static constexpr bool recording = checked && Recording;
  static constexpr bool per_cell = Kind != StreamWindowKind::interior || !UniformKappa;

  KernelParams const& p;
  FieldPointers in, out;
  std::int64_t first_step;
  WindowBounds w;
  WindowReceivers receivers;
  Ring ring;
  int lane;
  int x;  // the lane's first column
  // The walk's registers: arrays of walk(), held by reference. As members of this struct
  // they compile to other code, 2% slower on the H200.
  bool (&column_inside)[C];
  bool (&column_written)[C];
  float (&levels)[T][3][C];  // level k's last three rows (newest, middle, older) by phase
  // Read a walk row ahead: u(t - dt) of the next row, the next row's coefficients.
  float (&previous_row)[C];
  float (&next_code)[C];
  float (&next_kappa)[C];
  // The receivers on the rows the levels compute at this walk row, r - T + 1 .. r:
  // [first_receiver, last_receiver) of the window's list.
  int& first_receiver;
  int& last_receiver;

  __device__ __forceinline__ Walk(KernelParams const& params, FieldPointers in_, FieldPointers out_,
                                  std::int64_t first_step_, WindowBounds w_,
                                  WindowReceivers receivers_, Ring ring_, bool (&inside)[C],
                                  bool (&written)[C], float (&levels_)[T][3][C],
                                  float (&previous)[C], float (&code)[C], float (&kappa)[C],
                                  int& first, int& last)
      : p(params),
        in(in_),
        out(out_),
        first_step(first_step_),
        w(w_),
        receivers(receivers_),
        ring(ring_),
        lane(int(threadIdx.x) % 32),
        x(w_.x + lane * C),
        column_inside(inside),
        column_written(written),
        levels(levels_),
        previous_row(previous),
        next_code(code),
        next_kappa(kappa),
        first_receiver(first),
        last_receiver(last) {
#pragma unroll
    for (int j = 0; j < C; ++j) {
      column_inside[j] = x + j >= 0 && x + j < p.nx;
      int const lx = lane * C + j;
      column_written[j] = column_inside[j] && lx >= w.write_begin && lx < w.write_end;
    }
#pragma unroll
    for (int k = 0; k < T; ++k)
#pragma unroll
      for (int s = 0; s < 3; ++s)
#pragma unroll
        for (int j = 0; j < C; ++j) levels[k][s][j] = 0.0f;
  }

  // The levels' slots at phase P: P rows after phase 0 each role sits P slots further
  // back, modulo 3.
  template <int P>
  struct Slots {
    static constexpr int newest = (3 - P) % 3, middle = (4 - P) % 3, older = (5 - P) % 3;
  };

  // Load: a row of a field's lane columns, zero outside the grid.
  __device__ __forceinline__ void load_row(float const* field, int row, float (&v)[C]) const {
    bool const row_inside = !checked || (row >= 0 && row < p.ny);
    float const* const at = field + std::int64_t(row) * p.pitch + x;
#pragma unroll
    for (int j = 0; j < C; ++j) {
      v[j] = row_inside && (!checked || column_inside[j]) ? __ldg(at + j) : 0.0f;
    }
  }

  // Load: a row's per-cell coefficients, fixed-zero outside the grid.
  __device__ __forceinline__ void load_coefficients(int row, float (&code)[C],
                                                    float (&kappa)[C]) const {
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
  }

  // Fold: the row read ahead goes into the ring, folded once, where the levels find it at
  // the next T walk rows; the row after it is read ahead.
  __device__ __forceinline__ void fold(int walk_row, float2* folded_rows) {
#pragma unroll
    for (int j = 0; j < C; ++j) {
      float const kk = UniformKappa ? p.kappa_uniform : next_kappa[j];
      float2 const f = make_float2(folded_cu(next_code[j], kk), folded_cp(next_code[j]));
      folded_rows[j] = f;
      folded_rows[Ring::rows_below(T) + j] = f;
    }
    load_coefficients(walk_row + 1, next_code, next_kappa);
  }

  // Advance a level: row `row` of level k from level k - 1's three rows (and level
  // k - 2's older row, u(t - dt)), into v.
  template <int P>
  __device__ __forceinline__ void advance_level(int k, int row, float2 const* folded_rows,
                                                float (&v)[C]) const {
    using S = Slots<P>;
    float const(&from)[3][C] = levels[k - 1];
    float const left = __shfl_up_sync(0xffffffffu, from[S::middle][C - 1], 1);
    float const right = __shfl_down_sync(0xffffffffu, from[S::middle][0], 1);
    [[maybe_unused]] float kappa[C];
    if constexpr (!UniformKappa) load_row(p.kappa, row, kappa);
    [[maybe_unused]] float2 const* const folded = folded_rows + Ring::rows_below(k - 1);
#pragma unroll
    for (int j = 0; j < C; ++j) {
      float const u_prev = k == 1 ? previous_row[j] : levels[k >= 2 ? k - 2 : 0][S::older][j];
      float const sum = (j == 0 ? left : from[S::middle][j - 1]) +
                        (j == C - 1 ? right : from[S::middle][j + 1]) + from[S::older][j] +
                        from[S::newest][j];
      if constexpr (!per_cell) {
        v[j] = stencil(0.0f, p.kappa_uniform, u_prev, from[S::middle][j], sum);
      } else {
        float2 const f = folded[j];  // (cu, cp)
        float const kk = UniformKappa ? p.kappa_uniform : kappa[j];
        v[j] = f.x * from[S::middle][j] - f.y * u_prev + kk * sum;  // stencil(), folded
        if constexpr (Kind != StreamWindowKind::damped) v[j] = kept_or_zero(f.y == f.y, v[j]);
        if constexpr (checked) {
          if (f.x < cell_code::fixed_zero && f.y != f.y) {
            v[j] = source_value(p.sources, f.x, p.time(first_step + k - 1));
          }
        }
      }
    }
  }

  __device__ __forceinline__ ReceiverCell receiver_cell(int i) const {
    return p.receivers.cells[receivers.ids[i]];
  }

  // Record: the window's receivers on the rows the levels reach at this walk row.
  __device__ __forceinline__ void track_receivers(int walk_row) {
    while (last_receiver < receivers.end && receiver_cell(last_receiver).y <= walk_row) {
      ++last_receiver;
    }
    while (first_receiver < last_receiver && receiver_cell(first_receiver).y < walk_row - T + 1) {
      ++first_receiver;
    }
  }

  // Record: u after first_step + k steps at level k's row, by the lane that holds the cell.
  __device__ __forceinline__ void record(int k, int row, float const (&v)[C]) const {
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

  // Store: level k's row kept as its newest, or, at level T, the new pair's row written.
  template <int P>
  __device__ __forceinline__ void keep_or_store(int k, int row, float const (&v)[C]) {
    using S = Slots<P>;
    if (k < T) {
#pragma unroll
      for (int j = 0; j < C; ++j) levels[k][S::newest][j] = v[j];
      return;
    }
    std::int64_t const at = std::int64_t(row) * p.pitch + x;
#pragma unroll
    for (int j = 0; j < C; ++j) {
      if (column_written[j]) {
        out.previous[at + j] = levels[T - 1][S::middle][j];
        out.current[at + j] = v[j];
      }
    }
  }

  // One row of the walk at phase P. Tested: each level skips the rows no later level needs
  // (the walk's first 2T rows, where the levels start one after another).
  template <int P, bool Tested>
  __device__ __forceinline__ void advance_row(int walk_row) {
    if constexpr (recording) track_receivers(walk_row);
    [[maybe_unused]] float2* const folded_rows = ring.newest(walk_row, lane * C);
    if constexpr (per_cell) fold(walk_row, folded_rows);
#pragma unroll
    for (int k = 1; k <= T; ++k) {
      // The next walk row's fields, loaded where their registers are free: level 1 is the
      // last to read previous_row, level 2 the last to read level 0's older row.
      if (k == 2) load_row(in.previous, walk_row + 1, previous_row);
      if (k == 3) load_row(in.current, walk_row + 2, levels[0][Slots<P>::older]);
      int const row = walk_row - k + 1;
      // Level k is needed T - k rows around the segment: skip the rows beyond (the same
      // for the whole warp, so the shuffles stay converged).
      if constexpr (Tested) {
        if (row < w.y0 - (T - k) || row >= w.y_end + (T - k)) continue;
      }
      float v[C];
      advance_level<P>(k, row, folded_rows, v);
      if constexpr (recording) record(k, row, v);
      keep_or_store<P>(k, row, v);
    }
  }

  // After a row at phase 0 walked alone: the slots moved down a row. Level 0's older slot
  // holds the next row, loaded there: it becomes the newest.
  __device__ __forceinline__ void slide() {
#pragma unroll
    for (int k = 0; k < T; ++k) {
#pragma unroll
      for (int j = 0; j < C; ++j) {
        float const next = levels[k][2][j];
        levels[k][2][j] = levels[k][1][j];
        levels[k][1][j] = levels[k][0][j];
        if (k == 0) levels[k][0][j] = next;
      }
    }
  }

  // The walk: level 0 takes row r + 1 and level k row r - k + 1 at walk row r. The first
  // 2T rows (the levels starting) and the last rows % 3 row by row, the rows between three
  // at a time where the kind is unrolled.
  __device__ __forceinline__ void run() {
    int r = w.y0 - T - 1;
    int const r_end = w.y_end + T - 2;  // level 1's last needed row
    load_row(in.current, r + 1, levels[0][0]);
    load_row(in.previous, r, previous_row);
    if constexpr (per_cell) load_coefficients(r, next_code, next_kappa);
    first_receiver = last_receiver = receivers.begin;
    int until = w.y0 + T - 1;  // the first row at which every level is needed
    for (;;) {
      for (; r < until; ++r) {
        advance_row<0, true>(r);
        slide();
      }
      if (until > r_end) break;
      if constexpr (int(Kind) < Shape::unrolled_kinds) {
        for (; r + 2 <= r_end; r += 3) {
          advance_row<0, false>(r);
          advance_row<1, false>(r + 1);
          advance_row<2, false>(r + 2);
        }
      }
      until = r_end + 1;
    }
  }
};

// Walks one window: Walk's steps on registers that are this function's.
template <class Shape, StreamWindowKind Kind, bool UniformKappa, bool Recording>
__device__ __forceinline__ void walk(KernelParams const& p, FieldPointers in, FieldPointers out,
                                     std::int64_t first_step, WindowBounds const w,
                                     WindowReceivers const receivers,
                                     CoefficientRing<Shape> const ring) {
  constexpr int T = Shape::steps;
  constexpr int C = Shape::cells_x;
  bool column_inside[C];
  bool column_written[C];
  float levels[T][3][C];
  float previous_row[C];
  [[maybe_unused]] float next_code[C], next_kappa[C];
  [[maybe_unused]] int first_receiver, last_receiver;
  Walk<Shape, Kind, UniformKappa, Recording>(p, in, out, first_step, w, receivers, ring,
                                             column_inside, column_written, levels, previous_row,
                                             next_code, next_kappa, first_receiver, last_receiver)
      .run();
}

}  // namespace wave2d::cuda::detail

#endif
