// The fields a backend advances: u(t_{n-1}) and u(t_n) of a (local) grid.
#ifndef WAVE2D_FIELDS_HPP
#define WAVE2D_FIELDS_HPP

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdint>

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

}  // namespace wave2d

#endif
