// The fields a backend advances: u(t_{n-1}) and u(t_n) of a (local) grid.
#ifndef WAVE2D_FIELDS_HPP
#define WAVE2D_FIELDS_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/core/wave2d_Window.hpp>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace wave2d {

// A field u(x, y) of ny rows by nx columns: field(y, x), x contiguous.
template <class MemorySpace>
using Field = Kokkos::View<float**, Kokkos::LayoutRight, MemorySpace>;

// The state after `step` steps: u(t_{step-1}) and u(t_step). Step `step` runs next.
template <class MemorySpace>
struct FieldPair {
  static_assert(Kokkos::is_memory_space_v<MemorySpace>);
  Field<MemorySpace> previous;
  Field<MemorySpace> current;
  std::int64_t step = 0;
};

namespace detail {
// Rows of floats on the host, viewed where they are (a file's, a checkpoint's).
using HostRows = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
}  // namespace detail

// A row-major 2-D view's values (a field, the receivers' trace), copied to the host on
// `space`, which is fenced: the vector is whole on return.
template <class ExecutionSpace, class View>
std::vector<float> to_host(ExecutionSpace const& space, View const& view) {
  static_assert(View::rank == 2);
  std::vector<float> host(view.size());
  detail::copy_2d(space,
                  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), view.extent(0),
                                                                        view.extent(1)),
                  view, "wave2d::to_host");
  wave2d::fence(space, "wave2d::to_host");
  return host;
}

// The owned cells of `window` in a field of its local grid (the whole field for a whole
// window), row-major, copied to the host on `space`, which is fenced.
template <class ExecutionSpace, class View>
std::vector<float> owned_cells(ExecutionSpace const& space, Window const& window,
                               View const& field) {
  using MemorySpace = typename View::memory_space;
  if (window.nx == window.local_nx() && window.ny == window.local_ny()) {
    return to_host(space, field);
  }
  auto const owned =
      Kokkos::subview(field, std::pair(window.owned_y(), window.owned_y() + window.ny),
                      std::pair(window.owned_x(), window.owned_x() + window.nx));
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    return to_host(space, owned);  // no packed copy, whose free Kokkos would fence globally
  } else {
    // The copy engine takes contiguous views: packed on the device first.
    Kokkos::View<float**, Kokkos::LayoutRight, MemorySpace> packed(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "wave2d::owned_cells"), window.ny,
        window.nx);
    detail::copy_2d(space, packed, owned, "wave2d::owned_cells");
    return to_host(space, packed);
  }
}

}  // namespace wave2d

#endif
