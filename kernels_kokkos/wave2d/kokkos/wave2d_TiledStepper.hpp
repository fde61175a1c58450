// kokkos-tiled: the portable temporal-blocking backend, T steps per TeamPolicy launch
// on any Kokkos execution space.
//
// Each team owns a tile of the grid. It loads the window around it (the tile and T
// cells on each side) of both time levels, the cell codes and, when per cell, κ into
// team scratch memory, advances the window T steps, and writes back its tile. Wrong
// values creep in from the window's edge one cell per step; step s updates only the
// cells still valid, a region one cell smaller on each side than step s - 1's (the
// shrinking window), so no step reads outside the window and after T steps exactly the
// tile is right. Each launch reads one pair of global fields and writes the other: no
// team reads what another team of the launch writes.
//
// The window's coefficients come in one of two forms (TiledShape::folded), each with its
// own sweep. Codes (and κ), the devices' form: the step evaluates stencil()'s two
// coefficient subexpressions per cell and step; the team's threads take blocks of rows
// and each lane walks down columns (walk_columns), so a cell's vertical neighbours come
// from registers and a warp's loads stay on consecutive cells. Folded, the hosts' form:
// the subexpressions are evaluated once per launch, when the window is loaded, into two
// arrays (the step then does 3 multiplications and 5 additions per cell, the plain loop's
// work; the coefficient of u(t - dt) is NaN on fixed cells, which marks them, and the
// other holds their code); rows go to the team's threads and are swept along x, which
// CPUs vectorize (their row loops are core/wave2d_HostRows.hpp's, built for AVX-512F and
// AVX2 too and chosen for the CPU at load). Both forms run on every space, and compute
// the same expressions in the same order: the same bits. Cells of fixed value are
// selected, not branched over (0); in the few tiles whose window holds a source a second
// pass sets the sources. What each window holds is found once, when the stepper is made
// (tile_holds): in a plain window, all codes 0 (the inside of most scenes, away from
// walls and damping), the codes form loads and reads no code, and the folded form with a
// uniform κ no coefficient (update_cells_plain).
//
// Host spaces run another shape by default: the T steps advance together down each tile
// as a wavefront of rows, each level in a ring of three rows (wave2d_TiledWavefront.hpp),
// reading the grid's codes only in the spans of rows that hold codes other than 0.
#ifndef WAVE2D_TILED_STEPPER_HPP
#define WAVE2D_TILED_STEPPER_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_DeviceCoefficients.hpp>
#include <wave2d/backend/wave2d_Stepper.hpp>
#include <wave2d/core/wave2d_HostRows.hpp>
#include <wave2d/core/wave2d_KernelParams.hpp>
#include <wave2d/kokkos/wave2d_TiledWavefront.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace wave2d::kokkos {

// What a launch of kokkos-tiled runs: tiles of tile_x x tile_y cells, `steps` fused
// steps (T), teams of team_size threads of vector_length lanes.
struct TiledShape {
  int tile_x = 0;
  int tile_y = 0;
  int steps = 0;
  int team_size = 1;
  int vector_length = 1;
  bool folded = false;  // coefficients folded when the window is loaded (see above)
  // Host spaces: the steps advance down the tile as a wavefront of rows instead
  // (wave2d_TiledWavefront.hpp), reading the grid's codes where a row holds any.
  bool wavefront = false;

  int window_x() const { return tile_x + 2 * steps; }
  int window_y() const { return tile_y + 2 * steps; }
  // Scratch rows padded to 16 floats (64 bytes): rows start on a cache line.
  int window_pitch() const { return (window_x() + 15) / 16 * 16; }
  // Two fields and the coefficients: code (or two folded arrays), and κ when per cell.
  int scratch_arrays(bool per_cell_kappa) const {
    return 2 + (folded ? 2 : 1) + (per_cell_kappa ? 1 : 0);
  }
  std::size_t scratch_bytes(bool per_cell_kappa) const {
    if (wavefront) return wavefront_scratch_bytes(tile_x, steps);
    return std::size_t(scratch_arrays(per_cell_kappa)) * std::size_t(window_y()) * window_pitch() *
           sizeof(float);
  }

  std::string describe(bool per_cell_kappa) const {
    if (wavefront) {
      return "tile " + std::to_string(tile_x) + "x" + std::to_string(tile_y) +
             ", T=" + std::to_string(steps) + ", a wavefront of rows in 3-row rings, " +
             std::to_string(scratch_bytes(per_cell_kappa) / 1024) + " KiB of rings per tile";
    }
    return "tile " + std::to_string(tile_x) + "x" + std::to_string(tile_y) +
           ", T=" + std::to_string(steps) + ", window " + std::to_string(window_x()) + "x" +
           std::to_string(window_y()) + ", team " + std::to_string(team_size) + "x" +
           std::to_string(vector_length) +
           (folded ? ", folded coefficients, rows swept, " : ", codes, columns walked, ") +
           std::to_string(scratch_bytes(per_cell_kappa) / 1024) + " KiB scratch per team";
  }
};

// The deepest fusion of the host shapes (the large tiles'): whole passes of a host run.
inline constexpr int tiled_host_pass_steps = 32;

// The shape per execution space, κ's kind and grid. Host spaces: one thread per team (a
// team is a core), the wavefront (wave2d_TiledWavefront.hpp) down equal tiles of at most
// 1024x256 cells at T = 32 where the grid makes at least two such tiles a thread, else
// 512x128 at T = 16, halved in height (down to 32 rows) until every thread has a tile.
// Measured on a 2-core AVX-512 EPYC (docs/results/cpu/kokkos-tiled.txt): the large tiles
// are 1.1-1.2x the small ones from 1024² up (the grid's pair, read and written once a
// launch, costs half as much a step; the halos are as wide a tile), the small ones up to
// 2x the large ones on smaller grids, where a few large tiles keep cores idle; on 128²,
// 512x64 tiles 1.6x one 512x128 tile. Devices: codes, T = 6, 64 cells wide (two columns a
// lane), teams of 8 warps; 64x56 windows (52x44 tiles, 42 KiB) with uniform κ, 64x44
// (52x32, 44 KiB) with κ per cell: of the shapes under the 48 KiB Kokkos allows a team,
// the fastest measured on the H200 for each kind (docs/results/h200/kokkos-tiled.txt).
template <class ExecutionSpace>
TiledShape tiled_shape_for(ExecutionSpace const& space, bool per_cell_kappa, int nx, int ny) {
  if constexpr (wave2d::detail::runs_on_host<ExecutionSpace>) {
    auto const tiles = [&](TiledShape const& shape) {
      return std::int64_t((nx + shape.tile_x - 1) / shape.tile_x) *
             ((ny + shape.tile_y - 1) / shape.tile_y);
    };
    std::int64_t const threads = space.concurrency();
    // At most 1024x256, as equal as whole 16-cell blocks make them: a narrow last column
    // of tiles pays a whole tile's halo for few cells and leaves its thread idle.
    TiledShape large{1024, 256, tiled_host_pass_steps, 1, 1, true, true};
    int const columns = (nx + large.tile_x - 1) / large.tile_x;
    int const rows = (ny + large.tile_y - 1) / large.tile_y;
    large.tile_x = std::max(16, ((nx + columns - 1) / columns + 15) / 16 * 16);
    large.tile_y = std::max(1, (ny + rows - 1) / rows);
    if (tiles(large) >= 2 * threads) return large;
    TiledShape small{512, 128, 16, 1, 1, true, true};
    while (small.tile_y > 32 && tiles(small) < threads) small.tile_y /= 2;
    return small;
  } else {
    (void)space, (void)nx, (void)ny;
    return {52, per_cell_kappa ? 32 : 44, 6, 8, 32, false};
  }
}

// The backend's depth (a distributed run's default halo): the steps the default shapes
// fuse on every grid. The large host shape fuses up to 32 where the run advances that many
// steps at once; given fewer (a halo of 16), its launches take what it is given.
template <class ExecutionSpace>
constexpr int tiled_fused_steps() {
  return wave2d::detail::runs_on_host<ExecutionSpace> ? 16 : 6;
}

// What a tile's window holds, as bits of an int per tile (MarkTiles).
namespace tile_holds {
inline constexpr int coded = 1;   // a cell whose code is not 0: border, wall, damping, source
inline constexpr int source = 2;  // a hard source
}  // namespace tile_holds

// One launch: `steps` (at most shape.steps) steps from the pair `in` into the pair `out`.
//
// Row loops go through rows(): on host spaces a team member is one thread with one
// lane, so it runs the whole row as a plain unit-stride loop over restrict-qualified
// row pointers, which the compiler vectorizes; on devices each vector lane takes every
// vector_length-th cell (a warp reads a row coalesced). One kernel source for both.
// The codes form's steps walk columns instead (walk_columns).
template <class ExecutionSpace, bool UniformKappa, bool Folded>
struct TiledSteps {
  using Member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  static constexpr bool on_host = wave2d::detail::runs_on_host<ExecutionSpace>;

  KernelParams params;
  float const* in_previous;
  float const* in_current;
  float* out_previous;
  float* out_current;
  int const* tile_contents;  // per tile, in league order: tile_holds bits
  std::int64_t first_step;
  int steps;
  int tiles_x;
  int tile_x, tile_y, halo, window_x, window_y, window_pitch;
  int vector_length;
  int row_block;  // the codes form: rows a team member walks, of the first step's region

  // f(row, first, stride) for the rows [begin, end), each on one team member; the lane's
  // share of the row is its cells first, first + stride, ... One vector range per call,
  // not per row: on a GPU a vector range's set-up and warp sync cost as much as a row's
  // cells.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void rows(Member const& team, int begin, int end, F const& f) const {
    auto const each_row = [&](int first, int stride) {
      for (int row = begin + team.team_rank(); row < end; row += team.team_size()) {
        f(row, first, stride);
      }
    };
    if constexpr (on_host) {
      each_row(0, 1);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, vector_length),
                           [&](int lane) { each_row(lane, vector_length); });
    }
  }

  // A step of the codes form over the cells [row_begin, row_end) x [column_begin,
  // column_end): each team member takes its block of consecutive rows (row_block of the
  // first step's region, clipped to this step's; given, because an integer division a
  // step was a quarter of a warp's set-up per step on the H200) and each lane walks down
  // its columns of the block, two at a time, vector_length apart (twice the loads in
  // flight, half the loop's overhead), so that a cell's vertical neighbours come from
  // registers. Where a lane's second column is past the region it computes the first
  // twice and stores it once.
  // Plain: the window holds no code but 0 (none is read; the cell rule with code 0 is
  // the same bits).
  template <bool Plain>
  KOKKOS_FORCEINLINE_FUNCTION void walk_columns(Member const& team, float* prev, float const* cur,
                                                float const* code, float const* kappa,
                                                int row_begin, int row_end, int column_begin,
                                                int column_end, bool sources, float t) const {
    int const block_begin = 1 + team.team_rank() * row_block;
    int const rb = block_begin > row_begin ? block_begin : row_begin;
    int const re = block_begin + row_block < row_end ? block_begin + row_block : row_end;
    if (rb >= re) return;
    int const w = window_pitch;
    // u_next of cell p, whose row above and own row in `cur` are up and mid, which move
    // down a row.
    auto const next = [&](int p, float& up, float& mid) {
      float const down = cur[p + w];
      float const c = Plain ? 0.0f : code[p];
      float const k = UniformKappa ? params.kappa_uniform : kappa[p];
      float const u = stencil(c, k, prev[p], mid, cur[p - 1] + cur[p + 1] + up + down);
      up = mid;
      mid = down;
      return Plain ? u : updated_or_zero(c, u);
    };
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, vector_length), [&](int lane) {
      for (int x = column_begin + lane; x < column_end; x += 2 * vector_length) {
        bool const second = x + vector_length < column_end;
        int const dx = second ? vector_length : 0;
        int const top = rb * w + x;
        float up0 = cur[top - w], mid0 = cur[top];
        float up1 = cur[top + dx - w], mid1 = cur[top + dx];
        // Counted in rows, not by p < re * w: the compiler knows the trip count then.
        for (int y = rb, p = top; y < re; ++y, p += w) {
          float const next0 = next(p, up0, mid0);
          float const next1 = next(p + dx, up1, mid1);
          prev[p] = next0;
          if (second) prev[p + dx] = next1;
        }
        if (sources) {
          set_sources(prev, code, nullptr, top, re * w + x, w, t);
          if (second) set_sources(prev, code, nullptr, top + dx, re * w + x + dx, w, t);
        }
      }
    });
  }

  // The hard sources among the cells begin, begin + stride, ... < end; `c1` is null
  // unless Folded.
  KOKKOS_FUNCTION void set_sources(float* prev, float const* c0, float const* c1, int begin,
                                   int end, int stride, float t) const {
    for (int p = begin; p < end; p += stride) {
      float const code = Folded ? folded_code(c0[p], c1[p]) : c0[p];
      if (code < cell_code::fixed_zero) prev[p] = fixed_value(code, params.sources, t);
    }
  }

  // A window row's folded coefficients: [begin, end) from the grid's codes and κ
  // (code[0] is cell begin; kappa is read only when per cell), fixed zeros elsewhere.
  KOKKOS_FORCEINLINE_FUNCTION void load_folded_row(float* KOKKOS_RESTRICT cu,
                                                   float* KOKKOS_RESTRICT cp,
                                                   float const* KOKKOS_RESTRICT code,
                                                   float const* KOKKOS_RESTRICT kappa, int begin,
                                                   int end, int count, int first,
                                                   int stride) const {
    float const cp_fixed = folded_cp(cell_code::fixed_zero);
    for (int x = first; x < begin; x += stride) {
      cu[x] = cell_code::fixed_zero;
      cp[x] = cp_fixed;
    }
    if constexpr (on_host) {
      // Host-only code (GCC's clones), kept out of the device pass of a host space's functor.
      KOKKOS_IF_ON_HOST(
          (fold_row(cu + begin, cp + begin, code, kappa, params.kappa_uniform, end - begin);))
    } else {
      fold_cells<UniformKappa>(cu + begin, cp + begin, code, kappa, params.kappa_uniform, first,
                               end - begin, stride);
    }
    for (int x = end + first; x < count; x += stride) {
      cu[x] = cell_code::fixed_zero;
      cp[x] = cp_fixed;
    }
  }

  // The receivers in this team's tile (a halo copy is another team's) <- u after
  // `steps_done` steps, from the window u (origin gx0, gy0 on the grid). A loop over all
  // receivers: a few compares per receiver and step, nothing when there are none.
  KOKKOS_FUNCTION void record(Member const& team, float const* u, int gx0, int gy0,
                              std::int64_t steps_done) const {
    Receivers const& receivers = params.receivers;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, receivers.count), [&](int r) {
      ReceiverCell const cell = receivers.cells[r];
      int const lx = cell.x - gx0;
      int const ly = cell.y - gy0;
      if (lx >= halo && lx < halo + tile_x && ly >= halo && ly < halo + tile_y) {
        Kokkos::single(Kokkos::PerThread(team),
                       [&] { receivers.record(r, steps_done, u[ly * window_pitch + lx]); });
      }
    });
  }

  // A window row of `count` cells of the two fields, the codes (unless Folded) and κ (when
  // per cell): [begin, end) from the grid (from_*[0] is cell begin), fixed zeros elsewhere.
  // One loop for all the arrays: on a GPU their loads are then in flight together, and a
  // loop's index and address arithmetic cost more than its loads and stores.
  KOKKOS_FORCEINLINE_FUNCTION static void load_window_row(
      float* KOKKOS_RESTRICT previous, float* KOKKOS_RESTRICT current, float* KOKKOS_RESTRICT code,
      float* KOKKOS_RESTRICT kappa, float const* KOKKOS_RESTRICT from_previous,
      float const* KOKKOS_RESTRICT from_current, float const* KOKKOS_RESTRICT from_code,
      float const* KOKKOS_RESTRICT from_kappa, int begin, int end, int count, int first,
      int stride) {
    auto const fixed = [&](int x) {
      previous[x] = 0.0f;
      current[x] = 0.0f;
      if (!Folded && code) code[x] = cell_code::fixed_zero;
      if constexpr (!UniformKappa) kappa[x] = 0.0f;
    };
    for (int x = first; x < begin; x += stride) fixed(x);
    for (int x = first; x < end - begin; x += stride) {
      previous[begin + x] = from_previous[x];
      current[begin + x] = from_current[x];
      if (!Folded && code) code[begin + x] = from_code[x];
      if constexpr (!UniformKappa) kappa[begin + x] = from_kappa[x];
    }
    for (int x = end + first; x < count; x += stride) fixed(x);
  }

  // The window of origin (gx0, gy0) into scratch: the two fields into a and b, the codes
  // (codes form, unless plain) into codes, the folded coefficients (folded form, unless
  // plain) into c0 and c1, κ when per cell. Cells outside the grid are fixed zeros.
  KOKKOS_FORCEINLINE_FUNCTION void load_window(Member const& team, int gx0, int gy0, float* a,
                                               float* b, float* codes, float* c0, float* c1,
                                               float* kappa, bool plain) const {
    // Columns [x_begin, x_end) of the window lie on the grid (none in rows off the grid).
    int const x_begin = gx0 < 0 ? -gx0 : 0;
    int const x_end_grid = params.nx - gx0 < window_x ? params.nx - gx0 : window_x;
    int const x_end = x_end_grid > x_begin ? x_end_grid : x_begin;
    rows(team, 0, window_y, [&](int ly, int first, int stride) {
      int const gy = gy0 + ly;
      bool const row_inside = gy >= 0 && gy < params.ny;
      int const xb = row_inside ? x_begin : 0;
      int const xe = row_inside ? x_end : 0;
      std::int64_t const g = row_inside ? gy * params.pitch + gx0 + xb : 0;  // cell xb
      int const p = ly * window_pitch;
      load_window_row(a + p, b + p, codes ? codes + p : nullptr, UniformKappa ? nullptr : kappa + p,
                      in_previous + g, in_current + g, codes ? params.code + g : nullptr,
                      UniformKappa ? nullptr : params.kappa + g, xb, xe, window_x, first, stride);
      if (Folded && !plain) {
        load_folded_row(c0 + p, c1 + p, params.code + g, UniformKappa ? nullptr : params.kappa + g,
                        xb, xe, window_x, first, stride);
      }
    });
  }

  // Step s of the window: a holds u(t - dt) and b u(t); the cells [s + 1, window - 1 - s)
  // get u(t + dt) in a.
  KOKKOS_FORCEINLINE_FUNCTION void step(Member const& team, int s, float* a, float const* b,
                                        float const* c0, float const* c1, float const* kappa,
                                        bool plain, bool sources) const {
    float const t = params.time(first_step + s);
    if constexpr (!Folded) {
      if (plain) {
        walk_columns<true>(team, a, b, c0, kappa, s + 1, window_y - 1 - s, s + 1, window_x - 1 - s,
                           false, t);
      } else {
        walk_columns<false>(team, a, b, c0, kappa, s + 1, window_y - 1 - s, s + 1, window_x - 1 - s,
                            sources, t);
      }
    } else {
      rows(team, s + 1, window_y - 1 - s, [&](int ly, int first, int stride) {
        int const row = ly * window_pitch;
        int const begin = row + s + 1;
        int const end = row + window_x - 1 - s;
        if constexpr (on_host) {
          KOKKOS_IF_ON_HOST((update_host_row(a, b, c0, c1, kappa, plain, begin, end);))
        } else if (plain) {
          update_cells_plain(a, b, params.kappa_uniform, window_pitch, begin + first, end, stride);
        } else {
          update_cells_folded<UniformKappa>(a, b, c0, c1, kappa, params.kappa_uniform, window_pitch,
                                            begin + first, end, stride);
        }
        if (sources) set_sources(a, c0, c1, begin + first, end, stride, t);
      });
    }
  }

  // The window's tile (a: u(t - dt), b: u(t)), where it lies on the grid, to the output.
  KOKKOS_FORCEINLINE_FUNCTION void store_tile(Member const& team, float const* a, float const* b,
                                              int gx0, int gy0) const {
    int const rows_left = params.ny - (gy0 + halo);
    int const columns_left = params.nx - (gx0 + halo);
    int const tile_rows = tile_y < rows_left ? tile_y : rows_left;
    int const columns = tile_x < columns_left ? tile_x : columns_left;
    rows(team, 0, tile_rows, [&](int y, int first, int stride) {
      std::int64_t const g0 = (gy0 + halo + y) * params.pitch + gx0 + halo;
      int const p0 = (halo + y) * window_pitch + halo;
      float* KOKKOS_RESTRICT const to_previous = out_previous + g0;
      float* KOKKOS_RESTRICT const to_current = out_current + g0;
      float const* KOKKOS_RESTRICT const from_a = a + p0;
      float const* KOKKOS_RESTRICT const from_b = b + p0;
      for (int x = first; x < columns; x += stride) {
        to_previous[x] = from_a[x];
        to_current[x] = from_b[x];
      }
    });
  }

  KOKKOS_FUNCTION void operator()(Member const& team) const {
    int const tile = team.league_rank();
    int const gx0 = (tile % tiles_x) * tile_x - halo;  // the window's origin in the grid
    int const gy0 = (tile / tiles_x) * tile_y - halo;
    std::size_t const cells = std::size_t(window_y) * window_pitch;
    auto& scratch = team.team_scratch(0);
    float* a = static_cast<float*>(scratch.get_shmem(cells * sizeof(float)));
    float* b = static_cast<float*>(scratch.get_shmem(cells * sizeof(float)));
    // c0: the codes, or the folded cu; c1: the folded cp.
    float* const c0 = static_cast<float*>(scratch.get_shmem(cells * sizeof(float)));
    float* const c1 =
        Folded ? static_cast<float*>(scratch.get_shmem(cells * sizeof(float))) : nullptr;
    float* const kappa =
        UniformKappa ? nullptr : static_cast<float*>(scratch.get_shmem(cells * sizeof(float)));

    int const contents = tile_contents[tile];
    // A plain window (no code but 0) needs no code in the codes form, and with uniform κ
    // no folded coefficient either (they are the same for every cell).
    bool const plain = (!Folded || UniformKappa) && (contents & tile_holds::coded) == 0;
    load_window(team, gx0, gy0, a, b, Folded || plain ? nullptr : c0, c0, c1, kappa, plain);
    team.team_barrier();

    bool const sources = (contents & tile_holds::source) != 0;
    for (int s = 0; s < steps; ++s) {
      step(team, s, a, b, c0, c1, kappa, plain, sources);
      team.team_barrier();
      float* const computed = a;
      a = b;
      b = computed;
      // b stays unwritten until the next barrier: read it there, no barrier more.
      if (params.receivers.active()) record(team, b, gx0, gy0, first_step + s + 1);
    }
    store_tile(team, a, b, gx0, gy0);
  }

  // A step's cells [begin, end) of one window row, on a host: the whole 16-cell (64-byte)
  // blocks around them, so that loads and stores are aligned and no remainder loop runs
  // (rows are padded to 16 cells, so the blocks stay in the row). The cells beyond are
  // never read by a later step, which reads only the cells of the steps before it.
  void update_host_row(float* prev, float const* cur, float const* cu, float const* cp,
                       float const* kappa, bool plain, int begin, int end) const {
    int const block_begin = begin / 16 * 16;
    int const block_end = block_begin + (end - block_begin + 15) / 16 * 16;
    if (plain) {
      update_row_plain(prev, cur, params.kappa_uniform, window_pitch, block_begin, block_end);
    } else {
      update_row_folded(prev, cur, cu, cp, kappa, params.kappa_uniform, window_pitch, block_begin,
                        block_end);
    }
  }
};

// Marks each tile with what its window holds (tile_holds).
struct MarkTiles {
  KernelParams params;
  int* tile_contents;
  int tiles_x, tiles_y, tile_x, tile_y, halo;

  KOKKOS_FUNCTION void operator()(int y, int x) const {
    float const code = params.code[y * params.pitch + x];
    if (code == 0.0f) return;
    int const holds =
        code < cell_code::fixed_zero ? tile_holds::coded | tile_holds::source : tile_holds::coded;
    // Tile tx's window spans [tx * tile_x - halo, (tx + 1) * tile_x + halo).
    // Candidates: tiles (x - halo) / tile_x - 1 .. (x + halo) / tile_x, likewise in y.
    for (int ty = (y - halo) / tile_y - 1; ty <= (y + halo) / tile_y; ++ty) {
      for (int tx = (x - halo) / tile_x - 1; tx <= (x + halo) / tile_x; ++tx) {
        if (tx < 0 || tx >= tiles_x || ty < 0 || ty >= tiles_y) continue;
        bool const in_x = x >= tx * tile_x - halo && x < (tx + 1) * tile_x + halo;
        bool const in_y = y >= ty * tile_y - halo && y < (ty + 1) * tile_y + halo;
        if (in_x && in_y) Kokkos::atomic_fetch_or(&tile_contents[ty * tiles_x + tx], holds);
      }
    }
  }
};

template <class ExecutionSpace, class MemorySpace>
class TiledStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);

 public:
  TiledStepper(ExecutionSpace const& space, Coefficients<MemorySpace> const& coefficients)
      : TiledStepper(space, coefficients,
                     tiled_shape_for(space, !coefficients.params().uniform_kappa(),
                                     coefficients.params().nx, coefficients.params().ny)) {}

  // The shape is a parameter so that tests and benches can try others.
  TiledStepper(ExecutionSpace const& space, Coefficients<MemorySpace> coefficients,
               TiledShape shape)
      : Stepper<ExecutionSpace, MemorySpace>("kokkos-tiled"),
        coefficients_(std::move(coefficients)),
        shape_(shape) {
    KernelParams const& params = coefficients_.params();
    // Refused here, not at the launch: Kokkos (4.6, CUDA) checks a team's scratch only
    // after taking one of the instance's scratch pools, and a failed launch never gives
    // it back, so launches after it would wait for a pool forever.
    bool const per_cell_kappa = !params.uniform_kappa();
    if (auto const limit = wave2d::detail::team_scratch_limit(space, shape_.team_size);
        limit && shape_.scratch_bytes(per_cell_kappa) > *limit) {
      throw std::invalid_argument("kokkos-tiled: " + shape_.describe(per_cell_kappa) +
                                  " needs more team scratch than the device gives a team (" +
                                  std::to_string(*limit / 1024) + " KiB)");
    }
    tiles_x_ = std::max(1, (params.nx + shape_.tile_x - 1) / shape_.tile_x);
    tiles_y_ = std::max(1, (params.ny + shape_.tile_y - 1) / shape_.tile_y);
    if (shape_.wavefront) {
      if constexpr (wave2d::detail::runs_on_host<ExecutionSpace>) {
        prepare_wavefront(space, params);
        return;
      } else {
        throw std::invalid_argument("kokkos-tiled: the wavefront shape runs on host spaces only");
      }
    }
    tile_contents_ = wave2d::detail::allocate<Kokkos::View<int*, MemorySpace>>(
        space, "wave2d::kokkos-tiled::tile_contents", std::size_t(tiles_x_) * tiles_y_);
    wave2d::detail::fill(space, tile_contents_, 0, "wave2d::kokkos-tiled::clear_tile_contents");
    if (params.nx > 0 && params.ny > 0) {
      Kokkos::parallel_for(
          "wave2d::kokkos-tiled::mark_tiles",
          Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>>(
              space, {0, 0}, {params.ny, params.nx}),
          MarkTiles{params, tile_contents_.data(), tiles_x_, tiles_y_, shape_.tile_x, shape_.tile_y,
                    shape_.steps});
    }
  }

  std::string configuration() const override {
    std::string const shape = shape_.describe(!coefficients_.params().uniform_kappa());
    if constexpr (wave2d::detail::runs_on_host<ExecutionSpace>) {
      if (shape_.folded || shape_.wavefront) return shape + ", " + host_rows_isa() + " rows";
    }
    return shape;
  }

 private:
  void run_steps(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
                 Receivers const& receivers) override {
    wave2d::detail::match_scratch(space, scratch_, fields, "wave2d::kokkos-tiled::scratch");
    KernelParams const params = coefficients_.params(receivers);
    bool const uniform = params.uniform_kappa();
    if constexpr (wave2d::detail::runs_on_host<ExecutionSpace>) {
      if (shape_.wavefront) {
        uniform ? run_wavefront<true>(space, params, fields, n_steps)
                : run_wavefront<false>(space, params, fields, n_steps);
        return;
      }
    }
    wave2d::detail::with_flags(uniform, shape_.folded, [&](auto uniform_kappa, auto folded) {
      run<decltype(uniform_kappa)::value, decltype(folded)::value>(space, params, fields, n_steps);
    });
  }

  template <bool UniformKappa, bool Folded>
  void run(ExecutionSpace const& space, KernelParams const& params, FieldPair<MemorySpace>& fields,
           std::int64_t n_steps) {
    // Hosts: tiles differ in cost (plain windows, sources, the grid's edge), so they are
    // handed out as threads free up (2 threads, double-slit: 96 -> 91 ms against static).
    using Policy =
        std::conditional_t<wave2d::detail::runs_on_host<ExecutionSpace>,
                           Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>,
                           Kokkos::TeamPolicy<ExecutionSpace>>;
    Policy const policy =
        Policy(space, tiles_x_ * tiles_y_, shape_.team_size, shape_.vector_length)
            .set_scratch_size(0, Kokkos::PerTeam(shape_.scratch_bytes(!UniformKappa)));
    int const row_block = (shape_.window_y() - 2 + shape_.team_size - 1) / shape_.team_size;
    wave2d::detail::launches_between_pairs(fields, scratch_, n_steps, shape_.steps, [&](int steps) {
      TiledSteps<ExecutionSpace, UniformKappa, Folded> const launch{params,
                                                                    fields.previous.data(),
                                                                    fields.current.data(),
                                                                    scratch_.previous.data(),
                                                                    scratch_.current.data(),
                                                                    tile_contents_.data(),
                                                                    fields.step,
                                                                    steps,
                                                                    tiles_x_,
                                                                    shape_.tile_x,
                                                                    shape_.tile_y,
                                                                    shape_.steps,
                                                                    shape_.window_x(),
                                                                    shape_.window_y(),
                                                                    shape_.window_pitch(),
                                                                    shape_.vector_length,
                                                                    row_block};
      auto const held = wave2d::detail::team_scratch_lock<ExecutionSpace>();
      Kokkos::parallel_for("wave2d::kokkos-tiled::steps", policy, launch);
    });
  }

  // Where each row's cells need their coefficients.
  void prepare_wavefront(ExecutionSpace const& space, KernelParams const& params) {
    coded_rows_ = wave2d::detail::allocate<Kokkos::View<CodedRow*, MemorySpace>>(
        space, "wave2d::kokkos-tiled::coded_rows", std::size_t(params.ny));
    if (params.nx <= 0 || params.ny <= 0) return;
    Kokkos::parallel_for("wave2d::kokkos-tiled::mark_rows",
                         Kokkos::RangePolicy<ExecutionSpace>(space, 0, params.ny),
                         MarkCodedRows{params, coded_rows_.data()});
  }

  template <bool UniformKappa>
  void run_wavefront(ExecutionSpace const& space, KernelParams const& params,
                     FieldPair<MemorySpace>& fields, std::int64_t n_steps) {
    using Policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
    Policy const policy = Policy(space, tiles_x_ * tiles_y_, 1, 1)
                              .set_scratch_size(0, Kokkos::PerTeam(shape_.scratch_bytes(false)));
    int const ring_pitch = wavefront_ring_pitch(shape_.tile_x, shape_.steps);
    wave2d::detail::launches_between_pairs(fields, scratch_, n_steps, shape_.steps, [&](int steps) {
      WavefrontSteps<ExecutionSpace, UniformKappa> const launch{params,
                                                                fields.previous.data(),
                                                                fields.current.data(),
                                                                scratch_.previous.data(),
                                                                scratch_.current.data(),
                                                                coded_rows_.data(),
                                                                fields.step,
                                                                steps,
                                                                tiles_x_,
                                                                shape_.tile_x,
                                                                shape_.tile_y,
                                                                ring_pitch};
      auto const held = wave2d::detail::team_scratch_lock<ExecutionSpace>();
      Kokkos::parallel_for("wave2d::kokkos-tiled::wavefront", policy, launch);
    });
  }

  Coefficients<MemorySpace> coefficients_;
  TiledShape shape_;
  Kokkos::View<CodedRow*, MemorySpace> coded_rows_;
  int tiles_x_ = 1;
  int tiles_y_ = 1;
  Kokkos::View<int*, MemorySpace> tile_contents_;
  FieldPair<MemorySpace> scratch_;
};

}  // namespace wave2d::kokkos

#endif
