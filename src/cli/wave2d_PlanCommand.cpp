// `wave2d backends` and `wave2d plan`: the backends there are, and what `auto` chooses for a
// scene, and why.
#include <cli/wave2d_Commands.hpp>
#include <cli/wave2d_KokkosArguments.hpp>
#include <wave2d/plan/wave2d_Planner.hpp>
#include <wave2d/run/wave2d_Experiment.hpp>
#include <wave2d/run/wave2d_RunMemory.hpp>
#include <wave2d/run/wave2d_Spaces.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <iomanip>
#include <iostream>

namespace wave2d::cli {

namespace {

// Planning measures one process's whole grid: under mpirun every rank would measure it and
// write the same plan-cache entry at once (a distributed run with auto plans its windows).
void refuse_ranks(char const* command) {
  if (launched_ranks() > 1) {
    throw InputError(std::string(command) +
                     " measures the grid on one process: run it without mpirun");
  }
}

// The scene, checked; InputError for what the user named.
Scene checked_scene(std::string const& name) {
  try {
    SceneFile file = load_scene(name);
    validate(file);  // a file's problem named at its key, as `run` names it
    return std::move(file.scene);
  } catch (std::exception const& e) {
    throw InputError(e.what());
  }
}

// Throws InputError when the scene does not fit in the space's memory.
template <class ExecutionSpace>
void check_fits(ExecutionSpace const& space, Scene const& scene) {
  try {
    check_memory(space, scene);
  } catch (InsufficientMemory const& e) {
    throw InputError(e.what());
  }
}

}  // namespace

void list_backends(std::ostream& out) {
  for_each_space([&]<class ExecutionSpace>() {
    list_backends_of<ExecutionSpace>(
        out, "the fastest of this space's for the grid, by a trial (kept in the plan cache)");
  });
}

void list_backends_for(std::ostream& out, std::string const& scene_name,
                       std::vector<char*> kokkos_arguments) {
  refuse_ranks("backends --scene");
  Scene const scene = checked_scene(scene_name);
  KokkosScope const kokkos(std::move(kokkos_arguments));
  for_each_space([&]<class ExecutionSpace>() {
    ExecutionSpace const space;
    check_fits(space, scene);
    Plan const plan = plan_backend(space, scene, Window::whole(scene.nx, scene.ny), PlanOptions{});
    for (auto const& note : plan.notes) std::cerr << "wave2d: note: " << one_line(note) << "\n";
    list_backends_of<ExecutionSpace>(out, plan.summary() + " for " + scene.name);
  });
}

void plan_command(std::string const& scene_name, std::string const& space_option,
                  std::vector<char*> kokkos_arguments) {
  refuse_ranks("plan");
  Scene const scene = checked_scene(scene_name);
  std::string space_name;
  try {
    space_name = space_for(space_option, auto_backend);
  } catch (std::exception const& e) {
    throw InputError(e.what());
  }
  KokkosScope const kokkos(std::move(kokkos_arguments));
  on_space(space_name, [&]<class ExecutionSpace>() {
    ExecutionSpace const space;
    check_fits(space, scene);
    Window const whole = Window::whole(scene.nx, scene.ny);
    PlanOptions options;
    options.mode = PlanMode::measure;
    Plan const plan = plan_backend(space, scene, whole, options);
    for (auto const& note : plan.notes) std::cerr << "wave2d: note: " << one_line(note) << "\n";
    std::cout << "scene     " << one_line(scene.name) << ", " << scene.nx << " x " << scene.ny
              << "\n"
              << "space     " << ExecutionSpace::name() << " (" << plan.key.device << ", "
              << counted(plan.key.threads, "thread") << ")\n"
              << "trial     " << std::fixed << std::setprecision(3) << plan.trial_seconds << " s\n";
    int rank = 0;
    for (auto const& rate : plan.ranking) {
      std::cout << std::setw(5) << ++rank << ". " << std::left << std::setw(18) << rate.backend
                << std::right << std::setw(10) << rate_text(rate.gcells_per_second) << " GCells/s"
                << (rank == 1 ? "   <- auto" : "") << "\n";
    }
    std::cout << "estimate  " << estimate_backend(space, whole) << " (the rule, no trial)\n";
    if (!plan.cache_file.empty()) std::cout << "kept in   " << plan.cache_file.string() << "\n";
  });
}

}  // namespace wave2d::cli
