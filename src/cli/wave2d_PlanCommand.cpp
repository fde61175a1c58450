// `wave2d plan` and `wave2d backends --scene S`: what `auto` chooses for a scene, and why.
#include <cli/wave2d_Commands.hpp>
#include <cli/wave2d_KokkosArguments.hpp>
#include <cli/wave2d_Memory.hpp>
#include <cli/wave2d_Spaces.hpp>
#include <wave2d/plan/wave2d_Planner.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <iomanip>
#include <iostream>
#include <sstream>

namespace wave2d::cli {

namespace {

Scene checked_scene(std::string const& name) {
  Scene scene = load_scene(name).scene;
  validate(scene);
  return scene;
}

}  // namespace

void list_backends_for(std::ostream& out, std::string const& scene_name,
                       std::vector<char*> kokkos_arguments) {
  Scene const scene = checked_scene(scene_name);
  KokkosScope const kokkos(std::move(kokkos_arguments));
  for_each_space([&]<class ExecutionSpace>() {
    ExecutionSpace const space;
    check_memory(space, scene);
    Plan const plan =
        plan_backend(space, scene, Window::whole(scene.nx, scene.ny), PlanOptions{});
    for (auto const& note : plan.notes) std::cerr << "wave2d: note: " << note << "\n";
    list_backends_of<ExecutionSpace>(out, plan.summary() + " for " + scene.name);
  });
}

void plan_command(std::string const& scene_name, std::string const& space_option,
                  std::vector<char*> kokkos_arguments) {
  Scene const scene = checked_scene(scene_name);
  on_space(space_option, auto_backend, []<class ExecutionSpace>() {});  // an InputError now
  KokkosScope const kokkos(std::move(kokkos_arguments));
  on_space(space_option, auto_backend, [&]<class ExecutionSpace>() {
    ExecutionSpace const space;
    check_memory(space, scene);
    Window const whole = Window::whole(scene.nx, scene.ny);
    PlanOptions options;
    options.mode = PlanMode::measure;
    Plan const plan = plan_backend(space, scene, whole, options);
    for (auto const& note : plan.notes) std::cerr << "wave2d: note: " << note << "\n";
    std::cout << "scene     " << scene.name << ", " << scene.nx << " x " << scene.ny << "\n"
              << "space     " << ExecutionSpace::name() << " (" << plan.key.device << ", "
              << plan.key.threads << (plan.key.threads == 1 ? " thread" : " threads") << ")\n"
              << "trial     " << std::fixed << std::setprecision(3) << plan.trial_seconds
              << " s\n";
    int rank = 0;
    for (auto const& rate : plan.ranking) {
      std::cout << std::setw(5) << ++rank << ". " << std::left << std::setw(18) << rate.backend
                << std::right << std::setw(10) << std::setprecision(2) << rate.gcells_per_second
                << " GCells/s" << (rank == 1 ? "   <- auto" : "") << "\n";
    }
    std::cout << "estimate  " << estimate_backend(space, whole) << " (the rule, no trial)\n";
  });
}

}  // namespace wave2d::cli
