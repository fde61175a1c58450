// Hand-written CUDA kernels on raw device pointers: no Kokkos here. src/ wraps them
// as the cuda-* backends; the raw-pointer tests and benches call them directly.
#ifndef WAVE2D_CUDA_KERNELS_HPP
#define WAVE2D_CUDA_KERNELS_HPP

#include <core/wave2d_CellRule.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace wave2d::cuda {

// nx * ny cells, row y at element y * pitch (pitch >= nx).
struct Grid {
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  std::int64_t pitch = 0;
};

// Device pointers to a scene's precomputed coefficients (core/wave2d_Coefficients.hpp).
struct Coefficients {
  float const* code = nullptr;
  float const* kappa = nullptr;  // nullptr: kappa_uniform everywhere
  float kappa_uniform = 0.0f;
  Waveform const* sources = nullptr;
  float t0 = 0.0f;
  float dt = 0.0f;
};

// u(t_{n-1}) and u(t_n), device pointers with the grid's pitch.
struct FieldPointers {
  float* previous = nullptr;
  float* current = nullptr;
};

// Compile-time shape of a cuda-shmem kernel, for reports.
struct ShmemShape {
  int tile_x;         // output tile, cells
  int tile_y;
  int cells_x;        // cells per thread
  int cells_y;
  int fused_steps;    // T
  bool padded;        // shared rows padded against bank conflicts
};

enum class ShmemVariant {
  tuned,  // the default, tuned for sm_90 (the seed's shape on grids of fewer tiles than SMs)
  seed,   // the seed chapter's 32 x 32 tile, 2 x 2 cells per thread, 8 steps, no padding
};

ShmemShape shmem_shape(ShmemVariant variant);
std::string describe(ShmemShape const& shape);  // e.g. "tile 64x32, 1x8 cells/thread, T=8, padded"
std::string naive_configuration();

// cuda-naive: one launch per step, in place (u_next overwrites previous). Returns the
// pair after n_steps: the same two pointers, swapped when n_steps is odd.
FieldPointers advance_naive(Grid grid, Coefficients const& coefficients, FieldPointers fields,
                            std::int64_t first_step, std::int64_t n_steps,
                            cudaStream_t stream);

// cuda-shmem: T steps per launch in shared memory. Each launch reads one pair and
// writes the other (no block reads what another block of the same launch writes);
// `scratch` is that other pair. Returns whichever pair holds the result.
FieldPointers advance_shmem(ShmemVariant variant, Grid grid, Coefficients const& coefficients,
                            FieldPointers fields, FieldPointers scratch,
                            std::int64_t first_step, std::int64_t n_steps,
                            cudaStream_t stream);

// Whether a CUDA device is usable here, and if not, why.
bool device_available(char const** reason = nullptr);

}  // namespace wave2d::cuda

#endif
