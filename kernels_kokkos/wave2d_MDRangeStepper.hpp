// kokkos-mdrange: the portable backend, one MDRangePolicy launch per step on any
// Kokkos execution space.
#ifndef WAVE2D_MDRANGE_STEPPER_HPP
#define WAVE2D_MDRANGE_STEPPER_HPP

#include <core/wave2d_CellRule.hpp>
#include <simulation/wave2d_DeviceCoefficients.hpp>
#include <simulation/wave2d_Stepper.hpp>

#include <wave2d_KokkosCompat.hpp>

#include <array>
#include <string>
#include <type_traits>
#include <utility>

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

  static std::string describe() {
    return std::string(is_cuda ? "order (x, y), tile " : "order (y, x), tile ") +
           std::to_string(tile[0]) + "x" + std::to_string(tile[1]);
  }
};

template <class MemorySpace, bool UniformKappa>
struct MDRangeStep {
  Field<MemorySpace> u_prev;  // u(t - dt) in, u(t + dt) out
  Field<MemorySpace> u;       // u(t)
  Field<MemorySpace> code;
  Field<MemorySpace> kappa;
  float kappa_uniform;
  Waveform const* sources;
  float t;

  KOKKOS_FUNCTION void update(int y, int x) const {
    float const c = code(y, x);
    float next;
    if (c >= 0.0f) {
      float k;
      if constexpr (UniformKappa) {
        k = kappa_uniform;
      } else {
        k = kappa(y, x);
      }
      next = stencil(c, k, u_prev(y, x), u(y, x),
                     u(y, x - 1) + u(y, x + 1) + u(y - 1, x) + u(y + 1, x));
    } else {
      next = fixed_value(c, sources, t);
    }
    u_prev(y, x) = next;
  }
  KOKKOS_FUNCTION void operator()(YX, int y, int x) const { update(y, x); }
  KOKKOS_FUNCTION void operator()(XY, int x, int y) const { update(y, x); }
};

// Order and Tile are parameters so that the benches can measure the alternatives.
template <class ExecutionSpace, class MemorySpace,
          class Order = typename MDRangeTiling<ExecutionSpace>::order>
class MDRangeStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);

 public:
  explicit MDRangeStepper(Coefficients<MemorySpace> coefficients,
                          std::array<int, 2> tile = MDRangeTiling<ExecutionSpace>::tile)
      : coefficients_(std::move(coefficients)), tile_(tile) {}

  void advance(ExecutionSpace const& space, FieldPair<MemorySpace>& fields,
               std::int64_t n_steps) override {
    if (coefficients_.uniform_kappa()) {
      run<true>(space, fields, n_steps);
    } else {
      run<false>(space, fields, n_steps);
    }
  }

 private:
  template <bool UniformKappa>
  void run(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps) {
    using Policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>,
                                         Order>;
    int const nx = coefficients_.nx;
    int const ny = coefficients_.ny;
    Policy const policy =
        std::is_same_v<Order, XY> ? Policy(space, {0, 0}, {nx, ny}, {tile_[0], tile_[1]})
                                  : Policy(space, {0, 0}, {ny, nx}, {tile_[0], tile_[1]});
    auto const& c = coefficients_;
    for (std::int64_t s = 0; s < n_steps; ++s, ++fields.step) {
      MDRangeStep<MemorySpace, UniformKappa> const step{
          fields.previous, fields.current,  c.code, c.kappa, c.kappa_uniform, c.sources.data(),
          time_of_step(c.t0, c.dt, fields.step)};
      Kokkos::parallel_for("wave2d::kokkos-mdrange::step", policy, step);
      std::swap(fields.previous, fields.current);
    }
  }

  Coefficients<MemorySpace> coefficients_;
  std::array<int, 2> tile_;
};

}  // namespace wave2d::kokkos

#endif
