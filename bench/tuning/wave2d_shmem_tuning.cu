// Measures cuda-shmem tile shapes against cuda-naive on one scene, on the raw kernels:
// how the tuned default in kernels_cuda/wave2d_Shmem.cu was chosen.
//   wave2d_shmem_tuning [--scene NAME] [--steps N] [--repetitions R] [--csv FILE]
//                       [--only REGEX] [--pitch-align A]
// NAME: a built-in scene, or point-source-N (the size sweep's scene on an N x N grid).
// A: rows padded to a multiple of A cells (default 1: pitch = nx).
#include <wave2d/core/wave2d_Coefficients.hpp>
#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>
#include <wave2d/cuda/detail/wave2d_ShmemKernel.cuh>
#include <wave2d/cuda/detail/wave2d_StreamKernel.cuh>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
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
  void reset() {
    for (float* p : {fields.previous, fields.current, scratch.previous, scratch.current}) {
      WAVE2D_CUDA_CHECK(cudaMemset(p, 0, bytes()));
    }
  }
};

struct Variant {
  std::string name;
  std::function<FieldPointers(Buffers&, std::int64_t, cudaStream_t)> run;
  cudaFuncAttributes attributes;
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

template <int TX, int TY, int CX, int CY, int T, int Pad>
Variant shmem_variant() {
  using Shape = ShmemShape<TX, TY, CX, CY, T, Pad>;
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

template <int T, int BlocksPerSM = 3, int CellsX = 4>
Variant stream_variant(KernelParams const& params, int rows = 0) {
  return stream_shape_variant<StreamShape<T, BlocksPerSM, CellsX>>(params, rows);
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

double relative_rmse(std::vector<float> const& a, std::vector<float> const& b) {
  double sa = 0, sd = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sa += double(a[i]) * a[i];
    sd += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  }
  return std::sqrt(sd / sa);
}

}  // namespace

int main(int argc, char** argv) {
  std::string scene_name = "double-slit";
  std::int64_t steps = -1;
  int repetitions = 3;
  std::string csv, only;
  int pitch_align = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const arg = argv[i];
    if (arg == "--scene")
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
  if (pitch_align < 1) {
    std::fprintf(stderr, "--pitch-align: a number of cells, at least 1\n");
    return 2;
  }
  try {
    char const* reason = nullptr;
    if (!device_available(&reason)) {
      std::fprintf(stderr, "no CUDA device: %s\n", reason);
      return 1;
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

    std::vector<Variant> variants;
    variants.push_back(
        one_pass_variant("cuda-naive (" + naive_configuration() + ")", advance_naive));
    variants.push_back(
        one_pass_variant("cuda-onepass (" + onepass_configuration() + ")", advance_onepass));
    variants.push_back(shmem_variant<32, 32, 2, 2, 8, 0>());  // the seed chapter's shape
    variants.push_back(shmem_variant<32, 32, 2, 2, 8, 1>());
    variants.push_back(shmem_variant<48, 48, 1, 8, 8, 0>());
    variants.push_back(shmem_variant<112, 48, 1, 8, 8, 0>());
    variants.push_back(shmem_variant<112, 48, 1, 8, 8, 1>());
    variants.push_back(shmem_variant<112, 48, 1, 16, 8, 0>());
    variants.push_back(shmem_variant<112, 48, 1, 16, 8, 1>());
    variants.push_back(shmem_variant<116, 52, 1, 16, 6, 0>());
    variants.push_back(shmem_variant<108, 44, 1, 16, 10, 0>());
    variants.push_back(shmem_variant<104, 40, 1, 16, 12, 0>());
    variants.push_back(shmem_variant<116, 52, 1, 8, 6, 0>());
    variants.push_back(shmem_variant<104, 40, 1, 8, 12, 0>());
    variants.push_back(shmem_variant<112, 80, 1, 12, 8, 0>());
    variants.push_back(shmem_variant<112, 112, 1, 16, 8, 0>());
    variants.push_back(shmem_variant<108, 108, 1, 16, 10, 0>());
    variants.push_back(shmem_variant<96, 96, 1, 16, 16, 0>());
    variants.push_back(shmem_variant<240, 48, 2, 8, 8, 0>());
    auto const& params = buffers.params();
    variants.push_back(stream_variant<8>(params));
    variants.push_back(
        stream_variant<8>(params, 4));  // shorter segments: more windows on small grids
    variants.push_back(stream_variant<8>(params, 8));
    variants.push_back(stream_variant<8>(params, 12));
    variants.push_back(stream_variant<8>(params, 20));
    variants.push_back(stream_variant<8>(params, 28));
    variants.push_back(stream_variant<8, 4>(params, 20));
    variants.push_back(stream_variant<8, 4>(params, 24));
    variants.push_back(stream_variant<8, 4>(params, 32));
    variants.push_back(stream_variant<10>(params, 24));
    variants.push_back(stream_variant<6, 4>(params, 24));
    // Columns a lane: fewer make a smaller ring of registers and more warps per SM. The
    // registry's shape first.
    variants.push_back(stream_shape_variant<StreamRegistryShape>(params));
    // Walks of more or fewer kinds taken three rows at a time (0: all row by row).
    variants.push_back(stream_shape_variant<StreamShape<stream_fused_steps, 4, 3, 0>>(params));
    variants.push_back(stream_shape_variant<StreamShape<stream_fused_steps, 4, 3, 2>>(params));
    variants.push_back(stream_shape_variant<StreamShape<stream_fused_steps, 4, 3, 4>>(params));
    // Segments merged into windows of about equal cost, against fixed 24-row windows.
    variants.push_back(stream_shape_variant<StreamRegistryShape>(params, 24));
    for (double const per_warp : {1.0, 1.5, 2.0, 3.0}) {
      variants.push_back(stream_shape_variant<StreamRegistryShape>(params, 1, per_warp));
    }
    // Window costs other than the layout's (interior/damped/walled/general per row, rows
    // added), with the layout's segments (one row where it merges them) and with merged
    // segments of 2 rows. Walled costs damped + 120 unless given.
    auto const costs = [](int damped, int general, int rows_added, int walled = 0) {
      return StreamWindowCosts{{185, damped, walled > 0 ? walled : damped + 120, general},
                               rows_added};
    };
    for (int const rows : {0, 2}) {
      for (int const rows_added : {8, 12, 16, 24}) {
        for (int const damped : {280, 310, 340}) {
          for (int const general : {550, 650, 850}) {
            variants.push_back(stream_shape_variant<StreamRegistryShape>(
                params, rows, rows > 0 ? 1.0 : 0.0, costs(damped, general, rows_added)));
          }
        }
      }
    }
    for (int const rows : {2, 4, 8, 12}) {
      variants.push_back(stream_shape_variant<StreamRegistryShape>(params, rows, 1.0));
    }
    // Shapes beside the registry's, laid out as it is: fewer blocks an SM, which leaves
    // registers to unroll the damped walk too, and fewer fused steps (less recomputed side
    // and start per window, more launches).
    variants.push_back(stream_shape_variant<StreamShape<8, 3, 3, 1>>(params));
    variants.push_back(stream_shape_variant<StreamShape<8, 3, 3, 2>>(params));
    variants.push_back(stream_shape_variant<StreamShape<6, 4, 3, 1>>(params));
    variants.push_back(stream_shape_variant<StreamShape<6, 4, 3, 2>>(params));
    variants.push_back(stream_shape_variant<StreamShape<6, 5, 3, 1>>(params));
    for (int const damped : {220, 250, 280}) {
      variants.push_back(
          stream_shape_variant<StreamShape<8, 3, 3, 2>>(params, 0, 0, costs(damped, 650, 16)));
      variants.push_back(
          stream_shape_variant<StreamShape<8, 4, 3, 2>>(params, 0, 0, costs(damped, 850, 8)));
      variants.push_back(
          stream_shape_variant<StreamShape<6, 4, 3, 2>>(params, 0, 0, costs(damped, 650, 12)));
    }
    // The new pair's rows stored through shared memory, each store a warp's contiguous bytes;
    // straight walks (every row three at a time) with one, two or three kinds unrolled; both,
    // with the damped kind unrolled, at costs near their best (185/280/400/850 +8:
    // docs/results/h200/stream-straight-2026-12-02.txt).
    variants.push_back(stream_shape_variant<StreamShape<8, 4, 3, 1, 1>>(params));
    variants.push_back(stream_shape_variant<StreamShape<8, 4, 3, 1, 0, 1>>(params));
    variants.push_back(stream_shape_variant<StreamShape<8, 4, 3, 2, 0, 1>>(params));
    variants.push_back(stream_shape_variant<StreamShape<8, 4, 3, 3, 0, 1>>(params));
    for (int const damped : {260, 280}) {
      for (int const walled : {370, 400}) {
        for (int const general : {850, 1000}) {
          variants.push_back(stream_shape_variant<StreamShape<8, 4, 3, 2, 1, 1>>(
              params, 0, 0, costs(damped, general, 8, walled)));
        }
      }
    }
    variants.push_back(stream_variant<8, 4, 2>(params));
    variants.push_back(stream_variant<8, 6, 2>(params));
    variants.push_back(stream_variant<8, 5, 2>(params, 48));
    variants.push_back(stream_variant<4, 5, 4>(params));
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
        buffers.reset();
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
      double const e0 = relative_rmse(naive_previous, previous);
      double const e1 = relative_rmse(naive_current, current);
      std::printf("%-55s %9.2f %9.1f %7.2f %10.2e %10.2e %5d %5zu\n", v.name.c_str(), ms, gcells,
                  naive_ms / ms, e0, e1, v.attributes.numRegs, v.attributes.localSizeBytes);
      if (out) {
        std::fprintf(out, "\"%s\",%.4f,%.3f,%.4f,%.3e,%.3e,%d,%zu\n", v.name.c_str(), ms, gcells,
                     naive_ms / ms, e0, e1, v.attributes.numRegs, v.attributes.localSizeBytes);
      }
    }
    if (out) std::fclose(out);
    WAVE2D_CUDA_CHECK(cudaStreamDestroy(stream));
  } catch (std::exception const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
