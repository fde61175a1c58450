// The cuda-* backends: kernels_cuda's raw kernels on Kokkos::Cuda views, run on the
// instance's stream.
#ifndef WAVE2D_CUDA_STEPPERS_HPP
#define WAVE2D_CUDA_STEPPERS_HPP

#include <simulation/detail/wave2d_KokkosHelpers.hpp>
#include <simulation/wave2d_DeviceCoefficients.hpp>
#include <simulation/wave2d_Stepper.hpp>

#include <kernels_cuda/wave2d_CudaKernels.hpp>

#include <wave2d_KokkosCompat.hpp>

#include <utility>

namespace wave2d::Details {

template <class MemorySpace>
cuda::Coefficients raw_coefficients(Coefficients<MemorySpace> const& c) {
  return {c.code.data(), c.uniform_kappa() ? nullptr : c.kappa.data(), c.kappa_uniform,
          c.sources.data(), c.t0, c.dt};
}

template <class MemorySpace>
cuda::Grid raw_grid(Coefficients<MemorySpace> const& c) {
  return {c.nx, c.ny, c.nx};
}

template <class MemorySpace>
class CudaNaiveStepper final : public Stepper<Kokkos::Cuda, MemorySpace> {
 public:
  explicit CudaNaiveStepper(Coefficients<MemorySpace> coefficients)
      : coefficients_(std::move(coefficients)) {}

  void advance(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields,
               std::int64_t n_steps) override {
    Kokkos::Profiling::ScopedRegion region("wave2d::cuda-naive::advance");
    auto const result = cuda::advance_naive(
        raw_grid(coefficients_), raw_coefficients(coefficients_),
        {fields.previous.data(), fields.current.data()}, fields.step, n_steps,
        space.cuda_stream());
    if (result.previous != fields.previous.data()) {
      std::swap(fields.previous, fields.current);
    }
    fields.step += n_steps;
  }

 private:
  Coefficients<MemorySpace> coefficients_;
};

template <class MemorySpace>
class CudaShmemStepper final : public Stepper<Kokkos::Cuda, MemorySpace> {
 public:
  CudaShmemStepper(Coefficients<MemorySpace> coefficients, cuda::ShmemVariant variant)
      : coefficients_(std::move(coefficients)), variant_(variant) {}

  void advance(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields,
               std::int64_t n_steps) override {
    Kokkos::Profiling::ScopedRegion region("wave2d::cuda-shmem::advance");
    if (scratch_.previous.size() != fields.previous.size()) {
      auto const ny = fields.previous.extent(0);
      auto const nx = fields.previous.extent(1);
      scratch_.previous =
          Details::allocate<Field<MemorySpace>>(space, "wave2d::cuda-shmem::scratch0", ny, nx);
      scratch_.current =
          Details::allocate<Field<MemorySpace>>(space, "wave2d::cuda-shmem::scratch1", ny, nx);
    }
    auto const result = cuda::advance_shmem(
        variant_, raw_grid(coefficients_), raw_coefficients(coefficients_),
        {fields.previous.data(), fields.current.data()},
        {scratch_.previous.data(), scratch_.current.data()}, fields.step, n_steps,
        space.cuda_stream());
    if (result.previous == scratch_.previous.data()) {
      std::swap(fields.previous, scratch_.previous);
      std::swap(fields.current, scratch_.current);
    }
    fields.step += n_steps;
  }

 private:
  Coefficients<MemorySpace> coefficients_;
  cuda::ShmemVariant variant_;
  FieldPair<MemorySpace> scratch_;
};

}  // namespace wave2d::Details

#endif
