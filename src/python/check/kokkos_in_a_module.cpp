// Links only if Kokkos can go into a shared object (a shared Kokkos, or a static one
// built with -fPIC): what the Python module needs.
#include <Kokkos_Core.hpp>

extern "C" int wave2d_check_kokkos_in_a_module(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    Kokkos::View<float*> a("a", 10), b("b", 10);
    Kokkos::deep_copy(a, b);
  }
  Kokkos::finalize();
  return 0;
}
