#ifndef WAVE2D_SIMULATION_HPP
#define WAVE2D_SIMULATION_HPP

#include <backend/detail/wave2d_KokkosHelpers.hpp>
#include <backend/wave2d_DeviceCoefficients.hpp>
#include <backend/wave2d_Fields.hpp>
#include <core/wave2d_Window.hpp>
#include <scene/wave2d_Scene.hpp>
#include <simulation/wave2d_Backends.hpp>

#include <wave2d_KokkosCompat.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace wave2d {

// A scene being simulated by one backend on one execution space, on the whole grid or
// on a window of it (core/wave2d_Window.hpp: the fields are then the window's local
// grid). Every call takes the execution space instance first and runs on it; nothing
// fences globally, and Kokkos must be initialized by the caller.
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
  Simulation(ExecutionSpace const& space, Scene scene, std::string_view backend = "kokkos-mdrange",
             ValidationOptions options = {})
      : Simulation(space, std::move(scene), std::nullopt, backend, options) {}

  // The same on a window of the scene's grid (std::invalid_argument if it does not fit).
  Simulation(ExecutionSpace const& space, Scene scene, Window const& window,
             std::string_view backend = "kokkos-mdrange", ValidationOptions options = {})
      : Simulation(space, std::move(scene), std::optional<Window>(window), backend, options) {}

  // Back to u0 = u1 = 0 at step 0.
  void reset(ExecutionSpace const& space) {
    Details::fill(space, fields_.previous, 0.0f, "wave2d::Simulation::reset");
    Details::fill(space, fields_.current, 0.0f, "wave2d::Simulation::reset");
    fields_.step = 0;
  }

  // Resumes from a pair (u(t_{n-1}), u(t_n)) after n = `step` steps; copies the fields,
  // which must be contiguous row-major views (x fastest) of the local grid's extents.
  template <class Previous, class Current>
  void set_state(ExecutionSpace const& space, Previous const& previous, Current const& current,
                 std::int64_t step) {
    static_assert(is_row_major_field<Previous> && is_row_major_field<Current>,
                  "set_state takes rank-2 Kokkos::Views of float with LayoutRight");
    for (auto const* field : {&previous, &current}) {
      if (field->extent(0) != std::size_t(window_.local_ny()) ||
          field->extent(1) != std::size_t(window_.local_nx())) {
        throw std::invalid_argument("wave2d::Simulation::set_state: fields must be ny x nx = " +
                                    std::to_string(window_.local_ny()) + " x " +
                                    std::to_string(window_.local_nx()));
      }
      if (!field->span_is_contiguous()) {
        throw std::invalid_argument("wave2d::Simulation::set_state: fields must be contiguous");
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
  Window const& window() const { return window_; }
  std::string const& backend() const { return backend_; }
  // What the backend runs for this grid (tile, fused steps...).
  std::string configuration() const { return stepper_->configuration(); }

 private:
  template <class View>
  static constexpr bool is_row_major_field = [] {
    if constexpr (Kokkos::is_view<View>::value) {
      return View::rank == 2 && std::is_same_v<typename View::array_layout, Kokkos::LayoutRight> &&
             std::is_same_v<std::remove_const_t<typename View::value_type>, float>;
    } else {
      return false;
    }
  }();

  Simulation(ExecutionSpace const& space, Scene scene, std::optional<Window> window,
             std::string_view backend, ValidationOptions options)
      : scene_(checked(std::move(scene), options)),
        window_(window ? *window : Window::whole(scene_.nx, scene_.ny)),
        backend_(backend) {
    Kokkos::Profiling::ScopedRegion region("wave2d::Simulation::Simulation");
    coefficients_ = make_coefficients<ExecutionSpace, MemorySpace>(space, scene_, window_);
    stepper_ = make_stepper<ExecutionSpace, MemorySpace>(space, backend_, scene_, coefficients_);
    fields_.previous = Details::allocate<field_type>(space, "wave2d::Simulation::previous",
                                                     window_.local_ny(), window_.local_nx());
    fields_.current = Details::allocate<field_type>(space, "wave2d::Simulation::current",
                                                    window_.local_ny(), window_.local_nx());
    reset(space);
  }

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
  Window window_;
  std::string backend_;
  Coefficients<MemorySpace> coefficients_;
  FieldPair<MemorySpace> fields_;
  std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> stepper_;
};

}  // namespace wave2d

#endif
