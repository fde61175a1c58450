// The sequential reference as a backend, for host-accessible fields.
#ifndef WAVE2D_REFERENCE_STEPPER_HPP
#define WAVE2D_REFERENCE_STEPPER_HPP

#include <backend/wave2d_Stepper.hpp>
#include <reference/wave2d_Reference.hpp>

#include <utility>

namespace wave2d::reference {

// Reads the scene itself, not the precomputed coefficients, so it checks those too.
template <class ExecutionSpace, class MemorySpace>
class ReferenceStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible);

 public:
  ReferenceStepper(Scene scene, Window const& window) : scene_(std::move(scene)), window_(window) {}

  void advance(ExecutionSpace const& space, FieldPair<MemorySpace>& fields,
               std::int64_t n_steps) override {
    wave2d::fence(space, "wave2d::reference: wait for the fields");
    auto const result =
        run(scene_, window_, fields.step, n_steps, fields.previous.data(), fields.current.data());
    if (result.first != fields.previous.data()) std::swap(fields.previous, fields.current);
    fields.step += n_steps;
  }

  std::string configuration() const override { return "sequential"; }

 private:
  Scene scene_;
  Window window_;
};

}  // namespace wave2d::reference

#endif
