// kokkos-mdrange: the portable backend, one MDRangePolicy launch per step on any
// Kokkos execution space.
#ifndef WAVE2D_MDRANGE_STEPPER_HPP
#define WAVE2D_MDRANGE_STEPPER_HPP

#include <backend/wave2d_DeviceCoefficients.hpp>
#include <backend/wave2d_Receivers.hpp>
#include <backend/wave2d_Stepper.hpp>
#include <core/wave2d_KernelParams.hpp>

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

  // Tiles are in the order's own dimension order: (x, y) for XY, (y, x) for YX.
  static std::string describe(bool xy, std::array<int, 2> tile) {
    return std::string(xy ? "order (x, y), tile " : "order (y, x), tile ") +
           std::to_string(tile[0]) + "x" + std::to_string(tile[1]);
  }
};

// One step: u_prev <- u(t + dt), given u_prev = u(t - dt) and u = u(t). With Record,
// the threads of the first row also record the receivers' u(t), the state after
// `steps_done` steps, which no thread writes: no launch of their own, and the stepper
// records the last state once per advance. Used on devices, where a launch per step
// costs microseconds (as cuda-naive does); on host spaces that test in every cell's
// update cost 10% of a double-slit-small run on Serial and a small kernel per step
// nothing measurable (bench receivers/, 10 interleaved repetitions on a shared 2-core
// machine), so there the stepper launches that instead.
template <bool UniformKappa, bool Record>
struct MDRangeStep {
  KernelParams params;
  float* u_prev;
  float const* u;
  float t;
  std::int64_t steps_done;

  KOKKOS_FUNCTION void update(int y, int x) const {
    std::int64_t const i = y * params.pitch + x;
    if constexpr (Record) {
      // Row 0's threads: a test the host loop over x hoists out of it.
      if (y == 0) {
        for (int r = x; r < params.receivers.count; r += params.nx) {
          ReceiverCell const cell = params.receivers.cells[r];
          params.receivers.record(r, steps_done, u[cell.y * params.pitch + cell.x]);
        }
      }
    }
    u_prev[i] = params.next_value<UniformKappa>(i, u_prev[i], u, t);
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

  void advance(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
               Receivers const& receivers) override {
    KernelParams params = coefficients_.params();
    params.receivers = receivers;
    bool const uniform = params.kappa == nullptr;
    if (!receivers.active()) {
      uniform ? run<true, false>(space, params, fields, n_steps)
              : run<false, false>(space, params, fields, n_steps);
      return;
    }
    uniform ? run<true, true>(space, params, fields, n_steps)
            : run<false, true>(space, params, fields, n_steps);
    if (n_steps > 0 && !on_host) {
      record_receivers(space, receivers, fields.current.data(), params.pitch, fields.step);
    }
  }

  std::string configuration() const override {
    return MDRangeTiling<ExecutionSpace>::describe(std::is_same_v<Order, XY>, tile_);
  }

 private:
  static constexpr bool on_host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  template <bool UniformKappa, bool Record>
  void run(ExecutionSpace const& space, KernelParams const& params, FieldPair<MemorySpace>& fields,
           std::int64_t n_steps) {
    using Policy =
        Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>, Order>;
    Policy const policy = std::is_same_v<Order, XY>
                              ? Policy(space, {0, 0}, {params.nx, params.ny}, {tile_[0], tile_[1]})
                              : Policy(space, {0, 0}, {params.ny, params.nx}, {tile_[0], tile_[1]});
    for (std::int64_t s = 0; s < n_steps; ++s, ++fields.step) {
      MDRangeStep<UniformKappa, Record && !on_host> const step{
          params, fields.previous.data(), fields.current.data(), params.time(fields.step),
          fields.step};
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
};

}  // namespace wave2d::kokkos

#endif
