// The sequential reference as a backend, for host-accessible fields.
#ifndef WAVE2D_REFERENCE_STEPPER_HPP
#define WAVE2D_REFERENCE_STEPPER_HPP

#include <wave2d/backend/wave2d_Stepper.hpp>
#include <wave2d/reference/wave2d_Reference.hpp>

#include <tuple>
#include <utility>

namespace wave2d::reference {

// Reads the scene itself, not the precomputed coefficients, so it checks those too.
template <class ExecutionSpace, class MemorySpace>
class ReferenceStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible);

 public:
  ReferenceStepper(Scene scene, Window const& window)
      : Stepper<ExecutionSpace, MemorySpace>("reference"),
        scene_(std::move(scene)),
        window_(window) {}

  std::string configuration() const override { return "sequential"; }

 private:
  // Records from the scene's receivers, not from receivers.cells: only the trace is used.
  void run_steps(ExecutionSpace const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
                 Receivers const& receivers) override {
    wave2d::fence(space, "wave2d::reference: wait for the fields");
    float* u0 = fields.previous.data();
    float* u1 = fields.current.data();
    for (std::int64_t s = 0; s < n_steps; ++s) {
      std::tie(u0, u1) = run(scene_, window_, fields.step + s, 1, u0, u1);
      if (receivers.trace) record(receivers, u1, fields.step + s + 1);
    }
    if (u0 != fields.previous.data()) std::swap(fields.previous, fields.current);
    fields.step += n_steps;
  }

  void record(Receivers const& receivers, float const* u, std::int64_t steps_done) const {
    Window const& w = window_;
    for (std::size_t i = 0; i < scene_.receivers.size(); ++i) {
      Receiver const& r = scene_.receivers[i];
      if (r.x < w.x0 || r.x >= w.x0 + w.nx || r.y < w.y0 || r.y >= w.y0 + w.ny) continue;
      std::int64_t const local =
          std::int64_t(r.y - w.origin_y()) * w.local_nx() + (r.x - w.origin_x());
      receivers.trace[(steps_done - receivers.first_step) * receivers.columns + std::int64_t(i)] =
          u[local];
    }
  }

  Scene scene_;
  Window window_;
};

}  // namespace wave2d::reference

#endif
