// Plumbing shared by the memory-hierarchy microbenchmarks: options, device facts, event timing,
// PTX loads with an explicit cache operator, and a small JSON writer. Plain CUDA C++, no Kokkos.
#ifndef WAVE2D_MEMORY_BENCH_CUH
#define WAVE2D_MEMORY_BENCH_CUH

#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

// After every launch: a bad configuration shows up here, not at the next synchronizing call.
#define WAVE2D_CHECK_LAUNCH() WAVE2D_CUDA_CHECK(cudaGetLastError())

namespace wave2d::membench {

// ---------------------------------------------------------------------------------------------
// Device-side helpers. Inline PTX fixes the cache operator and the access width. Note that `asm
// volatile` only binds the front end: ptxas sees plain PTX loads and merges two loads of the same
// address, or hoists a load out of a loop when its address does not change (checked in the SASS).
// Loads that must repeat therefore use PTX forms that ptxas must keep: ld.volatile.shared, and
// ld.relaxed.cta.global, which compiles to the same SASS instruction as ld.global.ca.

// The SM cycle counter. Volatile with a memory clobber, so it is not moved across the loads.
__device__ __forceinline__ long long clock_cycles() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

// ld.global.ca: cached in L1 and L2 (SASS LDG.E.STRONG.SM on sm_90).
__device__ __forceinline__ std::uint32_t load_ca(std::uint32_t const* p) {
  std::uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
// ld.global.cg: cached in L2 only (SASS LDG.E.STRONG.GPU on sm_90).
__device__ __forceinline__ std::uint32_t load_cg(std::uint32_t const* p) {
  std::uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
// ld.global.cv: volatile, fetched again on every access (SASS LDG.E.STRONG.SYS on sm_90).
__device__ __forceinline__ std::uint32_t load_cv(std::uint32_t const* p) {
  std::uint32_t v;
  asm volatile("ld.global.cv.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

// 16-byte loads; the sum of the four words is all the benchmarks need of them.
// L1: ld.relaxed.cta.global is LDG.E.128.STRONG.SM on sm_90, the very instruction ld.global.ca.v4
// compiles to (cached in L1), but ptxas keeps every one of them, even at an address read before.
__device__ __forceinline__ std::uint32_t load_l1_v4_sum(uint4 const* p) {
  uint4 v;
  asm volatile("ld.relaxed.cta.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v.x + v.y + v.z + v.w;
}
// L2: ld.global.cg.v4 (LDG.E.128.STRONG.GPU). Only for addresses that change between loads.
__device__ __forceinline__ std::uint32_t load_cg_v4_sum(uint4 const* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v.x + v.y + v.z + v.w;
}

// Shared-memory loads by 32-bit shared-window address (from shared_address()); volatile, so that
// ptxas issues each one (LDS, LDS.128: the same instructions as plain ld.shared).
__device__ __forceinline__ std::uint32_t load_shared(std::uint32_t address) {
  std::uint32_t v;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(address));
  return v;
}
__device__ __forceinline__ std::uint32_t load_shared_v4_sum(std::uint32_t address) {
  uint4 v;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(address));
  return v.x + v.y + v.z + v.w;
}

__device__ __forceinline__ std::uint32_t shared_address(void const* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------------------------------------
// JSON: one value, built in place; objects keep their insertion order.

class Json {
 public:
  Json() = default;  // null
  Json(bool b) : kind_(Kind::boolean), boolean_(b) {}
  // Every integer type (no template: CMake 3.25 compiles CUDA as C++17, it does not know that
  // nvcc 13 has C++20).
  Json(int i) : Json(static_cast<long long>(i)) {}
  Json(long i) : Json(static_cast<long long>(i)) {}
  Json(long long i) : kind_(Kind::integer), integer_(i) {}
  Json(unsigned i) : Json(static_cast<long long>(i)) {}
  Json(unsigned long i) : Json(static_cast<long long>(i)) {}
  Json(unsigned long long i) : Json(static_cast<long long>(i)) {}
  Json(double d) : kind_(Kind::number), number_(d) {}
  Json(std::string s) : kind_(Kind::string), string_(std::move(s)) {}
  Json(char const* s) : Json(std::string(s)) {}

  static Json object();
  static Json array();

  Json& set(std::string key, Json value);  // on an object; replaces an existing key
  Json& push(Json value);                  // on an array
  std::string dump() const;                // two-space indented

 private:
  enum class Kind { null, boolean, integer, number, string, array, object };
  void write(std::string& out, int depth) const;

  Kind kind_ = Kind::null;
  bool boolean_ = false;
  long long integer_ = 0;
  double number_ = 0.0;
  std::string string_;
  std::vector<std::string> keys_;  // objects
  std::vector<Json> items_;        // arrays, and the values of objects
};

// ---------------------------------------------------------------------------------------------
// Options, device facts, timing.

struct Options {
  bool quick = false;     // --quick: a smoke test, well under a second of GPU work
  std::string json_path;  // --json FILE: write the results there
  int device = 0;         // --device N
};

struct DeviceInfo {
  int device = 0;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;      // cudaDevAttrClockRate: peak SM clock
  int memory_clock_khz = 0;  // cudaDevAttrMemoryClockRate
  int memory_bus_bits = 0;   // cudaDevAttrGlobalMemoryBusWidth
  int l2_bytes = 0;          // cudaDevAttrL2CacheSize
  int persisting_l2_max_bytes = 0;
  int shared_per_sm_bytes = 0;
  int shared_per_block_optin_bytes = 0;
  int max_threads_per_sm = 0;
  int ecc_enabled = 0;
  std::size_t global_bytes = 0;
  int runtime_version = 0, driver_version = 0;

  // 2 transfers a clock (DDR) times the bus width: the datasheet-style DRAM peak, in GB/s.
  double dram_peak_gbs() const;
  Json to_json() const;
};

// A benchmark program: parses the options, selects the device, collects results and failures,
// and writes the JSON report. A failed validation does not stop the program: it is recorded,
// printed, and turns the exit status to 1.
Options parse_options(int argc, char** argv, char const* program, char const* summary);

class Bench {
 public:
  Bench(Options options, char const* program, char const* summary);

  Options const& options() const { return options_; }
  DeviceInfo const& device() const { return device_; }
  bool quick() const { return options_.quick; }

  void result(std::string const& key, Json value) { results_.set(key, std::move(value)); }
  // Facts measured about the device (the busy SM clock), reported under device.measured.
  void device_note(std::string const& key, Json value) { device_notes_.set(key, std::move(value)); }
  // Records a failed check with a message that says what was expected; returns ok.
  bool check(bool ok, std::string const& what);

  int finish();                                         // prints the verdict, writes the JSON
  void write_error_report(std::string const& message);  // after an exception

 private:
  Json report(char const* status, std::string const& error) const;

  std::string program_;
  Options options_;
  DeviceInfo device_;
  Json results_ = Json::object();
  Json device_notes_ = Json::object();
  Json failures_ = Json::array();
  int failure_count_ = 0;
};

// Runs body on a Bench, turning any exception into a clear message, a JSON report with
// "status": "error", and exit status 1.
int run_program(int argc, char** argv, char const* program, char const* summary,
                std::function<void(Bench&)> const& body);

struct Timing {
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  int reps = 0;
  Json to_json() const;
};

// Times launch() with CUDA events: `warmup` untimed calls, then `reps` timed ones, each between its
// own pair of events on the legacy default stream. launch() must only enqueue work.
Timing time_launches(int warmup, int reps, std::function<void()> const& launch);

double median(std::vector<double> values);

// The SM clock while busy, in MHz: one thread spins on clock64 for ~`cycles` cycles, timed with
// events. cycles / (ns per cycle) converts with this rather than the attribute's peak clock.
double measure_sm_clock_mhz(long long cycles = 20'000'000);

// Evicts the L2 by writing a buffer of several times its size.
class L2Flusher {
 public:
  explicit L2Flusher(DeviceInfo const& device);
  ~L2Flusher();
  L2Flusher(L2Flusher const&) = delete;
  L2Flusher& operator=(L2Flusher const&) = delete;
  void flush();

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
};

// printf-style formatting into a std::string, for table rows and messages.
std::string format(char const* fmt, ...) __attribute__((format(printf, 1, 2)));

// Bytes with a binary unit: 4 KiB, 16 MiB, 1 GiB.
std::string format_bytes(std::size_t bytes);

// A device buffer that frees itself.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    WAVE2D_CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;
  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    WAVE2D_CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace wave2d::membench

#endif
