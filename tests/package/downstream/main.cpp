// Embeds wave2d the way an application does: it owns Kokkos, wave2d runs on the
// execution space instance it is given. Uses each component it was built with.
#include <wave2d/wave2d.hpp>
#ifdef DOWNSTREAM_IO
#include <wave2d/io/wave2d_Output.hpp>
#endif
#ifdef DOWNSTREAM_DISTRIBUTED
#include <wave2d/distributed/wave2d_DistributedSimulation.hpp>
#endif

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <filesystem>
#include <vector>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using ExecutionSpace = Kokkos::DefaultExecutionSpace;
  ExecutionSpace space;

  wave2d::Scene const scene = wave2d::builtin_scene("double-slit-small");
  double energy = 0.0;
  for (auto const& backend : wave2d::backends<ExecutionSpace>()) {
    wave2d::Simulation<ExecutionSpace> simulation(space, scene, backend.name);
    simulation.advance(space, 100);
    auto const current =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), simulation.current());
    double sum = 0.0;
    for (std::size_t y = 0; y < current.extent(0); ++y) {
      for (std::size_t x = 0; x < current.extent(1); ++x) sum += current(y, x) * current(y, x);
    }
    std::printf("%s after %lld steps on %s with %s: sum of u^2 = %.6g\n", scene.name.c_str(),
                static_cast<long long>(simulation.steps_done()), ExecutionSpace::name(),
                std::string(backend.name).c_str(), sum);
    if (!(sum > 0.0)) return 1;
    energy = sum;
#ifdef DOWNSTREAM_IO
    std::vector<float> u(current.data(), current.data() + current.size());
    std::filesystem::path const path = "downstream.npy";  // in the test's folder
    wave2d::write_npy(path, u, u, scene.nx, scene.ny);
    if (std::filesystem::file_size(path) <= 2 * u.size() * sizeof(float)) return 1;
    std::filesystem::remove(path);
#endif
  }
  return energy > 0.0 ? 0 : 1;
}
