// Measures the shapes of cuda-shmem and cuda-stream against cuda-naive on one scene, on
// the raw kernels: how the shipped shapes (kernels_cuda/wave2d_Shmem.cu, wave2d_Stream.cu)
// and cuda-stream's tuning table (wave2d_StreamTuning.hpp) were chosen.
//   wave2d_cuda_tuning [--scene NAME] [--steps N] [--repetitions R] [--csv FILE]
//                      [--only REGEX] [--pitch-align A] [--check]
// NAME: a built-in scene, or point-source-N (the size sweep's scene on an N x N grid).
// A: rows padded to a multiple of A cells (default 1: pitch = nx).
// --check: every variant must give cuda-naive's bits (but the bounds, "(a bound)", which
// are wrong by design); exits 1 if one does not, 77 where no GPU is (the test suite's
// "skipped").
#include <wave2d/core/wave2d_Coefficients.hpp>
#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>
#include <wave2d/cuda/detail/wave2d_ShmemKernel.cuh>
#include <wave2d/cuda/detail/wave2d_StreamKernel.cuh>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace wave2d;
using namespace wave2d::cuda;

struct Buffers {
  DeviceCoefficients coefficients;
  std::vector<float*> owned;
  FieldPointers fields, scratch;

  Buffers(Scene const& scene, std::int64_t pitch)
      : coefficients(precompute_coefficients(scene), pitch) {
    auto make = [&] {
      float* p = nullptr;
      WAVE2D_CUDA_CHECK(cudaMalloc(&p, bytes()));
      owned.push_back(p);
      return p;
    };
    fields = {make(), make()};
    scratch = {make(), make()};
  }
  ~Buffers() {
    for (float* p : owned) cudaFree(p);
  }
  KernelParams const& params() const { return coefficients.params(); }
  std::size_t bytes() const { return std::size_t(params().pitch) * params().ny * sizeof(float); }
  // Zero fields, or (random) the same pseudo-random pair for every variant, which reaches
  // every cell from the first step.
  void reset(bool random) {
    for (float* p : {fields.previous, fields.current, scratch.previous, scratch.current}) {
      WAVE2D_CUDA_CHECK(cudaMemset(p, 0, bytes()));
    }
    if (!random) return;
    std::mt19937 generator(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> host(bytes() / sizeof(float));
    for (float* p : {fields.previous, fields.current}) {
      for (auto& v : host) v = uniform(generator);
      WAVE2D_CUDA_CHECK(cudaMemcpy(p, host.data(), bytes(), cudaMemcpyHostToDevice));
    }
  }
};

struct Variant {
  std::string name;
  std::function<FieldPointers(Buffers&, std::int64_t, cudaStream_t)> run;
  cudaFuncAttributes attributes;
  bool bound = false;  // not a kernel: wrong values by design (--check passes it over)
};

// A one-step-per-launch kernel (advance_naive, advance_onepass).
Variant one_pass_variant(std::string name,
                         FieldPointers (*advance)(KernelParams const&, FieldPointers, std::int64_t,
                                                  std::int64_t, cudaStream_t)) {
  Variant v;
  v.name = std::move(name);
  v.run = [advance](Buffers& b, std::int64_t steps, cudaStream_t stream) {
    return advance(b.params(), b.fields, 0, steps, stream);
  };
  v.attributes = {};
  return v;
}

template <int TX, int TY, int CX, int CY, int T>
Variant shmem_variant() {
  using Shape = ShmemShape<TX, TY, CX, CY, T>;
  Variant v;
  v.name = Shape::describe();
  v.run = [](Buffers& b, std::int64_t steps, cudaStream_t stream) {
    return advance_tiles<Shape>(b.params(), b.fields, b.scratch, 0, steps, stream);
  };
  WAVE2D_CUDA_CHECK(cudaFuncGetAttributes(&v.attributes, shmem_steps<Shape, true>));
  return v;
}

// cuda-stream in a shape; rows > 0 overrides the segment length the layout picks, each
// segment a window unless windows_per_warp > 0 merges them (StreamLayout); costs, when
// given, replace the layout's.
template <class Shape>
Variant stream_shape_variant(KernelParams const& params, int rows = 0, double windows_per_warp = 0,
                             std::optional<StreamWindowCosts> const& costs = std::nullopt) {
  StreamLayout layout = stream_layout_for<Shape>(params, 0);
  if (rows > 0) {
    layout.rows = rows;
    layout.segments = (params.ny + rows - 1) / rows;
    layout.windows_per_warp = windows_per_warp;
  }
  if (costs) {
    layout.window_costs = *costs;
  }
  std::uint32_t* plan = nullptr;  // lives as long as the program
  WAVE2D_CUDA_CHECK(
      cudaMalloc(&plan, stream_plan_size(layout, params.receivers.count) * sizeof(std::uint32_t)));
  plan_stream_windows_of<Shape>(params, layout, plan, nullptr);
  Variant v;
  v.name = "stream " + Shape::describe(layout);
  if (costs) {
    auto const& c = costs->per_row;
    v.name += ", costs " + std::to_string(c[0]) + "/" + std::to_string(c[1]) + "/" +
              std::to_string(c[2]) + "/" + std::to_string(c[3]) + " +" +
              std::to_string(costs->rows_added);
  }
  v.run = [layout, plan](Buffers& b, std::int64_t steps, cudaStream_t stream) {
    return advance_stream_of<Shape>(b.params(), layout, plan, b.fields, b.scratch, 0, steps,
                                    stream);
  };
  WAVE2D_CUDA_CHECK(cudaFuncGetAttributes(&v.attributes, stream_steps<Shape, true, false>));
  return v;
}

// Not a kernel: Shape with its strips a whole window apart, so that the side columns it
// recomputes count as written (wrong values there). Its time bounds what exchanging the
// side columns between strips, instead of recomputing them, could reach.
template <class Shape>
struct WithoutSideHalo : Shape {
  static constexpr int tile_x = Shape::window_x;
  static std::string describe(StreamLayout const& layout) {
    return Shape::describe(layout) + ", side halo dropped (a bound)";
  }
};

template <class Shape>
Variant side_halo_bound(KernelParams const& params) {
  Variant v = stream_shape_variant<WithoutSideHalo<Shape>>(params);
  v.bound = true;
  return v;
}

Scene scene_named(std::string const& name) {
  std::string const sweep = "point-source-";
  if (name.rfind(sweep, 0) == 0 && name.size() > sweep.size() &&
      name.find_first_not_of("0123456789", sweep.size()) == std::string::npos) {
    return point_source_scene(std::stoi(name.substr(sweep.size())));
  }
  return builtin_scene(name);
}

std::vector<float> download(float const* p, KernelParams const& params) {
  std::vector<float> host(std::size_t(params.pitch) * params.ny);
  WAVE2D_CUDA_CHECK(
      cudaMemcpy(host.data(), p, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// Over the grid's cells (not the rows' padding).
double relative_rmse(std::vector<float> const& a, std::vector<float> const& b,
                     KernelParams const& params) {
  double sa = 0, sd = 0;
  for (std::int64_t y = 0; y < params.ny; ++y) {
    for (std::int64_t i = y * params.pitch; i < y * params.pitch + params.nx; ++i) {
      sa += double(a[i]) * a[i];
      sd += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    }
  }
  return std::sqrt(sd / sa);
}

// The variants measured, cuda-naive first (the reference of the ratios and of --check):
// the shipped shapes, and beside them what their choice was measured against.
std::vector<Variant> tuning_variants(KernelParams const& params) {
  std::vector<Variant> variants;
  variants.push_back(one_pass_variant("cuda-naive (" + naive_configuration() + ")", advance_naive));
  variants.push_back(
      one_pass_variant("cuda-onepass (" + onepass_configuration() + ")", advance_onepass));
  // cuda-shmem: the textbook configuration, the shipped 112 x 48, tiles of other sizes,
  // cells a thread, fused steps.
  variants.push_back(shmem_variant<32, 32, 2, 2, 8>());
  variants.push_back(shmem_variant<112, 48, 1, 16, 8>());
  variants.push_back(shmem_variant<48, 48, 1, 8, 8>());
  variants.push_back(shmem_variant<112, 48, 1, 8, 8>());
  variants.push_back(shmem_variant<116, 52, 1, 16, 6>());
  variants.push_back(shmem_variant<108, 44, 1, 16, 10>());
  variants.push_back(shmem_variant<112, 112, 1, 16, 8>());
  variants.push_back(shmem_variant<240, 48, 2, 8, 8>());
  // cuda-stream: the shipped shapes and layouts first (the deep one runs on grids of
  // stream_deep_min_cells or more).
  variants.push_back(stream_shape_variant<StreamRegistryShape>(params));
  variants.push_back(stream_shape_variant<StreamDeepShape>(params));
  // Both without their side halo: what sharing it between strips could reach.
  variants.push_back(side_halo_bound<StreamRegistryShape>(params));
  variants.push_back(side_halo_bound<StreamDeepShape>(params));
  // Other layouts of the shipped shape: fixed 24-row windows from the queue; segments of a
  // row merged into windows of about equal cost, 1 to 3 a warp; merged segments of 4 and 8.
  variants.push_back(stream_shape_variant<StreamRegistryShape>(params, 24));
  for (double const per_warp : {1.0, 2.0, 3.0}) {
    variants.push_back(stream_shape_variant<StreamRegistryShape>(params, 1, per_warp));
  }
  for (int const rows : {4, 8}) {
    variants.push_back(stream_shape_variant<StreamRegistryShape>(params, rows, 1.0));
  }
  // Window costs beside the table's (interior/damped/walled/general per row, rows added);
  // walled costs damped + 120.
  auto const costs = [](int damped, int general, int rows_added) {
    return StreamWindowCosts{{185, damped, damped + 120, general}, rows_added};
  };
  for (int const rows_added : {8, 16}) {
    for (int const damped : {280, 340}) {
      for (int const general : {650, 850}) {
        variants.push_back(stream_shape_variant<StreamRegistryShape>(
            params, 0, 0.0, costs(damped, general, rows_added)));
      }
    }
  }
  // Other shapes: 4 columns a lane at 3 blocks/SM; 2 columns at 4; the damped walk
  // unrolled too, at 3 blocks/SM; more fused steps (10 at 3 blocks/SM, 16 at 2: the most
  // registers without spills); fewer.
  variants.push_back(stream_shape_variant<StreamShape<8, 3, 4>>(params));
  variants.push_back(stream_shape_variant<StreamShape<8, 4, 2>>(params));
  variants.push_back(stream_shape_variant<StreamShape<8, 3, 3, 2>>(params));
  variants.push_back(stream_shape_variant<StreamShape<10, 3, 3>>(params));
  variants.push_back(stream_shape_variant<StreamShape<16, 2, 3>>(params));
  variants.push_back(stream_shape_variant<StreamShape<6, 4, 3>>(params));
  variants.push_back(stream_shape_variant<StreamShape<4, 5, 4>>(params));
  return variants;
}

// Whether two results hold the same bits in the grid's cells (not the rows' padding).
bool same_bits(std::vector<float> const& a, std::vector<float> const& b,
               KernelParams const& params) {
  for (std::int64_t y = 0; y < params.ny; ++y) {
    if (std::memcmp(a.data() + y * params.pitch, b.data() + y * params.pitch,
                    std::size_t(params.nx) * sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scene_name = "double-slit";
  std::int64_t steps = -1;
  int repetitions = 3;
  std::string csv, only;
  int pitch_align = 1;
  bool check = false;
  for (int i = 1; i < argc; i += 2) {
    std::string const arg = argv[i];
    if (arg == "--check") {
      check = true;
      --i;
    } else if (i + 1 == argc) {
      std::fprintf(stderr, "%s: a value is missing\n", arg.c_str());
      return 2;
    } else if (arg == "--scene")
      scene_name = argv[i + 1];
    else if (arg == "--steps")
      steps = std::stoll(argv[i + 1]);
    else if (arg == "--repetitions")
      repetitions = std::stoi(argv[i + 1]);
    else if (arg == "--csv")
      csv = argv[i + 1];
    else if (arg == "--only")
      only = argv[i + 1];
    else if (arg == "--pitch-align")
      pitch_align = std::stoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  if (repetitions < 1) {
    std::fprintf(stderr, "--repetitions: at least 1\n");
    return 2;
  }
  if (pitch_align < 1) {
    std::fprintf(stderr, "--pitch-align: a number of cells, at least 1\n");
    return 2;
  }
  try {
    char const* reason = nullptr;
    if (!device_available(&reason)) {
      std::fprintf(stderr, "no CUDA device: %s\n", reason);
      return check ? 77 : 1;
    }
    Scene const scene = scene_named(scene_name);
    if (steps < 0) steps = scene.steps;
    cudaDeviceProp prop;
    WAVE2D_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::int64_t const pitch = padded_pitch(scene.nx, pitch_align);
    std::printf("device %s, scene %s %dx%d (rows %lld apart), %lld steps, median of %d\n",
                prop.name, scene_name.c_str(), scene.nx, scene.ny, static_cast<long long>(pitch),
                static_cast<long long>(steps), repetitions);

    Buffers buffers(scene, pitch);
    cudaStream_t stream;
    WAVE2D_CUDA_CHECK(cudaStreamCreate(&stream));
    cudaEvent_t start, stop;
    WAVE2D_CUDA_CHECK(cudaEventCreate(&start));
    WAVE2D_CUDA_CHECK(cudaEventCreate(&stop));

    std::vector<Variant> variants = tuning_variants(buffers.params());
    // --only REGEX (searched in the names) keeps the one-pass kernels (cuda-naive, the reference of
    // the ratios) and the matching ones.
    if (!only.empty()) {
      std::regex const wanted(only);
      variants.erase(std::remove_if(variants.begin(), variants.end(),
                                    [&](Variant const& v) {
                                      return v.name.rfind("cuda-", 0) != 0 &&
                                             !std::regex_search(v.name, wanted);
                                    }),
                     variants.end());
    }

    std::vector<float> naive_previous, naive_current;
    double naive_ms = 0;
    bool failed = false;
    std::FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
    if (out)
      std::fprintf(out,
                   "variant,ms,gcells_per_s,ratio_to_naive,rmse_previous,rmse_current,registers,"
                   "local_bytes\n");
    std::printf("%-55s %9s %9s %7s %10s %10s %5s %5s\n", "variant", "ms", "GCells/s", "x naive",
                "rmse prev", "rmse cur", "regs", "local");
    for (auto& v : variants) {
      std::vector<float> times;
      FieldPointers result{};
      for (int r = 0; r <= repetitions; ++r) {  // r == 0 warms up
        buffers.reset(check);
        WAVE2D_CUDA_CHECK(cudaStreamSynchronize(stream));
        WAVE2D_CUDA_CHECK(cudaDeviceSynchronize());
        WAVE2D_CUDA_CHECK(cudaEventRecord(start, stream));
        result = v.run(buffers, steps, stream);
        WAVE2D_CUDA_CHECK(cudaEventRecord(stop, stream));
        WAVE2D_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        WAVE2D_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (r > 0) times.push_back(ms);
      }
      std::sort(times.begin(), times.end());
      double const ms = times[times.size() / 2];
      auto const previous = download(result.previous, buffers.params());
      auto const current = download(result.current, buffers.params());
      if (naive_previous.empty()) {
        naive_previous = previous;
        naive_current = current;
        naive_ms = ms;
      }
      double const gcells = double(scene.cells()) * double(steps) / (ms * 1e-3) / 1e9;
      double const e0 = relative_rmse(naive_previous, previous, buffers.params());
      double const e1 = relative_rmse(naive_current, current, buffers.params());
      if (check && !v.bound &&
          !(same_bits(naive_previous, previous, buffers.params()) &&
            same_bits(naive_current, current, buffers.params()))) {
        std::printf("%s: not cuda-naive's bits\n", v.name.c_str());
        failed = true;
      }
      std::printf("%-55s %9.2f %9.1f %7.2f %10.2e %10.2e %5d %5zu\n", v.name.c_str(), ms, gcells,
                  naive_ms / ms, e0, e1, v.attributes.numRegs, v.attributes.localSizeBytes);
      if (out) {
        std::fprintf(out, "\"%s\",%.4f,%.3f,%.4f,%.3e,%.3e,%d,%zu\n", v.name.c_str(), ms, gcells,
                     naive_ms / ms, e0, e1, v.attributes.numRegs, v.attributes.localSizeBytes);
      }
    }
    if (out) std::fclose(out);
    WAVE2D_CUDA_CHECK(cudaStreamDestroy(stream));
    if (check) {
      std::printf(failed ? "some variants differ from cuda-naive\n"
                         : "every variant gives cuda-naive's bits\n");
      return failed ? 1 : 0;
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
