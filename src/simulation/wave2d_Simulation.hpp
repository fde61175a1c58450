#ifndef WAVE2D_SIMULATION_HPP
#define WAVE2D_SIMULATION_HPP

#include <scene/wave2d_Scene.hpp>
#include <simulation/detail/wave2d_KokkosHelpers.hpp>
#include <simulation/wave2d_Backends.hpp>
#include <simulation/wave2d_DeviceCoefficients.hpp>
#include <simulation/wave2d_Fields.hpp>

#include <wave2d_KokkosCompat.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace wave2d {

// A scene being simulated by one backend on one execution space. Every call takes
// the execution space instance first and runs on it; nothing fences globally, and
// Kokkos must be initialized by the caller.
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
class Simulation {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>);
  static_assert(Kokkos::is_memory_space_v<MemorySpace>);
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible,
                "the execution space must be able to access the memory space");

 public:
  using execution_space = ExecutionSpace;
  using memory_space = MemorySpace;
  using field_type = Field<MemorySpace>;

  // Validates the scene (SceneError), picks the backend (UnknownBackend), precomputes
  // the coefficients and starts from u0 = u1 = 0 at step 0.
  Simulation(ExecutionSpace const& space, Scene scene,
             std::string_view backend = "kokkos-mdrange", ValidationOptions options = {})
      : scene_(checked(std::move(scene), options)), backend_(backend) {
    Kokkos::Profiling::ScopedRegion region("wave2d::Simulation::Simulation");
    coefficients_ = make_coefficients<ExecutionSpace, MemorySpace>(space, scene_);
    stepper_ = make_stepper<ExecutionSpace, MemorySpace>(backend_, scene_, coefficients_);
    fields_.previous = Details::allocate<field_type>(space, "wave2d::Simulation::previous",
                                                     scene_.ny, scene_.nx);
    fields_.current = Details::allocate<field_type>(space, "wave2d::Simulation::current",
                                                    scene_.ny, scene_.nx);
    reset(space);
  }

  // Back to u0 = u1 = 0 at step 0.
  void reset(ExecutionSpace const& space) {
    Details::fill(space, fields_.previous, 0.0f, "wave2d::Simulation::reset");
    Details::fill(space, fields_.current, 0.0f, "wave2d::Simulation::reset");
    fields_.step = 0;
  }

  // Resumes from a pair (u(t_{n-1}), u(t_n)) after n = `step` steps; copies the fields.
  template <class Previous, class Current>
  void set_state(ExecutionSpace const& space, Previous const& previous, Current const& current,
                 std::int64_t step) {
    for (auto const* field : {&previous, &current}) {
      if (field->extent(0) != std::size_t(scene_.ny) ||
          field->extent(1) != std::size_t(scene_.nx)) {
        throw std::invalid_argument("wave2d::Simulation::set_state: fields must be ny x nx = " +
                                    std::to_string(scene_.ny) + " x " +
                                    std::to_string(scene_.nx));
      }
    }
    if (step < 0) throw std::invalid_argument("wave2d::Simulation::set_state: negative step");
    Details::copy(space, fields_.previous, previous, "wave2d::Simulation::set_state");
    Details::copy(space, fields_.current, current, "wave2d::Simulation::set_state");
    fields_.step = step;
  }

  void advance(ExecutionSpace const& space, std::int64_t n_steps) {
    if (n_steps < 0) throw std::invalid_argument("wave2d::Simulation::advance: negative steps");
    Kokkos::Profiling::ScopedRegion region("wave2d::Simulation::advance");
    stepper_->advance(space, fields_, n_steps);
  }

  // u(t_{n-1}) and u(t_n) after n = steps_done() steps. The views may change with
  // the next advance(): take them again after it.
  field_type const& previous() const { return fields_.previous; }
  field_type const& current() const { return fields_.current; }
  std::int64_t steps_done() const { return fields_.step; }
  float time() const { return time_of_step(scene_.t0, scene_.dt, fields_.step); }

  Scene const& scene() const { return scene_; }
  std::string const& backend() const { return backend_; }

 private:
  static Scene checked(Scene scene, ValidationOptions options) {
    if (!Kokkos::is_initialized() || Kokkos::is_finalized()) {
      throw std::logic_error(
          "wave2d::Simulation needs Kokkos to be initialized (and not yet finalized) by the "
          "application");
    }
    validate(scene, options);
    return scene;
  }

  Scene scene_;
  std::string backend_;
  Coefficients<MemorySpace> coefficients_;
  FieldPair<MemorySpace> fields_;
  std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> stepper_;
};

}  // namespace wave2d

#endif
