// Shared-memory bank conflicts (docs/memory-hierarchy.md).
//
// 1. Strided 32-bit loads: lane l of a warp reads word l * stride. Banks are 4 bytes wide and 32 to
//    a row, so the lanes fall into gcd(stride, 32) groups on the same bank, and the hardware
//    serializes them: an n-way conflict. Measured two ways with clock64 inside the kernel:
//    - throughput: 32 warps of one block issue independent loads; cycles per warp-wide load.
//    - latency: one warp, each load's address is the value of the one before; cycles per load.
// 2. A 32x32 float tile, written by rows and read by columns (the core of a transpose), declared
//    [32][32] (a column is one bank: 32-way conflict) and [32][33] (one word of padding per row:
//    a column spreads over all 32 banks).
#include "wave2d_MemoryBench.cuh"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace {

using namespace wave2d::membench;

constexpr int words = 2048;  // 8 KiB: room for lane 31 at stride 33 (word 1023) and more
constexpr int max_stride = 33;
constexpr int unroll = 16;

__global__ void __launch_bounds__(1024)
    strided_throughput(int stride, int rounds, long long* cycles, std::uint32_t* out) {
  __shared__ std::uint32_t table[words];
  for (int i = threadIdx.x; i < words; i += blockDim.x) table[i] = i;
  int const lane = threadIdx.x % 32;
  std::uint32_t const address = shared_address(table) + 4u * ((lane * stride) % words);
  std::uint32_t acc = 0;
  __syncthreads();
  long long const t0 = clock_cycles();
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < unroll; ++k) acc += load_shared(address);
  }
  // Every warp has used its last load's value before it reaches the barrier.
  __syncthreads();
  long long const t1 = clock_cycles();
  if (threadIdx.x == 0) *cycles = t1 - t0;
  out[threadIdx.x] = acc;
}

// Each word holds its own shared address, so p = load(p) stays on one word while every load
// depends on the one before. t1 - t0 spans `steps` latencies (see chase() in latency.cu).
__global__ void strided_latency(int stride, int steps, long long* cycles, std::uint32_t* out) {
  __shared__ std::uint32_t table[words];
  std::uint32_t const base = shared_address(table);
  int const lane = threadIdx.x;  // one warp
  for (int i = lane; i < words; i += 32) table[i] = base + 4u * i;
  __syncwarp();
  std::uint32_t const start = base + 4u * ((lane * stride) % words);
  std::uint32_t p = load_shared(start);  // warm-up
  long long const t0 = clock_cycles();
#pragma unroll 16
  for (int s = 0; s < steps; ++s) p = load_shared(p);
  long long const t1 = clock_cycles();
  if (lane == 0) *cycles = t1 - t0;
  out[lane] = p - start;  // 0 when the chain stayed put
}

// A block of 32x32 threads writes a row of the tile per warp, then reads a column per warp:
// thread (x, y) takes the value written by thread (y, x) and adds 1, `tiles` times.
template <int Pitch>
__global__ void __launch_bounds__(1024)
    tile_transpose(int tiles, long long* block_cycles, float* out) {
  __shared__ float tile[32][Pitch];
  int const x = threadIdx.x, y = threadIdx.y;
  float v = static_cast<float>(32 * y + x);
  __syncthreads();
  long long const t0 = clock_cycles();
  for (int t = 0; t < tiles; ++t) {
    tile[y][x] = v;  // a warp writes 32 consecutive words: no conflict either way
    __syncthreads();
    v = tile[x][y] + 1.0f;  // a warp reads a column: words x * Pitch + y
    __syncthreads();
  }
  long long const t1 = clock_cycles();
  if (x == 0 && y == 0) block_cycles[blockIdx.x] = t1 - t0;
  out[(blockIdx.x * 32 + y) * 32 + x] = v;
}

void run(Bench& bench) {
  bool const quick = bench.quick();
  DeviceInfo const& dev = bench.device();
  int const reps = quick ? 1 : 5;
  double const mhz = measure_sm_clock_mhz(quick ? 2'000'000 : 20'000'000);
  bench.device_note("sm_clock_mhz_while_busy", mhz);

  // 1. Strided loads.
  int const rounds = quick ? 16 : 128;
  int const steps = quick ? 1024 : 4096;
  int const threads = 1024;
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<std::uint32_t> out(threads);
  std::printf("Strided 32-bit shared loads, lane l reads word l * stride (SM clock %.0f MHz)\n",
              mhz);
  std::printf("%7s %6s %20s %12s %20s\n", "stride", "ways", "cycles/warp load", "B/clk/SM",
              "latency cycles");
  Json points = Json::array();
  double conflict_free_cycles = 0.0;
  for (int stride = 1; stride <= max_stride; ++stride) {
    int const ways = std::gcd(stride, 32);
    std::vector<double> per_load, latency;
    bool ok = true;
    for (int r = -1; r < reps; ++r) {  // r = -1: untimed warm-up launch
      strided_throughput<<<1, threads>>>(stride, rounds, cycles.get(), out.get());
      WAVE2D_CHECK_LAUNCH();
      long long const c = cycles.to_host()[0];
      std::vector<std::uint32_t> const acc = out.to_host();
      for (int t = 0; t < threads; ++t) {
        std::uint32_t const word = ((t % 32) * stride) % words;
        ok = ok && acc[t] == word * std::uint32_t(rounds * unroll);
      }
      strided_latency<<<1, 32>>>(stride, steps, cycles.get(), out.get());
      WAVE2D_CHECK_LAUNCH();
      long long const l = cycles.to_host()[0];
      std::vector<std::uint32_t> const moved = out.to_host();
      for (int t = 0; t < 32; ++t) ok = ok && moved[t] == 0;
      if (r < 0) continue;
      per_load.push_back(double(c) / (double(threads / 32) * rounds * unroll));
      latency.push_back(double(l) / steps);
    }
    bench.check(ok, format("shared stride %d: a thread read the wrong words", stride));
    double const cpl = median(per_load), lat = median(latency);
    if (stride == 1) conflict_free_cycles = cpl;
    std::printf("%7d %6d %20.2f %12.1f %20.1f%s\n", stride, ways, cpl, 128.0 / cpl, lat,
                ok ? "" : "  INVALID");
    Json p = Json::object();
    p.set("stride_words", stride);
    p.set("conflict_ways", ways);
    p.set("cycles_per_warp_load", cpl);
    p.set("ns_per_warp_load", cpl / mhz * 1e3);
    p.set("bytes_per_clock_per_sm", 128.0 / cpl);
    p.set("relative_to_stride_1", cpl / conflict_free_cycles);
    p.set("latency_cycles", lat);
    p.set("latency_ns", lat / mhz * 1e3);
    p.set("reps", reps);
    p.set("valid", ok);
    points.push(std::move(p));
  }
  Json strided = Json::object();
  strided.set("warps", threads / 32);
  strided.set("loads_per_warp", rounds * unroll);
  strided.set("latency_steps", steps);
  strided.set("points", std::move(points));
  bench.result("strided_shared_loads", std::move(strided));

  // 2. The transpose tile, on every SM, with as many 1024-thread blocks as fit.
  int const tiles = quick ? 256 : 4096;
  Json tile_json = Json::array();
  double ns_per_tile[2] = {};
  std::printf("\n32x32 float tile, rows written, columns read, %d tiles per block\n", tiles);
  std::printf("%-22s %16s %18s %20s\n", "tile", "ns per tile/SM", "SM cycles per tile",
              "block cycles/tile");
  for (int padded = 0; padded < 2; ++padded) {
    auto const kernel = padded ? tile_transpose<33> : tile_transpose<32>;
    int blocks_per_sm = 0;
    WAVE2D_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, 1024, 0));
    if (blocks_per_sm < 1) throw std::runtime_error("the 1024-thread tile kernel does not fit");
    int const blocks = blocks_per_sm * dev.sm_count;
    DeviceBuffer<long long> block_cycles(blocks);
    DeviceBuffer<float> values(std::size_t(blocks) * 1024);
    Timing const t = time_launches(1, reps, [&] {
      kernel<<<blocks, dim3(32, 32)>>>(tiles, block_cycles.get(), values.get());
      WAVE2D_CHECK_LAUNCH();
    });
    std::vector<float> const v = values.to_host();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      int const x = static_cast<int>(i % 32), y = static_cast<int>(i / 32 % 32);
      // Each tile swaps (x, y) and adds 1: after an even count the values are back in place.
      float const expected = static_cast<float>((tiles % 2 ? 32 * x + y : 32 * y + x) + tiles);
      wrong += v[i] != expected;
    }
    bool const ok = bench.check(wrong == 0, format("tile [32][%d]: %zu of %zu values wrong",
                                                   padded ? 33 : 32, wrong, v.size()));
    std::vector<long long> const bc = block_cycles.to_host();
    std::vector<double> per_block(bc.size());
    for (std::size_t i = 0; i < bc.size(); ++i) per_block[i] = double(bc[i]) / tiles;
    // Throughput of one SM: all its blocks' tiles in the elapsed time.
    double const ns = t.median_ms * 1e6 * dev.sm_count / (double(blocks) * tiles);
    ns_per_tile[padded] = ns;
    char const* name = padded ? "float tile[32][33]" : "float tile[32][32]";
    std::printf("%-22s %16.1f %18.0f %20.0f%s\n", name, ns, ns * mhz / 1e3, median(per_block),
                ok ? "" : "  INVALID");
    Json j = Json::object();
    j.set("tile", name);
    j.set("pitch_words", padded ? 33 : 32);
    j.set("ns_per_tile_per_sm", ns);
    j.set("sm_cycles_per_tile", ns * mhz / 1e3);
    j.set("block_cycles_per_tile_median", median(per_block));
    j.set("blocks", blocks);
    j.set("blocks_per_sm", blocks_per_sm);
    j.set("tiles_per_block", tiles);
    j.set("timing", t.to_json());
    j.set("valid", ok);
    tile_json.push(std::move(j));
  }
  double const ratio = ns_per_tile[0] / ns_per_tile[1];
  std::printf("unpadded / padded time per tile: %.2fx\n", ratio);
  Json tile = Json::object();
  tile.set("variants", std::move(tile_json));
  tile.set("unpadded_over_padded", ratio);
  bench.result("transpose_tile", std::move(tile));
}

}  // namespace

int main(int argc, char** argv) {
  return run_program(argc, argv, "wave2d_mem_bank_conflicts", "shared-memory bank conflicts", run);
}
