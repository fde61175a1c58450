// The one customization point of kokkos-stream: how the lanes of a strip trade the edge
// columns of their rows. A lane holds C adjacent columns of each row in registers; its
// left and right neighbours' cells come from the lanes beside it.
//
// LaneExchange<ExecutionSpace, N> is chosen by the execution space at compile time, as
// Kokkos specializes its own policies per backend: the portable default goes through
// team scratch and a barrier (ScratchExchange); Kokkos::Cuda, whose lanes of a strip are
// the 32 threads of one warp, trades registers by warp shuffles (ShuffleExchange).
#ifndef WAVE2D_LANE_EXCHANGE_HPP
#define WAVE2D_LANE_EXCHANGE_HPP

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <cstddef>

namespace wave2d::kokkos {

// Gives each lane its left neighbour's `last` and its right neighbour's `first`, N values
// each; the lanes at a strip's ends get their own (the kernel never keeps what they
// compute from them). Every lane of the team calls it, the same number of times.
template <int N>
class ScratchExchange {
 public:
  static constexpr int required_lanes = 0;  // any team size
  // A barrier an exchange: the kernel trades the edges of all its levels at once.
  static constexpr bool batched = true;
  // Two buffers, used in turns: a lane rewrites one only after the barrier of the other,
  // which every lane passes after reading it. One barrier an exchange.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int team_size) {
    return std::size_t(2 * 2 * N) * std::size_t(team_size) * sizeof(float);
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION explicit ScratchExchange(Member const& team)
      : buffer_(
            static_cast<float*>(team.team_scratch(0).get_shmem(scratch_bytes(team.team_size())))) {}

  template <class Member>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(Member const& team, float const (&first)[N],
                                              float const (&last)[N], float (&from_left)[N],
                                              float (&from_right)[N]) {
    int const lane = team.team_rank();
    int const lanes = team.team_size();
    float* const buffer = buffer_ + turn_ * 2 * N * lanes;
    turn_ ^= 1;
    for (int i = 0; i < N; ++i) {
      buffer[(2 * i) * lanes + lane] = first[i];
      buffer[(2 * i + 1) * lanes + lane] = last[i];
    }
    team.team_barrier();
    int const left = lane > 0 ? lane - 1 : lane;
    int const right = lane + 1 < lanes ? lane + 1 : lane;
    for (int i = 0; i < N; ++i) {
      from_left[i] = buffer[(2 * i + 1) * lanes + left];
      from_right[i] = buffer[(2 * i) * lanes + right];
    }
  }

 private:
  float* buffer_;
  int turn_ = 0;
};

// The exchange of a space: the portable default unless specialized below.
template <class ExecutionSpace, int N>
struct LaneExchangeOf {
  using type = ScratchExchange<N>;
};

#if defined(KOKKOS_ENABLE_CUDA)
// A team is one warp (32 threads of one lane each): the lanes' registers are traded by
// shuffles, with no scratch and no barrier.
template <int N>
class ShuffleExchange {
 public:
  static constexpr int required_lanes = 32;
  // No barrier: the kernel trades each level's edges just before the level, so that they
  // are live for one level, not the whole walk row (fewer registers).
  static constexpr bool batched = false;
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int) { return 0; }

  template <class Member>
  KOKKOS_INLINE_FUNCTION explicit ShuffleExchange(Member const&) {}

  template <class Member>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(Member const&, float const (&first)[N],
                                              float const (&last)[N], float (&from_left)[N],
                                              float (&from_right)[N]) const {
    KOKKOS_IF_ON_DEVICE((for (int i = 0; i < N; ++i) {
      from_left[i] = __shfl_up_sync(0xffffffffu, last[i], 1);
      from_right[i] = __shfl_down_sync(0xffffffffu, first[i], 1);
    }))
    KOKKOS_IF_ON_HOST((for (int i = 0; i < N; ++i) {
      from_left[i] = last[i];
      from_right[i] = first[i];
    }))
  }
};

template <int N>
struct LaneExchangeOf<Kokkos::Cuda, N> {
  using type = ShuffleExchange<N>;
};
#endif

template <class ExecutionSpace, int N>
using LaneExchange = typename LaneExchangeOf<ExecutionSpace, N>::type;

}  // namespace wave2d::kokkos

#endif
