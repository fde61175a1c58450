#include "wave2d_MemoryBench.cuh"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace wave2d::membench {

// ---------------------------------------------------------------------------------------------
// Json

Json Json::object() {
  Json j;
  j.kind_ = Kind::object;
  return j;
}

Json Json::array() {
  Json j;
  j.kind_ = Kind::array;
  return j;
}

Json& Json::set(std::string key, Json value) {
  if (kind_ != Kind::object) throw std::logic_error("Json::set on a value that is not an object");
  auto const found = std::find(keys_.begin(), keys_.end(), key);
  if (found != keys_.end()) {
    items_[found - keys_.begin()] = std::move(value);
  } else {
    keys_.push_back(std::move(key));
    items_.push_back(std::move(value));
  }
  return *this;
}

Json& Json::push(Json value) {
  if (kind_ != Kind::array) throw std::logic_error("Json::push on a value that is not an array");
  items_.push_back(std::move(value));
  return *this;
}

namespace {

void write_string(std::string& out, std::string const& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += format("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

}  // namespace

void Json::write(std::string& out, int depth) const {
  std::string const indent(2 * (depth + 1), ' ');
  std::string const closing(2 * depth, ' ');
  switch (kind_) {
    case Kind::null: out += "null"; break;
    case Kind::boolean: out += boolean_ ? "true" : "false"; break;
    case Kind::integer: out += std::to_string(integer_); break;
    case Kind::number:
      // JSON has no NaN or infinity: a value that could not be measured is null.
      out += std::isfinite(number_) ? format("%.9g", number_) : std::string("null");
      break;
    case Kind::string: write_string(out, string_); break;
    case Kind::array:
      if (items_.empty()) {
        out += "[]";
        break;
      }
      out += "[\n";
      for (std::size_t i = 0; i < items_.size(); ++i) {
        out += indent;
        items_[i].write(out, depth + 1);
        out += i + 1 < items_.size() ? ",\n" : "\n";
      }
      out += closing + "]";
      break;
    case Kind::object:
      if (items_.empty()) {
        out += "{}";
        break;
      }
      out += "{\n";
      for (std::size_t i = 0; i < items_.size(); ++i) {
        out += indent;
        write_string(out, keys_[i]);
        out += ": ";
        items_[i].write(out, depth + 1);
        out += i + 1 < items_.size() ? ",\n" : "\n";
      }
      out += closing + "}";
      break;
  }
}

std::string Json::dump() const {
  std::string out;
  write(out, 0);
  out += '\n';
  return out;
}

// ---------------------------------------------------------------------------------------------
// Formatting

std::string format(char const* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int const n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string s(n > 0 ? n : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, fmt, args);
  va_end(args);
  return s;
}

std::string format_bytes(std::size_t bytes) {
  char const* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024.0 && u < 4) {
    value /= 1024.0;
    ++u;
  }
  return value == std::floor(value) ? format("%.0f %s", value, units[u])
                                    : format("%.1f %s", value, units[u]);
}

// ---------------------------------------------------------------------------------------------
// Device facts

namespace {

int attribute(cudaDeviceAttr what, int device, char const* name) {
  int value = 0;
  cudaError_t const status = cudaDeviceGetAttribute(&value, what, device);
  if (status != cudaSuccess) {
    std::fprintf(stderr, "warning: cudaDeviceGetAttribute(%s) failed: %s; reporting 0\n", name,
                 cudaGetErrorString(status));
    cudaGetLastError();
    return 0;
  }
  return value;
}

DeviceInfo query_device(int device) {
  DeviceInfo info;
  info.device = device;
  cudaDeviceProp prop{};
  WAVE2D_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  info.name = prop.name;
  info.global_bytes = prop.totalGlobalMem;
  char bus[64] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) info.pci_bus_id = bus;
  cudaGetLastError();
#define WAVE2D_ATTRIBUTE(field, attr) info.field = attribute(attr, device, #attr)
  WAVE2D_ATTRIBUTE(cc_major, cudaDevAttrComputeCapabilityMajor);
  WAVE2D_ATTRIBUTE(cc_minor, cudaDevAttrComputeCapabilityMinor);
  WAVE2D_ATTRIBUTE(sm_count, cudaDevAttrMultiProcessorCount);
  // cudaDeviceProp::clockRate and memoryClockRate are gone in CUDA 13; the attributes remain.
  WAVE2D_ATTRIBUTE(sm_clock_khz, cudaDevAttrClockRate);
  WAVE2D_ATTRIBUTE(memory_clock_khz, cudaDevAttrMemoryClockRate);
  WAVE2D_ATTRIBUTE(memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth);
  WAVE2D_ATTRIBUTE(l2_bytes, cudaDevAttrL2CacheSize);
  WAVE2D_ATTRIBUTE(persisting_l2_max_bytes, cudaDevAttrMaxPersistingL2CacheSize);
  WAVE2D_ATTRIBUTE(shared_per_sm_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  WAVE2D_ATTRIBUTE(shared_per_block_optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin);
  WAVE2D_ATTRIBUTE(max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor);
  WAVE2D_ATTRIBUTE(ecc_enabled, cudaDevAttrEccEnabled);
#undef WAVE2D_ATTRIBUTE
  WAVE2D_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  WAVE2D_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  return info;
}

std::string cuda_version_string(int v) { return format("%d.%d", v / 1000, (v % 1000) / 10); }

}  // namespace

double DeviceInfo::dram_peak_gbs() const {
  return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8.0) / 1e9;
}

Json DeviceInfo::to_json() const {
  Json j = Json::object();
  j.set("index", device);
  j.set("name", name);
  j.set("pci_bus_id", pci_bus_id);
  j.set("compute_capability", format("%d.%d", cc_major, cc_minor));
  j.set("sm_count", sm_count);
  j.set("sm_clock_khz", sm_clock_khz);
  j.set("memory_clock_khz", memory_clock_khz);
  j.set("memory_bus_width_bits", memory_bus_bits);
  j.set("dram_peak_gbs_from_attributes", dram_peak_gbs());
  j.set("l2_cache_bytes", l2_bytes);
  j.set("persisting_l2_max_bytes", persisting_l2_max_bytes);
  j.set("shared_memory_per_sm_bytes", shared_per_sm_bytes);
  j.set("shared_memory_per_block_optin_bytes", shared_per_block_optin_bytes);
  j.set("max_threads_per_sm", max_threads_per_sm);
  j.set("global_memory_bytes", global_bytes);
  j.set("ecc_enabled", ecc_enabled != 0);
  j.set("cuda_runtime_version", cuda_version_string(runtime_version));
  j.set("cuda_driver_version", cuda_version_string(driver_version));
  return j;
}

// ---------------------------------------------------------------------------------------------
// Bench

namespace {

[[noreturn]] void usage(char const* program, char const* summary, int status) {
  std::FILE* out = status == 0 ? stdout : stderr;
  std::fprintf(out,
               "%s: %s\n"
               "usage: %s [--quick] [--json FILE] [--device N]\n"
               "  --quick       smoke test: smaller sizes and fewer repetitions\n"
               "  --json FILE   also write the results as JSON to FILE\n"
               "  --device N    CUDA device to use (default 0)\n",
               program, summary, program);
  std::exit(status);
}

}  // namespace

Options parse_options(int argc, char** argv, char const* program, char const* summary) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string const arg = argv[i];
    if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--json" && i + 1 < argc) {
      o.json_path = argv[++i];
    } else if (arg.rfind("--json=", 0) == 0) {
      o.json_path = arg.substr(7);
    } else if (arg == "--device" && i + 1 < argc) {
      o.device = std::atoi(argv[++i]);
    } else if (arg == "--help" || arg == "-h") {
      usage(program, summary, 0);
    } else {
      std::fprintf(stderr, "%s: unknown or incomplete argument '%s'\n", program, arg.c_str());
      usage(program, summary, 2);
    }
  }
  return o;
}

Bench::Bench(Options options, char const* program, char const* summary)
    : program_(program), options_(std::move(options)) {
  int count = 0;
  cudaError_t const status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    throw std::runtime_error(status != cudaSuccess
                                 ? std::string("no usable CUDA device (cudaGetDeviceCount: ") +
                                       cudaGetErrorString(status) + ")"
                                 : std::string("no CUDA device present"));
  }
  if (options_.device < 0 || options_.device >= count) {
    throw std::runtime_error(
        format("--device %d, but there are %d devices", options_.device, count));
  }
  WAVE2D_CUDA_CHECK(cudaSetDevice(options_.device));
  WAVE2D_CUDA_CHECK(cudaFree(nullptr));  // create the context now, outside any timing
  device_ = query_device(options_.device);

  std::printf("%s: %s\n", program_.c_str(), summary);
  std::printf(
      "device %d: %s (sm_%d%d, %d SMs, SM clock %.0f MHz, L2 %s, %s, DRAM peak %.0f GB/s "
      "from attributes), CUDA runtime %s, driver %s, mode %s\n\n",
      device_.device, device_.name.c_str(), device_.cc_major, device_.cc_minor, device_.sm_count,
      device_.sm_clock_khz / 1e3, format_bytes(device_.l2_bytes).c_str(),
      format_bytes(device_.global_bytes).c_str(), device_.dram_peak_gbs(),
      cuda_version_string(device_.runtime_version).c_str(),
      cuda_version_string(device_.driver_version).c_str(), quick() ? "quick" : "full");
  if (device_.cc_major != 9 || device_.cc_minor != 0) {
    std::printf(
        "note: these benchmarks are tuned for sm_90 (H100/H200); sizes follow this "
        "device's attributes, but the expected magnitudes in docs/memory-hierarchy.md "
        "do not apply.\n\n");
  }
}

bool Bench::check(bool ok, std::string const& what) {
  if (!ok) {
    ++failure_count_;
    failures_.push(what);
    std::fprintf(stderr, "%s: VALIDATION FAILED: %s\n", program_.c_str(), what.c_str());
  }
  return ok;
}

Json Bench::report(char const* status, std::string const& error) const {
  Json j = Json::object();
  j.set("schema", "wave2d-membench/1");
  j.set("program", program_);
  j.set("mode", quick() ? "quick" : "full");
  j.set("status", status);
  if (!error.empty()) j.set("error", error);
  Json dev = device_.to_json();
  dev.set("measured", device_notes_);
  j.set("device", std::move(dev));
  j.set("results", results_);
  j.set("validation_failures", failures_);
  return j;
}

namespace {

void write_file(std::string const& path, std::string const& text, char const* program) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) {
    throw std::runtime_error(format("could not write the JSON report to '%s'", path.c_str()));
  }
  std::printf("%s: JSON written to %s\n", program, path.c_str());
}

}  // namespace

int Bench::finish() {
  char const* status = failure_count_ == 0 ? "ok" : "validation_failed";
  if (!options_.json_path.empty()) {
    write_file(options_.json_path, report(status, "").dump(), program_.c_str());
  }
  if (failure_count_ == 0) {
    std::printf("%s: all results validated\n", program_.c_str());
    return 0;
  }
  std::fprintf(stderr, "%s: %d validation failure(s); the numbers above are not trustworthy\n",
               program_.c_str(), failure_count_);
  return 1;
}

void Bench::write_error_report(std::string const& message) {
  if (!options_.json_path.empty()) {
    write_file(options_.json_path, report("error", message).dump(), program_.c_str());
  }
}

int run_program(int argc, char** argv, char const* program, char const* summary,
                std::function<void(Bench&)> const& body) {
  Options const options = parse_options(argc, argv, program, summary);
  std::optional<Bench> bench;
  try {
    bench.emplace(options, program, summary);
    body(*bench);
    return bench->finish();
  } catch (std::exception const& e) {
    std::fprintf(stderr, "%s: FAILED: %s\n", program, e.what());
    try {
      if (bench) {
        bench->write_error_report(e.what());
      } else if (!options.json_path.empty()) {
        Json j = Json::object();
        j.set("schema", "wave2d-membench/1");
        j.set("program", program);
        j.set("mode", options.quick ? "quick" : "full");
        j.set("status", "error");
        j.set("error", e.what());
        write_file(options.json_path, j.dump(), program);
      }
    } catch (std::exception const& again) {
      std::fprintf(stderr, "%s: %s\n", program, again.what());
    }
  }
  return 1;
}

// ---------------------------------------------------------------------------------------------
// Timing

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  std::size_t const n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

Json Timing::to_json() const {
  Json j = Json::object();
  j.set("median_ms", median_ms);
  j.set("min_ms", min_ms);
  j.set("max_ms", max_ms);
  j.set("reps", reps);
  return j;
}

namespace {

class EventPair {
 public:
  EventPair() {
    WAVE2D_CUDA_CHECK(cudaEventCreate(&start_));
    WAVE2D_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(EventPair const&) = delete;
  EventPair& operator=(EventPair const&) = delete;
  double time_ms(std::function<void()> const& launch) {
    WAVE2D_CUDA_CHECK(cudaEventRecord(start_));
    launch();
    WAVE2D_CUDA_CHECK(cudaEventRecord(stop_));
    WAVE2D_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    WAVE2D_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

Timing time_launches(int warmup, int reps, std::function<void()> const& launch) {
  for (int i = 0; i < warmup; ++i) launch();
  WAVE2D_CUDA_CHECK(cudaDeviceSynchronize());
  EventPair events;
  std::vector<double> ms;
  ms.reserve(reps);
  for (int i = 0; i < reps; ++i) ms.push_back(events.time_ms(launch));
  Timing t;
  t.reps = reps;
  t.median_ms = median(ms);
  t.min_ms = *std::min_element(ms.begin(), ms.end());
  t.max_ms = *std::max_element(ms.begin(), ms.end());
  return t;
}

namespace {

__global__ void spin_for_cycles(long long cycles, long long* elapsed) {
  long long const start = clock_cycles();
  long long now = start;
  while (now - start < cycles) now = clock_cycles();
  *elapsed = now - start;
}

}  // namespace

double measure_sm_clock_mhz(long long cycles) {
  DeviceBuffer<long long> elapsed(1);
  std::vector<double> mhz;
  EventPair events;
  for (int i = 0; i < 3; ++i) {
    double const ms = events.time_ms([&] {
      spin_for_cycles<<<1, 1>>>(cycles, elapsed.get());
      WAVE2D_CHECK_LAUNCH();
    });
    long long const counted = elapsed.to_host()[0];
    mhz.push_back(static_cast<double>(counted) / (ms * 1e3));
  }
  // The first run may catch the clock ramping up from idle; the best of the rest is the busy clock.
  return *std::max_element(mhz.begin() + 1, mhz.end());
}

// ---------------------------------------------------------------------------------------------
// L2Flusher

L2Flusher::L2Flusher(DeviceInfo const& device)
    : bytes_(std::max<std::size_t>(4 * static_cast<std::size_t>(device.l2_bytes), 64u << 20)) {
  WAVE2D_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
}

L2Flusher::~L2Flusher() { cudaFree(buffer_); }

void L2Flusher::flush() {
  static unsigned char value = 0;
  WAVE2D_CUDA_CHECK(cudaMemset(buffer_, ++value, bytes_));
}

}  // namespace wave2d::membench
