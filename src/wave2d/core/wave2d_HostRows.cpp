#include <wave2d/core/wave2d_CellRule.hpp>
#include <wave2d/core/wave2d_HostRows.hpp>

// GCC and Clang on x86-64 with glibc: one clone per target, an ifunc picks one at load.
// AVX-512F brings FMA, which would change the bits: this file is built without
// contraction (src/CMakeLists.txt).
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define WAVE2D_HOST_ROWS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define WAVE2D_HOST_ROWS_CLONED
#endif
#endif
#ifndef WAVE2D_HOST_ROWS_CLONES
#define WAVE2D_HOST_ROWS_CLONES
#endif

namespace wave2d {

namespace {

WAVE2D_HOST_ROWS_CLONES void update_row_uniform(float* prev, float const* cur, float const* cu,
                                                float const* cp, float kappa, int pitch, int begin,
                                                int end) {
  update_cells_folded<true>(prev, cur, cu, cp, nullptr, kappa, pitch, begin, end, 1);
}

WAVE2D_HOST_ROWS_CLONES void update_row_per_cell(float* prev, float const* cur, float const* cu,
                                                 float const* cp, float const* kappa, int pitch,
                                                 int begin, int end) {
  update_cells_folded<false>(prev, cur, cu, cp, kappa, 0.0f, pitch, begin, end, 1);
}

WAVE2D_HOST_ROWS_CLONES void update_row_plain_cloned(float* prev, float const* cur, float kappa,
                                                     int pitch, int begin, int end) {
  update_cells_plain(prev, cur, kappa, pitch, begin, end, 1);
}

WAVE2D_HOST_ROWS_CLONES void rows_coded_uniform(float* next, float const* prev, float const* up,
                                                float const* mid, float const* down,
                                                float const* code, float kappa, int n) {
  update_coded_row_of_rows<true>(next, prev, up, mid, down, code, nullptr, kappa, n);
}

WAVE2D_HOST_ROWS_CLONES void rows_coded_per_cell(float* next, float const* prev, float const* up,
                                                 float const* mid, float const* down,
                                                 float const* code, float const* kappa, int n) {
  update_coded_row_of_rows<false>(next, prev, up, mid, down, code, kappa, 0.0f, n);
}

WAVE2D_HOST_ROWS_CLONES void rows_plain(float* next, float const* prev, float const* up,
                                        float const* mid, float const* down, float kappa, int n) {
  update_plain_row_of_rows(next, prev, up, mid, down, kappa, n);
}

WAVE2D_HOST_ROWS_CLONES void fold_row_uniform(float* cu, float* cp, float const* code, float kappa,
                                              int n) {
  fold_cells<true>(cu, cp, code, nullptr, kappa, 0, n, 1);
}

WAVE2D_HOST_ROWS_CLONES void fold_row_per_cell(float* cu, float* cp, float const* code,
                                               float const* kappa, int n) {
  fold_cells<false>(cu, cp, code, kappa, 0.0f, 0, n, 1);
}

}  // namespace

void fold_row(float* cu, float* cp, float const* code, float const* kappa, float kappa_uniform,
              int n) {
  if (kappa) {
    fold_row_per_cell(cu, cp, code, kappa, n);
  } else {
    fold_row_uniform(cu, cp, code, kappa_uniform, n);
  }
}

void update_row_folded(float* prev, float const* cur, float const* cu, float const* cp,
                       float const* kappa, float kappa_uniform, int pitch, int begin, int end) {
  if (kappa) {
    update_row_per_cell(prev, cur, cu, cp, kappa, pitch, begin, end);
  } else {
    update_row_uniform(prev, cur, cu, cp, kappa_uniform, pitch, begin, end);
  }
}

void update_row_plain(float* prev, float const* cur, float kappa, int pitch, int begin, int end) {
  update_row_plain_cloned(prev, cur, kappa, pitch, begin, end);
}

void update_rows_coded(float* next, float const* prev, float const* up, float const* mid,
                       float const* down, float const* code, float const* kappa,
                       float kappa_uniform, int n) {
  if (kappa) {
    rows_coded_per_cell(next, prev, up, mid, down, code, kappa, n);
  } else {
    rows_coded_uniform(next, prev, up, mid, down, code, kappa_uniform, n);
  }
}

void update_rows_plain(float* next, float const* prev, float const* up, float const* mid,
                       float const* down, float kappa, int n) {
  rows_plain(next, prev, up, mid, down, kappa, n);
}

char const* host_rows_isa() {
#if defined(__AVX512F__)
  return "avx512f";  // the whole build is
#elif defined(__x86_64__) && defined(WAVE2D_HOST_ROWS_CLONED)
  return __builtin_cpu_supports("avx512f") ? "avx512f"
         : __builtin_cpu_supports("avx2")  ? "avx2"
                                           : "baseline";
#elif defined(__AVX2__)
  return "avx2";  // the whole build is
#else
  return "baseline";
#endif
}

}  // namespace wave2d
