// cuda-shmem: the shared-memory multistep kernel in its tuned and seed shapes.
#include <kernels_cuda/wave2d_ShmemKernel.cuh>

#include <string>

namespace wave2d::cuda {

namespace {

// Chosen by bench/tuning on an H200 (docs/cuda-kernels.md has the measurements).
using TunedTile = ShmemTile<112, 48, 1, 16, 8, 0>;
// The seed chapter's shape: 32 x 32 tile, 2 x 2 cells per thread, 8 steps, no padding.
using SeedTile = ShmemTile<32, 32, 2, 2, 8, 0>;

// A grid with fewer tuned tiles than the GPU has multiprocessors (201 x 201 makes 10)
// leaves most of it idle: there the seed's smaller tiles are faster (measured 1.9x).
bool too_few_tuned_tiles(Grid grid) {
  int device = 0;
  int multiprocessors = 0;
  WAVE2D_CUDA_CHECK(cudaGetDevice(&device));
  WAVE2D_CUDA_CHECK(
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  std::int64_t const tiles =
      std::int64_t((grid.nx + TunedTile::tile_x - 1) / TunedTile::tile_x) *
      ((grid.ny + TunedTile::tile_y - 1) / TunedTile::tile_y);
  return tiles < multiprocessors;
}

}  // namespace

ShmemShape shmem_shape(ShmemVariant variant) {
  return variant == ShmemVariant::seed ? SeedTile::shape() : TunedTile::shape();
}

std::string describe(ShmemShape const& shape) {
  return "tile " + std::to_string(shape.tile_x) + "x" + std::to_string(shape.tile_y) + ", " +
         std::to_string(shape.cells_x) + "x" + std::to_string(shape.cells_y) +
         " cells/thread, T=" + std::to_string(shape.fused_steps) +
         (shape.padded ? ", padded" : ", unpadded");
}

FieldPointers advance_shmem(ShmemVariant variant, Grid grid, Coefficients const& coefficients,
                            FieldPointers fields, FieldPointers scratch,
                            std::int64_t first_step, std::int64_t n_steps,
                            cudaStream_t stream) {
  if (variant == ShmemVariant::seed || too_few_tuned_tiles(grid)) {
    return advance_tiles<SeedTile>(grid, coefficients, fields, scratch, first_step, n_steps,
                                   stream);
  }
  return advance_tiles<TunedTile>(grid, coefficients, fields, scratch, first_step, n_steps,
                                  stream);
}

}  // namespace wave2d::cuda
