#include "wave2d_HostCeilings.hpp"

#include <wave2d/core/wave2d_CellRule.hpp>
#include <wave2d/core/wave2d_HostRows.hpp>

#include <vector>

// One clone per target, as core/wave2d_HostRows.cpp; this file is built with contraction
// (bench/CMakeLists.txt): a * b + c is one FMA where the target has it.
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define WAVE2D_CEILING_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef WAVE2D_CEILING_CLONES
#define WAVE2D_CEILING_CLONES
#endif

namespace wave2d::bench {

namespace {

// 16 floats: one AVX-512 register, two AVX2 ones.
using Vector = float __attribute__((vector_size(64)));

// Twelve independent chains: enough to cover an FMA's latency on two pipes.
WAVE2D_CEILING_CLONES float fma_rounds(std::int64_t rounds, float a, float b) {
  constexpr int chains = 12;
  Vector acc[chains];
  for (int c = 0; c < chains; ++c) acc[c] = Vector{} + float(c);
  Vector const va = Vector{} + a;
  Vector const vb = Vector{} + b;
  for (std::int64_t r = 0; r < rounds; ++r) {
#ifndef __NVCC__  // nvcc's front end knows no GCC pragma (warning 1675-D)
#pragma GCC unroll 12
#endif
    for (int c = 0; c < chains; ++c) acc[c] = acc[c] * va + vb;
  }
  Vector sum{};
  for (int c = 0; c < chains; ++c) sum += acc[c];
  float total = 0.0f;
  for (int i = 0; i < 16; ++i) total += sum[i];
  return total;
}

}  // namespace

double fma_flops(std::int64_t rounds) {
  // a < 1 and b small: the chains converge to b / (1 - a), never overflowing.
  volatile float sink = fma_rounds(rounds, 0.999f, 0.001f);
  (void)sink;
  return double(rounds) * 12 * 16 * 2;
}

double cached_sweep_cell_steps(int side, std::int64_t steps) {
  int const pitch = (side + 15) / 16 * 16;
  std::size_t const cells = std::size_t(side) * pitch;
  std::vector<float> previous(cells, 0.0f), current(cells, 0.0f), next(cells, 0.0f);
  std::vector<float> code(cells, 0.0f);
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      bool const border = x == 0 || y == 0 || x == side - 1 || y == side - 1;
      code[std::size_t(y) * pitch + x] = border ? cell_code::fixed_zero : 0.01f;
    }
  }
  current[std::size_t(side / 2) * pitch + side / 2] = 1.0f;
  float* a = previous.data();
  float* b = current.data();
  float* c = next.data();
  for (std::int64_t s = 0; s < steps; ++s) {
    for (int y = 1; y < side - 1; ++y) {
      int const row = y * pitch + 1;
      update_rows_coded(c + row, a + row, b + row - pitch, b + row, b + row + pitch,
                        code.data() + row, nullptr, 1.0f / 16, side - 2);
    }
    float* const made = c;
    c = a;
    a = b;
    b = made;
  }
  volatile float sink = b[std::size_t(side / 2) * pitch + side / 2];
  (void)sink;
  return double(side - 2) * double(side - 2) * double(steps);
}

char const* fma_isa() {
#if defined(__x86_64__) && defined(__GLIBC__)
  return __builtin_cpu_supports("avx512f")                                 ? "avx512f"
         : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "avx2"
                                                                           : "baseline";
#else
  return "baseline";
#endif
}

}  // namespace wave2d::bench
