// kokkos-stream: the portable streaming kernel, T steps per launch in registers, from one
// Kokkos source on every execution space but for one primitive (wave2d_LaneExchange.hpp).
//
// As cuda-stream, a team walks down a strip of columns, row by row, and keeps the last
// three rows of every time level in registers: at walk row r row r of the two input levels
// enters the rings (loaded the walk row before, so that no level waits on it) and level k
// computes row r - k from level k - 1's rows r - k - 1 .. r - k + 1 and level k - 2's row
// r - k. The cells' coefficients (codes, κ where it is not uniform) are read once a row, a
// walk row ahead too, into a per-lane ring of the last T + 1 rows in team scratch, where
// every level finds them. A team's lanes each hold C adjacent columns of a row; the
// neighbours of a lane's edge columns come from the lanes beside it through LaneExchange:
// once a walk row for all levels where an exchange costs a barrier (level k - 1's row r - k
// was computed the walk row before), else level by level. Wrong values creep in from the strip's
// sides one column a level, so a strip writes its middle columns, T fewer each side, except where
// it lies on the grid's edge, whose cells are fixed. Strips are cut into segments of rows, each
// walked from T rows above to T rows below the rows it writes: a team takes one (strip, segment)
// window.
//
// The cell rule is the codes form's (stencil(), then updated_or_zero), the expressions and
// order of kokkos-tiled's codes form: the same bits as the space's other backends. A
// window holding no code but 0 reads no code; one holding a source sets it per level.
#ifndef WAVE2D_STREAM_STEPPER_HPP
#define WAVE2D_STREAM_STEPPER_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_DeviceCoefficients.hpp>
#include <wave2d/backend/wave2d_Stepper.hpp>
#include <wave2d/core/wave2d_KernelParams.hpp>
#include <wave2d/kokkos/wave2d_LaneExchange.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace wave2d::kokkos {

// f(std::integral_constant<int, 0>) ... f(std::integral_constant<int, N - 1>): indices into
// the register arrays must be constants, or a GPU keeps the arrays in local memory.
template <int I, int N>
struct Unrolled {
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void run(F const& f) {
    f(std::integral_constant<int, I>{});
    Unrolled<I + 1, N>::run(f);
  }
};
template <int N>
struct Unrolled<N, N> {
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void run(F const&) {}
};
template <int N, class F>
KOKKOS_FORCEINLINE_FUNCTION void unrolled(F const& f) {
  Unrolled<0, N>::run(f);
}

// The shape of kokkos-stream: T fused steps, C columns a lane and lanes a team (a team
// walks one strip), fixed at compile time: they size the register arrays. Devices:
// MinBlocks teams an SM asked of the compiler (Kokkos::LaunchBounds; 0: none), which caps
// the registers a lane.
template <int Steps, int Columns, int Lanes, int MinBlocks = 0>
struct StreamShapeOf {
  static constexpr int steps = Steps;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int columns = Columns;
  static constexpr int lanes = Lanes;
  static constexpr int width = Columns * Lanes;
  static constexpr int written = width - 2 * Steps;
  static_assert(written > 0);
};

// The space's shape: on devices a warp walks 96 columns, as cuda-stream, 6 steps a launch
// (128 registers a lane, 16 one-warp teams an SM; 8 steps keep more rows live:
// 168 registers, fewer warps resident, 0.8x); on hosts one thread walks 128, 8 steps a
// launch.
template <class ExecutionSpace>
using StreamShape = std::conditional_t<wave2d::detail::runs_on_host<ExecutionSpace>,
                                       StreamShapeOf<8, 128, 1>, StreamShapeOf<6, 3, 32>>;

// The coefficients of a window's last Rows rows (codes; κ where it is not uniform), each
// lane its own C columns, in team scratch: a level reads row r - k's there rather than
// from global memory, which would be a load to wait for per level. A lane reads only what
// it wrote, so no barrier; lanes are adjacent in memory. Each row is kept twice, in slots
// s and s + Rows, so that from walk row r's base every row r - k lies at a constant offset
// (no index wraps, one address a walk row).
template <int Rows, int C, int Lanes, bool UniformKappa>
class CoefficientRing {
 public:
  static constexpr int arrays = UniformKappa ? 1 : 2;
  static constexpr int row_floats = arrays * C * Lanes;
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes() {
    return std::size_t(2 * Rows) * row_floats * sizeof(float);
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION explicit CoefficientRing(Member const& team)
      : data_(static_cast<float*>(team.team_scratch(0).get_shmem(scratch_bytes())) +
              team.team_rank()) {}

  // Row r's slot of this lane in the second half: where walk row r stores row r and from
  // where it finds rows r - k.
  KOKKOS_FORCEINLINE_FUNCTION float* row(int r) const {
    return data_ + (r % Rows + Rows) * row_floats;
  }

  KOKKOS_FORCEINLINE_FUNCTION static float& code(float* row, int c) { return row[c * Lanes]; }
  KOKKOS_FORCEINLINE_FUNCTION static float& kappa(float* row, int c) {
    return row[(C + c) * Lanes];
  }
  // Row r - k (k < Rows), from row(r), which lies in the second half: a copy of it.
  KOKKOS_FORCEINLINE_FUNCTION static float* earlier(float* row, int k) {
    return row - k * row_floats;
  }
  // The first half's copy of row(r).
  KOKKOS_FORCEINLINE_FUNCTION static float* first_copy(float* row) {
    return row - Rows * row_floats;
  }

 private:
  float* data_;
};

// A hard source's value (fixed_value of a cell of negative code): large inline (sinf, expf)
// and needed by a handful of cells, so kept out of the unrolled walk, whose hot code must
// fit a GPU's instruction cache.
__attribute__((noinline)) KOKKOS_FUNCTION inline float stream_fixed_value(float code,
                                                                          Waveform const* sources,
                                                                          float t) {
  return fixed_value(code, sources, t);
}

// What a window holds, as bits of an int per window.
namespace stream_holds {
inline constexpr int coded = 1;   // a cell whose code is not 0
inline constexpr int source = 2;  // a hard source
}  // namespace stream_holds

// Where a window lies: strip `strip`'s columns [x0, x0 + width) of which it writes
// [write_begin, write_end), and rows [y0, y1) to write, walked from `a` to `b`.
struct StreamWindow {
  int x0, write_begin, write_end, y0, y1, a, b;

  template <int Width, int Written, int T>
  KOKKOS_INLINE_FUNCTION static StreamWindow of(int item, int strips, int segment_rows, int nx,
                                                int ny) {
    int const strip = item % strips;
    int const segment = item / strips;
    StreamWindow w{};
    w.write_begin = strip * Written;
    w.write_end = w.write_begin + Written < nx ? w.write_begin + Written : nx;
    int const x0 = w.write_begin - T;
    w.x0 = nx <= Width ? 0 : (x0 < 0 ? 0 : (x0 > nx - Width ? nx - Width : x0));
    w.y0 = segment * segment_rows;
    w.y1 = w.y0 + segment_rows < ny ? w.y0 + segment_rows : ny;
    w.a = w.y0 - T > 0 ? w.y0 - T : 0;
    w.b = w.y1 + T < ny ? w.y1 + T : ny;
    return w;
  }
};

// One launch: `steps` (at most T) steps from the pair `in` into the pair `out`.
// Specialized: the space's LaneExchange; otherwise the portable default everywhere.
// Recording: the launch has receivers. Their code, inlined at every level of the unrolled
// walk, is three times the rest: launches without receivers leave it out.
template <class ExecutionSpace, class Shape, bool UniformKappa, bool Specialized, bool Recording>
struct StreamSteps {
  using Member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  static constexpr int T = Shape::steps;
  static constexpr int C = Shape::columns;
  template <int N>
  using ExchangeOf =
      std::conditional_t<Specialized, LaneExchange<ExecutionSpace, N>, ScratchExchange<N>>;
  // The edges of all levels at once (one barrier a walk row) or of each level before it.
  static constexpr bool batched = ExchangeOf<1>::batched;
  using Exchange = ExchangeOf<batched ? T : 1>;
  static_assert(Exchange::required_lanes == 0 || Exchange::required_lanes == Shape::lanes);
  // Rows r - T .. r: what levels 1 .. T read at walk row r, and row r, stored then.
  using Coefficients = CoefficientRing<T + 1, C, Shape::lanes, UniformKappa>;

  static std::size_t scratch_bytes() {
    return Exchange::scratch_bytes(Shape::lanes) + Coefficients::scratch_bytes();
  }

  // Row y + 1 of the window's inputs, loaded at walk row y for walk row y + 1.
  struct RowAhead {
    float previous[C];
    float current[C];
    float code[C];
    float kappa[C];
  };

  KernelParams params;
  float const* in_previous;
  float const* in_current;
  float* out_previous;
  float* out_current;
  int const* window_contents;  // per window, in league order: stream_holds bits
  std::int64_t first_step;
  int steps;
  int strips;
  int segment_rows;

  KOKKOS_FUNCTION void operator()(Member const& team) const {
    int const item = team.league_rank();
    StreamWindow const w = StreamWindow::of<Shape::width, Shape::written, T>(
        item, strips, segment_rows, params.nx, params.ny);
    int const contents = window_contents[item];
    if ((contents & stream_holds::coded) == 0) {
      walk<true>(team, w, false);
    } else {
      walk<false>(team, w, (contents & stream_holds::source) != 0);
    }
  }

  static KOKKOS_FORCEINLINE_FUNCTION constexpr int slot(int row) { return (row % 3 + 3) % 3; }

  // Plain: the window holds no code but 0 (none is read: the rule with code 0, the same bits).
  template <bool Plain>
  KOKKOS_FORCEINLINE_FUNCTION void walk(Member const& team, StreamWindow const& w,
                                        bool sources) const {
    int const xl = w.x0 + team.team_rank() * C;  // the lane's first column
    Exchange exchange(team);
    Coefficients const coefficients(team);
    // ring[k + 1]: level k (u(t + k dt); level -1 is u(t - dt)), rows by slot(row).
    float ring[T + 2][3][C] = {};
    RowAhead ahead;
    if (w.a < w.b) load_row<Plain>(w.a, xl, ahead);
    // Walk rows in threes from a multiple of 3, so that each row's slots are constants.
    int const r_end = w.y1 + steps;
    for (int r3 = w.a - w.a % 3; r3 < r_end; r3 += 3) {
      unrolled<3>([&](auto phase_) {
        constexpr int phase = decltype(phase_)::value;
        walk_row<Plain, phase>(team, w, exchange, coefficients, ring, ahead, r3 + phase, xl,
                               sources);
      });
    }
  }

  // Row y's inputs, lane columns from xl; columns off the grid hold 0 and fixed cells.
  template <bool Plain>
  KOKKOS_FORCEINLINE_FUNCTION void load_row(int y, int xl, RowAhead& row) const {
    std::int64_t const g = y * params.pitch + xl;
    for (int c = 0; c < C; ++c) {
      bool const inside = xl + c < params.nx;
      row.previous[c] = inside ? in_previous[g + c] : 0.0f;
      row.current[c] = inside ? in_current[g + c] : 0.0f;
      if (!Plain) row.code[c] = inside ? params.code[g + c] : cell_code::fixed_zero;
      if (!UniformKappa) row.kappa[c] = inside ? params.kappa[g + c] : 0.0f;
    }
  }

  template <bool Plain, int Phase>
  KOKKOS_FORCEINLINE_FUNCTION void walk_row(Member const& team, StreamWindow const& w,
                                            Exchange& exchange, Coefficients const& coefficients,
                                            float (&ring)[T + 2][3][C], RowAhead& ahead, int r,
                                            int xl, bool sources) const {
    // The edges of level k - 1's row r - k, for k = 1 .. T: what level k reads beside a lane.
    [[maybe_unused]] float from_left[T], from_right[T];
    if constexpr (batched) {
      float first[T], last[T];
      unrolled<T>([&](auto i_) {
        constexpr int i = decltype(i_)::value;
        constexpr int s = slot(Phase - 1 - i);
        first[i] = ring[i + 1][s][0];
        last[i] = ring[i + 1][s][C - 1];
      });
      exchange(team, first, last, from_left, from_right);
    }

    std::int64_t const pitch = params.pitch;
    if (r >= w.a && r < w.b) {
      constexpr int s = slot(Phase);
      float* const row = coefficients.row(r);
      for (int c = 0; c < C; ++c) {
        ring[0][s][c] = ahead.previous[c];
        ring[1][s][c] = ahead.current[c];
        if (!Plain) {
          Coefficients::code(row, c) = ahead.code[c];
          Coefficients::code(Coefficients::first_copy(row), c) = ahead.code[c];
        }
        if (!UniformKappa) {
          Coefficients::kappa(row, c) = ahead.kappa[c];
          Coefficients::kappa(Coefficients::first_copy(row), c) = ahead.kappa[c];
        }
      }
      if (r + 1 < w.b) load_row<Plain>(r + 1, xl, ahead);
    }

    float* const coefficients_r = coefficients.row(r);
    unrolled<T>([&](auto i_) {
      constexpr int i = decltype(i_)::value;
      constexpr int k = i + 1;
      int const y = r - k;
      if (y < w.a || y >= w.b || k > steps) return;
      float* const coefficients_y = Coefficients::earlier(coefficients_r, k);
      constexpr int sm = slot(Phase - k), su = slot(Phase - k - 1), sd = slot(Phase - k + 1);
      float(&next)[C] = ring[k + 1][sm];
      float const(&prev)[C] = ring[k - 1][sm];
      float const(&up)[C] = ring[k][su];
      float const(&mid)[C] = ring[k][sm];
      float const(&down)[C] = ring[k][sd];
      float edges[2];  // beside the lane's first and last columns
      if constexpr (batched) {
        edges[0] = from_left[i];
        edges[1] = from_right[i];
      } else {
        float const first[1] = {mid[0]}, last[1] = {mid[C - 1]};
        float from_left_k[1], from_right_k[1];
        exchange(team, first, last, from_left_k, from_right_k);
        edges[0] = from_left_k[0];
        edges[1] = from_right_k[0];
      }
      for (int c = 0; c < C; ++c) {
        float const left = c == 0 ? edges[0] : mid[c > 0 ? c - 1 : 0];
        float const right = c == C - 1 ? edges[1] : mid[c < C - 1 ? c + 1 : 0];
        float const code = Plain ? 0.0f : Coefficients::code(coefficients_y, c);
        float const kappa =
            UniformKappa ? params.kappa_uniform : Coefficients::kappa(coefficients_y, c);
        float const u = stencil(code, kappa, prev[c], mid[c], left + right + up[c] + down[c]);
        next[c] = Plain ? u : updated_or_zero(code, u);
      }
      if (!Plain && sources) {
        float const t = params.time(first_step + k - 1);
        for (int c = 0; c < C; ++c) {
          float const code = Coefficients::code(coefficients_y, c);
          if (code < cell_code::fixed_zero) next[c] = stream_fixed_value(code, params.sources, t);
        }
      }
      if (Recording && y >= w.y0 && y < w.y1) record(w, y, xl, next, k);
    });

    // Row r - steps of the last two levels is final.
    int const y = r - steps;
    if (y < w.y0 || y >= w.y1) return;
    unrolled<T>([&](auto i_) {
      constexpr int k = decltype(i_)::value + 1;
      if (k != steps) return;
      constexpr int s = slot(Phase - k);
      std::int64_t const g = y * pitch + xl;
      for (int c = 0; c < C; ++c) {
        if (xl + c >= w.write_begin && xl + c < w.write_end) {
          out_current[g + c] = ring[k + 1][s][c];
          out_previous[g + c] = ring[k][s][c];
        }
      }
    });
  }

  // The receivers among the lane's written cells of row y <- level k.
  KOKKOS_FORCEINLINE_FUNCTION void record(StreamWindow const& w, int y, int xl,
                                          float const (&row)[C], int k) const {
    Receivers const& receivers = params.receivers;
    for (int r = 0; r < receivers.count; ++r) {
      ReceiverCell const cell = receivers.cells[r];
      if (cell.y != y || cell.x < w.write_begin || cell.x >= w.write_end) continue;
      unrolled<C>([&](auto c_) {
        constexpr int c = decltype(c_)::value;
        if (cell.x == xl + c) receivers.record(r, first_step + k, row[c]);
      });
    }
  }
};

// Marks each window with what it holds (stream_holds): a window's cells, scanned by one thread.
template <class Shape>
struct MarkStreamWindows {
  KernelParams params;
  int* window_contents;
  int strips, segment_rows;

  KOKKOS_FUNCTION void operator()(int item) const {
    StreamWindow const w = StreamWindow::of<Shape::width, Shape::written, Shape::steps>(
        item, strips, segment_rows, params.nx, params.ny);
    int const x_end = w.x0 + Shape::width < params.nx ? w.x0 + Shape::width : params.nx;
    int holds = params.nx < Shape::width ? stream_holds::coded : 0;  // columns off the grid
    for (int y = w.a; y < w.b; ++y) {
      for (int x = w.x0; x < x_end; ++x) {
        float const code = params.code[y * params.pitch + x];
        if (code != 0.0f) holds |= stream_holds::coded;
        if (code < cell_code::fixed_zero) holds |= stream_holds::source;
      }
    }
    window_contents[item] = holds;
  }
};

// Specialized: the space's LaneExchange (false: the portable default on every space, as
// the study measures it). Shape: another StreamShapeOf, for tests and benches.
template <class ExecutionSpace, class MemorySpace, bool Specialized = true,
          class Shape = StreamShape<ExecutionSpace>>
class StreamStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);

 public:
  // segment_rows: rows a window writes; 0 for segment_rows_for's.
  StreamStepper(ExecutionSpace const& space, Coefficients<MemorySpace> coefficients,
                int segment_rows = 0)
      : Stepper<ExecutionSpace, MemorySpace>("kokkos-stream"),
        coefficients_(std::move(coefficients)) {
    KernelParams const& params = coefficients_.params();
    strips_ = std::max(1, (params.nx + Shape::written - 1) / Shape::written);
    segment_rows_ = segment_rows > 0 ? segment_rows : segment_rows_for(space, params.ny);
    segments_ = std::max(1, (params.ny + segment_rows_ - 1) / segment_rows_);
    window_contents_ = wave2d::detail::allocate<Kokkos::View<int*, MemorySpace>>(
        space, "wave2d::kokkos-stream::window_contents", std::size_t(strips_) * segments_);
    if (params.nx > 0 && params.ny > 0) {
      Kokkos::parallel_for(
          "wave2d::kokkos-stream::mark_windows",
          Kokkos::RangePolicy<ExecutionSpace>(space, 0, strips_ * segments_),
          MarkStreamWindows<Shape>{params, window_contents_.data(), strips_, segment_rows_});
    }
  }

  // Rows a window writes: on devices enough windows for about four teams per SM's worth of
  // resident warps (segments no shorter than 2T, whose walk is 2T rows longer); on hosts,
  // four windows a thread.
  int segment_rows_for(ExecutionSpace const& space, int ny) const {
    int const teams = wave2d::detail::runs_on_host<ExecutionSpace>
                          ? 4 * int(space.concurrency())
                          : std::max(1, int(space.concurrency() / Shape::lanes) / 4);
    int const segments = std::max(1, teams / strips_);
    return std::max(2 * Shape::steps, (ny + segments - 1) / segments);
  }

  std::string configuration() const override {
    return "strips of " + std::to_string(Shape::width) + " columns (" +
           std::to_string(Shape::lanes) + " lanes x " + std::to_string(Shape::columns) +
           "), segments of " + std::to_string(segment_rows_) +
           " rows, T=" + std::to_string(Shape::steps) +
           (Shape::min_blocks > 0 ? ", " + std::to_string(Shape::min_blocks) + " teams an SM"
                                  : "") +
           ", lanes exchange " +
           (Specialized && !std::is_same_v<LaneExchange<ExecutionSpace, 1>, ScratchExchange<1>>
                ? "by warp shuffles"
                : "through team scratch");
  }

 private:
  void run_steps(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
                 Receivers const& receivers) override {
    wave2d::detail::match_scratch(space, scratch_, fields, "wave2d::kokkos-stream::scratch");
    KernelParams const params = coefficients_.params(receivers);
    wave2d::detail::with_flags(
        params.uniform_kappa(), params.receivers.active(), [&](auto uniform, auto recording) {
          run<decltype(uniform)::value, decltype(recording)::value>(space, params, fields, n_steps);
        });
  }

  template <bool UniformKappa, bool Recording>
  void run(ExecutionSpace const& space, KernelParams const& params, FieldPair<MemorySpace>& fields,
           std::int64_t n_steps) {
    using Launch = StreamSteps<ExecutionSpace, Shape, UniformKappa, Specialized, Recording>;
    using Policy = std::conditional_t<
        Shape::min_blocks == 0, Kokkos::TeamPolicy<ExecutionSpace>,
        Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<unsigned(Shape::lanes),
                                                                unsigned(Shape::min_blocks)>>>;
    Policy const policy = Policy(space, strips_ * segments_, Shape::lanes, 1)
                              .set_scratch_size(0, Kokkos::PerTeam(Launch::scratch_bytes()));
    wave2d::detail::launches_between_pairs(fields, scratch_, n_steps, Shape::steps, [&](int steps) {
      Launch const launch{params,
                          fields.previous.data(),
                          fields.current.data(),
                          scratch_.previous.data(),
                          scratch_.current.data(),
                          window_contents_.data(),
                          fields.step,
                          steps,
                          strips_,
                          segment_rows_};
      Kokkos::parallel_for("wave2d::kokkos-stream::steps", policy, launch);
    });
  }

  Coefficients<MemorySpace> coefficients_;
  int strips_ = 1;
  int segment_rows_ = 1;
  int segments_ = 1;
  Kokkos::View<int*, MemorySpace> window_contents_;
  FieldPair<MemorySpace> scratch_;
};

}  // namespace wave2d::kokkos

#endif
