// The row loops of the fused kernels on CPUs (kokkos-tiled's steps and loads), compiled
// twice more, for AVX-512F and AVX2, and chosen for the CPU at hand when the library
// loads: a portable build, made for the baseline x86-64 (SSE2), still runs them with 16-
// or 8-wide vectors where the CPU has them; with GCC on x86-64 the row-of-rows loops
// also as AVX-512F intrinsics, taken where the CPU has AVX-512F. The cell rule's
// expressions, never contracted to FMA: the same bits on every CPU.
#ifndef WAVE2D_HOST_ROWS_HPP
#define WAVE2D_HOST_ROWS_HPP

namespace wave2d {

// update_cells_folded over cells [begin, end) of one window row, stride 1; kappa: per
// cell, or nullptr for kappa_uniform.
void update_row_folded(float* prev, float const* cur, float const* cu, float const* cp,
                       float const* kappa, float kappa_uniform, int pitch, int begin, int end);

// update_cells_plain over cells [begin, end) of one window row, stride 1.
void update_row_plain(float* prev, float const* cur, float kappa, int pitch, int begin, int end);

// update_coded_row_of_rows over n cells (kappa: per cell, or nullptr for kappa_uniform),
// and update_plain_row_of_rows.
void update_rows_coded(float* next, float const* prev, float const* up, float const* mid,
                       float const* down, float const* code, float const* kappa,
                       float kappa_uniform, int n);
void update_rows_plain(float* next, float const* prev, float const* up, float const* mid,
                       float const* down, float kappa, int n);

// The folded coefficients of n cells: cu[i], cp[i] from code[i] and kappa[i] (or
// kappa_uniform when kappa is nullptr), as folded_cu and folded_cp make them.
void fold_row(float* cu, float* cp, float const* code, float const* kappa, float kappa_uniform,
              int n);

// Which code update_row_folded and fold_row run here: "avx512f", "avx2" or "baseline".
char const* host_rows_isa();

}  // namespace wave2d

#endif
