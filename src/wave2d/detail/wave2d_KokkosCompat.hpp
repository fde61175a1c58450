// The one place that knows Kokkos versions: wave2d includes this instead of Kokkos' headers
// and writes against Kokkos 4. For an older Kokkos (3.4, as Debian and Ubuntu package it
// with Trilinos) it supplies the 4.x APIs wave2d uses, each up to the release that added it.
#ifndef WAVE2D_KOKKOS_COMPAT_HPP
#define WAVE2D_KOKKOS_COMPAT_HPP

#include <Kokkos_Core.hpp>

#if KOKKOS_VERSION >= 40100
#include <Kokkos_Profiling_ScopedRegion.hpp>
#endif

#include <string>
#include <vector>

// Kokkos' own CMake configuration defines these; the one Trilinos' TriBITS generates does not.
#ifndef KOKKOS_VERSION_MAJOR
#define KOKKOS_VERSION_MAJOR (KOKKOS_VERSION / 10000)
#define KOKKOS_VERSION_MINOR (KOKKOS_VERSION / 100 % 100)
#define KOKKOS_VERSION_PATCH (KOKKOS_VERSION % 100)
#endif

// Code for the host pass only (Kokkos 3.6 added the macro; before it, wave2d builds for
// host spaces alone).
#ifndef KOKKOS_IF_ON_HOST
#define WAVE2D_IMPL_STRIP_PARENS(...) __VA_ARGS__
#define KOKKOS_IF_ON_HOST(CODE) \
  { WAVE2D_IMPL_STRIP_PARENS CODE }
#endif

namespace wave2d {

// space.fence(label); Kokkos before 3.5 has no labelled fences (nor reports fences to tools).
template <class ExecutionSpace>
void fence(ExecutionSpace const& space, std::string const& label) {
#if KOKKOS_VERSION >= 30500
  space.fence(label);
#else
  (void)label;
  space.fence();
#endif
}

}  // namespace wave2d

namespace Kokkos {

#if KOKKOS_VERSION < 30500
namespace Experimental {
// Host spaces have one instance: every partition is the space itself.
template <class ExecutionSpace, class... Weights>
std::vector<ExecutionSpace> partition_space(ExecutionSpace const& space, Weights...) {
  static_assert(is_execution_space<ExecutionSpace>::value);
  return std::vector<ExecutionSpace>(sizeof...(Weights), space);
}
}  // namespace Experimental
#endif

#if KOKKOS_VERSION < 30700
// Kokkos 3.4 cannot tell "finalized" from "never initialized": is_initialized() is false
// in both, which is all wave2d asks (it checks !is_initialized() || is_finalized()).
inline bool is_finalized() noexcept { return false; }
#endif

#if KOKKOS_VERSION < 40000
template <class T>
inline constexpr bool is_execution_space_v = is_execution_space<T>::value;
template <class T>
inline constexpr bool is_memory_space_v = is_memory_space<T>::value;
#endif

#if KOKKOS_VERSION < 40100
namespace Profiling {
class [[nodiscard]] ScopedRegion {
 public:
  explicit ScopedRegion(std::string const& name) { pushRegion(name); }
  ~ScopedRegion() { popRegion(); }
  ScopedRegion(ScopedRegion const&) = delete;
  ScopedRegion& operator=(ScopedRegion const&) = delete;
};
}  // namespace Profiling
#endif

}  // namespace Kokkos

#endif
