// What one CPU thread can do at best, measured on the machine at hand, for the host
// spaces' fractions of it (docs/benchmarks.md): the floating-point peak, and a step of
// the stencil swept over a grid that stays in the core's caches.
#ifndef WAVE2D_HOST_CEILINGS_HPP
#define WAVE2D_HOST_CEILINGS_HPP

#include <cstdint>

namespace wave2d::bench {

// Flops of `rounds` rounds of fused multiply-adds on independent accumulators, in the
// widest vectors the CPU has (an FMA counts 2 flops).
double fma_flops(std::int64_t rounds);

// A grid of side `side` (a few hundred cells: three fields and the codes in L2) advanced
// `steps` steps, one sweep a step into the third field, by the codes row loop of
// kokkos-tiled's wavefront (update_rows_coded, core/wave2d_HostRows.hpp), its border
// fixed. Returns the cell-steps made.
double cached_sweep_cell_steps(int side, std::int64_t steps);

// Which code fma_flops runs here: "avx512f", "avx2" or "baseline".
char const* fma_isa();

}  // namespace wave2d::bench

#endif
