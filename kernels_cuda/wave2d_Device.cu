// What the raw kernels need from the device besides the kernels themselves.
#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>
#include <wave2d/cuda/wave2d_CudaKernels.hpp>
#include <wave2d/cuda/detail/wave2d_Receivers.cuh>

#include <algorithm>
#include <vector>

namespace wave2d::cuda {

namespace {

// Rows of `width` elements, `pitch` apart; the cells between rows hold `padding` (kernels
// that sweep whole rows of the pitch read them).
template <class T>
T* upload(std::vector<T> const& host, std::int64_t width, std::int64_t rows, std::int64_t pitch,
          T padding = T()) {
  if (host.empty()) return nullptr;
  std::vector<T> pitched(std::size_t(pitch * rows), padding);
  for (std::int64_t y = 0; y < rows; ++y) {
    std::copy(host.begin() + y * width, host.begin() + (y + 1) * width,
              pitched.begin() + y * pitch);
  }
  T* device = nullptr;
  WAVE2D_CUDA_CHECK(cudaMalloc(&device, pitched.size() * sizeof(T)));
  WAVE2D_CUDA_CHECK(
      cudaMemcpy(device, pitched.data(), pitched.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

}  // namespace

DeviceCoefficients::DeviceCoefficients(HostCoefficients const& host, std::int64_t pitch) {
  std::int64_t const nx = host.window.local_nx();
  std::int64_t const ny = host.window.local_ny();
  try {
    code_ = upload(host.code, nx, ny, pitch, cell_code::fixed_zero);
    kappa_ = upload(host.kappa, nx, ny, pitch);
    sources_ = upload(host.sources, std::int64_t(host.sources.size()), 1,
                      std::int64_t(host.sources.size()));
    receivers_ = upload(host.receivers, std::int64_t(host.receivers.size()), 1,
                        std::int64_t(host.receivers.size()));
  } catch (...) {
    release();
    throw;
  }
  params_ = host.params(code_, kappa_, sources_, receivers_, pitch);
}

DeviceCoefficients::~DeviceCoefficients() { release(); }

void DeviceCoefficients::release() {
  cudaFree(code_);
  cudaFree(kappa_);
  cudaFree(sources_);
  cudaFree(receivers_);
}

namespace {

__global__ void record_receivers_kernel(Receivers receivers, float const* u, std::int64_t pitch,
                                        std::int64_t steps_done) {
  record_receivers_from(receivers, u, pitch, steps_done);
}

}  // namespace

void record_receivers(Receivers const& receivers, float const* u, std::int64_t pitch,
                      std::int64_t steps_done, cudaStream_t stream) {
  if (!receivers.active()) return;
  record_receivers_kernel<<<1, 256, 0, stream>>>(receivers, u, pitch, steps_done);
  WAVE2D_CUDA_CHECK(cudaGetLastError());
}

void copy_rows(float* dst, std::int64_t dst_pitch, float const* src, std::int64_t src_pitch,
               std::int64_t width, std::int64_t rows, cudaStream_t stream) {
  if (width == 0 || rows == 0) return;
  WAVE2D_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch * sizeof(float), src,
                                      src_pitch * sizeof(float), width * sizeof(float), rows,
                                      cudaMemcpyDeviceToDevice, stream));
}

bool device_available(char const** reason) {
  int count = 0;
  cudaError_t const status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (reason) {
      *reason = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device present";
    }
    cudaGetLastError();  // clear the error so that later calls start clean
    return false;
  }
  return true;
}

}  // namespace wave2d::cuda
