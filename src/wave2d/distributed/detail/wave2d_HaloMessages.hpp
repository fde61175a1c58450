// What a halo exchange sends: the eight neighbours of a rank (corners included), the
// owned cells each needs, and the MPI datatypes of the messages, whose counts stay small
// however large the grid (Open MPI 4.1 has no MPI 4 large-count calls).
#ifndef WAVE2D_HALO_MESSAGES_HPP
#define WAVE2D_HALO_MESSAGES_HPP

#include <wave2d/distributed/detail/wave2d_BorderStrips.hpp>

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace wave2d::detail {

// The neighbours' directions (dx, dy), x fastest.
inline constexpr std::array<std::array<int, 2>, 8> directions{
    {{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}}};

constexpr std::size_t direction_index(int dx, int dy) {
  std::size_t const i = std::size_t((dy + 1) * 3 + (dx + 1));
  return i < 4 ? i : i - 1;  // (0, 0) is no neighbour
}
static_assert(direction_index(-1, -1) == 0 && direction_index(1, 0) == 4 &&
              direction_index(1, 1) == 7);

// Along one axis, the owned cells [owned, owned + n) that go towards direction d (the
// `halo` next to that side, or all of them for d = 0): first cell and count.
constexpr std::pair<std::int32_t, std::int32_t> sent_range(int d, std::int32_t owned,
                                                           std::int32_t n, std::int32_t halo) {
  return d < 0   ? std::pair{owned, halo}
         : d > 0 ? std::pair{owned + n - halo, halo}
                 : std::pair{owned, n};
}
// The halo cells that come from direction d.
constexpr std::pair<std::int32_t, std::int32_t> received_range(int d, std::int32_t owned,
                                                               std::int32_t n, std::int32_t halo) {
  return d < 0   ? std::pair{owned - halo, halo}
         : d > 0 ? std::pair{owned + n, halo}
                 : std::pair{owned, n};
}

// The MPI datatype of one packed field of a rect (ny rows of nx floats): a message of both
// fields is 2 of it. Committed; freed when it goes.
class HaloType {
 public:
  HaloType() = default;
  explicit HaloType(Rect const& rect) {
    MPI_Datatype row = MPI_DATATYPE_NULL;
    if (MPI_Type_contiguous(rect.nx, MPI_FLOAT, &row) != MPI_SUCCESS ||
        MPI_Type_contiguous(rect.ny, row, &type_) != MPI_SUCCESS ||
        MPI_Type_commit(&type_) != MPI_SUCCESS) {
      throw std::runtime_error("MPI error in the halo's datatype");
    }
    MPI_Type_free(&row);
  }
  HaloType(HaloType&& other) noexcept : type_(std::exchange(other.type_, MPI_DATATYPE_NULL)) {}
  HaloType& operator=(HaloType&& other) noexcept {
    std::swap(type_, other.type_);
    return *this;
  }
  ~HaloType() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (type_ != MPI_DATATYPE_NULL && !finalized) MPI_Type_free(&type_);
  }
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace wave2d::detail

#endif
