// kernels_cuda's raw-pointer interface against the reference: no Kokkos::Cuda needed,
// so these build wherever nvcc is, and skip, saying why, where no GPU is.
#include <wave2d_TestHelpers.hpp>

#include <wave2d/cuda/detail/wave2d_StreamPlan.hpp>
#include <wave2d/cuda/detail/wave2d_StreamShape.hpp>
#include <wave2d/cuda/detail/wave2d_StreamStrips.hpp>
#include <wave2d/cuda/detail/wave2d_StreamTuning.hpp>
#include <wave2d/cuda/wave2d_CudaKernels.hpp>

#include <cuda_runtime.h>

#include <limits>
#include <random>

namespace wave2d::test {
namespace {

void check_cuda(cudaError_t status, char const* what) {
  ASSERT_EQ(status, cudaSuccess) << what << ": " << cudaGetErrorString(status);
}

template <class T>
struct DeviceArray {
  T* data = nullptr;
  explicit DeviceArray(std::size_t n) {
    check_cuda(cudaMalloc(&data, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc");
  }
  ~DeviceArray() { cudaFree(data); }
  DeviceArray(DeviceArray const&) = delete;
  DeviceArray& operator=(DeviceArray const&) = delete;
};

// A host field copied into a pitched device field (pitch >= nx), and back.
void upload(float* device, std::vector<float> const& host, KernelParams const& params) {
  check_cuda(
      cudaMemcpy2D(device, params.pitch * sizeof(float), host.data(), params.nx * sizeof(float),
                   params.nx * sizeof(float), params.ny, cudaMemcpyHostToDevice),
      "upload");
}

std::vector<float> download(float const* device, KernelParams const& params) {
  std::vector<float> host(std::size_t(params.nx) * params.ny);
  check_cuda(
      cudaMemcpy2D(host.data(), params.nx * sizeof(float), device, params.pitch * sizeof(float),
                   params.nx * sizeof(float), params.ny, cudaMemcpyDeviceToHost),
      "download");
  return host;
}

// Every compiled kernel shape, each on every grid (the per-grid choice is the
// backends' business: test_backends.cpp).
enum class Kernel { naive, onepass, shmem_112x48, shmem_32x32, stream, stream_deep };

// cuda-stream's fused steps in the kernel's shape.
int stream_steps(Kernel kernel) {
  return kernel == Kernel::stream_deep ? cuda::stream_deep_fused_steps : cuda::stream_fused_steps;
}

std::string to_string(Kernel kernel) {
  switch (kernel) {
    case Kernel::naive: return "naive";
    case Kernel::onepass: return "onepass";
    case Kernel::shmem_112x48: return "shmem_112x48";
    case Kernel::shmem_32x32: return "shmem_32x32";
    case Kernel::stream: return "stream";
    case Kernel::stream_deep: return "stream_deep";
  }
  return "unknown";
}

void PrintTo(Kernel kernel, std::ostream* os) { *os << to_string(kernel); }

std::string kernel_name(testing::TestParamInfo<Kernel> const& info) {
  return to_string(info.param);
}

class CudaKernelTest : public testing::TestWithParam<Kernel> {
 protected:
  void SetUp() override {
    char const* reason = nullptr;
    if (!cuda::device_available(&reason)) {
      GTEST_SKIP() << "no usable CUDA device here (" << reason
                   << "): the CUDA kernels are compiled but not run";
    }
  }

  // Runs the kernel from `initial` on a device grid of the given pitch, with the
  // scratch pair poisoned with NaN so that an unwritten output cell shows.
  HostPair run(Scene const& scene, HostPair const& initial, std::int64_t first_step,
               std::int64_t n_steps, std::int64_t pitch_extra = 0) {
    cuda::DeviceCoefficients const coefficients(precompute_coefficients(scene),
                                                scene.nx + pitch_extra);
    KernelParams const& params = coefficients.params();
    std::size_t const n = std::size_t(params.pitch) * params.ny;
    DeviceArray<float> a(n), b(n), c(n), d(n);
    std::vector<float> const nan(n, std::numeric_limits<float>::quiet_NaN());
    for (float* p : {a.data, b.data, c.data, d.data}) {
      check_cuda(cudaMemcpy(p, nan.data(), n * sizeof(float), cudaMemcpyHostToDevice), "poison");
    }
    upload(a.data, initial.previous, params);
    upload(b.data, initial.current, params);
    cuda::FieldPointers const fields{a.data, b.data};
    cuda::FieldPointers const scratch{c.data, d.data};
    cudaStream_t stream;
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
    cuda::FieldPointers result;
    switch (GetParam()) {
      case Kernel::naive:
        result = cuda::advance_naive(params, fields, first_step, n_steps, stream);
        break;
      case Kernel::onepass:
        result = cuda::advance_onepass(params, fields, first_step, n_steps, stream);
        break;
      case Kernel::shmem_112x48:
      case Kernel::shmem_32x32:
        result =
            cuda::advance_shmem(GetParam() == Kernel::shmem_112x48 ? cuda::ShmemTile::tile_112x48
                                                                   : cuda::ShmemTile::tile_32x32,
                                params, fields, scratch, first_step, n_steps, stream);
        break;
      case Kernel::stream:
      case Kernel::stream_deep: {
        auto const layout = cuda::stream_layout(params, 0, stream_steps(GetParam()));
        DeviceArray<std::uint32_t> plan(cuda::stream_plan_size(layout, params.receivers.count));
        cuda::plan_stream_windows(params, layout, plan.data, stream);
        result = cuda::advance_stream(params, layout, plan.data, fields, scratch, first_step,
                                      n_steps, stream);
        check_cuda(cudaStreamSynchronize(stream), "kernel run");
        break;
      }
    }
    check_cuda(cudaStreamSynchronize(stream), "kernel run");
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
    return {download(result.previous, params), download(result.current, params)};
  }

  void check(Scene const& scene, HostPair const& initial, std::int64_t first_step,
             std::int64_t n_steps, std::string const& what, std::int64_t pitch_extra = 0) {
    auto const expected = run_reference(scene, initial, first_step, n_steps);
    auto const result = run(scene, initial, first_step, n_steps, pitch_extra);
    expect_close(expected.previous, result.previous, 1e-5, what + ": u(t_{n-1})");
    expect_close(expected.current, result.current, 1e-5, what + ": u(t_n)");
  }
};

TEST_P(CudaKernelTest, DoubleSlitSmallFullRun) {
  Scene const scene = builtin_scene("double-slit-small");
  check(scene, zeros(scene), 0, scene.steps, "double-slit-small, 800 steps");
}

TEST_P(CudaKernelTest, RandomFieldsOddGridsAndStepCounts) {
  std::uint32_t seed = 100;
  for (auto [nx, ny] :
       {std::pair{257, 131}, {131, 257}, {3, 3}, {1, 40}, {40, 1}, {113, 49}, {300, 97}}) {
    Scene const scene = busy_scene(nx, ny, seed);
    for (std::int64_t steps : {0, 1, 7, 8, 9, 13, 27}) {
      check(scene, random_pair(scene, seed++), 3, steps,
            std::to_string(nx) + " x " + std::to_string(ny) + ", " + std::to_string(steps) +
                " steps");
    }
  }
}

TEST_P(CudaKernelTest, GridsOfManyTiles) {
  Scene const scene = busy_scene(1201, 677, 77);
  for (std::int64_t steps : {13, 27}) {
    check(scene, random_pair(scene, 78), 2, steps,
          "1201 x 677, " + std::to_string(steps) + " steps");
  }
}

// Large enough for windows away from the border: cuda-stream's interior windows (no
// per-cell data), damped ones (the absorbing layer), walled ones (the wall), general ones
// (the border, the source).
TEST_P(CudaKernelTest, WindowsOfEveryKind) {
  Scene scene = point_source_scene(601);
  scene.walls.assign(std::size_t(scene.cells()), 0);
  for (std::int32_t y = 1; y < scene.ny - 1; ++y) {
    if (y < 250 || y > 280) scene.walls[std::size_t(scene.index(407, y))] = 1;
  }
  check(scene, random_pair(scene, 9), 5, 29, "601 x 601, a wall, uniform speed");
  scene.speed.resize(std::size_t(scene.cells()));
  for (std::int32_t y = 0; y < scene.ny; ++y) {
    for (std::int32_t x = 0; x < scene.nx; ++x) {
      scene.speed[std::size_t(scene.index(x, y))] = scene.c * (0.8f + 0.2f * float(x % 7) / 7.0f);
    }
  }
  check(scene, random_pair(scene, 10), 5, 29, "601 x 601, a wall, speed per cell");
}

// A grid 896 wide and tall enough that the stream layout merges its segments into windows
// of about equal cost: windows of every kind (the border, a damping band, walls, sources,
// the quiet inside) and lengths, merged across the kinds' boundaries.
TEST_P(CudaKernelTest, GridOfTheStreamLayoutsMergedSegments) {
  KernelParams probe;
  probe.nx = 896;
  probe.pitch = 896;
  int ny = 0;
  for (int tall = 96; tall <= 1'000'000 && ny == 0; tall += 96) {
    probe.ny = tall;
    if (cuda::stream_layout(probe, 0, stream_steps(GetParam())).windows_per_warp > 0) {
      ny = tall + 5;
    }
  }
  ASSERT_GT(ny, 0) << "no grid 896 wide has its segments merged on this device";
  Scene scene = plain_scene(896, ny);
  scene.walls.assign(std::size_t(scene.cells()), 0);
  for (std::int32_t x = 0; x < scene.nx; ++x) {
    if (x % 100 > 8) scene.walls[std::size_t(scene.index(x, ny / 3))] = 1;
  }
  scene.sources.push_back({300, ny / 2, {Waveform::Shape::sine, 1.0f, 20.0f, 0.0f}});
  scene.sources.push_back({700, 2 * ny / 3, {Waveform::Shape::ricker, 2.0f, 15.0f, 0.01f}});
  check(scene, random_pair(scene, 93), 4, 21, "896 x " + std::to_string(ny) + ", 21 steps");
}

TEST_P(CudaKernelTest, PitchedRows) {
  Scene const scene = busy_scene(150, 70, 42);
  check(scene, random_pair(scene, 43), 0, 19, "pitch = nx + 37", 37);
}

// Rows at every offset from a 16-byte boundary (cuda-onepass reads the rows above and
// below by aligned loads and shifts), widths around the multiples of 4.
TEST_P(CudaKernelTest, EveryRowAlignment) {
  for (std::int32_t nx : {61, 62, 63, 64, 5}) {
    Scene const scene = busy_scene(nx, 23, std::uint32_t(nx));
    for (std::int64_t extra : {0, 1, 2, 3}) {
      check(scene, random_pair(scene, 7), 1, 11,
            std::to_string(nx) + " wide, pitch + " + std::to_string(extra), extra);
    }
  }
}

// Widths around cuda-stream's strips (96 columns a window, 80 written by each strip
// between the first and the last; 72 in the deep shape): where the grid is at least a window wide,
// the first window starts at column 0 and the last ends at the last column, each writing up to that
// edge, and they are walked without bounds tests (walled: the border cells are fixed).
TEST_P(CudaKernelTest, WidthsAroundTheStreamStrips) {
  for (std::int32_t nx : {95, 96, 97, 167, 168, 169, 175, 176, 177, 239, 240, 263, 264}) {
    Scene scene = plain_scene(nx, 71);
    scene.sources.push_back({nx / 2, 35, {Waveform::Shape::sine, 2.0f, 30.0f, 0.0f}});
    check(scene, random_pair(scene, 12), 2, 17, std::to_string(nx) + " x 71, 17 steps");
    std::mt19937 generator{std::uint32_t(nx)};
    scene.walls.resize(std::size_t(scene.cells()));
    for (auto& wall : scene.walls) wall = generator() % 16 == 0;
    check(scene, random_pair(scene, 13), 1, 13, std::to_string(nx) + " x 71, walls, 13 steps");
  }
}

// cuda-stream's strips, on the host (no GPU needed): for every width up to five windows,
// the strips' written columns tile the grid in order, each inside its window and at least
// `steps` from a side of it that is not at or beyond the grid's edge; no window reaches
// outside a grid at least a window wide; strip_of_column finds each column's strip.

template <class Shape>
void expect_strips_tile_every_width() {
  for (int nx = 1; nx <= 5 * Shape::window_x; ++nx) {
    int const strips = cuda::strips_of<Shape>(nx);
    int next = 0;
    for (int s = 0; s < strips; ++s) {
      auto const c = cuda::strip_columns<Shape>(s, strips, nx);
      std::string const where = std::to_string(Shape::window_x) + "-column windows, T " +
                                std::to_string(Shape::steps) + ", " + std::to_string(nx) +
                                " wide, strip " + std::to_string(s);
      ASSERT_EQ(c.begin, next) << where;
      ASSERT_LT(c.begin, c.end) << where;
      ASSERT_GE(c.begin, c.x) << where;
      ASSERT_LE(c.end, c.x + Shape::window_x) << where;
      if (c.x > 0) ASSERT_GE(c.begin - c.x, Shape::steps) << where;
      if (c.x + Shape::window_x < nx)
        ASSERT_LE(c.end - c.x, Shape::window_x - Shape::steps) << where;
      if (nx >= Shape::window_x) {
        ASSERT_GE(c.x, 0) << where;
        ASSERT_LE(c.x + Shape::window_x, nx) << where;
      }
      for (int x = c.begin; x < c.end; ++x) {
        ASSERT_EQ(cuda::strip_of_column<Shape>(x, strips), s) << where << ", column " << x;
      }
      next = c.end;
    }
    ASSERT_EQ(next, nx) << nx << " wide";
  }
}

TEST(StreamStrips, TileEveryWidth) {
  expect_strips_tile_every_width<cuda::StreamRegistryShape>();   // 96 columns, T = 8
  expect_strips_tile_every_width<cuda::StreamDeepShape>();       // 96 columns, T = 12
  expect_strips_tile_every_width<cuda::StreamShape<8, 3, 4>>();  // 128 columns
  expect_strips_tile_every_width<cuda::StreamShape<8, 4, 2>>();  // 64 columns
  expect_strips_tile_every_width<cuda::StreamShape<4, 3, 4>>();  // 128 columns, T = 4
}

// cuda-stream's plan, on the host (no GPU needed), with the registry's margins.
using PlanShape = cuda::StreamRegistryShape;

// A segment's kind is the costliest of the rows its window reads (rows_above before its
// first, rows_below after its last), general where those leave the grid.
TEST(StreamPlan, SegmentKindsAreTheirRowsCostliest) {
  std::mt19937 generator{5};
  for (int rows : {1, 3, 8, 24}) {
    for (int ny : {1, 28, 29, 30, 97, 200}) {
      cuda::StreamLayout layout;
      layout.strips = 3;
      layout.rows = rows;
      layout.segments = (ny + rows - 1) / rows;
      std::vector<std::uint8_t> row_kinds(std::size_t(layout.strips) * ny);
      for (auto& kind : row_kinds) kind = std::uint8_t(generator() % 8 == 0 ? generator() % 4 : 0);
      auto const kinds = cuda::detail::segment_kinds<PlanShape>(layout, ny, row_kinds);
      ASSERT_EQ(kinds.size(), std::size_t(layout.strips) * layout.segments);
      for (int strip = 0; strip < layout.strips; ++strip) {
        for (int segment = 0; segment < layout.segments; ++segment) {
          int const first = segment * rows - PlanShape::rows_above;
          int const last = std::min(segment * rows + rows, ny) + PlanShape::rows_below;
          std::uint32_t expected = 3;  // general
          if (first >= 0 && last <= ny) {
            expected = 0;
            for (int y = first; y < last; ++y) {
              expected = std::max<std::uint32_t>(expected, row_kinds[std::size_t(strip) * ny + y]);
            }
          }
          ASSERT_EQ(kinds[std::size_t(strip) * layout.segments + segment], expected)
              << rows << "-row segments, " << ny << " rows, strip " << strip << ", segment "
              << segment;
        }
      }
    }
  }
}

// Merged: every segment in exactly one window of consecutive segments of one strip, at
// most max_window_rows rows, of its segments' costliest kind and that kind's cost; no more
// windows than the warps take; and the least cost bound that allows so few (one less leaves
// too many). Else a window a segment.
TEST(StreamPlan, MergedWindowsCoverEverySegmentOnceUnderTheLeastCostBound) {
  using cuda::detail::max_window_rows;
  using cuda::detail::window_cost;
  std::mt19937 generator{7};
  for (int ny : {300, 1001, 3201}) {
    for (int strips : {3, 40}) {
      for (int rows : {1, 8}) {
        cuda::StreamLayout layout;
        layout.strips = strips;
        layout.rows = rows;
        layout.segments = (ny + rows - 1) / rows;
        int const fewest = strips * ((ny + max_window_rows - 1) / max_window_rows);
        layout.resident_blocks = (2 * fewest + PlanShape::warps - 1) / PlanShape::warps;
        layout.windows_per_warp = 1.0;
        layout.window_costs = {{185, 340, 460, 850}, 8};
        std::vector<std::uint32_t> kinds(std::size_t(strips) * layout.segments);
        for (std::size_t i = 0; i < kinds.size(); ++i) {  // runs of one kind
          kinds[i] = i > 0 && generator() % 16 != 0 ? kinds[i - 1] : generator() % 4;
        }
        std::string const what = std::to_string(strips) + " strips of " + std::to_string(ny) +
                                 " rows, " + std::to_string(rows) + "-row segments";
        auto const rows_of = [&](std::int64_t segment) {
          return std::min<std::int64_t>(rows, ny - segment % layout.segments * rows);
        };
        auto const windows = cuda::detail::plan_windows<PlanShape>(layout, ny, kinds);
        std::size_t const target = std::size_t(layout.resident_blocks) * PlanShape::warps;
        ASSERT_LE(windows.size(), target) << what;
        std::vector<int> covered(kinds.size(), 0);
        std::int64_t most = 0;
        for (auto const& w : windows) {
          ASSERT_GE(w.count, 1) << what;
          std::int64_t const first = w.first, end = first + w.count;
          ASSERT_EQ(first / layout.segments, (end - 1) / layout.segments) << what;
          std::int64_t window_rows = 0;
          std::uint32_t kind = 0;
          for (std::int64_t segment = first; segment < end; ++segment) {
            ++covered[std::size_t(segment)];
            window_rows += rows_of(segment);
            kind = std::max(kind, kinds[std::size_t(segment)]);
          }
          ASSERT_LE(window_rows, max_window_rows) << what;
          ASSERT_EQ(std::uint32_t(w.kind), kind) << what;
          ASSERT_EQ(w.cost, window_cost(layout, w.kind, int(window_rows))) << what;
          most = std::max(most, w.cost);
        }
        for (int c : covered) ASSERT_EQ(c, 1) << what;
        EXPECT_GT(cuda::detail::merge_segments<PlanShape>(layout, ny, kinds, most - 1).size(),
                  target)
            << what;

        layout.windows_per_warp = 0.0;
        auto const alone = cuda::detail::plan_windows<PlanShape>(layout, ny, kinds);
        ASSERT_EQ(alone.size(), kinds.size()) << what;
        for (auto const& w : alone) ASSERT_EQ(w.count, 1) << what;
      }
    }
  }
}

// A device takes the tuning entry of the highest architecture not above its own.
TEST(StreamTuning, ADeviceTakesTheEntryOfItsArchitectureOrTheNearestBelow) {
  using cuda::detail::stream_tuning_for;
  using cuda::detail::stream_tunings;
  EXPECT_EQ(stream_tuning_for(9, 0).architecture, 90);
  EXPECT_EQ(stream_tuning_for(10, 0).architecture, 90);
  EXPECT_EQ(stream_tuning_for(12, 1).architecture, 90);
  EXPECT_EQ(stream_tuning_for(8, 9).architecture, 0);
  EXPECT_EQ(stream_tuning_for(7, 0).architecture, 0);
  EXPECT_EQ(stream_tunings.front().architecture, 0) << "a generic entry comes first";
  for (std::size_t i = 0; i < stream_tunings.size(); ++i) {
    auto const& entry = stream_tunings[i];
    if (i > 0) EXPECT_LT(stream_tunings[i - 1].architecture, entry.architecture);
    // The kinds are in the order of their cost (StreamWindowKind), which the queue's
    // order and the general kind's recording rely on.
    for (std::size_t kind = 1; kind < entry.cost_per_row.size(); ++kind) {
      EXPECT_LT(entry.cost_per_row[kind - 1], entry.cost_per_row[kind]) << entry.architecture;
    }
    EXPECT_GE(entry.fewest_rows, 1);
    EXPECT_LE(entry.fewest_rows, entry.min_rows);
    EXPECT_LE(entry.min_rows, cuda::detail::max_window_rows);
    EXPECT_GE(entry.windows_per_warp, 1);
    EXPECT_NE(std::string(entry.measured), "");
  }
}

TEST_P(CudaKernelTest, RepeatedRunsAreBitwiseEqual) {
  // A race between blocks shows as results that change from run to run.
  Scene const scene = builtin_scene("double-slit-small");
  auto const initial = random_pair(scene, 5);
  auto const first = run(scene, initial, 0, 200);
  for (int i = 0; i < 3; ++i) {
    auto const again = run(scene, initial, 0, 200);
    ASSERT_EQ(first.previous, again.previous);
    ASSERT_EQ(first.current, again.current);
  }
}

INSTANTIATE_TEST_SUITE_P(RawKernels, CudaKernelTest,
                         testing::Values(Kernel::naive, Kernel::onepass, Kernel::shmem_112x48,
                                         Kernel::shmem_32x32, Kernel::stream, Kernel::stream_deep),
                         kernel_name);

}  // namespace
}  // namespace wave2d::test
