// Coalesced versus strided global loads (docs/memory-hierarchy.md): the effective bandwidth of a
// 32-bit load kernel whose warp's 32 lanes read elements `stride` apart.
//
// Every launch reads each element of a 2 GiB buffer exactly once, whatever the stride, so the
// useful bytes stay the same and only the access pattern changes: thread i reads element
// (i mod m) * stride + i / m, with m = n / stride. Threads 0 .. m-1 (pass 0) read elements 0,
// stride, 2 stride, ...; the next m threads (pass 1) start at element 1; and so on. A sector read
// in one pass is read again m loads later, in the next pass: with m >= 2^22 loads of distinct
// sectors in between (128 MiB of sectors at stride 128), it has left the 50 MiB L2 by then.
#include "wave2d_MemoryBench.cuh"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

using namespace wave2d::membench;

constexpr int block_threads = 256;

__global__ void fill_with_index(std::uint32_t* data, std::uint64_t n) {
  std::uint64_t const stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    data[i] = static_cast<std::uint32_t>(i);
  }
}

__global__ void __launch_bounds__(block_threads)
    strided_read(std::uint32_t const* __restrict__ data, int log2_n, int log2_stride,
                 std::uint32_t* out) {
  std::uint64_t const n = std::uint64_t(1) << log2_n;
  int const log2_m = log2_n - log2_stride;
  std::uint64_t const m_mask = (std::uint64_t(1) << log2_m) - 1;
  auto element = [&](std::uint64_t i) { return ((i & m_mask) << log2_stride) + (i >> log2_m); };

  std::uint64_t const grid = std::uint64_t(gridDim.x) * block_threads;
  std::uint64_t const first = std::uint64_t(blockIdx.x) * block_threads + threadIdx.x;
  std::uint32_t acc = 0;
  std::uint64_t i = first;
  // Four independent loads in flight per thread.
  for (; i + 3 * grid < n; i += 4 * grid) {
    std::uint32_t const a = data[element(i)];
    std::uint32_t const b = data[element(i + grid)];
    std::uint32_t const c = data[element(i + 2 * grid)];
    std::uint32_t const d = data[element(i + 3 * grid)];
    acc += a + b + c + d;
  }
  for (; i < n; i += grid) acc += data[element(i)];
  out[first] = acc;
}

void run(Bench& bench) {
  bool const quick = bench.quick();
  DeviceInfo const& dev = bench.device();
  int const log2_n = 29;  // 2 GiB of 32-bit words, also in quick mode: see above
  std::uint64_t const n = std::uint64_t(1) << log2_n;
  int const warmup = 1;
  int const reps = quick ? 1 : 5;

  DeviceBuffer<std::uint32_t> data(n);
  fill_with_index<<<1024, 256>>>(data.get(), n);
  WAVE2D_CHECK_LAUNCH();

  int blocks_per_sm = 0;
  WAVE2D_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, strided_read,
                                                                  block_threads, 0));
  int const blocks = blocks_per_sm * dev.sm_count;
  DeviceBuffer<std::uint32_t> sums(std::size_t(blocks) * block_threads);
  // Every launch reads every element once: the grid's sum is 0 + 1 + ... + (n-1), mod 2^32.
  std::uint32_t const expected = static_cast<std::uint32_t>(n * (n - 1) / 2);

  std::printf("Warp-wide 32-bit loads, lanes `stride` elements apart, %s read once per launch\n",
              format_bytes(n * 4).c_str());
  std::printf("%8s %12s %12s %14s %12s %10s\n", "stride", "useful GB/s", "vs stride 1",
              "sectors/warp", "median ms", "min ms");
  Json points = Json::array();
  double stride1_gbs = 0.0;
  for (int log2_stride = 0; log2_stride <= 7; ++log2_stride) {
    int const stride = 1 << log2_stride;
    Timing const t = time_launches(warmup, reps, [&] {
      strided_read<<<blocks, block_threads>>>(data.get(), log2_n, log2_stride, sums.get());
      WAVE2D_CHECK_LAUNCH();
    });
    std::vector<std::uint32_t> const s = sums.to_host();
    std::uint32_t total = 0;
    for (std::uint32_t v : s) total += v;
    bool const ok = bench.check(total == expected,
                                format("stride %d: the grid summed %u, expected %u: an element was "
                                       "skipped or read twice",
                                       stride, total, expected));
    double const gbs = double(n) * 4 / (t.median_ms * 1e6);
    if (stride == 1) stride1_gbs = gbs;
    // 32-byte sectors one warp-wide load touches: 4 for consecutive words, 32 from stride 8 on.
    int const sectors = std::min(32, 4 * stride);
    std::printf("%8d %12.0f %11.3fx %14d %12.4f %10.4f%s\n", stride, gbs, gbs / stride1_gbs,
                sectors, t.median_ms, t.min_ms, ok ? "" : "  INVALID");
    Json p = Json::object();
    p.set("stride_elements", stride);
    p.set("stride_bytes", 4 * stride);
    p.set("useful_bytes_per_launch", n * 4);
    p.set("gbs", gbs);
    p.set("relative_to_stride_1", gbs / stride1_gbs);
    p.set("sectors_per_warp_load", sectors);
    // Device-memory traffic if every touched 32-byte sector is fetched once per pass.
    p.set("model_dram_bytes_per_launch", double(n) * 4 * std::min(stride, 8));
    p.set("timing", t.to_json());
    p.set("valid", ok);
    points.push(std::move(p));
  }
  std::printf(
      "\nModel: with 32-byte sectors, stride s moves min(s, 8) times the useful bytes, so "
      "the effective bandwidth falls as 1/s up to s = 8 (1/16 from s = 16 if DRAM is read "
      "in 64-byte pieces).\n");

  Json results = Json::object();
  results.set("element_bytes", 4);
  results.set("buffer_bytes", n * 4);
  results.set("blocks", blocks);
  results.set("blocks_per_sm", blocks_per_sm);
  results.set("threads_per_block", block_threads);
  results.set("loads_in_flight_per_thread", 4);
  results.set("points", std::move(points));
  bench.result("strided_loads", std::move(results));
}

}  // namespace

int main(int argc, char** argv) {
  return run_program(argc, argv, "wave2d_mem_coalescing", "coalesced versus strided global loads",
                     run);
}
