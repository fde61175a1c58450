// The arguments and environment variables that configure Kokkos, checked before
// Kokkos::initialize: it aborts with a backtrace, hangs or crashes on some of them.
#ifndef WAVE2D_CLI_KOKKOS_ARGUMENTS_HPP
#define WAVE2D_CLI_KOKKOS_ARGUMENTS_HPP

#include <vector>

namespace wave2d::cli {

// Throws InputError naming the first --kokkos-* argument (`arguments`, the program's
// name first) or variable (KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID, OMP_NUM_THREADS) that
// Kokkos would not take as it is: unknown, without its value, or a number out of range
// (OMP_NUM_THREADS: above Kokkos' limit).
void check_kokkos_arguments(std::vector<char*> const& arguments);

}  // namespace wave2d::cli

#endif
