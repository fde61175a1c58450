// The cuda-shmem kernel template: T time steps per launch in shared memory.
//
// A block loads a (TX + 2T) x (TY + 2T) window of both time levels and the cell
// codes, runs T steps on it, and writes back its TX x TY output tile. Wrong values
// creep in from the window's edge one cell per step, so after T steps exactly the
// output tile is still right (the textbook's shrinking window); computing the whole
// window every step keeps the loop free of bounds tests.
//
// Each thread owns CX columns (strided by the block width: coalesced, conflict-free)
// and CY consecutive rows of the window, and keeps their u(t - dt) and u(t) in
// registers; vertical neighbours inside a thread's strip come from its own registers.
// u(t) also goes through shared memory for the other neighbours, in two buffers that
// alternate, so one barrier per step suffices. The cell codes wait in shared memory
// too: registers are what limits the window's size, and a larger window wastes less
// on its edges. Each launch reads one pair of global
// fields and writes the other: no block reads what another block of the launch writes.
#ifndef WAVE2D_SHMEM_KERNEL_CUH
#define WAVE2D_SHMEM_KERNEL_CUH

#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>
#include <wave2d/cuda/wave2d_CudaKernels.hpp>
#include <wave2d/cuda/detail/wave2d_Receivers.cuh>
#include <wave2d/cuda/detail/wave2d_Sources.cuh>

#include <algorithm>
#include <string>
#include <utility>

namespace wave2d::cuda {

template <int TileX, int TileY, int CellsX, int CellsY, int FusedSteps>
struct ShmemShape {
  static constexpr int tile_x = TileX;
  static constexpr int tile_y = TileY;
  static constexpr int cells_x = CellsX;
  static constexpr int cells_y = CellsY;
  static constexpr int steps = FusedSteps;
  static constexpr int window_x = TileX + 2 * FusedSteps;
  static constexpr int window_y = TileY + 2 * FusedSteps;
  static constexpr int block_x = window_x / CellsX;
  static constexpr int block_y = window_y / CellsY;
  static constexpr int threads = block_x * block_y;
  // One apron cell around the window, never written, read only by the window's edge. Rows
  // unpadded: a warp reads consecutive columns of a row, conflict-free at any pitch.
  static constexpr int pitch = window_x + 2;
  static constexpr int rows = window_y + 2;
  static constexpr std::size_t shared_bytes = 3 * std::size_t(rows) * pitch * sizeof(float);

  static_assert(window_x % CellsX == 0 && window_y % CellsY == 0,
                "the window must split evenly into cells per thread");
  static_assert(threads <= 1024, "at most 1024 threads per block");

  static std::string describe() {
    return "tile " + std::to_string(TileX) + "x" + std::to_string(TileY) + ", " +
           std::to_string(CellsX) + "x" + std::to_string(CellsY) +
           " cells/thread, T=" + std::to_string(FusedSteps) + ", unpadded";
  }
};

// Calls f(i, j, lx, ly) for each of the thread's CY x CX cells: row i and column j of
// its register arrays, (lx, ly) in the window. Unrolled, so the arrays stay in registers.
template <class Tile, class F>
__device__ __forceinline__ void for_own_cells(F&& f) {
#pragma unroll
  for (int i = 0; i < Tile::cells_y; ++i) {
#pragma unroll
    for (int j = 0; j < Tile::cells_x; ++j) {
      f(i, j, int(threadIdx.x) + j * Tile::block_x, int(threadIdx.y) * Tile::cells_y + i);
    }
  }
}

// A thread's cells of the window (x0, y0) and what it keeps in registers.
template <class Tile>
struct OwnCells {
  float prev[Tile::cells_y][Tile::cells_x];
  float cur[Tile::cells_y][Tile::cells_x];
  float kappa[Tile::cells_y][Tile::cells_x];
  bool has_sources = false;
};

// Loads the thread's cells of both levels into registers and `current`, their codes into
// `codes` (fixed-zero outside the grid).
template <class Tile, bool UniformKappa>
__device__ __forceinline__ void load_window(KernelParams const& params, FieldPointers in, int x0,
                                            int y0, OwnCells<Tile>& own, float* current,
                                            float* codes) {
  constexpr int pitch = Tile::pitch;
  for_own_cells<Tile>([&](int i, int j, int lx, int ly) {
    int const gx = x0 + lx;
    int const gy = y0 + ly;
    bool const inside = gx >= 0 && gx < params.nx && gy >= 0 && gy < params.ny;
    std::int64_t const g = std::int64_t(gy) * params.pitch + gx;
    own.prev[i][j] = inside ? in.previous[g] : 0.0f;
    own.cur[i][j] = inside ? in.current[g] : 0.0f;
    int const p = (ly + 1) * pitch + lx + 1;
    codes[p] = inside ? __ldg(params.code + g) : cell_code::fixed_zero;
    own.has_sources |= codes[p] < cell_code::fixed_zero;
    if constexpr (UniformKappa) {
      own.kappa[i][j] = params.kappa_uniform;
    } else {
      own.kappa[i][j] = inside ? __ldg(params.kappa + g) : 0.0f;
    }
    current[p] = own.cur[i][j];
  });
}

// One step of the thread's cells, from `current` into `next` and its registers; hard
// sources set at time t.
template <class Tile>
__device__ __forceinline__ void step_cells(KernelParams const& params, float t,
                                           float const* current, float* next, float const* codes,
                                           OwnCells<Tile>& own) {
  constexpr int CX = Tile::cells_x;
  constexpr int CY = Tile::cells_y;
  constexpr int pitch = Tile::pitch;
#pragma unroll
  for (int j = 0; j < CX; ++j) {
    int const lx = threadIdx.x + j * Tile::block_x;
    int const top = (threadIdx.y * CY + 1) * pitch + lx + 1;  // the strip's first cell
    float above = current[top - pitch];
#pragma unroll
    for (int i = 0; i < CY; ++i) {
      int const p = top + i * pitch;
      float const below = i + 1 < CY ? own.cur[i + 1][j] : current[p + pitch];
      float const sum = current[p - 1] + current[p + 1] + above + below;
      float const u = own.cur[i][j];
      float const code = codes[p];
      // Fixed cells to 0 without a branch; sources are set after the loop.
      float const u_next =
          updated_or_zero(code, stencil(code, own.kappa[i][j], own.prev[i][j], u, sum));
      above = u;
      own.prev[i][j] = u;
      own.cur[i][j] = u_next;
      next[p] = u_next;
    }
  }
  if (own.has_sources) {
    for_own_cells<Tile>([&](int i, int j, int lx, int ly) {
      int const p = (ly + 1) * pitch + lx + 1;
      if (codes[p] < cell_code::fixed_zero) {
        own.cur[i][j] = source_value(params.sources, codes[p], t);
        next[p] = own.cur[i][j];
      }
    });
  }
}

// Writes the thread's cells of the output tile, inside the grid.
template <class Tile>
__device__ __forceinline__ void store_tile(KernelParams const& params, FieldPointers out, int x0,
                                           int y0, OwnCells<Tile> const& own) {
  for_own_cells<Tile>([&](int i, int j, int lx, int ly) {
    int const gx = x0 + lx;
    int const gy = y0 + ly;
    bool const in_tile = lx >= Tile::steps && lx < Tile::steps + Tile::tile_x &&
                         ly >= Tile::steps && ly < Tile::steps + Tile::tile_y;
    if (in_tile && gx < params.nx && gy < params.ny) {
      std::int64_t const g = std::int64_t(gy) * params.pitch + gx;
      out.previous[g] = own.prev[i][j];
      out.current[g] = own.cur[i][j];
    }
  });
}

template <class Tile, bool UniformKappa>
__global__ void __launch_bounds__(Tile::threads)
    shmem_steps(KernelParams params, FieldPointers in, FieldPointers out, std::int64_t first_step,
                int steps, int tiles_y) {
  constexpr int pitch = Tile::pitch;
  extern __shared__ float shared[];
  float* current = shared;
  float* next = shared + Tile::rows * pitch;
  float* const codes = shared + 2 * Tile::rows * pitch;

  // Zero the aprons once: the edge reads them, and garbage there could be NaN.
  for (int i = threadIdx.y * Tile::block_x + threadIdx.x; i < 2 * Tile::rows * pitch;
       i += Tile::threads) {
    int const row = (i / pitch) % Tile::rows;
    int const col = i % pitch;
    if (row == 0 || row == Tile::rows - 1 || col == 0 || col >= Tile::window_x + 1) {
      shared[i] = 0.0f;
    }
  }

  // Large grids have more tile rows than a launch may have blocks in y.
  for (int tile_row = blockIdx.y; tile_row < tiles_y; tile_row += gridDim.y) {
    int const x0 = int(blockIdx.x) * Tile::tile_x - Tile::steps;  // window origin
    int const y0 = tile_row * Tile::tile_y - Tile::steps;
    OwnCells<Tile> own;
    load_window<Tile, UniformKappa>(params, in, x0, y0, own, current, codes);
    __syncthreads();

    for (int s = 0; s < steps; ++s) {
      step_cells<Tile>(params, params.time(first_step + s), current, next, codes, own);
      __syncthreads();
      float* const written = next;
      next = current;
      current = written;
      // Receivers: the output tile's, from `current`, which the next sub-step
      // only reads. Self-contained: carry this call to any fused kernel.
      record_tile_receivers(params.receivers, x0 + Tile::steps, y0 + Tile::steps, Tile::tile_x,
                            Tile::tile_y, first_step + s + 1, [&](int x, int y) {
                              return current[(y + Tile::steps + 1) * pitch + x + Tile::steps + 1];
                            });
    }
    store_tile<Tile>(params, out, x0, y0, own);
    // The next tile row reuses the shared buffers.
    __syncthreads();
  }
}

// Runs n_steps as launches of Tile::steps (and one shorter remainder launch),
// alternating between the two pairs. Returns the pair that holds the result.
template <class Tile>
FieldPointers advance_tiles(KernelParams const& params, FieldPointers fields, FieldPointers scratch,
                            std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream) {
  auto const kernel = params.uniform_kappa() ? shmem_steps<Tile, true> : shmem_steps<Tile, false>;
  WAVE2D_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(Tile::shared_bytes)));
  int const tiles_x = (params.nx + Tile::tile_x - 1) / Tile::tile_x;
  int const tiles_y = (params.ny + Tile::tile_y - 1) / Tile::tile_y;
  dim3 const block(Tile::block_x, Tile::block_y);
  dim3 const blocks(tiles_x, std::min(tiles_y, 65535));
  for (std::int64_t s = 0; s < n_steps; s += Tile::steps) {
    int const steps = int(std::min<std::int64_t>(Tile::steps, n_steps - s));
    kernel<<<blocks, block, Tile::shared_bytes, stream>>>(params, fields, scratch, first_step + s,
                                                          steps, tiles_y);
    WAVE2D_CUDA_CHECK(cudaGetLastError());
    std::swap(fields, scratch);
  }
  return fields;
}

}  // namespace wave2d::cuda

#endif
