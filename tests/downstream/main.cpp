// Embeds wave2d the way an application does: it owns Kokkos, wave2d runs on the
// execution space instance it is given.
#include <wave2d.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using ExecutionSpace = Kokkos::DefaultExecutionSpace;
  ExecutionSpace space;

  wave2d::Scene const scene = wave2d::builtin_scene("double-slit-small");
  wave2d::Simulation<ExecutionSpace> simulation(space, scene, "kokkos-mdrange");
  simulation.advance(space, 100);

  auto const current =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), simulation.current());
  double energy = 0.0;
  for (std::size_t y = 0; y < current.extent(0); ++y) {
    for (std::size_t x = 0; x < current.extent(1); ++x) energy += current(y, x) * current(y, x);
  }
  std::printf("%s after %lld steps on %s: sum of u^2 = %.6g\n", scene.name.c_str(),
              static_cast<long long>(simulation.steps_done()), ExecutionSpace::name(), energy);
  return energy > 0.0 ? 0 : 1;
}
