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
// Rows go to the team's threads, columns to the vector level: CPUs vectorize along x,
// GPUs coalesce. Cells of fixed value are selected, not branched over, except in the
// few tiles whose window holds a source (flagged once, when the stepper is made).
#ifndef WAVE2D_TILED_STEPPER_HPP
#define WAVE2D_TILED_STEPPER_HPP

#include <backend/detail/wave2d_KokkosHelpers.hpp>
#include <backend/wave2d_DeviceCoefficients.hpp>
#include <backend/wave2d_Stepper.hpp>
#include <core/wave2d_KernelParams.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
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

  int window_x() const { return tile_x + 2 * steps; }
  int window_y() const { return tile_y + 2 * steps; }
  // Scratch rows padded to 16 floats (64 bytes): rows start on a cache line.
  int window_pitch() const { return (window_x() + 15) / 16 * 16; }
  std::size_t scratch_bytes(bool per_cell_kappa) const {
    return std::size_t(per_cell_kappa ? 4 : 3) * std::size_t(window_y()) * window_pitch() *
           sizeof(float);
  }

  std::string describe(bool per_cell_kappa) const {
    return "tile " + std::to_string(tile_x) + "x" + std::to_string(tile_y) + ", T=" +
           std::to_string(steps) + ", window " + std::to_string(window_x()) + "x" +
           std::to_string(window_y()) + ", team " + std::to_string(team_size) + "x" +
           std::to_string(vector_length) + ", " +
           std::to_string(scratch_bytes(per_cell_kappa) / 1024) + " KiB scratch per team";
  }
};

// The shape per execution space. Host spaces: one thread per team (a team is a core),
// a window of three or four arrays that stays in a core's L2 (1 MiB and more on current
// x86 and Arm cores; 470 KiB here with uniform κ), rows of 272 cells, about 1 KiB, so
// a step's sweep keeps its three rows of u(t) in L1. Devices: 64x32-cell windows of
// T = 4 (56x24 tiles), 32 KiB of scratch with per-cell κ, rows on a warp's lanes.
template <class ExecutionSpace>
TiledShape tiled_shape_for() {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename ExecutionSpace::memory_space>::accessible) {
    return {256, 128, 8, 1, 1};
  } else {
    return {56, 24, 4, 8, 32};
  }
}

// One launch: `steps` (at most shape.steps) steps from the pair `in` into the pair `out`.
template <class ExecutionSpace, bool UniformKappa>
struct TiledSteps {
  using Member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  KernelParams params;
  float const* in_previous;
  float const* in_current;
  float* out_previous;
  float* out_current;
  int const* tile_has_source;  // per tile, in league order
  std::int64_t first_step;
  int steps;
  int tiles_x;
  int tile_x, tile_y, halo, window_x, window_y, window_pitch;

  // u(t + dt) of the row's cells [begin, end) into `prev`, given u(t) in `cur`.
  template <bool Sources>
  KOKKOS_FUNCTION void sweep_row(Member const& team, float* KOKKOS_RESTRICT prev,
                                 float const* KOKKOS_RESTRICT cur,
                                 float const* KOKKOS_RESTRICT code,
                                 float const* KOKKOS_RESTRICT kappa, int begin, int end,
                                 float t) const {
    int const w = window_pitch;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, begin, end), [&](int p) {
      float const c = code[p];
      float const k = UniformKappa ? params.kappa_uniform : kappa[p];
      // KernelParams::next_value's expression, in its order.
      float const next = stencil(c, k, prev[p], cur[p], cur[p - 1] + cur[p + 1] + cur[p - w] + cur[p + w]);
      if constexpr (Sources) {
        prev[p] = c < 0.0f ? fixed_value(c, params.sources, t) : next;
      } else {
        prev[p] = c < 0.0f ? 0.0f : next;
      }
    });
  }

  KOKKOS_FUNCTION void operator()(Member const& team) const {
    int const tile = team.league_rank();
    int const gx0 = (tile % tiles_x) * tile_x - halo;  // the window's origin in the grid
    int const gy0 = (tile / tiles_x) * tile_y - halo;
    int const w = window_pitch;
    std::size_t const cells = std::size_t(window_y) * w;
    auto& scratch = team.team_scratch(0);
    float* a = static_cast<float*>(scratch.get_shmem(cells * sizeof(float)));
    float* b = static_cast<float*>(scratch.get_shmem(cells * sizeof(float)));
    float* const code = static_cast<float*>(scratch.get_shmem(cells * sizeof(float)));
    float* const kappa =
        UniformKappa ? nullptr : static_cast<float*>(scratch.get_shmem(cells * sizeof(float)));

    // The window; cells outside the grid are fixed zeros.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, window_y), [&](int ly) {
      int const gy = gy0 + ly;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, window_x), [&](int lx) {
        int const gx = gx0 + lx;
        bool const inside = gx >= 0 && gx < params.nx && gy >= 0 && gy < params.ny;
        std::int64_t const g = inside ? gy * params.pitch + gx : 0;
        int const p = ly * w + lx;
        a[p] = inside ? in_previous[g] : 0.0f;
        b[p] = inside ? in_current[g] : 0.0f;
        code[p] = inside ? params.code[g] : cell_code::fixed_zero;
        if constexpr (!UniformKappa) kappa[p] = inside ? params.kappa[g] : 0.0f;
      });
    });
    team.team_barrier();

    // a holds u(t - dt), b holds u(t); step s updates the cells [s + 1, window - 1 - s).
    bool const sources = tile_has_source[tile] != 0;
    for (int s = 0; s < steps; ++s) {
      float const t = params.time(first_step + s);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, s + 1, window_y - 1 - s), [&](int ly) {
        int const row = ly * w;
        if (sources) {
          sweep_row<true>(team, a, b, code, kappa, row + s + 1, row + window_x - 1 - s, t);
        } else {
          sweep_row<false>(team, a, b, code, kappa, row + s + 1, row + window_x - 1 - s, t);
        }
      });
      team.team_barrier();
      float* const computed = a;
      a = b;
      b = computed;
    }

    // The tile, where it lies on the grid.
    int const rows_left = params.ny - (gy0 + halo);
    int const columns_left = params.nx - (gx0 + halo);
    int const rows = tile_y < rows_left ? tile_y : rows_left;
    int const columns = tile_x < columns_left ? tile_x : columns_left;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int y) {
      std::int64_t const g0 = (gy0 + halo + y) * params.pitch + gx0 + halo;
      int const p0 = (halo + y) * w + halo;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, columns), [&](int x) {
        out_previous[g0 + x] = a[p0 + x];
        out_current[g0 + x] = b[p0 + x];
      });
    });
  }
};

// Marks the tiles whose window holds a source cell.
struct MarkSourceTiles {
  KernelParams params;
  int* tile_has_source;
  int tiles_x, tiles_y, tile_x, tile_y, halo;

  KOKKOS_FUNCTION void operator()(int y, int x) const {
    if (params.code[y * params.pitch + x] >= cell_code::fixed_zero) return;
    // Tile tx's window spans [tx * tile_x - halo, (tx + 1) * tile_x + halo).
    // Candidates: tiles (x - halo) / tile_x - 1 .. (x + halo) / tile_x, likewise in y.
    for (int ty = (y - halo) / tile_y - 1; ty <= (y + halo) / tile_y; ++ty) {
      for (int tx = (x - halo) / tile_x - 1; tx <= (x + halo) / tile_x; ++tx) {
        if (tx < 0 || tx >= tiles_x || ty < 0 || ty >= tiles_y) continue;
        bool const in_x = x >= tx * tile_x - halo && x < (tx + 1) * tile_x + halo;
        bool const in_y = y >= ty * tile_y - halo && y < (ty + 1) * tile_y + halo;
        if (in_x && in_y) Kokkos::atomic_add(&tile_has_source[ty * tiles_x + tx], 1);
      }
    }
  }
};

template <class ExecutionSpace, class MemorySpace>
class TiledStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);

 public:
  // The shape is a parameter so that tests and benches can try others.
  TiledStepper(ExecutionSpace const& space, Coefficients<MemorySpace> coefficients,
               TiledShape shape = tiled_shape_for<ExecutionSpace>())
      : coefficients_(std::move(coefficients)), shape_(shape) {
    KernelParams const& params = coefficients_.params();
    tiles_x_ = std::max(1, (params.nx + shape_.tile_x - 1) / shape_.tile_x);
    tiles_y_ = std::max(1, (params.ny + shape_.tile_y - 1) / shape_.tile_y);
    tile_has_source_ = Details::allocate<Kokkos::View<int*, MemorySpace>>(
        space, "wave2d::kokkos-tiled::tile_has_source", std::size_t(tiles_x_) * tiles_y_);
    Details::fill(space, tile_has_source_, 0, "wave2d::kokkos-tiled::clear_source_tiles");
    if (params.nx > 0 && params.ny > 0) {
      Kokkos::parallel_for(
          "wave2d::kokkos-tiled::mark_source_tiles",
          Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>>(
              space, {0, 0}, {params.ny, params.nx}),
          MarkSourceTiles{params, tile_has_source_.data(), tiles_x_, tiles_y_, shape_.tile_x,
                          shape_.tile_y, shape_.steps});
    }
  }

  void advance(ExecutionSpace const& space, FieldPair<MemorySpace>& fields,
               std::int64_t n_steps) override {
    if (n_steps <= 0) return;
    Kokkos::Profiling::ScopedRegion region("wave2d::kokkos-tiled::advance");
    if (scratch_.previous.size() != fields.previous.size()) {
      auto const ny = fields.previous.extent(0);
      auto const nx = fields.previous.extent(1);
      scratch_.previous =
          Details::allocate<Field<MemorySpace>>(space, "wave2d::kokkos-tiled::scratch0", ny, nx);
      scratch_.current =
          Details::allocate<Field<MemorySpace>>(space, "wave2d::kokkos-tiled::scratch1", ny, nx);
    }
    if (coefficients_.params().kappa == nullptr) {
      run<true>(space, fields, n_steps);
    } else {
      run<false>(space, fields, n_steps);
    }
  }

  std::string configuration() const override {
    return shape_.describe(coefficients_.params().kappa != nullptr);
  }

 private:
  template <bool UniformKappa>
  void run(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps) {
    KernelParams const& params = coefficients_.params();
    Kokkos::TeamPolicy<ExecutionSpace> const policy =
        Kokkos::TeamPolicy<ExecutionSpace>(space, tiles_x_ * tiles_y_, shape_.team_size,
                                           shape_.vector_length)
            .set_scratch_size(0, Kokkos::PerTeam(shape_.scratch_bytes(!UniformKappa)));
    // Launches of T steps and one shorter remainder, alternating between the pairs.
    for (std::int64_t s = 0; s < n_steps; s += shape_.steps) {
      int const steps = int(std::min<std::int64_t>(shape_.steps, n_steps - s));
      TiledSteps<ExecutionSpace, UniformKappa> const launch{
          params,         fields.previous.data(),   fields.current.data(),
          scratch_.previous.data(), scratch_.current.data(), tile_has_source_.data(),
          fields.step,    steps,                    tiles_x_,
          shape_.tile_x,  shape_.tile_y,            shape_.steps,
          shape_.window_x(), shape_.window_y(),     shape_.window_pitch()};
      Kokkos::parallel_for("wave2d::kokkos-tiled::steps", policy, launch);
      std::swap(fields.previous, scratch_.previous);
      std::swap(fields.current, scratch_.current);
      fields.step += steps;
    }
  }

  Coefficients<MemorySpace> coefficients_;
  TiledShape shape_;
  int tiles_x_ = 1;
  int tiles_y_ = 1;
  Kokkos::View<int*, MemorySpace> tile_has_source_;
  FieldPair<MemorySpace> scratch_;
};

}  // namespace wave2d::kokkos

#endif
