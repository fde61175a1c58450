#ifndef WAVE2D_SIMULATION_HPP
#define WAVE2D_SIMULATION_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_DeviceCoefficients.hpp>
#include <wave2d/backend/wave2d_Fields.hpp>
#include <wave2d/backend/wave2d_Receivers.hpp>
#include <wave2d/core/wave2d_Window.hpp>
#include <wave2d/detail/wave2d_Instantiation.hpp>
#include <wave2d/plan/wave2d_Backends.hpp>
#include <wave2d/plan/wave2d_Planner.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/simulation/wave2d_AvailableMemory.hpp>
#include <wave2d/simulation/wave2d_FiniteCheck.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace wave2d {

namespace detail {
template <class ExecutionSpace, class MemorySpace>
class BorderStrips;
}  // namespace detail

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
  // Rows of time, one column per receiver: trace(r, i).
  using trace_type = Kokkos::View<float**, Kokkos::LayoutRight, MemorySpace>;

  // The largest steps_done(): one more, the rows of a trace from step 0, is still an
  // int64. Steps beyond it are refused (std::invalid_argument), never wrapped.
  static constexpr std::int64_t max_steps = std::numeric_limits<std::int64_t>::max() - 1;

  // Validates the scene (SceneError), checks that the grid fits in the memory available
  // (InsufficientMemory, simulation/wave2d_AvailableMemory.hpp), picks the backend
  // (UnknownBackend; "auto": the fastest of the space's for this grid, as `plan` says,
  // plan/wave2d_Planner.hpp), precomputes the coefficients and starts from u0 = u1 = 0
  // at step 0.
  Simulation(ExecutionSpace const& space, Scene scene, std::string_view backend = auto_backend,
             ValidationOptions options = {}, PlanOptions const& plan = {})
      : Simulation(space, std::move(scene), std::nullopt, backend, options, plan) {}

  // The same on a window of the scene's grid (std::invalid_argument if it does not fit).
  Simulation(ExecutionSpace const& space, Scene scene, Window const& window,
             std::string_view backend = auto_backend, ValidationOptions options = {},
             PlanOptions const& plan = {})
      : Simulation(space, std::move(scene), std::optional<Window>(window), backend, options, plan) {
  }

  // Back to u0 = u1 = 0 at step 0; the receivers' trace restarts there.
  void reset(ExecutionSpace const& space);

  // Resumes from a pair (u(t_{n-1}), u(t_n)) after n = `step` steps (0 .. max_steps);
  // copies the fields, which must be contiguous row-major views (x fastest) of the local
  // grid's extents, finite in the owned cells (std::invalid_argument otherwise, the state
  // unchanged; a window's halo is its neighbours' to give). They may view this
  // simulation's own fields, swapped or not.
  template <class Previous, class Current>
  void set_state(ExecutionSpace const& space, Previous const& previous, Current const& current,
                 std::int64_t step);

  // Runs n_steps steps; the backend records the receivers at each of them. Refuses
  // (std::invalid_argument) a count that would pass max_steps, and a trace that would
  // not fit in memory (InsufficientMemory), before any step.
  // Where auto chose the backend on a host space, its first steps check the choice
  // (check_choice).
  void advance(ExecutionSpace const& space, std::int64_t n_steps);

  // The receivers' trace (Scene::receivers), in MemorySpace, filled by the backend's
  // kernels: row r holds u at each receiver, in the scene's order, after
  // receivers_first_step() + r steps, for every step up to steps_done(); so
  // (steps_done() + 1) x receivers after a run from step 0. The trace restarts, with
  // the fields' u(t_n) as row 0, at reset(), set_state() and restart_receivers();
  // restore_receivers() puts back the rows of an earlier run (a checkpoint's). Its
  // buffer grows by doubling (at least to what each advance() needs): 4 bytes per
  // receiver and step, kept until the trace restarts (reserve_receivers() allocates
  // exactly what a run needs, once). A window's simulation records the receivers of its
  // owned cells; the other columns stay 0. The view may change with the next advance():
  // take it again after it.
  trace_type receivers() const {
    require_usable("wave2d::Simulation::receivers");
    auto const rows = std::size_t(fields_.step - trace_first_step_ + 1);
    return Kokkos::subview(trace_, std::pair<std::size_t, std::size_t>(0, rows), Kokkos::ALL);
  }
  std::int64_t receivers_first_step() const {
    require_not_moved("wave2d::Simulation::receivers_first_step");
    return trace_first_step_;
  }

  // Room in the trace for n_steps more steps: no growth, and so no fence for freeing
  // the old buffer (Kokkos fences globally when it frees memory), in the advance() calls
  // that take it there.
  void reserve_receivers(ExecutionSpace const& space, std::int64_t n_steps);

  // Throws what advance(space, n_steps) would throw before any step, allocating nothing:
  // for a caller that then advances in shorter runs, the trace growing as they go.
  void check_advance(ExecutionSpace const& space, std::int64_t n_steps) const {
    std::int64_t const last = step_after("wave2d::Simulation::advance", n_steps);
    require_trace_memory(space, last - trace_first_step_ + 1);
  }

  // Drops the trace's rows: it restarts at steps_done() (long runs that write it out
  // as they go keep its memory bounded).
  void restart_receivers(ExecutionSpace const& space);

  // Puts back the rows of a trace recorded before (a checkpoint's), so that the trace
  // goes on from them as if the run had never stopped: `rows` holds u at the receivers
  // after first_step, first_step + 1, ... steps up to steps_done(), as receivers() gives
  // them (its last row is the one set_state() records). Copied, from any memory space;
  // called after set_state() (and reserve_receivers(), for a trace that never grows).
  // std::invalid_argument for rows of another shape or not finite.
  template <class Rows>
  void restore_receivers(ExecutionSpace const& space, Rows const& rows, std::int64_t first_step);

  // u(t_{n-1}) and u(t_n) after n = steps_done() steps. The views may change with
  // the next advance() or set_state(): take them again after it. Views of Kokkos: refused
  // outside its lifetime.
  field_type const& previous() const { return view("wave2d::Simulation::previous").previous; }
  field_type const& current() const { return view("wave2d::Simulation::current").current; }
  std::int64_t steps_done() const { return state("wave2d::Simulation::steps_done").step; }
  float time() const {
    return time_of_step(scene_.t0, scene_.dt, state("wave2d::Simulation::time").step);
  }

  Scene const& scene() const {
    require_not_moved("wave2d::Simulation::scene");
    return scene_;
  }
  Window const& window() const {
    require_not_moved("wave2d::Simulation::window");
    return window_;
  }
  // The backend that runs: the one asked for, or the one `auto` chose.
  std::string const& backend() const {
    require_not_moved("wave2d::Simulation::backend");
    return backend_;
  }
  // What the backend runs for this grid (tile, fused steps...), and how `auto` chose it.
  std::string configuration() const {
    return stepper_configuration() + (plan_ ? " (" + plan_->summary() + ")" : "");
  }
  // What the backend runs alone: the same for every run of one backend on one grid.
  std::string stepper_configuration() const {
    require_not_moved("wave2d::Simulation::configuration");
    return stepper_->configuration();
  }
  // How `auto` chose the backend; null when a backend was named.
  Plan const* plan() const {
    require_not_moved("wave2d::Simulation::plan");
    return plan_ ? &*plan_ : nullptr;
  }

 private:
  // A distributed rank's border strips take their window's state whatever it holds: a run
  // whose field stops being finite finds it by its check after the steps, as one process.
  friend class detail::BorderStrips<ExecutionSpace, MemorySpace>;
  // set_state of the fields as they are, written in place, unchecked.
  void set_step_in_place(ExecutionSpace const& space, std::int64_t step) {
    fields_.step = step;
    restart_receivers(space);
  }

  template <class View>
  static constexpr bool is_row_major_field = [] {
    if constexpr (Kokkos::is_view<View>::value) {
      return View::rank == 2 && std::is_same_v<typename View::array_layout, Kokkos::LayoutRight> &&
             std::is_same_v<std::remove_const_t<typename View::value_type>, float>;
    } else {
      return false;
    }
  }();

  // Where a view lies against one of the fields: apart, on it exactly, or across it.
  enum class Overlap { none, same, partial };
  template <class View>
  static Overlap overlap(View const& view, field_type const& field) {
    auto const begin = reinterpret_cast<std::uintptr_t>(view.data());
    auto const field_begin = reinterpret_cast<std::uintptr_t>(field.data());
    if (begin == field_begin && view.span() == field.span()) return Overlap::same;
    bool const apart = begin >= field_begin + field.span() * sizeof(float) ||
                       field_begin >= begin + view.span() * sizeof(float);
    return apart ? Overlap::none : Overlap::partial;
  }

  template <class View>
  void check_state_field(ExecutionSpace const& space, View const& field, char const* name) const {
    std::string const where = std::string("wave2d::Simulation::set_state: ") + name;
    if (field.extent(0) != std::size_t(window_.local_ny()) ||
        field.extent(1) != std::size_t(window_.local_nx())) {
      throw std::invalid_argument(where +
                                  " must be ny x nx = " + std::to_string(window_.local_ny()) +
                                  " x " + std::to_string(window_.local_nx()));
    }
    if (!field.span_is_contiguous()) throw std::invalid_argument(where + " must be contiguous");
    if (auto const cell = first_non_finite(space, field)) {
      throw std::invalid_argument(where + " is not finite at cell (" + std::to_string(cell->x) +
                                  ", " + std::to_string(cell->y) + ")");
    }
  }

  // The first cell, in the local grid, of the owned cells that is not finite (a window's
  // halo holds its neighbours' values, exchanged before they are read): by a kernel where
  // the view is in the space's memory, else on the host.
  template <class View>
  std::optional<FieldCell> first_non_finite(ExecutionSpace const& space, View const& field) const {
    using Space = typename View::memory_space;
    std::pair<int, int> const rows(window_.owned_y(), window_.owned_y() + window_.ny);
    std::pair<int, int> const columns(window_.owned_x(), window_.owned_x() + window_.nx);
    std::optional<FieldCell> cell;
    if constexpr (std::is_same_v<Space, MemorySpace>) {
      cell = finite_check_.first_non_finite(space, Kokkos::subview(field, rows, columns));
    } else if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space>::accessible) {
      for (int y = rows.first; y < rows.second && !cell; ++y) {
        for (int x = columns.first; x < columns.second && !cell; ++x) {
          if (!std::isfinite(field(y, x))) cell = FieldCell{x - columns.first, y - rows.first};
        }
      }
    } else {
      auto copy = detail::allocate<field_type>(space, "wave2d::Simulation::set_state",
                                               field.extent(0), field.extent(1));
      detail::copy(space, copy, field, "wave2d::Simulation::set_state");
      cell = finite_check_.first_non_finite(space, Kokkos::subview(copy, rows, columns));
    }
    if (cell) *cell = FieldCell{cell->x + columns.first, cell->y + rows.first};
    return cell;
  }

  // The fields <- (previous, current), which may view them: copied in an order that
  // reads each before it is written, swapped when they are the fields swapped.
  template <class Previous, class Current>
  void copy_state(ExecutionSpace const& space, Previous const& previous, Current const& current) {
    char const* const label = "wave2d::Simulation::set_state";
    Overlap const previous_on_current = overlap(previous, fields_.current);
    Overlap const current_on_previous = overlap(current, fields_.previous);
    bool const partial = previous_on_current == Overlap::partial ||
                         current_on_previous == Overlap::partial ||
                         overlap(previous, fields_.previous) == Overlap::partial ||
                         overlap(current, fields_.current) == Overlap::partial;
    if (previous_on_current == Overlap::same && current_on_previous == Overlap::same) {
      std::swap(fields_.previous, fields_.current);
    } else if (partial ||
               (previous_on_current != Overlap::none && current_on_previous != Overlap::none)) {
      FieldPair<MemorySpace> fresh;
      fresh.previous =
          detail::allocate<field_type>(space, label, window_.local_ny(), window_.local_nx());
      fresh.current =
          detail::allocate<field_type>(space, label, window_.local_ny(), window_.local_nx());
      detail::copy(space, fresh.previous, previous, label);
      detail::copy(space, fresh.current, current, label);
      fields_.previous = fresh.previous;
      fields_.current = fresh.current;
    } else if (current_on_previous != Overlap::none) {
      detail::copy(space, fields_.current, current, label);
      detail::copy(space, fields_.previous, previous, label);
    } else {
      detail::copy(space, fields_.previous, previous, label);
      detail::copy(space, fields_.current, current, label);
    }
  }

  // std::logic_error outside Kokkos' lifetime, which the application keeps.
  static void require_kokkos(char const* name) {
    if (!Kokkos::is_initialized() || Kokkos::is_finalized()) {
      throw std::logic_error(std::string(name) +
                             " needs Kokkos to be initialized (and not yet finalized) by the "
                             "application");
    }
  }

  // A call that would launch kernels or allocate: refused (std::logic_error) outside Kokkos'
  // lifetime, and on a simulation moved from.
  void require_usable(char const* name) const {
    require_kokkos(name);
    require_not_moved(name);
  }
  void require_not_moved(char const* name) const {
    if (!stepper_) throw std::logic_error(std::string(name) + ": the simulation was moved from");
  }
  FieldPair<MemorySpace> const& state(char const* name) const {
    require_not_moved(name);
    return fields_;
  }
  FieldPair<MemorySpace> const& view(char const* name) const {
    require_usable(name);
    return fields_;
  }

  // steps_done() + n_steps, refused where n_steps is negative or the sum passes max_steps.
  std::int64_t step_after(char const* name, std::int64_t n_steps) const {
    require_usable(name);
    if (n_steps < 0) throw std::invalid_argument(std::string(name) + ": negative steps");
    if (n_steps > max_steps - fields_.step) {
      throw std::invalid_argument(std::string(name) + ": " + std::to_string(n_steps) +
                                  " steps after step " + std::to_string(fields_.step) +
                                  " pass the largest step count, " + std::to_string(max_steps));
    }
    return fields_.step + n_steps;
  }

  Simulation(ExecutionSpace const& space, Scene scene, std::optional<Window> window,
             std::string_view backend, ValidationOptions options, PlanOptions const& plan);

  // What the run's check of auto's choice has measured (advance, check_choice).
  struct ChoiceCheck {
    std::int64_t sample = 1;         // steps a timed sample, doubled up to sample_seconds
    std::int64_t sampled_steps = 0;  // of the sample under way, and their time
    double sampled_seconds = 0.0;
    bool sized = false;
    std::vector<double> chosen, runner;  // GCells/s of each sample
    bool runner_warm = false;            // the runner-up's first sample is not counted
    std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> other;  // the runner-up's, on trial
    std::filesystem::path cache_directory;
    // The run's advance() calls once the samples are sized, and their steps: a run that
    // stops every few steps for its outputs measures rates of its own, not the grid's.
    std::int64_t calls = 0;
    std::int64_t called_steps = 0;
  };

  // The fastest of the plan's ranking but the backend chosen, if any.
  BackendRate const* runner_up() const {
    for (auto const& rate : plan_->ranking) {
      if (rate.backend != plan_->backend) return &rate;
    }
    return nullptr;
  }

  // Runs at most n_steps steps of the run as (part of) a timed sample, fenced, and returns
  // its steps.
  // Samples double until one takes sample_seconds; then the chosen backend's first
  // samples_per_backend samples: if their median is clearly below what the plan gives the
  // runner-up (under 0.9 of it) and the memory left holds the runner-up's buffers, the
  // runner-up runs as many after one more not counted (conclude_check). Either way the
  // check then ends.
  std::int64_t check_choice(ExecutionSpace const& space, std::int64_t n_steps) {
    constexpr std::size_t samples_per_backend = 3;
    constexpr double sample_seconds = 0.005;
    ChoiceCheck& check = *check_;
    bool const on_runner = check.chosen.size() == samples_per_backend;
    auto& stepper = on_runner ? check.other : stepper_;
    std::int64_t const steps = std::min(n_steps, check.sample - check.sampled_steps);
    fence(space, "wave2d::Simulation::check_choice");
    auto const start = std::chrono::steady_clock::now();
    stepper->advance(space, fields_, steps, trace_target());
    fence(space, "wave2d::Simulation::check_choice");
    // A call shorter than the sample (a run advancing a few steps between its outputs) adds
    // its part; the sample ends in a later call.
    check.sampled_steps += steps;
    check.sampled_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (check.sampled_steps < check.sample) return steps;
    double const seconds = std::exchange(check.sampled_seconds, 0.0);
    check.sampled_steps = 0;
    if (!check.sized) {
      if (seconds < sample_seconds && check.sample < (std::int64_t(1) << 40)) {
        check.sample *= 2;
        return steps;
      }
      check.sized = true;
    }
    if (on_runner && !check.runner_warm) {  // it paid for its buffers' first touch
      check.runner_warm = true;
      return steps;
    }
    double const cells = double(window_.local_nx()) * double(window_.local_ny());
    (on_runner ? check.runner : check.chosen)
        .push_back(cells * double(check.sample) / std::max(seconds, 1e-9) * 1e-9);
    auto const median = [](std::vector<double> v) {
      std::ranges::nth_element(v, v.begin() + v.size() / 2);
      return v[v.size() / 2];
    };
    if (!on_runner && check.chosen.size() == samples_per_backend) {
      // The runner-up may take a pair of buffers as large as the fields beside the run's:
      // where the memory left cannot hold them, the choice stands untried.
      double const pair_bytes = 2.0 * double(fields_.previous.span()) * sizeof(float);
      if (median(check.chosen) >= 0.9 * runner_up()->gcells_per_second ||
          !fits_in_memory(available_bytes(space), pair_bytes)) {
        check_.reset();
      } else {
        check.other = make_stepper<ExecutionSpace, MemorySpace>(space, runner_up()->backend, scene_,
                                                                coefficients_);
      }
    } else if (on_runner && check.runner.size() == samples_per_backend) {
      conclude_check(median(check.chosen), median(check.runner));
      check_.reset();
    }
    return steps;
  }

  // The chosen backend and the runner-up measured in the run: their rates replace the
  // plan's, the run takes the runner-up if it is clearly faster (1.05 times), and the plan
  // cache keeps what the run measured.
  void conclude_check(double chosen_rate, double runner_rate) {
    Plan& plan = *plan_;
    std::string const chosen = plan.backend;
    std::string const runner = runner_up()->backend;
    for (auto& rate : plan.ranking) {
      if (rate.backend == chosen) rate.gcells_per_second = chosen_rate;
      if (rate.backend == runner) rate.gcells_per_second = runner_rate;
    }
    std::ranges::stable_sort(plan.ranking, std::ranges::greater{}, &BackendRate::gcells_per_second);
    if (runner_rate > 1.05 * chosen_rate) {
      plan.switched = Plan::Switch{chosen, chosen_rate, runner_rate, fields_.step};
      plan.backend = runner;
      backend_ = runner;
      stepper_ = std::move(check_->other);
    }
    std::filesystem::path const& folder = check_->cache_directory;
    if (folder.empty() || plan.mode == PlanMode::estimate) return;
    // Calls of under a quarter of a sample on average: stops for outputs every few steps,
    // which cost a backend fusing many steps a pass more than one fusing none.
    ChoiceCheck const& check = *check_;
    if (check.calls > 0 &&
        4.0 * double(check.called_steps) < double(check.calls) * double(check.sample)) {
      if (plan.switched) {
        std::int64_t const steps = check.called_steps / check.calls;
        plan.switched->not_kept = "the run stepped " + std::to_string(steps) +
                                  (steps == 1 ? " step" : " steps") +
                                  " at a time between its outputs, unlike most runs";
      }
      return;
    }
    auto const not_kept = write_cached_plan(folder, plan.key, {plan.backend, plan.ranking});
    if (plan.switched) {
      plan.switched->cache_corrected = !not_kept;
      plan.switched->not_kept = not_kept.value_or("");
    }
    if (!not_kept) {
      plan.cache_file = plan_cache_file(folder, plan.key);
      return;
    }
    // The plan's own notes may already say why the cache cannot keep it.
    std::string const note = "the plan is not kept: " + *not_kept;
    if (std::ranges::find(plan.notes, note) == plan.notes.end()) plan.notes.push_back(note);
  }

  Receivers trace_target() const {
    Receivers target = coefficients_.params().receivers;
    target.trace = trace_.data();
    target.first_step = trace_first_step_;
    if (target.trace == nullptr) target.count = 0;
    return target;
  }

  // Room for `rows` rows of the trace, the rows there are kept. Grows to twice the rows
  // there were where that is more and fits in memory.
  void reserve_trace(ExecutionSpace const& space, std::int64_t rows) {
    auto const had = std::int64_t(trace_.extent(0));
    if (rows <= had) return;
    auto const columns = std::int64_t(scene_.receivers.size());
    if (columns == 0) {  // no memory, so no free (and no fence Kokkos makes for one)
      trace_ = trace_type(static_cast<float*>(nullptr), std::size_t(rows), 0);
      return;
    }
    require_trace_memory(space, rows);
    double const row_bytes = double(columns) * sizeof(float);
    std::int64_t capacity = rows;
    if (had > rows / 2 && fits_in_memory(available_bytes(space), 2.0 * double(had) * row_bytes)) {
      capacity = 2 * had;  // had rows fit in memory: twice as many is far from overflow
    }
    auto grown = detail::allocate<trace_type>(space, "wave2d::Simulation::receivers",
                                              std::size_t(capacity), std::size_t(columns));
    detail::fill(space, grown, 0.0f, "wave2d::Simulation::receivers");
    auto const kept = std::size_t(fields_.step - trace_first_step_ + 1);
    if (had > 0 && kept > 0) {
      std::pair<std::size_t, std::size_t> const old_rows(0, std::min(kept, std::size_t(had)));
      detail::copy(space, Kokkos::subview(grown, old_rows, Kokkos::ALL),
                   Kokkos::subview(trace_, old_rows, Kokkos::ALL), "wave2d::Simulation::receivers");
    }
    trace_ = grown;
  }

  void require_trace_memory(ExecutionSpace const& space, std::int64_t rows) const {
    std::size_t const columns = scene_.receivers.size();
    if (columns == 0) return;
    require_memory(space, double(rows) * double(columns) * sizeof(float),
                   "the receivers' trace (" + std::to_string(rows) + " steps x " +
                       std::to_string(columns) + (columns == 1 ? " receiver)" : " receivers)"));
  }

  // What the constructor allocates per local cell, generously: the field pair, the cell
  // codes and κ, a backend's scratch pair; on the host, the coefficients it precomputes.
  void require_grid_memory(ExecutionSpace const& space) const {
    double const cells = double(window_.local_nx()) * double(window_.local_ny());
    std::string const grid = "the " + std::to_string(window_.local_nx()) + " x " +
                             std::to_string(window_.local_ny()) + " grid";
    bool const on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
    require_memory(space, cells * sizeof(float) * (on_host ? 8.0 : 6.0), grid);
    if (!on_host) {
      require_memory(Kokkos::DefaultHostExecutionSpace(), cells * sizeof(float) * 2.0, grid);
    }
  }

  static Scene checked(Scene scene, ValidationOptions options) {
    require_kokkos("wave2d::Simulation");
    validate(scene, options);
    return scene;
  }

  Scene scene_;
  Window window_;
  std::string backend_;
  Coefficients<MemorySpace> coefficients_;
  FieldPair<MemorySpace> fields_;
  FiniteCheck<ExecutionSpace, MemorySpace> finite_check_;  // of the states set_state() takes
  trace_type trace_;  // capacity rows x receivers; see receivers()
  std::int64_t trace_first_step_ = 0;
  std::unique_ptr<Stepper<ExecutionSpace, MemorySpace>> stepper_;
  std::optional<Plan> plan_;
  std::optional<ChoiceCheck> check_;  // while auto's choice is being checked
};

template <class ExecutionSpace, class MemorySpace>
void Simulation<ExecutionSpace, MemorySpace>::reset(ExecutionSpace const& space) {
  require_usable("wave2d::Simulation::reset");
  detail::fill(space, fields_.previous, 0.0f, "wave2d::Simulation::reset");
  detail::fill(space, fields_.current, 0.0f, "wave2d::Simulation::reset");
  fields_.step = 0;
  restart_receivers(space);
}

template <class ExecutionSpace, class MemorySpace>
template <class Previous, class Current>
void Simulation<ExecutionSpace, MemorySpace>::set_state(ExecutionSpace const& space,
                                                        Previous const& previous,
                                                        Current const& current, std::int64_t step) {
  static_assert(is_row_major_field<Previous> && is_row_major_field<Current>,
                "set_state takes rank-2 Kokkos::Views of float with LayoutRight");
  require_usable("wave2d::Simulation::set_state");
  check_state_field(space, previous, "previous");
  check_state_field(space, current, "current");
  if (step < 0 || step > max_steps) {
    throw std::invalid_argument("wave2d::Simulation::set_state: step " + std::to_string(step) +
                                " is not in 0 .. " + std::to_string(max_steps));
  }
  copy_state(space, previous, current);
  fields_.step = step;
  restart_receivers(space);
}

template <class ExecutionSpace, class MemorySpace>
void Simulation<ExecutionSpace, MemorySpace>::advance(ExecutionSpace const& space,
                                                      std::int64_t n_steps) {
  std::int64_t const last = step_after("wave2d::Simulation::advance", n_steps);
  Kokkos::Profiling::ScopedRegion region("wave2d::Simulation::advance");
  reserve_trace(space, last - trace_first_step_ + 1);
  if (check_ && check_->sized) {
    ++check_->calls;
    check_->called_steps = std::min(check_->called_steps, max_steps - n_steps) + n_steps;
  }
  while (check_ && n_steps > 0) n_steps -= check_choice(space, n_steps);
  if (n_steps > 0) stepper_->advance(space, fields_, n_steps, trace_target());
}

template <class ExecutionSpace, class MemorySpace>
void Simulation<ExecutionSpace, MemorySpace>::reserve_receivers(ExecutionSpace const& space,
                                                                std::int64_t n_steps) {
  std::int64_t const last = step_after("wave2d::Simulation::reserve_receivers", n_steps);
  reserve_trace(space, last - trace_first_step_ + 1);
}

template <class ExecutionSpace, class MemorySpace>
void Simulation<ExecutionSpace, MemorySpace>::restart_receivers(ExecutionSpace const& space) {
  require_usable("wave2d::Simulation::restart_receivers");
  trace_first_step_ = fields_.step;
  reserve_trace(space, 1);
  if (trace_.extent(1) == 0) return;
  detail::fill(space, trace_, 0.0f, "wave2d::Simulation::restart_receivers");
  Receivers target = trace_target();
  record_receivers(space, target, fields_.current.data(), coefficients_.params().pitch,
                   fields_.step);
}

template <class ExecutionSpace, class MemorySpace>
template <class Rows>
void Simulation<ExecutionSpace, MemorySpace>::restore_receivers(ExecutionSpace const& space,
                                                                Rows const& rows,
                                                                std::int64_t first_step) {
  static_assert(is_row_major_field<Rows>,
                "restore_receivers takes a rank-2 Kokkos::View of float with LayoutRight");
  char const* const name = "wave2d::Simulation::restore_receivers";
  require_usable(name);
  if (first_step < 0 || first_step > fields_.step) {
    throw std::invalid_argument(std::string(name) + ": first step " + std::to_string(first_step) +
                                " is not in 0 .. " + std::to_string(fields_.step));
  }
  auto const expected_rows = std::size_t(fields_.step - first_step + 1);
  if (rows.extent(0) != expected_rows || rows.extent(1) != scene_.receivers.size()) {
    throw std::invalid_argument(std::string(name) + ": rows must be " +
                                std::to_string(expected_rows) + " x " +
                                std::to_string(scene_.receivers.size()) + " (steps x receivers)");
  }
  if (!rows.span_is_contiguous()) {
    throw std::invalid_argument(std::string(name) + ": rows must be contiguous");
  }
  {  // as set_state, no state that is not finite
    // Read where they are on the host; else copied on `space` (Kokkos' mirror would fence
    // every instance).
    std::vector<float> copied;
    float const* values = nullptr;
    if constexpr (std::is_same_v<typename Rows::memory_space, Kokkos::HostSpace>) {
      values = rows.data();
    } else {
      copied = to_host(space, rows);
      values = copied.data();
    }
    auto const bad = std::find_if(values, values + rows.size(),
                                  [](float value) { return !std::isfinite(value); });
    if (bad != values + rows.size()) {
      auto const at = std::size_t(bad - values);
      throw std::invalid_argument(std::string(name) + ": row " +
                                  std::to_string(at / rows.extent(1)) + ", receiver " +
                                  std::to_string(at % rows.extent(1)) + " is not finite");
    }
  }
  trace_first_step_ = fields_.step;  // nothing to keep if the buffer grows
  reserve_trace(space, std::int64_t(expected_rows));
  trace_first_step_ = first_step;
  if (trace_.extent(1) == 0) return;
  detail::copy(
      space,
      Kokkos::subview(trace_, std::pair<std::size_t, std::size_t>(0, expected_rows), Kokkos::ALL),
      rows, name);
}

template <class ExecutionSpace, class MemorySpace>
Simulation<ExecutionSpace, MemorySpace>::Simulation(ExecutionSpace const& space, Scene scene,
                                                    std::optional<Window> window,
                                                    std::string_view backend,
                                                    ValidationOptions options,
                                                    PlanOptions const& plan)
    : scene_(checked(std::move(scene), options)),
      window_(window ? *window : Window::whole(scene_.nx, scene_.ny)),
      backend_(backend),
      finite_check_(space) {
  Kokkos::Profiling::ScopedRegion region("wave2d::Simulation::Simulation");
  validate_window(scene_, window_);  // before its size is taken as the memory needed
  require_grid_memory(space);
  coefficients_ = make_coefficients<ExecutionSpace, MemorySpace>(space, scene_, window_);
  fields_.previous = detail::allocate<field_type>(space, "wave2d::Simulation::previous",
                                                  window_.local_ny(), window_.local_nx());
  fields_.current = detail::allocate<field_type>(space, "wave2d::Simulation::current",
                                                 window_.local_ny(), window_.local_nx());
  if (backend_ == auto_backend) {  // a trial steps the fields, which reset() then zeroes
    auto planned =
        plan_stepper<ExecutionSpace, MemorySpace>(space, scene_, coefficients_, plan, fields_);
    plan_ = std::move(planned.plan);
    backend_ = plan_->backend;
    if (planned.stepper) {  // the trial's, not built again
      stepper_ = std::move(planned.stepper);
      fields_.previous = planned.fields.previous;
      fields_.current = planned.fields.current;
    }
  }
  if (!stepper_) {
    stepper_ = make_stepper<ExecutionSpace, MemorySpace>(space, backend_, scene_, coefficients_);
  }
  // Every backend of a host space gives the same bits: there the run may change its
  // backend on the way.
  if (plan_ && detail::runs_on_host<ExecutionSpace> && runner_up()) {
    check_.emplace();
    check_->cache_directory = plan.cache_directory;
    // Samples in whole fused passes of both.
    check_->sample =
        std::max({1, find_backend<ExecutionSpace, MemorySpace>(backend_).fused_steps,
                  find_backend<ExecutionSpace, MemorySpace>(runner_up()->backend).fused_steps});
  }
  reset(space);
}

// The library's instantiations (detail/wave2d_Instantiation.hpp).
#define WAVE2D_SIMULATION_INSTANTIATIONS(PREFIX, SPACE)                                   \
  PREFIX class Simulation<SPACE, SPACE::memory_space>;                                    \
  PREFIX void Simulation<SPACE, SPACE::memory_space>::set_state(                          \
      SPACE const&, Field<SPACE::memory_space> const&, Field<SPACE::memory_space> const&, \
      std::int64_t);                                                                      \
  PREFIX void Simulation<SPACE, SPACE::memory_space>::set_state(                          \
      SPACE const&, detail::HostRows const&, detail::HostRows const&, std::int64_t);      \
  PREFIX void Simulation<SPACE, SPACE::memory_space>::restore_receivers(                  \
      SPACE const&, detail::HostRows const&, std::int64_t);
WAVE2D_EXTERN_INSTANTIATIONS(WAVE2D_SIMULATION_INSTANTIATIONS)

}  // namespace wave2d

#endif
