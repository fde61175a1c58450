#ifndef WAVE2D_REFERENCE_STEPPER_HPP
#define WAVE2D_REFERENCE_STEPPER_HPP

#include <reference/wave2d_Reference.hpp>
#include <simulation/wave2d_Stepper.hpp>

#include <utility>

namespace wave2d::Details {

// The sequential reference as a backend, for host-accessible fields: it reads the
// scene itself, not the precomputed coefficients, so it checks those too.
template <class ExecutionSpace, class MemorySpace>
class ReferenceStepper final : public Stepper<ExecutionSpace, MemorySpace> {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible);

 public:
  explicit ReferenceStepper(Scene scene) : scene_(std::move(scene)) {}

  void advance(ExecutionSpace const& space, FieldPair<MemorySpace>& fields,
               std::int64_t n_steps) override {
    wave2d::fence(space, "wave2d::reference: wait for the fields");
    auto const result = reference::run(scene_, fields.step, n_steps, fields.previous.data(),
                                       fields.current.data());
    if (result.first != fields.previous.data()) {
      std::swap(fields.previous, fields.current);
    }
    fields.step += n_steps;
  }

 private:
  Scene scene_;
};

}  // namespace wave2d::Details

#endif
