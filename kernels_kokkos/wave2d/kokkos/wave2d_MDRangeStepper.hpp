// kokkos-mdrange: the portable backend, one MDRangePolicy launch per step on any
// Kokkos execution space.
#ifndef WAVE2D_MDRANGE_STEPPER_HPP
#define WAVE2D_MDRANGE_STEPPER_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_DeviceCoefficients.hpp>
#include <wave2d/backend/wave2d_Receivers.hpp>
#include <wave2d/backend/wave2d_Stepper.hpp>
#include <wave2d/core/wave2d_KernelParams.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace wave2d::kokkos {

// The order of the policy's two dimensions. On CUDA, dimension 0 maps to threadIdx.x:
// only XY makes a warp read along a row (coalesced). On host spaces, YX with
// Iterate::Right gives an inner loop along the row.
struct YX {};
struct XY {};

template <class ExecutionSpace>
struct MDRangeTiling {
#if defined(KOKKOS_ENABLE_CUDA)
  static constexpr bool is_cuda = std::is_same_v<ExecutionSpace, Kokkos::Cuda>;
#else
  static constexpr bool is_cuda = false;
#endif
  static constexpr bool on_host = wave2d::detail::runs_on_host<ExecutionSpace>;
  using order = std::conditional_t<is_cuda, XY, YX>;
  // CUDA: a block of 32 x 8 threads. Host: tiles of 16 rows by up to 4096 cells, whole
  // rows of most grids: OpenMP deals tiles out one at a time (schedule(static, 1)), and
  // narrower tiles interleave the threads along each row (measured 2x slower).
  static constexpr std::array<int, 2> tile = is_cuda ? std::array{32, 8} : std::array{16, 4096};

  // Tiles are in the order's own dimension order: (x, y) for XY, (y, x) for YX.
  static std::string describe(bool xy, std::array<int, 2> tile) {
    return std::string(xy ? "order (x, y), tile " : "order (y, x), tile ") +
           std::to_string(tile[0]) + "x" + std::to_string(tile[1]) +
           (on_host ? ", one vectorized loop per row of a tile" : "");
  }
};

// One step: u_prev <- u(t + dt), given u_prev = u(t - dt) and u = u(t).
//
// Devices: an index per cell, the cell rule with its branch (a warp diverges only at
// walls and sources). Host spaces: an index per row segment, `segment` cells that
// update_cells sweeps as one unit-stride loop without a branch, which the compiler
// vectorizes (GCC 12 vectorizes neither Kokkos' host tile loop around a per-cell call nor
// the branch); then the ring's cells and, in the few rows that hold one, the sources.
//
// With Record (devices), the threads of the first row also record the receivers' u(t),
// the state after `steps_done` steps, which no thread writes; host spaces record with a
// small kernel per step instead (measured cheaper there).
template <class ExecutionSpace, bool UniformKappa, bool Record>
struct MDRangeStep {
  KernelParams params;
  float* u_prev;
  float const* u;
  float t;
  std::int64_t steps_done;
  int segment;                          // host: cells per index along x
  unsigned char const* row_has_source;  // host: per row

  KOKKOS_FUNCTION void update(int y, int x) const {
    if constexpr (MDRangeTiling<ExecutionSpace>::on_host) {
      update_segment(y, x);
    } else {
      std::int64_t const i = y * params.pitch + x;
      if constexpr (Record) {
        if (y == 0) {
          for (int r = x; r < params.receivers.count; r += params.nx) {
            ReceiverCell const cell = params.receivers.cells[r];
            params.receivers.record(r, steps_done, u[cell.y * params.pitch + cell.x]);
          }
        }
      }
      u_prev[i] = params.next_value<UniformKappa>(i, u_prev[i], u, t);
    }
  }

  // Cells [s * segment, (s + 1) * segment) of row y.
  KOKKOS_FUNCTION void update_segment(int y, int s) const {
    int const nx = params.nx;
    int const x0 = s * segment;
    int const x1 = nx - x0 < segment ? nx : x0 + segment;
    std::int64_t const row = y * params.pitch;
    if (y == 0 || y == params.ny - 1) {
      for (int x = x0; x < x1; ++x) u_prev[row + x] = 0.0f;
      return;
    }
    int const begin = x0 > 1 ? x0 : 1;
    int const end = x1 < nx - 1 ? x1 : nx - 1;
    update_cells<UniformKappa, std::int64_t>(u_prev, u, params.code, params.kappa,
                                             params.kappa_uniform, params.pitch, row + begin,
                                             row + end, 1);
    if (x0 == 0) u_prev[row] = 0.0f;
    if (x1 == nx) u_prev[row + nx - 1] = 0.0f;
    if (row_has_source[y] != 0) {
      for (std::int64_t i = row + begin; i < row + end; ++i) {
        if (params.code[i] < cell_code::fixed_zero) {
          u_prev[i] = fixed_value(params.code[i], params.sources, t);
        }
      }
    }
  }

  KOKKOS_FUNCTION void operator()(YX, int y, int x) const { update(y, x); }
  KOKKOS_FUNCTION void operator()(XY, int x, int y) const { update(y, x); }
};

// Order and Tile are parameters so that the benches can measure the alternatives.
template <class ExecutionSpace, class MemorySpace,
          class Order = typename MDRangeTiling<ExecutionSpace>::order>
class MDRangeStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);
  static constexpr bool on_host = MDRangeTiling<ExecutionSpace>::on_host;
  static constexpr bool xy = std::is_same_v<Order, XY>;

 public:
  explicit MDRangeStepper(Coefficients<MemorySpace> coefficients,
                          std::array<int, 2> tile = MDRangeTiling<ExecutionSpace>::tile)
      : Stepper<ExecutionSpace, MemorySpace>("kokkos-mdrange"),
        coefficients_(std::move(coefficients)),
        tile_(tile) {
    if constexpr (on_host) {
      // Host spaces read the codes where they are (fenced when they were uploaded).
      KernelParams const& params = coefficients_.params();
      row_has_source_.assign(std::size_t(params.ny), 0);
      for (std::int32_t y = 0; y < params.ny; ++y) {
        for (std::int32_t x = 0; x < params.nx; ++x) {
          if (params.code[y * params.pitch + x] < cell_code::fixed_zero) row_has_source_[y] = 1;
        }
      }
    }
  }

  std::string configuration() const override {
    return MDRangeTiling<ExecutionSpace>::describe(xy, tile_);
  }

 private:
  void run_steps(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
                 Receivers const& receivers) override {
    KernelParams const params = coefficients_.params(receivers);
    wave2d::detail::with_flags(
        params.uniform_kappa(), receivers.active(), [&](auto uniform, auto recording) {
          run<decltype(uniform)::value, decltype(recording)::value>(space, params, fields, n_steps);
        });
    if (receivers.active() && !on_host) {
      record_receivers(space, receivers, fields.current.data(), params.pitch, fields.step);
    }
  }

  template <bool UniformKappa, bool Record>
  void run(ExecutionSpace const& space, KernelParams const& params, FieldPair<MemorySpace>& fields,
           std::int64_t n_steps) {
    using Policy =
        Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>, Order>;
    // Host spaces: x counts segments of a tile's row, a tile is one segment wide.
    int const segment = on_host ? std::max(1, tile_[xy ? 0 : 1]) : 1;
    int const nx = (params.nx + segment - 1) / segment;
    std::array<int, 2> tile = tile_;
    if (on_host) tile[xy ? 0 : 1] = 1;
    Policy const policy = xy ? Policy(space, {0, 0}, {nx, params.ny}, {tile[0], tile[1]})
                             : Policy(space, {0, 0}, {params.ny, nx}, {tile[0], tile[1]});
    for (std::int64_t s = 0; s < n_steps; ++s, ++fields.step) {
      MDRangeStep<ExecutionSpace, UniformKappa, Record && !on_host> const step{
          params,
          fields.previous.data(),
          fields.current.data(),
          params.time(fields.step),
          fields.step,
          segment,
          row_has_source_.data()};
      Kokkos::parallel_for("wave2d::kokkos-mdrange::step", policy, step);
      std::swap(fields.previous, fields.current);
      if constexpr (Record && on_host) {
        record_receivers(space, params.receivers, fields.current.data(), params.pitch,
                         fields.step + 1);
      }
    }
  }

  Coefficients<MemorySpace> coefficients_;
  std::array<int, 2> tile_;
  std::vector<unsigned char> row_has_source_;  // host spaces: 1 where a row holds a source
};

}  // namespace wave2d::kokkos

#endif
