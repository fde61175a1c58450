// Fills and copies that run on the caller's instance under a wave2d:: label (Kokkos'
// own deep_copy may launch kernels of its own name on another instance).
#ifndef WAVE2D_KOKKOS_HELPERS_HPP
#define WAVE2D_KOKKOS_HELPERS_HPP

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace wave2d::detail {

// f(std::bool_constant<a>{}, std::bool_constant<b>{}): two run-time choices made template
// arguments, for steppers whose launches are compiled once for each.
template <class F>
void with_flags(bool a, bool b, F&& f) {
  if (a) {
    b ? f(std::true_type{}, std::true_type{}) : f(std::true_type{}, std::false_type{});
  } else {
    b ? f(std::false_type{}, std::true_type{}) : f(std::false_type{}, std::false_type{});
  }
}

// Whether an execution space runs on the host (its memory is the host's).
template <class ExecutionSpace>
inline constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                               typename ExecutionSpace::memory_space>::accessible;

// Whether an execution space is Kokkos::Serial.
template <class ExecutionSpace>
inline constexpr bool is_serial =
#ifdef KOKKOS_ENABLE_SERIAL
    std::is_same_v<ExecutionSpace, Kokkos::Serial>;
#else
    false;
#endif

// The most level-0 team scratch a launch of teams of team_size threads may ask of the
// device, where Kokkos checks it: on CUDA, a block's shared memory (sharedMemPerBlock,
// without opting in to more) less the 8 * (team_size + 2) bytes Kokkos keeps. Empty on
// host spaces, whose scratch is ordinary memory.
template <class ExecutionSpace>
std::optional<std::size_t> team_scratch_limit(ExecutionSpace const& space, int team_size) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    return std::size_t(space.cuda_device_prop().sharedMemPerBlock) -
           sizeof(double) * std::size_t(team_size + 2);
  }
#endif
  (void)space;
  (void)team_size;
  return std::nullopt;
}

// Held by each launch with team scratch. Before Kokkos 4 a host space's launches share one
// scratch buffer, whichever thread makes them (Kokkos 4 serializes them itself): simulations
// on several threads then overwrote each other's windows.
template <class ExecutionSpace>
std::unique_lock<std::mutex> team_scratch_lock() {
#if KOKKOS_VERSION < 40000
  if constexpr (runs_on_host<ExecutionSpace>) {
    static std::mutex mutex;
    return std::unique_lock<std::mutex>(mutex);
  }
#endif
  return {};
}

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

// dst <- src, rank-2 views of one shape, strided or not: a kernel named `label` where the
// space reaches both, else the instance's copy engine (host <-> device, contiguous views).
template <class ExecutionSpace, class Dst, class Src>
void copy_2d(ExecutionSpace const& space, Dst const& dst, Src const& src,
             std::string const& label) {
  static_assert(Dst::rank == 2 && Src::rank == 2);
  using dst_space = typename Dst::memory_space;
  using src_space = typename Src::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, dst_space>::accessible &&
                Kokkos::SpaceAccessibility<ExecutionSpace, src_space>::accessible) {
    Kokkos::parallel_for(
        label,
        Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(
            space, {0, 0}, {std::int64_t(dst.extent(0)), std::int64_t(dst.extent(1))}),
        KOKKOS_LAMBDA(std::int64_t y, std::int64_t x) { dst(y, x) = src(y, x); });
  } else {
    Kokkos::deep_copy(space, dst, src);
  }
}

template <class View, class ExecutionSpace, class... Extents>
View allocate(ExecutionSpace const& space, std::string const& label, Extents... extents) {
  return View(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label), extents...);
}

// Gives `scratch` the shape of `fields` unless it has it: the other pair of a kernel that
// reads one pair and writes the other.
template <class ExecutionSpace, class Pair>
void match_scratch(ExecutionSpace const& space, Pair& scratch, Pair const& fields,
                   std::string const& label) {
  if (scratch.previous.extent(0) == fields.previous.extent(0) &&
      scratch.previous.extent(1) == fields.previous.extent(1)) {
    return;
  }
  using View = std::remove_cvref_t<decltype(fields.previous)>;
  auto const ny = fields.previous.extent(0);
  auto const nx = fields.previous.extent(1);
  scratch.previous = allocate<View>(space, label + "0", ny, nx);
  scratch.current = allocate<View>(space, label + "1", ny, nx);
}

// Such a kernel's launches over n_steps steps, `depth` a launch and one shorter remainder:
// launch(steps) reads `fields` and writes `scratch`, then the pairs change places.
template <class Pair, class Launch>
void launches_between_pairs(Pair& fields, Pair& scratch, std::int64_t n_steps, int depth,
                            Launch const& launch) {
  for (std::int64_t s = 0; s < n_steps; s += depth) {
    int const steps = int(std::min<std::int64_t>(depth, n_steps - s));
    launch(steps);
    std::swap(fields.previous, scratch.previous);
    std::swap(fields.current, scratch.current);
    fields.step += steps;
  }
}

}  // namespace wave2d::detail

#endif
