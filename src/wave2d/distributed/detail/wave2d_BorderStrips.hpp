// The owned cells of a rank's window within `halo` of a side with a neighbour, as separate
// simulations: while the halos travel, the window steps ahead on its stale halos (its
// cells `halo` or more from those sides stay exact), and the strips, once the halos have
// arrived, step the border again from the state before and put it back.
#ifndef WAVE2D_BORDER_STRIPS_HPP
#define WAVE2D_BORDER_STRIPS_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/core/wave2d_Window.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wave2d::detail {

// A rectangle of a local grid: rows [y0, y0 + ny), columns [x0, x0 + nx).
struct Rect {
  std::int32_t x0 = 0;
  std::int32_t y0 = 0;
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  KOKKOS_FUNCTION std::int64_t cells() const { return std::int64_t(nx) * ny; }
};

inline Rect intersection(Rect const& a, Rect const& b) {
  std::int32_t const x0 = std::max(a.x0, b.x0);
  std::int32_t const y0 = std::max(a.y0, b.y0);
  std::int32_t const x1 = std::min(a.x0 + a.nx, b.x0 + b.nx);
  std::int32_t const y1 = std::min(a.y0 + a.ny, b.y0 + b.ny);
  return {x0, y0, std::max(0, x1 - x0), std::max(0, y1 - y0)};
}

// to(y + to_y, x + to_x) = from(y + from_y, x + from_x) over rect's extent, both fields.
template <class Field>
struct CopyBetween {
  Field to_previous;
  Field to_current;
  Field from_previous;
  Field from_current;
  Rect rect;  // x0, y0 unused
  std::int32_t to_x, to_y, from_x, from_y;

  KOKKOS_FUNCTION void operator()(int y, int x) const {
    to_previous(y + to_y, x + to_x) = from_previous(y + from_y, x + from_x);
    to_current(y + to_y, x + to_x) = from_current(y + from_y, x + from_x);
  }
};

// Cells `part` (in the buffer's coordinates) of a packed buffer of `rect` (previous, then
// current, row-major) into the fields at an offset.
template <class Field>
struct UnpackPart {
  Field previous;
  Field current;
  float const* buffer;
  Rect rect;
  Rect part;
  std::int32_t to_x, to_y;  // the buffer's coordinates minus the fields'

  KOKKOS_FUNCTION void operator()(int y, int x) const {
    std::int64_t const i = std::int64_t(part.y0 + y - rect.y0) * rect.nx + (part.x0 + x - rect.x0);
    previous(part.y0 + y - to_y, part.x0 + x - to_x) = buffer[i];
    current(part.y0 + y - to_y, part.x0 + x - to_x) = buffer[rect.cells() + i];
  }
};

// to(offset + 1 + row, column) = from(1 + row, column) for the trace's `columns`.
template <class Trace, class Columns>
struct CopyTraceRows {
  Trace to;
  Trace from;
  Columns columns;
  std::int64_t offset;

  KOKKOS_FUNCTION void operator()(int row, int r) const {
    to(offset + 1 + row, columns(r)) = from(1 + row, columns(r));
  }
};

template <class ExecutionSpace, class MemorySpace>
class BorderStrips {
  using Local = Simulation<ExecutionSpace, MemorySpace>;
  using Field = typename Local::field_type;
  using Policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>>;

 public:
  // Whether `window` can be split so: its owned cells more than twice the halo each way.
  static bool fits(Window const& window) {
    return window.halo > 0 && window.nx > 2 * window.halo && window.ny > 2 * window.halo;
  }

  // The strips along the sides with a neighbour (neighbour[d][side]: x then y, low then
  // high), each a Simulation of `backend` with the window's halo.
  BorderStrips(ExecutionSpace const& space, Scene const& scene, Window const& window,
               std::string const& backend, ValidationOptions options,
               std::array<std::array<bool, 2>, 2> neighbour)
      : window_(window) {
    std::int32_t const h = window.halo;
    std::int32_t const top = neighbour[1][0] ? h : 0;
    std::int32_t const bottom = neighbour[1][1] ? h : 0;
    std::vector<Window> owned;
    // y first, over the whole owned width; x over the rows between them: no cell twice.
    if (top > 0)
      owned.push_back({window.global_nx, window.global_ny, window.x0, window.y0, window.nx, h, h});
    if (bottom > 0) {
      owned.push_back({window.global_nx, window.global_ny, window.x0, window.y0 + window.ny - h,
                       window.nx, h, h});
    }
    std::int32_t const rows = window.ny - top - bottom;
    if (neighbour[0][0]) {
      owned.push_back({window.global_nx, window.global_ny, window.x0, window.y0 + top, h, rows, h});
    }
    if (neighbour[0][1]) {
      owned.push_back({window.global_nx, window.global_ny, window.x0 + window.nx - h,
                       window.y0 + top, h, rows, h});
    }
    for (Window const& strip : owned) {
      strips_.emplace_back(space, scene, strip, backend, options);
      receivers_.push_back(owned_columns(scene, strip));
    }
  }

  // At the state of `local` (the window's simulation) at its step: the strips' local grids,
  // their halos stale until receive(). Finite or not: set_state's check is the caller's
  // (a diverging run is found by its check after the steps).
  void take(ExecutionSpace const& space, Local const& local) {
    for (Local& strip : strips_) {
      Window const& w = strip.window();
      copy(space, "wave2d::BorderStrips::take", strip.previous(), strip.current(), 0, 0,
           local.previous(), local.current(), w.origin_x() - window_.origin_x(),
           w.origin_y() - window_.origin_y(), w.local_nx(), w.local_ny());
      strip.set_step_in_place(space, local.steps_done());
    }
  }

  // A halo that arrived: `rect` of the window's local grid, packed in `buffer`.
  void receive(ExecutionSpace const& space, Rect const& rect, float const* buffer) {
    for (Local& strip : strips_) {
      Window const& w = strip.window();
      std::int32_t const to_x = w.origin_x() - window_.origin_x();
      std::int32_t const to_y = w.origin_y() - window_.origin_y();
      Rect const part = intersection(rect, {to_x, to_y, w.local_nx(), w.local_ny()});
      if (part.cells() == 0) continue;
      Kokkos::parallel_for(
          "wave2d::BorderStrips::receive", Policy(space, {0, 0}, {part.ny, part.nx}),
          UnpackPart<Field>{strip.previous(), strip.current(), buffer, rect, part, to_x, to_y});
    }
  }

  // Steps the strips as far as `local` has gone, and puts their owned cells and their
  // receivers' rows into it.
  void advance_into(ExecutionSpace const& space, Local& local) {
    for (std::size_t s = 0; s < strips_.size(); ++s) {
      Local& strip = strips_[s];
      std::int64_t const first = strip.steps_done();
      strip.advance(space, local.steps_done() - first);
      Window const& w = strip.window();
      copy(space, "wave2d::BorderStrips::put", local.previous(), local.current(),
           w.x0 - window_.origin_x(), w.y0 - window_.origin_y(), strip.previous(), strip.current(),
           w.owned_x(), w.owned_y(), w.nx, w.ny);
      copy_receivers(space, strip, s, local, first);
    }
  }

 private:
  static std::vector<std::int32_t> owned_columns(Scene const& scene, Window const& w) {
    std::vector<std::int32_t> columns;
    for (std::size_t i = 0; i < scene.receivers.size(); ++i) {
      Receiver const& r = scene.receivers[i];
      if (r.x >= w.x0 && r.x < w.x0 + w.nx && r.y >= w.y0 && r.y < w.y0 + w.ny) {
        columns.push_back(std::int32_t(i));
      }
    }
    return columns;
  }

  static void copy(ExecutionSpace const& space, char const* label, Field const& to_previous,
                   Field const& to_current, std::int32_t to_x, std::int32_t to_y,
                   Field const& from_previous, Field const& from_current, std::int32_t from_x,
                   std::int32_t from_y, std::int32_t nx, std::int32_t ny) {
    Kokkos::parallel_for(label, Policy(space, {0, 0}, {ny, nx}),
                         CopyBetween<Field>{to_previous,
                                            to_current,
                                            from_previous,
                                            from_current,
                                            {0, 0, nx, ny},
                                            to_x,
                                            to_y,
                                            from_x,
                                            from_y});
  }

  // The strip's rows after steps first + 1 .. of its receivers, into local's trace.
  void copy_receivers(ExecutionSpace const& space, Local const& strip, std::size_t s,
                      Local const& local, std::int64_t first) {
    if (receivers_[s].empty()) return;
    auto const from = strip.receivers();
    auto const to = local.receivers();
    std::int64_t const rows = strip.steps_done() - first;
    std::int64_t const offset = first - local.receivers_first_step();
    Kokkos::View<std::int32_t*, MemorySpace> columns = columns_[s];
    if (columns.extent(0) != receivers_[s].size()) {
      columns = Kokkos::View<std::int32_t*, MemorySpace>(
          Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "wave2d::BorderStrips::columns"),
          receivers_[s].size());
      detail::copy(space, columns,
                   Kokkos::View<std::int32_t const*, Kokkos::HostSpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>(receivers_[s].data(),
                                                                         receivers_[s].size()),
                   "wave2d::BorderStrips::columns");
      wave2d::fence(space, "wave2d::BorderStrips: receivers' columns");
      columns_[s] = columns;
    }
    Kokkos::parallel_for("wave2d::BorderStrips::receivers",
                         Policy(space, {0, 0}, {int(rows), int(receivers_[s].size())}),
                         CopyTraceRows<decltype(to), decltype(columns)>{to, from, columns, offset});
  }

  Window window_;
  std::vector<Local> strips_;
  std::vector<std::vector<std::int32_t>> receivers_;  // each strip's owned receivers
  std::array<Kokkos::View<std::int32_t*, MemorySpace>, 4> columns_;
};

}  // namespace wave2d::detail

#endif
