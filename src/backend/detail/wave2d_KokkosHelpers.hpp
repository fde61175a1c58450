// Fills and copies that run on the caller's instance under a wave2d:: label (Kokkos'
// own deep_copy may launch kernels of its own name on another instance).
#ifndef WAVE2D_KOKKOS_HELPERS_HPP
#define WAVE2D_KOKKOS_HELPERS_HPP

#include <wave2d_KokkosCompat.hpp>

#include <string>

namespace wave2d::Details {

template <class ExecutionSpace, class View>
void fill(ExecutionSpace const& space, View const& view, typename View::value_type value,
          std::string const& label) {
  static_assert(
      Kokkos::SpaceAccessibility<ExecutionSpace, typename View::memory_space>::accessible);
  auto* data = view.data();
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, view.span()),
      KOKKOS_LAMBDA(std::size_t i) { data[i] = value; });
}

// dst <- src, both contiguous and of the same size.
template <class ExecutionSpace, class Dst, class Src>
void copy(ExecutionSpace const& space, Dst const& dst, Src const& src, std::string const& label) {
  using dst_space = typename Dst::memory_space;
  using src_space = typename Src::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, dst_space>::accessible &&
                Kokkos::SpaceAccessibility<ExecutionSpace, src_space>::accessible) {
    auto* to = dst.data();
    auto const* from = src.data();
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, dst.span()),
        KOKKOS_LAMBDA(std::size_t i) { to[i] = from[i]; });
  } else {
    // Across spaces the instance's copy engine does it on its stream: no kernel.
    Kokkos::deep_copy(space, dst, src);
  }
}

template <class View, class ExecutionSpace, class... Extents>
View allocate(ExecutionSpace const& space, std::string const& label, Extents... extents) {
  return View(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label), extents...);
}

}  // namespace wave2d::Details

#endif
