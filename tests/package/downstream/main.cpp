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
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

using ExecutionSpace = Kokkos::DefaultExecutionSpace;

// Steps each backend; the last simulation made is kept in `kept`.
int run(wave2d::Simulation<ExecutionSpace>*& kept) {
  ExecutionSpace space;

  // What the core library (wave2d::wave2d, without io) answers before large allocations.
  if (auto const available = wave2d::available_bytes(space)) {
    std::printf("%s: %.0f MiB available\n", ExecutionSpace::name(), *available / 1048576.0);
  }

  wave2d::Scene const scene = wave2d::builtin_scene("double-slit-small");
  double energy = 0.0;
  for (auto const& backend : wave2d::backends<ExecutionSpace>()) {
    wave2d::Simulation<ExecutionSpace> simulation(space, scene, backend.name);
    simulation.advance(space, 100);
    std::vector<float> const u = wave2d::to_host(space, simulation.current());
    double sum = 0.0;
    for (float const value : u) sum += double(value) * value;
    std::printf("%s after %lld steps on %s with %s: sum of u^2 = %.6g\n", scene.name.c_str(),
                static_cast<long long>(simulation.steps_done()), ExecutionSpace::name(),
                std::string(backend.name).c_str(), sum);
    if (!(sum > 0.0)) return 1;
    energy = sum;
    delete kept;
    kept = new wave2d::Simulation<ExecutionSpace>(std::move(simulation));
#ifdef DOWNSTREAM_IO
    std::filesystem::path const path = "downstream.npy";  // in the test's folder
    wave2d::write_npy(path, u, u, scene.nx, scene.ny);
    if (std::filesystem::file_size(path) <= 2 * u.size() * sizeof(float)) return 1;
    std::filesystem::remove(path);
#endif
  }
  return energy > 0.0 ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) {
  wave2d::Simulation<ExecutionSpace>* kept = nullptr;
  int status = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    status = run(kept);
  }
  if (!kept) return 1;
  // Kokkos finalized by its owner: the views of a simulation left over are not handed out
  // (it is not destroyed: its views cannot be freed any more).
  for (auto const& [name, use] :
       {std::pair<char const*, void (*)(wave2d::Simulation<ExecutionSpace> const&)>{
            "current", [](auto const& s) { (void)s.current(); }},
        {"receivers", [](auto const& s) { (void)s.receivers(); }}}) {
    try {
      use(*kept);
      std::printf("%s after Kokkos::finalize was not refused\n", name);
      status = 1;
    } catch (std::logic_error const&) {
    }
  }
  return status;
}
