// kokkos-tiled's shape for host spaces: T steps per launch as a wavefront of rows down
// each tile, every time level but the launch's last held in a ring of three rows.
//
// Time level m of a launch (m = 0, 1: the pair read; m = 2 ... S + 1: the S steps made)
// is computed over the tile widened by S + 1 - m cells on each side (clipped to the
// grid), so that the last level is exactly the tile. Row r of level m needs rows r - 1,
// r, r + 1 of level m - 1 and row r of level m - 2, so the levels advance together down
// the tile, each a row behind the one before: in sweep i, level 2 computes row i, level
// 3 row i - 1, ..., level m row i - (m - 2). Level m - 1 then holds rows r - 1 ... r + 1
// and level m - 2 rows r ... r + 2: three rows a level, reused as the levels move down.
// The rings of a 1024-cell-wide tile at T = 32 take 407 KiB, in L2 (of the five rows a
// row's update reads, the one the level before just wrote is in L1): a cell's S updates
// read only rows still in cache, and the grid's pair is read once and written once per
// launch. Wide rows make long
// vector loops and few halo columns (64 of 1088 at T = 32).
//
// Levels 0 and 1 are read from the grid's pair, level S + 1 is written into the other
// pair's current field and level S's tile row beside it. The coefficients are read as the
// cells' codes (and κ when per cell), and with a uniform κ only in the spans of a row
// that hold a cell of code other than 0 (CodedRow: damping layers, walls, sources); the
// cells between are updated as plain cells (update_plain_row_of_rows), which read none:
// on the reference scenes two cells in three. Each span is one call of a row loop of
// core/wave2d_HostRows.hpp, built for AVX-512F and AVX2 too: the same expressions as
// every backend, the same bits.
#ifndef WAVE2D_TILED_WAVEFRONT_HPP
#define WAVE2D_TILED_WAVEFRONT_HPP

#include <wave2d/core/wave2d_CellRule.hpp>
#include <wave2d/core/wave2d_HostRows.hpp>
#include <wave2d/core/wave2d_KernelParams.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdint>
#include <cstring>

namespace wave2d::kokkos {

// The columns every level but the last computes beyond the tile on each side: the halo T
// rounded up to whole 16-cell blocks, so that each level's row starts where the row it
// reads starts (see WavefrontSteps::compute_row).
KOKKOS_INLINE_FUNCTION int wavefront_margin(int steps) { return (steps + 15) / 16 * 16; }

// Floats per ring row: the tile, the margins and a block each side, where the cells read
// beside them are.
KOKKOS_INLINE_FUNCTION int wavefront_ring_pitch(int tile_x, int steps) {
  return tile_x + 2 * wavefront_margin(steps) + 32;
}

// Team scratch of a tile: levels 2 ... T in rings of three rows.
inline std::size_t wavefront_scratch_bytes(int tile_x, int steps) {
  int const levels = steps > 1 ? steps - 1 : 0;
  return std::size_t(levels) * 3 * std::size_t(wavefront_ring_pitch(tile_x, steps)) * sizeof(float);
}

// Where a row's cells need their coefficients: the spans of whole 16-cell blocks that
// hold a cell of code other than 0 (the border columns aside), at most max_spans of them:
// runs closer than merge_gap cells apart are merged, and so are those past the last span;
// and the span of its sources. A span's cells are
// updated from their codes, the cells between spans as plain cells (code 0,
// uniform κ), which give the same bits without reading any coefficient.
struct CodedRow {
  static constexpr int max_spans = 6;
  static constexpr int merge_gap = 64;
  int spans = 0;
  int source_begin = 0, source_end = 0;
  int begin[max_spans] = {};
  int end[max_spans] = {};
};

// The CodedRow of each row y.
struct MarkCodedRows {
  KernelParams params;
  CodedRow* rows;

  KOKKOS_FUNCTION void operator()(int y) const {
    float const* code = params.code + y * params.pitch;
    CodedRow row;
    row.source_begin = params.nx;
    for (int block = 0; block * 16 < params.nx; ++block) {
      int const x0 = block * 16 > 1 ? block * 16 : 1;
      int const x1 = block * 16 + 16 < params.nx - 1 ? block * 16 + 16 : params.nx - 1;
      bool coded = false;
      for (int x = x0; x < x1; ++x) {
        coded = coded || code[x] != 0.0f;
        if (code[x] < cell_code::fixed_zero) {
          row.source_begin = x < row.source_begin ? x : row.source_begin;
          row.source_end = x + 1;
        }
      }
      if (!coded) continue;
      int const span_begin = block * 16;
      int const span_end = block * 16 + 16 < params.nx ? block * 16 + 16 : params.nx;
      bool const merged =
          row.spans > 0 && (span_begin - row.end[row.spans - 1] < CodedRow::merge_gap ||
                            row.spans == CodedRow::max_spans);
      if (merged) {
        row.end[row.spans - 1] = span_end;
      } else {
        row.begin[row.spans] = span_begin;
        row.end[row.spans] = span_end;
        ++row.spans;
      }
    }
    if (row.source_end == 0) row.source_begin = 0;
    rows[y] = row;
  }
};

// One launch: `steps` (S, at most the shape's T) steps from the pair `in` into the pair
// `out`, one tile a team of one thread.
template <class ExecutionSpace, bool UniformKappa>
struct WavefrontSteps {
  using Member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  KernelParams params;
  float const* in_previous;
  float const* in_current;
  float* out_previous;
  float* out_current;
  CodedRow const* coded_rows;  // per row
  std::int64_t first_step;
  int steps;
  int tiles_x, tile_x, tile_y, ring_pitch;

  KOKKOS_FUNCTION void operator()(Member const& team) const {
    int const tx = team.league_rank() % tiles_x;
    int const ty = team.league_rank() / tiles_x;
    Tile const tile{tx, tx * tile_x, min(tx * tile_x + tile_x, params.nx), ty * tile_y,
                    min(ty * tile_y + tile_y, params.ny)};
    int const last = steps + 1;
    std::size_t const ring_floats = std::size_t(last > 2 ? last - 2 : 0) * 3 * ring_pitch;
    float* const rings =
        static_cast<float*>(team.team_scratch(0).get_shmem(ring_floats * sizeof(float)));
    // The cells beside a row's computed ones are read, never used: zeros, not whatever the
    // memory held (a denormal or NaN there would slow the loop on some CPUs).
    for (std::size_t k = 0; k < ring_floats; ++k) rings[k] = 0.0f;
    // Sweep i: level m computes its row i - (m - 2), from level 2's first row to the
    // last level's last.
    int const first_row = max(0, tile.y0 - steps + 1);
    for (int i = first_row; i < tile.y1 + steps - 1; ++i) {
      for (int m = 2; m <= last; ++m) {
        int const r = i - (m - 2);
        int const widen = last - m;
        if (r < max(0, tile.y0 - widen) || r >= min(params.ny, tile.y1 + widen)) continue;
        compute_row(tile, rings, m, r);
      }
    }
  }

 private:
  struct Tile {
    int tx, x0, x1, y0, y1;
  };

  KOKKOS_INLINE_FUNCTION static int min(int a, int b) { return a < b ? a : b; }
  KOKKOS_INLINE_FUNCTION static int max(int a, int b) { return a > b ? a : b; }

  // Row r of level m as a pointer p with p[x] the cell of grid column x, for levels the
  // rings hold (2 ... S), whose rows start at column x0 - S clipped to the grid.
  KOKKOS_INLINE_FUNCTION float* ring_row(Tile const& tile, float* rings, int m, int r) const {
    int const origin = tile.x0 - wavefront_margin(steps) - 16;
    return rings + ((m - 2) * 3 + r % 3) * ring_pitch - origin;
  }
  KOKKOS_INLINE_FUNCTION float const* level_row(Tile const& tile, float* rings, int m,
                                                int r) const {
    if (m == 0) return in_previous + r * params.pitch;
    if (m == 1) return in_current + r * params.pitch;
    return ring_row(tile, rings, m, r);
  }

  // Row r of level m. The last level's is the tile's row; the others' are the tile's row
  // and a margin of whole 16-cell blocks on each side, wider than the cells still right
  // (the tile widened by S + 1 - m), so that every level's row starts in the same place:
  // the loop then reads each row that the level before just wrote in the blocks it wrote
  // them, which the CPU forwards from its stores, where reads a cell off would wait for
  // them to reach the cache.
  KOKKOS_FUNCTION void compute_row(Tile const& tile, float* rings, int m, int r) const {
    int const last = steps + 1;
    float* const next = m == last ? out_current + r * params.pitch : ring_row(tile, rings, m, r);
    int const margin = m == last ? 0 : wavefront_margin(steps);
    int const x0 = max(0, tile.x0 - margin);
    int const x1 = min(params.nx, tile.x1 + margin);
    int const nx = params.nx;
    if (r == 0 || r == params.ny - 1) {
      for (int x = x0; x < x1; ++x) next[x] = 0.0f;
    } else {
      // Columns 0 and nx - 1 are the border: 0.
      int const begin = max(x0, 1);
      int const end = min(x1, nx - 1);
      if (x0 == 0) next[0] = 0.0f;
      if (x1 == nx && nx > 1) next[nx - 1] = 0.0f;
      if (begin < end) {
        CodedRow const& coded = coded_rows[r];
        update(tile, rings, next, m, r, begin, end, coded);
        int const source_begin = max(begin, coded.source_begin);
        int const source_end = min(end, coded.source_end);
        if (source_begin < source_end) {
          float const t = params.time(first_step + m - 2);
          std::int64_t const g = r * params.pitch;
          for (int x = source_begin; x < source_end; ++x) {
            float const code = params.code[g + x];
            if (code < cell_code::fixed_zero) next[x] = fixed_value(code, params.sources, t);
          }
        }
      }
    }
    bool const in_tile_rows = r >= tile.y0 && r < tile.y1;
    if (in_tile_rows && params.receivers.active()) record(tile, next, r, first_step + m - 1);
    if (m == last && in_tile_rows) {
      // The pair written: level S's row of the tile beside level S + 1's.
      float const* const from = level_row(tile, rings, last - 1, r);
      float* const to = out_previous + r * params.pitch;
      std::memcpy(to + tile.x0, from + tile.x0, sizeof(float) * (tile.x1 - tile.x0));
    }
  }

  // Cells [begin, end) of row r of level m into `next`: the coded row's spans from their
  // codes, the cells between them as plain cells (κ per cell: all from the codes).
  KOKKOS_FUNCTION void update(Tile const& tile, float* rings, float* next, int m, int r, int begin,
                              int end, CodedRow const& coded) const {
    Rows const rows{next,
                    level_row(tile, rings, m - 2, r),
                    level_row(tile, rings, m - 1, r - 1),
                    level_row(tile, rings, m - 1, r),
                    level_row(tile, rings, m - 1, r + 1),
                    r * params.pitch};
    if (!UniformKappa) {
      update_span(rows, begin, end, false);
      return;
    }
    int x = begin;
    for (int k = 0; k < coded.spans && coded.begin[k] < end; ++k) {
      int const span_begin = max(coded.begin[k], x);
      int const span_end = min(coded.end[k], end);
      if (span_begin >= span_end) continue;
      if (x < span_begin) update_span(rows, x, span_begin, true);
      update_span(rows, span_begin, span_end, false);
      x = span_end;
    }
    if (x < end) update_span(rows, x, end, true);
  }

  // A row's update: the row written, the rows read (as ring_row's pointers) and the row's
  // first index in the grid's arrays.
  struct Rows {
    float* next;
    float const *prev, *up, *mid, *down;
    std::int64_t g;
  };

  // Cells [x0, x1) of a row, as plain cells or from their codes.
  KOKKOS_INLINE_FUNCTION void update_span(Rows const& rows, int x0, int x1, bool plain) const {
    // Host-only code (GCC's clones), kept out of the device pass of a host space's functor.
    if (plain) {
      KOKKOS_IF_ON_HOST(
          (update_rows_plain(rows.next + x0, rows.prev + x0, rows.up + x0, rows.mid + x0,
                             rows.down + x0, params.kappa_uniform, x1 - x0);))
    } else {
      std::int64_t const g = rows.g + x0;
      KOKKOS_IF_ON_HOST((update_rows_coded(rows.next + x0, rows.prev + x0, rows.up + x0,
                                           rows.mid + x0, rows.down + x0, params.code + g,
                                           UniformKappa ? nullptr : params.kappa + g,
                                           params.kappa_uniform, x1 - x0);))
    }
  }

  // The receivers of the tile in row r <- the row's values after `steps_done` steps.
  KOKKOS_FUNCTION void record(Tile const& tile, float const* row, int r,
                              std::int64_t steps_done) const {
    Receivers const& receivers = params.receivers;
    for (int k = 0; k < receivers.count; ++k) {
      ReceiverCell const cell = receivers.cells[k];
      if (cell.y == r && cell.x >= tile.x0 && cell.x < tile.x1) {
        receivers.record(k, steps_done, row[cell.x]);
      }
    }
  }
};

}  // namespace wave2d::kokkos

#endif
