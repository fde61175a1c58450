// kokkos-mdrange: the portable backend, one MDRangePolicy launch per step on any
// Kokkos execution space.
#ifndef WAVE2D_MDRANGE_STEPPER_HPP
#define WAVE2D_MDRANGE_STEPPER_HPP

#include <backend/wave2d_DeviceCoefficients.hpp>
#include <backend/wave2d_Stepper.hpp>
#include <core/wave2d_KernelParams.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
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
  using order = std::conditional_t<is_cuda, XY, YX>;
  // CUDA: a block of 32 x 8 threads. Host: tiles of 4 rows by 512 cells.
  static constexpr std::array<int, 2> tile = is_cuda ? std::array{32, 8} : std::array{4, 512};

  // Tiles are in the order's own dimension order: (x, y) for XY, (y, x) for YX.
  static std::string describe(bool xy, std::array<int, 2> tile) {
    return std::string(xy ? "order (x, y), tile " : "order (y, x), tile ") +
           std::to_string(tile[0]) + "x" + std::to_string(tile[1]);
  }
};

// One step: u_prev <- u(t + dt), given u_prev = u(t - dt) and u = u(t). Devices.
template <bool UniformKappa>
struct MDRangeStep {
  KernelParams params;
  float* u_prev;
  float const* u;
  float t;

  KOKKOS_FUNCTION void update(int y, int x) const {
    std::int64_t const i = y * params.pitch + x;
    u_prev[i] = params.next_value<UniformKappa>(i, u_prev[i], u, t);
  }
  KOKKOS_FUNCTION void operator()(YX, int y, int x) const { update(y, x); }
  KOKKOS_FUNCTION void operator()(XY, int x, int y) const { update(y, x); }
};

// Host spaces: the same step in two launches, so that the loop over a row has no
// branch and vectorizes. First the inner cells (every cell but the grid's outer ring),
// fixed cells selected to 0; then the fix-ups: the outer ring (0) and the hard sources,
// a few thousand cells, each by fixed_value. Inner cells read only u(t), so the order
// of the two launches within a step changes no value: the result is the reference's,
// bit for bit.
template <bool UniformKappa>
struct MDRangeInnerStep {
  KernelParams params;
  float* u_prev;
  float const* u;

  KOKKOS_FUNCTION void update(int y, int x) const {
    // Row pointers, then x: an address the vectorizer sees as affine in x.
    std::int64_t const w = params.pitch;
    std::int64_t const row = y * w;
    float const* const code = params.code + row;
    float* const next_row = u_prev + row;
    float const* const u_row = u + row;
    float const c = code[x];
    float const k = UniformKappa ? params.kappa_uniform : params.kappa[row + x];
    float const next = stencil(c, k, next_row[x], u_row[x],
                               u_row[x - 1] + u_row[x + 1] + u_row[x - w] + u_row[x + w]);
    next_row[x] = updated_or_zero(c, next);
  }
  KOKKOS_FUNCTION void operator()(YX, int y, int x) const { update(y, x); }
  KOKKOS_FUNCTION void operator()(XY, int x, int y) const { update(y, x); }
};

struct MDRangeFixups {
  KernelParams params;
  float* u_prev;
  std::int64_t const* cells;
  float t;

  KOKKOS_FUNCTION void operator()(int n) const {
    std::int64_t const i = cells[n];
    u_prev[i] = fixed_value(params.code[i], params.sources, t);
  }
};

// Order and Tile are parameters so that the benches can measure the alternatives.
template <class ExecutionSpace, class MemorySpace,
          class Order = typename MDRangeTiling<ExecutionSpace>::order>
class MDRangeStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);

 public:
  explicit MDRangeStepper(Coefficients<MemorySpace> coefficients,
                          std::array<int, 2> tile = MDRangeTiling<ExecutionSpace>::tile)
      : coefficients_(std::move(coefficients)), tile_(tile) {
    if constexpr (on_host) {
      // The outer ring and the sources, in memory order.
      KernelParams const& params = coefficients_.params();
      std::vector<std::int64_t> cells;
      for (std::int32_t y = 0; y < params.ny; ++y) {
        for (std::int32_t x = 0; x < params.nx; ++x) {
          std::int64_t const i = y * params.pitch + x;
          bool const ring = y == 0 || y == params.ny - 1 || x == 0 || x == params.nx - 1;
          if (ring || params.code[i] < cell_code::fixed_zero) cells.push_back(i);
        }
      }
      // Filled in place (host memory): no deep_copy, whose fence would not be on the
      // caller's instance.
      fixups_ = Kokkos::View<std::int64_t*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "wave2d::kokkos-mdrange::fixups"),
          cells.size());
      std::copy(cells.begin(), cells.end(), fixups_.data());
    }
  }

  void advance(ExecutionSpace const& space, FieldPair<MemorySpace>& fields,
               std::int64_t n_steps) override {
    if (coefficients_.params().kappa == nullptr) {
      run<true>(space, fields, n_steps);
    } else {
      run<false>(space, fields, n_steps);
    }
  }

  std::string configuration() const override {
    return MDRangeTiling<ExecutionSpace>::describe(std::is_same_v<Order, XY>, tile_) +
           (on_host ? ", inner cells branch-free, then ring and sources" : "");
  }

 private:
  static constexpr bool on_host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  template <bool UniformKappa>
  void run(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps) {
    if constexpr (on_host) {
      run_inner<UniformKappa>(space, fields, n_steps);
    } else {
      run_all<UniformKappa>(space, fields, n_steps);
    }
  }

  template <bool UniformKappa>
  void run_inner(ExecutionSpace const& space, FieldPair<MemorySpace>& fields,
                 std::int64_t n_steps) {
    using Policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>,
                                         Order>;
    KernelParams const& params = coefficients_.params();
    int const nx = params.nx > 2 ? params.nx - 1 : 1;  // inner cells [1, n - 1)
    int const ny = params.ny > 2 ? params.ny - 1 : 1;
    Policy const policy = std::is_same_v<Order, XY>
                              ? Policy(space, {1, 1}, {nx, ny}, {tile_[0], tile_[1]})
                              : Policy(space, {1, 1}, {ny, nx}, {tile_[0], tile_[1]});
    Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>> const fixups(
        space, 0, int(fixups_.size()));
    for (std::int64_t s = 0; s < n_steps; ++s, ++fields.step) {
      MDRangeInnerStep<UniformKappa> const step{params, fields.previous.data(),
                                                fields.current.data()};
      Kokkos::parallel_for("wave2d::kokkos-mdrange::step", policy, step);
      Kokkos::parallel_for("wave2d::kokkos-mdrange::fixups", fixups,
                           MDRangeFixups{params, fields.previous.data(), fixups_.data(),
                                         params.time(fields.step)});
      std::swap(fields.previous, fields.current);
    }
  }

  template <bool UniformKappa>
  void run_all(ExecutionSpace const& space, FieldPair<MemorySpace>& fields,
               std::int64_t n_steps) {
    using Policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>,
                                         Order>;
    KernelParams const& params = coefficients_.params();
    Policy const policy = std::is_same_v<Order, XY>
                              ? Policy(space, {0, 0}, {params.nx, params.ny}, {tile_[0], tile_[1]})
                              : Policy(space, {0, 0}, {params.ny, params.nx}, {tile_[0], tile_[1]});
    for (std::int64_t s = 0; s < n_steps; ++s, ++fields.step) {
      MDRangeStep<UniformKappa> const step{params, fields.previous.data(), fields.current.data(),
                                           params.time(fields.step)};
      Kokkos::parallel_for("wave2d::kokkos-mdrange::step", policy, step);
      std::swap(fields.previous, fields.current);
    }
  }

  Coefficients<MemorySpace> coefficients_;
  std::array<int, 2> tile_;
  Kokkos::View<std::int64_t*, MemorySpace> fixups_;  // host spaces: ring and sources
};

}  // namespace wave2d::kokkos

#endif
