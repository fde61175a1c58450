// Whether a field holds only finite values, asked on the device: an unstable or
// overflowing run is caught without copying the field to the host.
#ifndef WAVE2D_FINITE_CHECK_HPP
#define WAVE2D_FINITE_CHECK_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_Fields.hpp>
#include <wave2d/detail/wave2d_Instantiation.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace wave2d {

// A cell of a field: column x, row y.
struct FieldCell {
  std::int32_t x = 0;
  std::int32_t y = 0;
};

// A window's owned cells of a field, as a simulation checks them.
template <class MemorySpace>
using OwnedCells = decltype(Kokkos::subview(std::declval<Field<MemorySpace> const&>(),
                                            std::pair<int, int>(), std::pair<int, int>()));

// Finds the first cell, in row-major order, of a field whose value is NaN or infinite.
// Made once per run: it holds the one value its kernel writes, so that a check
// allocates nothing (freeing a View fences every instance).
template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
class FiniteCheck {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>);
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);

 public:
  explicit FiniteCheck(ExecutionSpace const& space)
      : found_(
            Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "wave2d::FiniteCheck::found")) {}

  // None when every value of the ny x nx `field` is finite: a View or a subview of one
  // (a window's owned cells), cells numbered row-major over the field. Two small kernels
  // on `space`, then a fence of `space` alone.
  template <class Field>
  std::optional<FieldCell> first_non_finite(ExecutionSpace const& space, Field const& field) const;

 private:
  Kokkos::View<std::int64_t, MemorySpace> found_;
};

template <class ExecutionSpace, class MemorySpace>
template <class Field>
std::optional<FieldCell> FiniteCheck<ExecutionSpace, MemorySpace>::first_non_finite(
    ExecutionSpace const& space, Field const& field) const {
  static_assert(Field::rank == 2);
  static_assert(std::is_same_v<typename Field::memory_space, MemorySpace>);
  auto const ny = std::int64_t(field.extent(0));
  auto const nx = std::int64_t(field.extent(1));
  std::int64_t const cells = nx * ny;
  auto const found = found_;
  Kokkos::parallel_for(
      "wave2d::FiniteCheck::reset", Kokkos::RangePolicy<ExecutionSpace>(space, 0, 1),
      KOKKOS_LAMBDA(int) { found() = cells; });
  // An atomic minimum rather than a reduction, which would allocate Kokkos' scratch.
  Kokkos::parallel_for(
      "wave2d::FiniteCheck::first_non_finite",
      Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(
          space, {0, 0}, {ny, nx}),
      KOKKOS_LAMBDA(std::int64_t y, std::int64_t x) {
        // v - v is 0 for every finite v, NaN for NaN and ±inf (no Kokkos::isfinite in 3.4).
        float const v = field(y, x);
        if (!(v - v == 0.0f)) Kokkos::atomic_fetch_min(&found(), y * nx + x);
      });
  std::int64_t first = cells;
  detail::copy(
      space,
      Kokkos::View<std::int64_t, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          &first),
      found, "wave2d::FiniteCheck::found");
  wave2d::fence(space, "wave2d::FiniteCheck::first_non_finite");
  if (first == cells) return std::nullopt;
  return FieldCell{std::int32_t(first % nx), std::int32_t(first / nx)};
}

// The library's instantiations (detail/wave2d_Instantiation.hpp).
#define WAVE2D_FINITE_CHECK_INSTANTIATIONS(PREFIX, SPACE)                                    \
  PREFIX class FiniteCheck<SPACE, SPACE::memory_space>;                                      \
  PREFIX std::optional<FieldCell> FiniteCheck<SPACE, SPACE::memory_space>::first_non_finite( \
      SPACE const&, Field<SPACE::memory_space> const&) const;                                \
  PREFIX std::optional<FieldCell> FiniteCheck<SPACE, SPACE::memory_space>::first_non_finite( \
      SPACE const&, OwnedCells<SPACE::memory_space> const&) const;
WAVE2D_EXTERN_INSTANTIATIONS(WAVE2D_FINITE_CHECK_INSTANTIATIONS)

}  // namespace wave2d

#endif
