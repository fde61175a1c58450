// The arguments and environment variables that configure Kokkos, checked before
// Kokkos::initialize: it aborts with a backtrace, hangs or crashes on some of them.
#ifndef WAVE2D_CLI_KOKKOS_ARGUMENTS_HPP
#define WAVE2D_CLI_KOKKOS_ARGUMENTS_HPP

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <optional>
#include <vector>

namespace wave2d::cli {

// Throws InputError naming the first --kokkos-* argument (`arguments`, the program's
// name first) or variable (KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID, OMP_NUM_THREADS,
// KOKKOS_TOOLS_LIBS) that Kokkos would not take as it is: unknown, without its value, a
// number out of range (OMP_NUM_THREADS: above Kokkos' limit), a tool library that does
// not load.
void check_kokkos_arguments(std::vector<char*> const& arguments);

// Whether the arguments (the program's name first) ask for Kokkos' help.
bool asks_for_kokkos_help(std::vector<char*> const& arguments);

// Prints Kokkos' description of its arguments on stdout.
void print_kokkos_help(char* program);

// Kokkos, initialized with checked arguments (the program's name first), for the length
// of a command.
class KokkosScope {
 public:
  explicit KokkosScope(std::vector<char*> arguments);

 private:
  std::vector<char*> arguments_;
  std::optional<Kokkos::ScopeGuard> guard_;
};

}  // namespace wave2d::cli

#endif
