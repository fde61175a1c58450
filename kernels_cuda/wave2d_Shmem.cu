// cuda-shmem: the shared-memory multistep kernel in its compiled tile shapes.
#include <wave2d/cuda/detail/wave2d_ShmemKernel.cuh>

#include <string>

namespace wave2d::cuda {

namespace {

// Chosen by bench/tuning on an H200 (docs/kernels/cuda-shmem.md has the measurements).
using Tile112x48 = ShmemShape<112, 48, 1, 16, shmem_fused_steps>;
// The textbook configuration: 32 x 32 tile, 2 x 2 cells per thread, 8 steps, no padding.
using Tile32x32 = ShmemShape<32, 32, 2, 2, shmem_fused_steps>;

}  // namespace

ShmemTile shmem_tile_for(KernelParams const& params, int device) {
  // 201 x 201 makes 10 tiles of 112 x 48: there 32 x 32 tiles are faster (measured 1.9x).
  int multiprocessors = 0;
  WAVE2D_CUDA_CHECK(
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  std::int64_t const tiles =
      std::int64_t((params.nx + Tile112x48::tile_x - 1) / Tile112x48::tile_x) *
      ((params.ny + Tile112x48::tile_y - 1) / Tile112x48::tile_y);
  return tiles < multiprocessors ? ShmemTile::tile_32x32 : ShmemTile::tile_112x48;
}

std::string describe(ShmemTile tile) {
  return tile == ShmemTile::tile_32x32 ? Tile32x32::describe() : Tile112x48::describe();
}

FieldPointers advance_shmem(ShmemTile tile, KernelParams const& params, FieldPointers fields,
                            FieldPointers scratch, std::int64_t first_step, std::int64_t n_steps,
                            cudaStream_t stream) {
  if (tile == ShmemTile::tile_32x32) {
    return advance_tiles<Tile32x32>(params, fields, scratch, first_step, n_steps, stream);
  }
  return advance_tiles<Tile112x48>(params, fields, scratch, first_step, n_steps, stream);
}

}  // namespace wave2d::cuda
