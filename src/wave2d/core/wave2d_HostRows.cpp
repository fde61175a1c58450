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

// GCC on x86-64: the AVX-512F loops below, compiled for AVX-512F whatever the build's
// target (the lambdas too: hence a pragma, not a function attribute), and taken where the
// CPU has it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WAVE2D_HOST_ROWS_AVX512
#include <immintrin.h>
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

#ifdef WAVE2D_HOST_ROWS_AVX512
// The row-of-rows loops written for AVX-512F: a cell's left and right neighbours are
// shifted out of the middle row's vectors (valignd) instead of loaded again, 4 loads of 16
// cells where the compiled loops take 6 (5 of 7 with the codes). The same expressions in
// the same order, without contraction: the same bits. A row's last cells go through
// masked loads and stores: the loop reads only the cells the row holds (mid[-1] to
// mid[n]) and writes only next[0] to next[n - 1].
#pragma GCC push_options
#pragma GCC target("avx512f")
namespace avx512 {

inline __m512 left_of(__m512 before, __m512 here) {
  return _mm512_castsi512_ps(
      _mm512_alignr_epi32(_mm512_castps_si512(here), _mm512_castps_si512(before), 15));
}
inline __m512 right_of(__m512 here, __m512 after) {
  return _mm512_castsi512_ps(
      _mm512_alignr_epi32(_mm512_castps_si512(after), _mm512_castps_si512(here), 1));
}
// The first `count` (0 ... 16) lanes.
inline __mmask16 lanes(int count) { return __mmask16((1u << count) - 1u); }

// Walks a row in vectors of 16 cells: cell(i, mask, left, mid, right) computes and stores
// cells i ... i + 15 where `mask` holds, from the middle row's vectors.
template <class Cells>
inline void walk_row(float const* __restrict__ mid, int n, Cells const& cells) {
  __m512 before = _mm512_maskz_loadu_ps(__mmask16(0x8000), mid - 16);
  __m512 here = _mm512_maskz_loadu_ps(lanes(n + 1 < 16 ? n + 1 : 16), mid);
  int i = 0;
  for (; i + 32 <= n; i += 16) {
    __m512 const after = _mm512_loadu_ps(mid + i + 16);
    cells(i, __mmask16(0xffff), left_of(before, here), here, right_of(here, after));
    before = here;
    here = after;
  }
  if (n - i > 16) {
    __m512 const after = _mm512_maskz_loadu_ps(lanes(n - i - 15), mid + i + 16);
    cells(i, __mmask16(0xffff), left_of(before, here), here, right_of(here, after));
    before = here;
    here = after;
    i += 16;
  }
  if (i < n) {
    __m512 const after =
        n - i == 16 ? _mm512_maskz_loadu_ps(__mmask16(1), mid + i + 16) : _mm512_setzero_ps();
    cells(i, lanes(n - i), left_of(before, here), here, right_of(here, after));
  }
}

inline __m512 load(__mmask16 mask, float const* p) {
  return mask == __mmask16(0xffff) ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(mask, p);
}

void rows_plain(float* __restrict__ next, float const* __restrict__ prev,
                float const* __restrict__ up, float const* __restrict__ mid,
                float const* __restrict__ down, float kappa, int n) {
  __m512 const cu = _mm512_set1_ps(folded_cu(0.0f, kappa));
  __m512 const k = _mm512_set1_ps(kappa);
  walk_row(mid, n, [&](int i, __mmask16 mask, __m512 left, __m512 here, __m512 right) {
    // update_plain_row_of_rows(): cu u - u_prev + κ (left + right + up + down).
    __m512 const sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(left, right), load(mask, up + i)),
                                     load(mask, down + i));
    _mm512_mask_storeu_ps(
        next + i, mask,
        _mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(cu, here), load(mask, prev + i)),
                      _mm512_mul_ps(k, sum)));
  });
}

template <bool UniformKappa>
void rows_coded(float* __restrict__ next, float const* __restrict__ prev,
                float const* __restrict__ up, float const* __restrict__ mid,
                float const* __restrict__ down, float const* __restrict__ code,
                float const* __restrict__ kappa, float kappa_uniform, int n) {
  __m512 const two = _mm512_set1_ps(2.0f), one = _mm512_set1_ps(1.0f), four = _mm512_set1_ps(4.0f),
               zero = _mm512_setzero_ps();
  __m512 const uniform = _mm512_set1_ps(kappa_uniform);
  walk_row(mid, n, [&](int i, __mmask16 mask, __m512 left, __m512 here, __m512 right) {
    __m512 const c = load(mask, code + i);
    __m512 const k = UniformKappa ? uniform : load(mask, kappa + i);
    __m512 const sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(left, right), load(mask, up + i)),
                                     load(mask, down + i));
    // stencil(): (2 - d - 4κ) u - (1 - d) u_prev + κ sum; updated_or_zero(): +0 where d < 0.
    __m512 const value = _mm512_add_ps(
        _mm512_sub_ps(
            _mm512_mul_ps(_mm512_sub_ps(_mm512_sub_ps(two, c), _mm512_mul_ps(four, k)), here),
            _mm512_mul_ps(_mm512_sub_ps(one, c), load(mask, prev + i))),
        _mm512_mul_ps(k, sum));
    _mm512_mask_storeu_ps(next + i, mask,
                          _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(c, zero, _CMP_GE_OQ), value));
  });
}

}  // namespace avx512
#pragma GCC pop_options

// Asked at the first call, not in a static initializer, which could run before the CPU's
// features are known (__builtin_cpu_init).
bool avx512_available() {
  static bool const available = (__builtin_cpu_init(), __builtin_cpu_supports("avx512f"));
  return available;
}
#endif

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
#ifdef WAVE2D_HOST_ROWS_AVX512
  if (avx512_available()) {
    kappa ? avx512::rows_coded<false>(next, prev, up, mid, down, code, kappa, 0.0f, n)
          : avx512::rows_coded<true>(next, prev, up, mid, down, code, nullptr, kappa_uniform, n);
    return;
  }
#endif
  if (kappa) {
    rows_coded_per_cell(next, prev, up, mid, down, code, kappa, n);
  } else {
    rows_coded_uniform(next, prev, up, mid, down, code, kappa_uniform, n);
  }
}

void update_rows_plain(float* next, float const* prev, float const* up, float const* mid,
                       float const* down, float kappa, int n) {
#ifdef WAVE2D_HOST_ROWS_AVX512
  if (avx512_available()) {
    avx512::rows_plain(next, prev, up, mid, down, kappa, n);
    return;
  }
#endif
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
