// cuda-stream's plan on the host: each segment's kind from its rows', and the segments
// merged into windows of about equal cost. Host code, no kernels: tested where no GPU is.
#ifndef WAVE2D_STREAM_PLAN_HPP
#define WAVE2D_STREAM_PLAN_HPP

#include <wave2d/cuda/wave2d_CudaKernels.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wave2d::cuda::detail {

// The most output rows a window has.
inline constexpr int max_window_rows = 256;

// A window's relative cost (StreamLayout::window_costs).
inline std::int64_t window_cost(StreamLayout const& layout, StreamWindowKind kind, int rows) {
  StreamWindowCosts const& costs = layout.window_costs;
  return std::int64_t(costs.per_row[int(kind)]) * (rows + costs.rows_added);
}

// Each segment's kind (strip-major): the costliest of the rows its window reads
// (classify_rows' row_kinds), general where they leave the grid.
template <class Shape>
std::vector<std::uint32_t> segment_kinds(StreamLayout const& layout, int ny,
                                         std::vector<std::uint8_t> const& row_kinds) {
  std::vector<std::uint32_t> kinds(std::size_t(layout.total_segments()));
  for (int strip = 0; strip < layout.strips; ++strip) {
    std::uint8_t const* const rows = row_kinds.data() + std::size_t(strip) * ny;
    for (int segment = 0; segment < layout.segments; ++segment) {
      int const y0 = segment * layout.rows;
      int const first = y0 - Shape::rows_above;
      int const last = std::min(y0 + layout.rows, ny) + Shape::rows_below;
      auto kind = std::uint32_t(StreamWindowKind::general);
      if (first >= 0 && last <= ny) kind = *std::max_element(rows + first, rows + last);
      kinds[std::size_t(strip) * layout.segments + segment] = kind;
    }
  }
  return kinds;
}

struct PlannedWindow {
  std::uint32_t first;  // segment
  int count;            // segments
  StreamWindowKind kind;
  std::int64_t cost;
};

// Each strip's segments in windows of consecutive ones, each as long as `cost_bound` allows
// (and max_window_rows), a window as costly as the costliest segment in it.
template <class Shape>
std::vector<PlannedWindow> merge_segments(StreamLayout const& layout, int ny,
                                          std::vector<std::uint32_t> const& kinds,
                                          std::int64_t cost_bound) {
  std::vector<PlannedWindow> windows;
  auto const rows_of = [&](int segment) {
    return std::min(layout.rows, ny - segment * layout.rows);
  };
  for (int strip = 0; strip < layout.strips; ++strip) {
    std::int64_t const base = std::int64_t(strip) * layout.segments;
    for (int s = 0; s < layout.segments;) {
      int const first = s;
      auto kind = StreamWindowKind(kinds[base + s]);
      int rows = rows_of(s++);
      for (; s < layout.segments; ++s) {
        auto const merged_kind = std::max(kind, StreamWindowKind(kinds[base + s]));
        int const merged_rows = rows + rows_of(s);
        if (merged_rows > max_window_rows ||
            window_cost(layout, merged_kind, merged_rows) > cost_bound) {
          break;
        }
        kind = merged_kind;
        rows = merged_rows;
      }
      windows.push_back(
          {std::uint32_t(base + first), s - first, kind, window_cost(layout, kind, rows)});
    }
  }
  return windows;
}

// The windows of a grid: the segments merged with the least cost bound that leaves at most
// windows_per_warp windows per resident warp (each segment alone when that is 0).
template <class Shape>
std::vector<PlannedWindow> plan_windows(StreamLayout const& layout, int ny,
                                        std::vector<std::uint32_t> const& kinds) {
  auto const merged = [&](std::int64_t cost_bound) {
    return merge_segments<Shape>(layout, ny, kinds, cost_bound);
  };
  if (layout.windows_per_warp <= 0) {
    // A window a segment, in rows across the strips, costed by kind alone.
    std::vector<PlannedWindow> windows;
    for (int segment = 0; segment < layout.segments; ++segment) {
      for (int strip = 0; strip < layout.strips; ++strip) {
        auto const index = std::uint32_t(std::int64_t(strip) * layout.segments + segment);
        auto const kind = StreamWindowKind(kinds[index]);
        windows.push_back({index, 1, kind, window_cost(layout, kind, layout.rows)});
      }
    }
    return windows;
  }
  auto const target =
      std::size_t(std::ceil(layout.windows_per_warp * layout.resident_blocks * Shape::warps));
  std::int64_t low = 0, high = window_cost(layout, StreamWindowKind::general, max_window_rows);
  while (low < high) {
    std::int64_t const cost_bound = low + (high - low) / 2;
    if (merged(cost_bound).size() > target) {
      low = cost_bound + 1;
    } else {
      high = cost_bound;
    }
  }
  return merged(low);
}

}  // namespace wave2d::cuda::detail

#endif
