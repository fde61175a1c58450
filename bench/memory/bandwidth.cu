// Read bandwidth of shared memory, L1 and L2, and read, write and copy bandwidth of device memory
// (docs/memory-hierarchy.md). Every kernel runs on the whole GPU at full occupancy; times are the
// median of several launches between CUDA events, after warm-up launches.
#include "wave2d_MemoryBench.cuh"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace {

using namespace wave2d::membench;

constexpr int block_threads = 256;

// ---------------------------------------------------------------------------------------------
// Shared memory and L1: every block reads the same small tile over and over. For shared memory the
// block first copies the tile in; for L1 it reads it from global memory through L1 (the SASS of
// ld.global.ca, see load_l1_v4_sum), so that after the first round every access hits in L1.
// Thread t reads element k * 256 + t of the tile in access k: a warp reads consecutive elements,
// which touch all 32 banks (no conflicts).

enum class TileSource { shared_32bit, shared_128bit, l1_128bit };

template <TileSource Source>
constexpr int access_bytes = Source == TileSource::shared_32bit ? 4 : 16;

// The tile: 16 KiB in shared memory (8 blocks of 256 threads fit on an SM), 8 KiB in L1, which
// stays in L1 whatever share of the 256 KiB the driver gives to shared memory.
template <TileSource Source>
constexpr int tile_bytes = Source == TileSource::l1_128bit ? 8 << 10 : 16 << 10;

template <TileSource Source>
constexpr int accesses_per_round = tile_bytes<Source> / access_bytes<Source> / block_threads;

template <TileSource Source>
__global__ void __launch_bounds__(block_threads)
    tile_read(std::uint32_t const* tile_in_global, int rounds, std::uint32_t* out) {
  constexpr int width = access_bytes<Source>;
  constexpr int per_round = accesses_per_round<Source>;
  std::uint32_t acc = 0;
  if constexpr (Source == TileSource::l1_128bit) {
    auto const* p = reinterpret_cast<uint4 const*>(tile_in_global) + threadIdx.x;
#pragma unroll 4
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
      for (int k = 0; k < per_round; ++k) acc += load_l1_v4_sum(p + k * block_threads);
    }
  } else {
    __shared__ alignas(16) std::uint32_t tile[tile_bytes<Source> / 4];
    auto const* src = reinterpret_cast<uint4 const*>(tile_in_global);
#pragma unroll
    for (int k = 0; k < tile_bytes<Source> / 16 / block_threads; ++k) {
      int const i = k * block_threads + threadIdx.x;
      reinterpret_cast<uint4*>(tile)[i] = src[i];
    }
    __syncthreads();
    std::uint32_t const address = shared_address(tile) + threadIdx.x * width;
#pragma unroll 2
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
      for (int k = 0; k < per_round; ++k) {
        std::uint32_t const a = address + k * block_threads * width;
        if constexpr (width == 4) {
          acc += load_shared(a);
        } else {
          acc += load_shared_v4_sum(a);
        }
      }
    }
  }
  out[blockIdx.x * block_threads + threadIdx.x] = acc;
}

// What thread t of any block must have summed: word i of the tile holds i.
template <TileSource Source>
std::uint32_t expected_tile_sum(int t, int rounds) {
  constexpr int words_per_access = access_bytes<Source> / 4;
  std::uint32_t one_round = 0;
  for (int k = 0; k < accesses_per_round<Source>; ++k) {
    std::uint32_t const first = (k * block_threads + t) * words_per_access;
    for (int c = 0; c < words_per_access; ++c) one_round += first + c;
  }
  return one_round * static_cast<std::uint32_t>(rounds);
}

// ---------------------------------------------------------------------------------------------
// Streaming kernels: grid-stride over n4 16-byte elements, four independent accesses in flight per
// thread. Element q holds the words 4q .. 4q+3, so every kernel's result can be checked.

__device__ __forceinline__ uint4 element_value(std::size_t q) {
  auto const w = static_cast<std::uint32_t>(4 * q);
  return make_uint4(w, w + 1, w + 2, w + 3);
}

// ld.global.cg: L2 only. For the L2 benchmark this matters: a block re-reads the same addresses in
// every round, and ld.global.ca would serve them from L1.
__global__ void __launch_bounds__(block_threads)
    stream_read(uint4 const* data, std::size_t n4, int rounds, std::uint32_t* out) {
  std::size_t const stride = std::size_t(gridDim.x) * block_threads;
  std::size_t const first = std::size_t(blockIdx.x) * block_threads + threadIdx.x;
  std::uint32_t acc = 0;
  for (int r = 0; r < rounds; ++r) {
    std::size_t i = first;
    for (; i + 3 * stride < n4; i += 4 * stride) {
      std::uint32_t const a = load_cg_v4_sum(data + i);
      std::uint32_t const b = load_cg_v4_sum(data + i + stride);
      std::uint32_t const c = load_cg_v4_sum(data + i + 2 * stride);
      std::uint32_t const d = load_cg_v4_sum(data + i + 3 * stride);
      acc += a + b + c + d;
    }
    for (; i < n4; i += stride) acc += load_cg_v4_sum(data + i);
  }
  out[first] = acc;
}

__global__ void __launch_bounds__(block_threads) stream_write(uint4* data, std::size_t n4) {
  std::size_t const stride = std::size_t(gridDim.x) * block_threads;
  std::size_t i = std::size_t(blockIdx.x) * block_threads + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    data[i] = element_value(i);
    data[i + stride] = element_value(i + stride);
    data[i + 2 * stride] = element_value(i + 2 * stride);
    data[i + 3 * stride] = element_value(i + 3 * stride);
  }
  for (; i < n4; i += stride) data[i] = element_value(i);
}

__global__ void __launch_bounds__(block_threads)
    stream_copy(uint4 const* __restrict__ from, uint4* __restrict__ to, std::size_t n4) {
  std::size_t const stride = std::size_t(gridDim.x) * block_threads;
  std::size_t i = std::size_t(blockIdx.x) * block_threads + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    uint4 const a = from[i];
    uint4 const b = from[i + stride];
    uint4 const c = from[i + 2 * stride];
    uint4 const d = from[i + 3 * stride];
    to[i] = a;
    to[i + stride] = b;
    to[i + 2 * stride] = c;
    to[i + 3 * stride] = d;
  }
  for (; i < n4; i += stride) to[i] = from[i];
}

__global__ void count_mismatches(uint4 const* data, std::size_t n4, unsigned long long* bad) {
  std::size_t const stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    uint4 const v = data[i];
    uint4 const e = element_value(i);
    mine += (v.x != e.x) + (v.y != e.y) + (v.z != e.z) + (v.w != e.w);
  }
  if (mine) atomicAdd(bad, mine);
}

// ---------------------------------------------------------------------------------------------

struct Launch {
  int blocks_per_sm = 0;
  int blocks = 0;
};

template <class Kernel>
Launch full_occupancy(Kernel kernel, DeviceInfo const& dev) {
  Launch l;
  WAVE2D_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&l.blocks_per_sm, kernel, block_threads, 0));
  if (l.blocks_per_sm < 1) throw std::runtime_error("a benchmark kernel cannot be resident at all");
  l.blocks = l.blocks_per_sm * dev.sm_count;
  return l;
}

class Report {
 public:
  Report(int sm_count, double mhz) : sm_count_(sm_count), mhz_(mhz) {
    std::printf("%-32s %11s %10s %9s %10s %10s %6s\n", "measurement", "working set", "GB/s",
                "B/clk/SM", "median ms", "min ms", "blk/SM");
  }

  // One row of the table and one entry of the JSON list.
  void add(char const* name, std::size_t working_set, double bytes_moved, Timing const& t,
           Launch const& launch, bool valid, Json extra) {
    double const gbs = bytes_moved / (t.median_ms * 1e6);
    // Bytes per SM clock cycle per SM, at the clock measured while busy: shared memory and L1
    // can deliver 128 on sm_90.
    double const per_clock = gbs * 1e3 / (mhz_ * sm_count_);
    std::printf("%-32s %11s %10.0f %9.1f %10.4f %10.4f %6d%s\n", name,
                format_bytes(working_set).c_str(), gbs, per_clock, t.median_ms, t.min_ms,
                launch.blocks_per_sm, valid ? "" : "  INVALID");
    extra.set("name", name);
    extra.set("working_set_bytes", working_set);
    extra.set("bytes_moved_per_launch", bytes_moved);
    extra.set("gbs", gbs);
    extra.set("gbs_best", bytes_moved / (t.min_ms * 1e6));
    extra.set("bytes_per_clock_per_sm", per_clock);
    extra.set("timing", t.to_json());
    extra.set("blocks", launch.blocks);
    extra.set("blocks_per_sm", launch.blocks_per_sm);
    extra.set("threads_per_block", block_threads);
    extra.set("valid", valid);
    rows_.push(std::move(extra));
  }

  Json take() { return std::move(rows_); }

 private:
  int sm_count_;
  double mhz_;
  Json rows_ = Json::array();
};

template <TileSource Source>
void measure_tile(Bench& bench, Report& report, char const* name, std::uint32_t const* tile,
                  int rounds, int warmup, int reps) {
  auto const kernel = tile_read<Source>;
  WAVE2D_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         Source == TileSource::l1_128bit
                                             ? cudaSharedmemCarveoutMaxL1
                                             : cudaSharedmemCarveoutMaxShared));
  Launch const launch = full_occupancy(kernel, bench.device());
  DeviceBuffer<std::uint32_t> out(std::size_t(launch.blocks) * block_threads);
  Timing const t = time_launches(warmup, reps, [&] {
    kernel<<<launch.blocks, block_threads>>>(tile, rounds, out.get());
    WAVE2D_CHECK_LAUNCH();
  });
  std::vector<std::uint32_t> const sums = out.to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < sums.size(); ++i) {
    wrong += sums[i] != expected_tile_sum<Source>(static_cast<int>(i % block_threads), rounds);
  }
  bool const ok = bench.check(wrong == 0, format("%s: %zu of %zu threads summed the wrong values",
                                                 name, wrong, sums.size()));
  double const bytes = double(launch.blocks) * tile_bytes<Source> * rounds;
  Json extra = Json::object();
  extra.set("access_bytes", access_bytes<Source>);
  extra.set("rounds", rounds);
  report.add(name, tile_bytes<Source>, bytes, t, launch, ok, std::move(extra));
}

std::uint32_t triangle_mod_2_32(std::uint64_t n_words) {
  // Sum of 0 .. n-1, mod 2^32; n * (n - 1) / 2 fits in 64 bits for any buffer we allocate.
  return static_cast<std::uint32_t>(n_words * (n_words - 1) / 2);
}

bool check_stream_sums(Bench& bench, char const* name, DeviceBuffer<std::uint32_t> const& out,
                       std::size_t n4, int rounds) {
  std::vector<std::uint32_t> const sums = out.to_host();
  std::uint32_t total = 0;
  for (std::uint32_t s : sums) total += s;
  std::uint32_t const expected = triangle_mod_2_32(4 * std::uint64_t(n4)) * std::uint32_t(rounds);
  return bench.check(total == expected, format("%s: the grid summed %u, expected %u (mod 2^32)",
                                               name, total, expected));
}

bool check_contents(Bench& bench, char const* name, uint4 const* data, std::size_t n4) {
  DeviceBuffer<unsigned long long> bad(1);
  WAVE2D_CUDA_CHECK(cudaMemset(bad.get(), 0, sizeof(unsigned long long)));
  count_mismatches<<<1024, 256>>>(data, n4, bad.get());
  WAVE2D_CHECK_LAUNCH();
  unsigned long long const wrong = bad.to_host()[0];
  return bench.check(wrong == 0,
                     format("%s: %llu of %zu words hold the wrong value", name, wrong, 4 * n4));
}

void run(Bench& bench) {
  bool const quick = bench.quick();
  DeviceInfo const& dev = bench.device();
  int const warmup = 2;
  int const reps = quick ? 3 : 10;
  double const mhz = measure_sm_clock_mhz(quick ? 2'000'000 : 20'000'000);
  bench.device_note("sm_clock_mhz_while_busy", mhz);
  Report report(dev.sm_count, mhz);

  // Shared memory and L1: the tile is the first 16 KiB of a buffer holding 0, 1, 2, ...
  constexpr std::size_t tile_words = (16 << 10) / 4;
  std::vector<std::uint32_t> host_tile(tile_words);
  for (std::size_t i = 0; i < tile_words; ++i) host_tile[i] = static_cast<std::uint32_t>(i);
  DeviceBuffer<std::uint32_t> tile(tile_words);
  WAVE2D_CUDA_CHECK(
      cudaMemcpy(tile.get(), host_tile.data(), tile_words * 4, cudaMemcpyHostToDevice));
  int const tile_rounds = quick ? 256 : 4096;
  measure_tile<TileSource::shared_32bit>(bench, report, "shared memory, 32-bit loads", tile.get(),
                                         tile_rounds, warmup, reps);
  measure_tile<TileSource::shared_128bit>(bench, report, "shared memory, 128-bit loads", tile.get(),
                                          tile_rounds, warmup, reps);
  measure_tile<TileSource::l1_128bit>(bench, report, "L1, 128-bit (ld.global.ca SASS)", tile.get(),
                                      tile_rounds, warmup, reps);

  // The streaming kernels: one launch configuration for all.
  Launch const launch = full_occupancy(stream_read, dev);
  std::size_t const threads = std::size_t(launch.blocks) * block_threads;
  DeviceBuffer<std::uint32_t> sums(threads);

  // L2: ~20 MiB (at most half the L2), a whole number of 4-access grid strides, so that every
  // thread does the same work; read again `rounds` times in one launch.
  {
    std::size_t const per_pass = 4 * threads;  // 16-byte elements read by one unrolled sweep
    std::size_t const target =
        std::min<std::size_t>(20u << 20, static_cast<std::size_t>(dev.l2_bytes) / 2) / 16;
    std::size_t const n4 = std::max<std::size_t>(1, (target + per_pass / 2) / per_pass) * per_pass;
    int const rounds = quick ? 32 : 512;
    DeviceBuffer<uint4> data(n4);
    stream_write<<<launch.blocks, block_threads>>>(data.get(), n4);
    WAVE2D_CHECK_LAUNCH();
    Timing const t = time_launches(warmup, reps, [&] {
      stream_read<<<launch.blocks, block_threads>>>(data.get(), n4, rounds, sums.get());
      WAVE2D_CHECK_LAUNCH();
    });
    bool const ok = check_stream_sums(bench, "L2 read", sums, n4, rounds);
    Json extra = Json::object();
    extra.set("access_bytes", 16);
    extra.set("rounds", rounds);
    report.add("L2, 128-bit ld.global.cg", n4 * 16, double(n4) * 16 * rounds, t, launch, ok,
               std::move(extra));
  }

  // Device memory: 2 GiB buffers (256 MiB in quick mode), far beyond the L2.
  {
    std::size_t bytes = quick ? (256u << 20) : (std::size_t(2) << 30);
    while (bytes > (64u << 20) && 2 * bytes + (256u << 20) > dev.global_bytes) bytes /= 2;
    std::size_t const n4 = bytes / 16;
    DeviceBuffer<uint4> a(n4), b(n4);

    Timing const tw = time_launches(warmup, reps, [&] {
      stream_write<<<launch.blocks, block_threads>>>(a.get(), n4);
      WAVE2D_CHECK_LAUNCH();
    });
    bool const write_ok = check_contents(bench, "DRAM write", a.get(), n4);

    Timing const tr = time_launches(warmup, reps, [&] {
      stream_read<<<launch.blocks, block_threads>>>(a.get(), n4, 1, sums.get());
      WAVE2D_CHECK_LAUNCH();
    });
    bool const read_ok = check_stream_sums(bench, "DRAM read", sums, n4, 1);

    WAVE2D_CUDA_CHECK(cudaMemset(b.get(), 0xff, bytes));
    Timing const tc = time_launches(warmup, reps, [&] {
      stream_copy<<<launch.blocks, block_threads>>>(a.get(), b.get(), n4);
      WAVE2D_CHECK_LAUNCH();
    });
    bool const copy_ok = check_contents(bench, "DRAM copy", b.get(), n4);

    double const peak = dev.dram_peak_gbs();
    auto add_dram = [&](char const* name, double moved, Timing const& t, bool ok,
                        char const* counted) {
      Json extra = Json::object();
      extra.set("access_bytes", 16);
      extra.set("bytes_counted", counted);
      extra.set("fraction_of_attribute_peak", peak > 0 ? moved / (t.median_ms * 1e6) / peak : 0.0);
      report.add(name, bytes, moved, t, launch, ok, std::move(extra));
    };
    add_dram("DRAM read-only, 128-bit", double(bytes), tr, read_ok, "bytes read");
    add_dram("DRAM write-only, 128-bit", double(bytes), tw, write_ok, "bytes written");
    add_dram("DRAM copy, 128-bit", 2.0 * bytes, tc, copy_ok, "bytes read + bytes written");
    std::printf("\nDRAM peak from the attributes (2 x memory clock x bus width): %.0f GB/s\n",
                peak);
  }

  Json results = Json::object();
  results.set("units", "GB/s = 1e9 bytes per second; bytes_moved_per_launch / median time");
  results.set("measurements", report.take());
  bench.result("bandwidth", std::move(results));
}

}  // namespace

int main(int argc, char** argv) {
  return run_program(argc, argv, "wave2d_mem_bandwidth",
                     "bandwidth of shared memory, L1, L2 and device memory", run);
}
