// What a backend implements: time stepping bound to a window's coefficients.
#ifndef WAVE2D_STEPPER_HPP
#define WAVE2D_STEPPER_HPP

#include <wave2d/backend/wave2d_Fields.hpp>
#include <wave2d/core/wave2d_KernelParams.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdint>
#include <string>

namespace wave2d {

template <class ExecutionSpace, class MemorySpace>
class Stepper {
 public:
  virtual ~Stepper() = default;
  // Runs steps fields.step .. fields.step + n_steps - 1 on `space`. May exchange the
  // pair's views with buffers of its own: read fields.previous/current afresh after.
  // Records u of `receivers` after each of these steps (trace rows fields.step + 1 -
  // receivers.first_step onwards, which must exist); count 0 records nothing.
  // n_steps <= 0 runs nothing. Every backend's part is run_steps(), inside the profiling
  // region "wave2d::<backend>::advance".
  void advance(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
               Receivers const& receivers) {
    if (n_steps <= 0) return;
    Kokkos::Profiling::ScopedRegion region(region_);
    run_steps(space, fields, n_steps, receivers);
  }
  // What runs for this grid (tile, fused steps, iteration order...), as reports show it.
  virtual std::string configuration() const = 0;

 protected:
  // backend: the backend's name ("kokkos-tiled"), which names the profiling region.
  explicit Stepper(std::string const& backend) : region_("wave2d::" + backend + "::advance") {}

  // advance() for n_steps >= 1, as the backend runs it.
  virtual void run_steps(ExecutionSpace const& space, FieldPair<MemorySpace>& fields,
                         std::int64_t n_steps, Receivers const& receivers) = 0;

 private:
  std::string region_;
};

}  // namespace wave2d

#endif
