// Steps one host kernel over a built-in scene inside one non-inlined function, so that
// an instruction counter can count that function alone (load-independent figures for
// docs/results/cpu/portable-vs-hand-tuned.md):
//
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured*' \
//     ./build/bench/wave2d_instruction_probe KERNEL STEPS [SCENE]
//
// KERNEL: plain-openmp (one thread), kokkos-mdrange or kokkos-tiled, each with its
// default configuration on the host space (Serial where Kokkos has it). Fields start
// at zero; the instructions per cell-step are callgrind's total / (cells x STEPS).
#include "wave2d_PlainLoop.hpp"

#include <wave2d/kokkos/wave2d_MDRangeStepper.hpp>
#include <wave2d/kokkos/wave2d_TiledStepper.hpp>
#include <wave2d/wave2d.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace {

#if defined(KOKKOS_ENABLE_SERIAL)
using Space = Kokkos::Serial;
#else
using Space = Kokkos::DefaultHostExecutionSpace;
#endif
using Memory = Space::memory_space;

template <class Stepper>
[[gnu::noinline]] void measured(Stepper& stepper, wave2d::FieldPair<Memory>& fields, int steps) {
  stepper.advance(Space(), fields, steps, wave2d::Receivers{});
  Space().fence();
}

[[gnu::noinline]] void measured_plain(wave2d::bench::PlainLoop& loop, int steps) {
  loop.advance(steps);
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s plain-openmp|kokkos-mdrange|kokkos-tiled STEPS [SCENE]\n",
                 argv[0]);
    return 2;
  }
  try {
    std::string const kernel = argv[1];
    int const steps = std::atoi(argv[2]);
    wave2d::Scene const scene = wave2d::builtin_scene(argc > 3 ? argv[3] : "double-slit");
    Space const space;
    std::string configuration;
    if (kernel == "plain-openmp") {
      wave2d::bench::PlainLoop loop(scene, 1);
      measured_plain(loop, steps);
      configuration = loop.configuration();
    } else {
      auto coefficients = wave2d::make_coefficients(space, scene);
      wave2d::FieldPair<Memory> fields{wave2d::Field<Memory>("previous", scene.ny, scene.nx),
                                       wave2d::Field<Memory>("current", scene.ny, scene.nx), 0};
      if (kernel == "kokkos-mdrange") {
        wave2d::kokkos::MDRangeStepper<Space, Memory> stepper(coefficients);
        measured(stepper, fields, steps);
        configuration = stepper.configuration();
      } else if (kernel == "kokkos-tiled") {
        wave2d::kokkos::TiledStepper<Space, Memory> stepper(space, coefficients);
        measured(stepper, fields, steps);
        configuration = stepper.configuration();
      } else {
        std::fprintf(stderr, "unknown kernel '%s'\n", kernel.c_str());
        return 2;
      }
    }
    std::printf("%s on %s, %s: %d steps of %lld cells (%s)\n", kernel.c_str(), Space::name(),
                scene.name.c_str(), steps, static_cast<long long>(scene.cells()),
                configuration.c_str());
  } catch (std::exception const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
