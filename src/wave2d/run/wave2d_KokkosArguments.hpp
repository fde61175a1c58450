// The arguments and environment variables that configure Kokkos, checked before an
// application (the program, the Python module) calls Kokkos::initialize: it aborts with a
// backtrace, hangs or crashes on some of them.
#ifndef WAVE2D_KOKKOS_ARGUMENTS_HPP
#define WAVE2D_KOKKOS_ARGUMENTS_HPP

#include <vector>

namespace wave2d {

// Throws std::invalid_argument naming the first --kokkos-* argument (`arguments`, the
// program's name first) or variable (KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID, the boolean ones,
// KOKKOS_MAP_DEVICE_ID_BY, OMP_NUM_THREADS, KOKKOS_TOOLS_LIBS) that Kokkos would not take as
// it is (it aborts on most): unknown, without its value, empty, not a boolean, a
// number out of range (OMP_NUM_THREADS: above Kokkos' limit), a tool library that does
// not load, a setting given twice.
void check_kokkos_arguments(std::vector<char*> const& arguments);

// Whether the arguments (the program's name first) ask for Kokkos' help.
bool asks_for_kokkos_help(std::vector<char*> const& arguments);

}  // namespace wave2d

#endif
