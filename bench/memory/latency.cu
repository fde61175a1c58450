// Load latency of L1, L2 and device memory by pointer chasing, a latency-versus-working-set sweep,
// and the textbook's single-load timing beside it (docs/memory-hierarchy.md).
//
// One thread follows a chain of pointers laid in a random cyclic order over a working set, one node
// per 128-byte line. Each load's address is the value of the load before it, so no two loads
// overlap and the cycles per step are the latency of the level that holds the working set.
#include "wave2d_MemoryBench.cuh"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace {

using namespace wave2d::membench;

constexpr std::size_t node_stride = 128;  // one node per cache line: no two nodes share a line

enum class CacheOp { ca, cg };

char const* op_name(CacheOp op) { return op == CacheOp::ca ? "ca" : "cg"; }

template <CacheOp Op>
__device__ __forceinline__ char* next_node(char* node) {
  char* next;
  if constexpr (Op == CacheOp::ca) {
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(node));
  } else {
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(node));
  }
  return next;
}

// t1 - t0 spans exactly `timed_steps` latencies: t0 is read while the last warm-up load is still in
// flight and the first timed load waits for it; t1 is read right after the last timed load issues.
// The two partial latencies at the ends add up to one whole.
template <CacheOp Op>
__global__ void chase(char* start, long long warm_steps, long long timed_steps, long long* cycles,
                      char** end) {
  char* p = start;
  for (long long i = 0; i < warm_steps; ++i) p = next_node<Op>(p);
  long long const t0 = clock_cycles();
#pragma unroll 4
  for (long long i = 0; i < timed_steps; ++i) p = next_node<Op>(p);
  long long const t1 = clock_cycles();
  *cycles = t1 - t0;
  *end = p;
}

// Node order[k] points to node order[k + 1], and the last one back to order[0]: one cycle through
// every node, in the random order of the permutation.
__global__ void link_chain(char* base, std::uint32_t const* order, std::uint32_t n) {
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += gridDim.x * blockDim.x) {
    std::uint32_t const next = k + 1 < n ? k + 1 : 0;
    *reinterpret_cast<char**>(base + order[k] * node_stride) = base + order[next] * node_stride;
  }
}

// A chain over the first `bytes` of one big allocation, rebuilt for each working-set size.
class Chain {
 public:
  explicit Chain(std::size_t max_bytes)
      : memory_(max_bytes), order_device_(max_bytes / node_stride), cycles_(1), end_(1) {}

  void build(std::size_t bytes) {
    n_ = static_cast<std::uint32_t>(bytes / node_stride);
    order_.resize(n_);
    std::iota(order_.begin(), order_.end(), 0u);
    std::mt19937_64 rng(0x5eed0000u + n_);
    std::shuffle(order_.begin(), order_.end(), rng);
    WAVE2D_CUDA_CHECK(cudaMemcpy(order_device_.get(), order_.data(), n_ * sizeof(std::uint32_t),
                                 cudaMemcpyHostToDevice));
    link_chain<<<1024, 256>>>(memory_.get(), order_device_.get(), n_);
    WAVE2D_CHECK_LAUNCH();
    WAVE2D_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::uint32_t nodes() const { return n_; }

  // Cycles per dependent load, one entry per repetition; false if the chase did not end on the node
  // the permutation predicts, i.e. the chain is broken or the loop did not run as written. With a
  // flusher, the L2 is emptied before every repetition: each one walks the same nodes, and those
  // the previous walk left in the L2 would otherwise answer from there.
  bool run(CacheOp op, long long warm_steps, long long timed_steps, int reps,
           std::vector<double>& cycles_per_load, L2Flusher* flusher) {
    char* const base = memory_.get();
    char* const start = base + order_[0] * node_stride;
    char* const expected_end = base + order_[(warm_steps + timed_steps) % n_] * node_stride;
    bool ok = true;
    for (int r = 0; r < reps; ++r) {
      if (flusher) flusher->flush();
      if (op == CacheOp::ca) {
        chase<CacheOp::ca><<<1, 1>>>(start, warm_steps, timed_steps, cycles_.get(), end_.get());
      } else {
        chase<CacheOp::cg><<<1, 1>>>(start, warm_steps, timed_steps, cycles_.get(), end_.get());
      }
      WAVE2D_CHECK_LAUNCH();
      WAVE2D_CUDA_CHECK(cudaDeviceSynchronize());
      cycles_per_load.push_back(static_cast<double>(cycles_.to_host()[0]) / timed_steps);
      ok = ok && end_.to_host()[0] == expected_end;
    }
    return ok;
  }

 private:
  DeviceBuffer<char> memory_;
  DeviceBuffer<std::uint32_t> order_device_;
  DeviceBuffer<long long> cycles_;
  DeviceBuffer<char*> end_;
  std::vector<std::uint32_t> order_;
  std::uint32_t n_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The textbook's method, in our own words: one load between two clock reads. A load does not
// stall the thread that issues it; only an instruction that reads its result does. So with nothing
// reading the value, the second clock read follows the load by a few cycles whatever the level
// (issue time). The "value consumed" variant puts an instruction that reads the value before each
// clock read, which must wait for the data, and so times the load's latency.

enum class SingleLoad { ca_warm, cg_warm, cv_warm, cv_cold };

// An instruction that reads v, and so waits for it, and that ptxas keeps: its result is stored.
__device__ __forceinline__ std::uint32_t consume(std::uint32_t v) {
  std::uint32_t r;
  asm volatile("xor.b32 %0, %1, 0x5a5a5a5a;" : "=r"(r) : "r"(v));
  return r;
}

template <SingleLoad Kind>
__device__ __forceinline__ std::uint32_t single(std::uint32_t const* p) {
  if constexpr (Kind == SingleLoad::ca_warm) return load_ca(p);
  if constexpr (Kind == SingleLoad::cg_warm) return load_cg(p);
  return load_cv(p);
}

// pointers[0] and pointers[1] both hold the address of the one word that is loaded. Loaded from
// memory, the two pointers are in registers before anything is timed: kernel parameters are read
// where they are used, and that constant-cache read would land inside the timed interval. Two
// pointers, because through one ptxas merges the warm-up and the timed load into one (it does, even
// for .cv) and times an empty interval.
template <SingleLoad Kind, bool Consume>
__global__ void single_load(std::uint32_t const* const* pointers, long long* cycles,
                            std::uint32_t* sink) {
  std::uint32_t const* warm_p;
  std::uint32_t const* timed_p;
  asm volatile("ld.global.v2.u64 {%0, %1}, [%2];" : "=l"(warm_p), "=l"(timed_p) : "l"(pointers));
  // Waits for the pointers (the result is stored, so this stays).
  std::uint32_t const anchor =
      consume(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(timed_p)));
  std::uint32_t warm = 0;
  if constexpr (Kind != SingleLoad::cv_cold) {
    warm = single<Kind>(warm_p);  // the textbook's warm-up load
    if constexpr (Consume) warm = consume(warm);
  }
  long long const t0 = clock_cycles();
  std::uint32_t v = single<Kind>(timed_p);
  if constexpr (Consume) v = consume(v);
  long long const t1 = clock_cycles();
  *cycles = t1 - t0;
  sink[0] = v;
  sink[1] = warm;
  sink[2] = anchor;
}

struct SingleLoadCase {
  SingleLoad kind;
  char const* name;
  char const* textbook_kernel;
  int chase_level;  // the pointer-chase level to read it against: 0 L1, 1 L2, 2 DRAM
};

constexpr char const* level_names[] = {"L1", "L2", "DRAM"};

constexpr SingleLoadCase single_load_cases[] = {
    {SingleLoad::ca_warm, "ld.global.ca, after a warm-up load", "l1_mem_latency", 0},
    {SingleLoad::cg_warm, "ld.global.cg, after a warm-up load", "l2_mem_latency", 1},
    {SingleLoad::cv_cold, "ld.global.cv, cold (L2 flushed first)", "global_mem_latency", 2},
    {SingleLoad::cv_warm, "ld.global.cv, after a warm-up load", "(not in the textbook)", 1},
};

template <SingleLoad Kind>
void launch_single_load(bool consume_value, std::uint32_t const* const* pointers, long long* cycles,
                        std::uint32_t* sink) {
  if (consume_value) {
    single_load<Kind, true><<<1, 1>>>(pointers, cycles, sink);
  } else {
    single_load<Kind, false><<<1, 1>>>(pointers, cycles, sink);
  }
  WAVE2D_CHECK_LAUNCH();
}

void launch_single_load(SingleLoad kind, bool consume_value, std::uint32_t const* const* pointers,
                        long long* cycles, std::uint32_t* sink) {
  switch (kind) {
    case SingleLoad::ca_warm:
      return launch_single_load<SingleLoad::ca_warm>(consume_value, pointers, cycles, sink);
    case SingleLoad::cg_warm:
      return launch_single_load<SingleLoad::cg_warm>(consume_value, pointers, cycles, sink);
    case SingleLoad::cv_warm:
      return launch_single_load<SingleLoad::cv_warm>(consume_value, pointers, cycles, sink);
    case SingleLoad::cv_cold:
      return launch_single_load<SingleLoad::cv_cold>(consume_value, pointers, cycles, sink);
  }
}

// ---------------------------------------------------------------------------------------------

struct SweepPoint {
  std::size_t bytes = 0;
  double cycles[2] = {0, 0};  // median cycles per load, by CacheOp
};

void run(Bench& bench) {
  bool const quick = bench.quick();
  DeviceInfo const& dev = bench.device();
  std::size_t const l2 = static_cast<std::size_t>(dev.l2_bytes);
  L2Flusher flusher(dev);

  WAVE2D_CUDA_CHECK(cudaFuncSetAttribute(chase<CacheOp::ca>,
                                         cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxL1));
  WAVE2D_CUDA_CHECK(cudaFuncSetAttribute(chase<CacheOp::cg>,
                                         cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxL1));

  double const mhz = measure_sm_clock_mhz(quick ? 2'000'000 : 20'000'000);
  bench.device_note("sm_clock_mhz_while_busy", mhz);
  std::printf("SM clock while busy: %.0f MHz (attribute: %.0f MHz); ns = cycles / %.3f\n\n", mhz,
              dev.sm_clock_khz / 1e3, mhz / 1e3);

  // Working sets: 4 KiB to 1 GiB, powers of two and the points halfway between them (x1.5), so the
  // edges of L1 (up to 256 KiB) and L2 (50 MiB usable on an H200) show.
  std::vector<std::size_t> sizes;
  if (quick) {
    sizes = {16u << 10, 128u << 10, 1u << 20, 8u << 20, 64u << 20, 256u << 20};
  } else {
    for (std::size_t s = 4u << 10; s <= (1u << 30); s *= 2) {
      sizes.push_back(s);
      if (s < (1u << 30)) sizes.push_back(s + s / 2);
    }
  }
  std::size_t const l1_bytes = 16u << 10, l2_bytes = 8u << 20;
  std::size_t const dram_bytes = sizes.back();
  long long const timed_steps = quick ? 4096 : 16384;
  int const reps = quick ? 1 : 3;

  Chain chain(sizes.back());
  std::vector<SweepPoint> sweep;
  Json sweep_json = Json::array();
  std::printf("Pointer chase, one thread, %zu-byte stride, random cyclic order, %lld timed loads\n",
              node_stride, timed_steps);
  std::printf("%12s %10s %10s %10s %10s %10s\n", "working set", "nodes", "ca cycles", "cg cycles",
              "ca ns", "cg ns");
  for (std::size_t bytes : sizes) {
    chain.build(bytes);
    std::uint32_t const n = chain.nodes();
    // Fits in L2: walk the whole chain first so that every node is cached. Larger: flush the L2
    // and walk 4096 nodes first (the timed ones come after them, uncached), since a full walk
    // of a 1 GiB chain would take seconds.
    bool const fits = bytes <= l2;
    long long const warm_steps = fits ? n : std::min<long long>(n, 4096);
    SweepPoint point;
    point.bytes = bytes;
    Json row = Json::object();
    row.set("working_set_bytes", bytes);
    row.set("nodes", n);
    row.set("warmup_steps", warm_steps);
    row.set("timed_steps", timed_steps);
    for (CacheOp op : {CacheOp::ca, CacheOp::cg}) {
      std::vector<double> samples;
      bool const ok =
          chain.run(op, warm_steps, timed_steps, reps, samples, fits ? nullptr : &flusher);
      bench.check(ok, format("pointer chase over %s with ld.global.%s did not end on the node the "
                             "permutation predicts (broken chain or miscompiled loop)",
                             format_bytes(bytes).c_str(), op_name(op)));
      double const cycles = median(samples);
      point.cycles[static_cast<int>(op)] = cycles;
      Json entry = Json::object();
      entry.set("cycles", cycles);
      entry.set("ns", cycles / mhz * 1e3);
      entry.set("min_cycles", *std::min_element(samples.begin(), samples.end()));
      entry.set("max_cycles", *std::max_element(samples.begin(), samples.end()));
      entry.set("reps", reps);
      entry.set("valid", ok);
      row.set(op_name(op), std::move(entry));
    }
    std::printf("%12s %10u %10.1f %10.1f %10.1f %10.1f\n", format_bytes(bytes).c_str(), n,
                point.cycles[0], point.cycles[1], point.cycles[0] / mhz * 1e3,
                point.cycles[1] / mhz * 1e3);
    sweep.push_back(point);
    sweep_json.push(std::move(row));
  }

  auto cycles_at = [&](std::size_t bytes, CacheOp op) {
    for (SweepPoint const& p : sweep) {
      if (p.bytes == bytes) return p.cycles[static_cast<int>(op)];
    }
    return 0.0;
  };
  struct Level {
    char const* name;
    std::size_t bytes;
    CacheOp op;
  };
  Level const levels[] = {{"L1", l1_bytes, CacheOp::ca},
                          {"L2", l2_bytes, CacheOp::cg},
                          {"DRAM", dram_bytes, CacheOp::cg}};
  double level_cycles[3] = {};
  Json levels_json = Json::array();
  std::printf("\nLoad latency by level (from the sweep)\n%-6s %12s %8s %10s %10s\n", "level",
              "working set", "load", "cycles", "ns");
  for (int i = 0; i < 3; ++i) {
    Level const& l = levels[i];
    level_cycles[i] = cycles_at(l.bytes, l.op);
    std::printf("%-6s %12s %8s %10.1f %10.1f\n", l.name, format_bytes(l.bytes).c_str(),
                op_name(l.op), level_cycles[i], level_cycles[i] / mhz * 1e3);
    Json j = Json::object();
    j.set("level", l.name);
    j.set("working_set_bytes", l.bytes);
    j.set("cache_op", op_name(l.op));
    j.set("cycles", level_cycles[i]);
    j.set("ns", level_cycles[i] / mhz * 1e3);
    levels_json.push(std::move(j));
  }
  bench.check(level_cycles[0] < level_cycles[1] && level_cycles[1] < level_cycles[2],
              format("latencies should grow L1 < L2 < DRAM, measured %.1f, %.1f, %.1f cycles",
                     level_cycles[0], level_cycles[1], level_cycles[2]));

  Json chase_json = Json::object();
  chase_json.set("method",
                 "one thread, dependent 64-bit loads through a random cyclic permutation");
  chase_json.set("node_stride_bytes", node_stride);
  chase_json.set("timed_steps", timed_steps);
  chase_json.set("reps", reps);
  chase_json.set("levels", std::move(levels_json));
  chase_json.set("sweep", std::move(sweep_json));
  bench.result("pointer_chase", std::move(chase_json));

  // The textbook's single-load kernels: both pointers lead to data[0].
  DeviceBuffer<std::uint32_t> data(1024);
  std::uint32_t const value = 42;
  WAVE2D_CUDA_CHECK(cudaMemset(data.get(), 0, 1024 * sizeof(std::uint32_t)));
  WAVE2D_CUDA_CHECK(cudaMemcpy(data.get(), &value, sizeof value, cudaMemcpyHostToDevice));
  DeviceBuffer<std::uint32_t const*> pointers(2);
  std::uint32_t const* const both[2] = {data.get(), data.get()};
  WAVE2D_CUDA_CHECK(cudaMemcpy(pointers.get(), both, sizeof both, cudaMemcpyHostToDevice));
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<std::uint32_t> sink(3);
  int const single_reps = quick ? 3 : 9;
  WAVE2D_CUDA_CHECK(cudaFuncSetAttribute(single_load<SingleLoad::ca_warm, true>,
                                         cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxL1));
  WAVE2D_CUDA_CHECK(cudaFuncSetAttribute(single_load<SingleLoad::ca_warm, false>,
                                         cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxL1));

  std::printf("\nThe textbook's method: one load between two clock64 reads (median of %d)\n",
              single_reps);
  std::printf("%-40s %-20s %12s %12s %14s\n", "load", "textbook kernel", "issue only", "value used",
              "chase (level)");
  Json single_json = Json::array();
  for (SingleLoadCase const& c : single_load_cases) {
    Json row = Json::object();
    row.set("load", c.name);
    row.set("textbook_kernel", c.textbook_kernel);
    double med[2] = {};
    for (bool consume_value : {false, true}) {
      std::vector<double> samples;
      bool ok = true;
      // One untimed launch first, so that lazy module loading and a cold instruction cache are not
      // what gets measured.
      for (int r = -1; r < single_reps; ++r) {
        if (c.kind == SingleLoad::cv_cold) flusher.flush();
        launch_single_load(c.kind, consume_value, pointers.get(), cycles.get(), sink.get());
        WAVE2D_CUDA_CHECK(cudaDeviceSynchronize());
        if (r < 0) continue;
        samples.push_back(static_cast<double>(cycles.to_host()[0]));
        std::vector<std::uint32_t> const s = sink.to_host();
        std::uint32_t const expected = consume_value ? (value ^ 0x5a5a5a5au) : value;
        bool const warm = c.kind != SingleLoad::cv_cold;
        ok = ok && s[0] == expected && s[1] == (warm ? expected : 0u);
      }
      bench.check(ok, format("single load '%s' returned the wrong value", c.name));
      med[consume_value] = median(samples);
      Json entry = Json::object();
      entry.set("cycles", med[consume_value]);
      entry.set("min_cycles", *std::min_element(samples.begin(), samples.end()));
      entry.set("max_cycles", *std::max_element(samples.begin(), samples.end()));
      entry.set("reps", single_reps);
      entry.set("valid", ok);
      row.set(consume_value ? "value_consumed" : "issue_only", std::move(entry));
    }
    double const chase_cycles = level_cycles[c.chase_level];
    row.set("compare_with_chase_level", level_names[c.chase_level]);
    row.set("chase_cycles", chase_cycles);
    std::printf("%-40s %-20s %12.0f %12.0f %9.0f %-4s\n", c.name, c.textbook_kernel, med[0], med[1],
                chase_cycles, level_names[c.chase_level]);
    single_json.push(std::move(row));
  }
  std::printf(
      "'issue only' is the textbook's measurement (its 6/6/475 cycles): the second clock read "
      "does not wait for the load.\n'value used' waits for the data; it includes a few "
      "cycles for the consuming instruction and the clock read.\n");
  bench.result("textbook_single_load", std::move(single_json));
}

}  // namespace

int main(int argc, char** argv) {
  return run_program(argc, argv, "wave2d_mem_latency",
                     "load latency of L1, L2 and DRAM by pointer chasing", run);
}
