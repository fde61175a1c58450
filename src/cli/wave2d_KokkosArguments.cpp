#include <cli/wave2d_KokkosArguments.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdlib>
#include <utility>

namespace wave2d::cli {

void print_kokkos_help(char* program) {
  static char help[] = "--kokkos-help";
  KokkosScope const kokkos({program, help});  // Kokkos 4 prints it and exits; 3.4 prints it
}

KokkosScope::KokkosScope(std::vector<char*> arguments) : arguments_(std::move(arguments)) {
  // Kokkos' OpenMP warns of an unset OMP_PROC_BIND. The OpenMP runtime read its variables
  // when it was loaded, so setting them now would bind nothing; threads are unbound unless
  // the user set OMP_PROC_BIND or OMP_PLACES, and saying "false" tells Kokkos just that,
  // which silences this warning alone (--kokkos-disable-warnings would silence them all).
  if (std::getenv("OMP_PROC_BIND") == nullptr && std::getenv("OMP_PLACES") == nullptr) {
    ::setenv("OMP_PROC_BIND", "false", 0);
  }
  int argc = int(arguments_.size());
  arguments_.push_back(nullptr);
  static_cast<void>(guard_.emplace(argc, arguments_.data()));  // ScopeGuard is [[nodiscard]]
}

}  // namespace wave2d::cli
