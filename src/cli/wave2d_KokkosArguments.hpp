// Kokkos for the length of a command, initialized with arguments checked first
// (run/wave2d_KokkosArguments.hpp), and its help.
#ifndef WAVE2D_CLI_KOKKOS_ARGUMENTS_HPP
#define WAVE2D_CLI_KOKKOS_ARGUMENTS_HPP

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <optional>
#include <string>
#include <vector>

namespace wave2d::cli {

// Prints Kokkos' description of its arguments on stdout.
void print_kokkos_help(char* program);

// Kokkos, initialized with checked arguments (the program's name first), for the length
// of a command. Under mpirun, ranks that share a node's cores unbound take a share each on
// OpenMP unless a thread count is given.
class KokkosScope {
 public:
  explicit KokkosScope(std::vector<char*> arguments);

 private:
  std::vector<char*> arguments_;
  std::string threads_;  // the share's --kokkos-num-threads argument
  std::optional<Kokkos::ScopeGuard> guard_;
};

}  // namespace wave2d::cli

#endif
