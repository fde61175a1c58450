// The execution spaces this build of Kokkos compiled, by the names `--space` and Python's
// `space=` take (Kokkos' names in lower case: serial, openmp, cuda), and the space a run
// takes for a backend.
#ifndef WAVE2D_SPACES_HPP
#define WAVE2D_SPACES_HPP

#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/plan/wave2d_Backends.hpp>
#include <wave2d/plan/wave2d_PlanOptions.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cctype>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace wave2d {

// Calls visit.template operator()<Space>() for each compiled space, the default first.
template <class Visit>
void for_each_space(Visit&& visit) {
  using Default = Kokkos::DefaultExecutionSpace;
  visit.template operator()<Default>();
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (!std::is_same_v<Default, Kokkos::Cuda>) visit.template operator()<Kokkos::Cuda>();
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (!std::is_same_v<Default, Kokkos::OpenMP>) {
    visit.template operator()<Kokkos::OpenMP>();
  }
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (!std::is_same_v<Default, Kokkos::Serial>) {
    visit.template operator()<Kokkos::Serial>();
  }
#endif
}

template <class ExecutionSpace>
std::string space_name() {
  std::string name = ExecutionSpace::name();
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// "OpenMP (2 threads)", "Cuda".
template <class ExecutionSpace>
std::string space_description(ExecutionSpace const& space) {
  std::string text = ExecutionSpace::name();
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    auto const threads = space.concurrency();
    text += " (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
  }
  return text;
}

inline std::string compiled_spaces() {
  std::string names;
  for_each_space([&]<class ExecutionSpace>() {
    names += (names.empty() ? "" : ", ") + space_name<ExecutionSpace>();
  });
  return names;
}

// The backends of a space, "auto" first, comma-separated.
template <class ExecutionSpace>
std::string backends_of() {
  std::string names(auto_backend);
  for (auto const& backend : backends<ExecutionSpace>()) names += ", " + std::string(backend.name);
  return names;
}

// "space:", then a line per backend ("  name<TAB>what it is"), auto's first.
template <class ExecutionSpace>
void list_backends_of(std::ostream& out, std::string const& auto_line) {
  out << space_name<ExecutionSpace>() << ":\n";
  out << "  " << auto_backend << "\t" << auto_line << "\n";
  for (auto const& backend : backends<ExecutionSpace>()) {
    out << "  " << backend.name << "\t" << backend.summary
        << (backend.auto_candidate ? "" : " (not among auto's candidates)") << "\n";
  }
}

// The space a run of `backend` takes, by its space_name(): `requested` (a space's name),
// else the default execution space where the backend runs there, else the default host
// space (where "reference" runs when the default space is a GPU's). Naming what there is,
// std::invalid_argument for a space not compiled, UnknownBackend for a backend not of the
// space.
inline std::string space_for(std::string_view requested, std::string_view backend) {
  std::string found;
  bool known_space = requested.empty();
  std::string backend_spaces;
  for_each_space([&]<class ExecutionSpace>() {
    if (!found.empty()) return;
    bool const named = requested == space_name<ExecutionSpace>();
    known_space = known_space || named;
    bool const candidate =
        named ||
        (requested.empty() && (std::is_same_v<ExecutionSpace, Kokkos::DefaultExecutionSpace> ||
                               std::is_same_v<ExecutionSpace, Kokkos::DefaultHostExecutionSpace>));
    if (!candidate) return;
    if (backend != auto_backend && !has_backend<ExecutionSpace>(backend)) {
      backend_spaces += (backend_spaces.empty() ? "" : "; ") + space_name<ExecutionSpace>() + ": " +
                        backends_of<ExecutionSpace>();
      return;
    }
    found = space_name<ExecutionSpace>();
  });
  if (!found.empty()) return found;
  if (!known_space) {
    throw std::invalid_argument("unknown execution space '" + std::string(requested) +
                                "' (compiled: " + compiled_spaces() + ")");
  }
  throw UnknownBackend("unknown backend '" + std::string(backend) +
                       (requested.empty() ? "'" : "' on " + std::string(requested)) +
                       " (available: " + backend_spaces + ")");
}

// The space_name() of the compiled space Kokkos calls `kokkos_name` (ExecutionSpace::name(),
// "OpenMP"), and that it runs `backend` (auto: any); nullopt where neither holds.
inline std::optional<std::string> compiled_space_running(std::string_view kokkos_name,
                                                         std::string_view backend) {
  std::optional<std::string> found;
  for_each_space([&]<class ExecutionSpace>() {
    if (kokkos_name == ExecutionSpace::name() &&
        (backend == auto_backend || has_backend<ExecutionSpace>(backend))) {
      found = space_name<ExecutionSpace>();
    }
  });
  return found;
}

// Calls run.template operator()<Space>() for the compiled space of this name (space_name());
// std::invalid_argument for a name no compiled space has.
template <class Run>
void on_space(std::string_view name, Run&& run) {
  bool ran = false;
  for_each_space([&]<class ExecutionSpace>() {
    if (ran || name != space_name<ExecutionSpace>()) return;
    ran = true;
    run.template operator()<ExecutionSpace>();
  });
  if (!ran) {
    throw std::invalid_argument("unknown execution space '" + std::string(name) +
                                "' (compiled: " + compiled_spaces() + ")");
  }
}

}  // namespace wave2d

#endif
