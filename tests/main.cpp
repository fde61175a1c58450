// The tests initialize Kokkos themselves, as any application embedding wave2d does.
#include <gtest/gtest.h>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
