// Recording receivers from a field in the kernels' memory space, for the backends that
// record outside a fused loop and for the Simulation's first row.
#ifndef WAVE2D_RECEIVERS_HPP
#define WAVE2D_RECEIVERS_HPP

#include <wave2d/core/wave2d_KernelParams.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdint>

namespace wave2d {

// trace row of `steps_done` <- u at the receivers' cells.
struct RecordReceivers {
  Receivers receivers;
  float const* u;
  std::int64_t pitch;
  std::int64_t steps_done;

  KOKKOS_FUNCTION void operator()(int r) const {
    ReceiverCell const cell = receivers.cells[r];
    receivers.record(r, steps_done, u[cell.y * pitch + cell.x]);
  }
};

template <class ExecutionSpace>
void record_receivers(ExecutionSpace const& space, Receivers const& receivers, float const* u,
                      std::int64_t pitch, std::int64_t steps_done) {
  if (!receivers.active()) return;
  Kokkos::parallel_for("wave2d::record_receivers",
                       Kokkos::RangePolicy<ExecutionSpace>(space, 0, receivers.count),
                       RecordReceivers{receivers, u, pitch, steps_done});
}

}  // namespace wave2d

#endif
