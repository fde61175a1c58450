#include <cli/wave2d_KokkosArguments.hpp>

#include <cli/wave2d_Commands.hpp>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <utility>

#include <sched.h>
#include <unistd.h>

namespace wave2d::cli {

namespace {

// mpirun leaves the ranks unbound where it oversubscribes the cores (or is told to); each
// rank's OpenMP would then start a thread per core, and Kokkos' threads, which spin while
// they wait, run many times slower on cores shared that way. The threads a rank's share of
// the cores allows, unless a count was given or the rank is bound (OpenMP keeps to its
// cores then).
std::optional<int> share_of_cores(std::vector<char*> const& arguments) {
#if defined(KOKKOS_ENABLE_OPENMP)
  int const ranks = launched_local_ranks();
  if (ranks <= 1 || std::getenv("OMP_NUM_THREADS") || std::getenv("KOKKOS_NUM_THREADS")) {
    return std::nullopt;
  }
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    if (std::string_view(arguments[i]).starts_with("--kokkos-num-threads")) return std::nullopt;
  }
  cpu_set_t cores;
  CPU_ZERO(&cores);
  if (::sched_getaffinity(0, sizeof(cores), &cores) != 0) return std::nullopt;
  int const usable = CPU_COUNT(&cores);
  if (usable < ::sysconf(_SC_NPROCESSORS_ONLN)) return std::nullopt;
  return std::max(1, usable / ranks);
#else
  static_cast<void>(arguments);
  return std::nullopt;
#endif
}

}  // namespace

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
  if (auto const threads = share_of_cores(arguments_)) {
    threads_ = "--kokkos-num-threads=" + std::to_string(*threads);
    arguments_.push_back(threads_.data());
  }
  int argc = int(arguments_.size());
  arguments_.push_back(nullptr);
  static_cast<void>(guard_.emplace(argc, arguments_.data()));  // ScopeGuard is [[nodiscard]]
}

}  // namespace wave2d::cli
