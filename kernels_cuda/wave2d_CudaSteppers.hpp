// The cuda-* backends: this folder's raw kernels on Kokkos::Cuda views, run on the
// instance's stream.
#ifndef WAVE2D_CUDA_STEPPERS_HPP
#define WAVE2D_CUDA_STEPPERS_HPP

#include <backend/detail/wave2d_KokkosHelpers.hpp>
#include <backend/wave2d_DeviceCoefficients.hpp>
#include <backend/wave2d_Stepper.hpp>
#include <kernels_cuda/wave2d_CudaKernels.hpp>

#include <wave2d_KokkosCompat.hpp>

#include <optional>
#include <string>
#include <utility>

namespace wave2d::cuda {

// cuda-naive and cuda-onepass: one launch per step, in place.
template <class MemorySpace>
class StepPerLaunchStepper final : public Stepper<Kokkos::Cuda, MemorySpace> {
 public:
  using Advance = FieldPointers (*)(KernelParams const&, FieldPointers, std::int64_t, std::int64_t,
                                    cudaStream_t);

  // name: the backend's, for the profiling region.
  StepPerLaunchStepper(Coefficients<MemorySpace> coefficients, std::string const& name,
                       Advance advance, std::string configuration)
      : coefficients_(std::move(coefficients)),
        region_("wave2d::" + name + "::advance"),
        advance_(advance),
        configuration_(std::move(configuration)) {}

  void advance(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
               Receivers const& receivers) override {
    Kokkos::Profiling::ScopedRegion region(region_);
    KernelParams params = coefficients_.params();
    params.receivers = receivers;
    auto const result = advance_(params, {fields.previous.data(), fields.current.data()},
                                 fields.step, n_steps, space.cuda_stream());
    if (result.previous != fields.previous.data()) std::swap(fields.previous, fields.current);
    fields.step += n_steps;
  }

  std::string configuration() const override { return configuration_; }

 private:
  Coefficients<MemorySpace> coefficients_;
  std::string region_;
  Advance advance_;
  std::string configuration_;
};

template <class MemorySpace>
class ShmemStepper final : public Stepper<Kokkos::Cuda, MemorySpace> {
 public:
  // The tile: `tile` if given, else the one shmem_tile_for picks for this grid.
  ShmemStepper(Kokkos::Cuda const& space, Coefficients<MemorySpace> coefficients,
               std::optional<ShmemTile> tile)
      : coefficients_(std::move(coefficients)),
        tile_(tile ? *tile : shmem_tile_for(coefficients_.params(), space.cuda_device())) {}

  void advance(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
               Receivers const& receivers) override {
    Kokkos::Profiling::ScopedRegion region("wave2d::cuda-shmem::advance");
    Details::match_scratch(space, scratch_, fields, "wave2d::cuda-shmem::scratch");
    KernelParams params = coefficients_.params();
    params.receivers = receivers;
    auto const result =
        advance_shmem(tile_, params, {fields.previous.data(), fields.current.data()},
                      {scratch_.previous.data(), scratch_.current.data()}, fields.step, n_steps,
                      space.cuda_stream());
    if (result.previous == scratch_.previous.data()) {
      std::swap(fields.previous, scratch_.previous);
      std::swap(fields.current, scratch_.current);
    }
    fields.step += n_steps;
  }

  std::string configuration() const override { return describe(tile_); }

 private:
  Coefficients<MemorySpace> coefficients_;
  ShmemTile tile_;
  FieldPair<MemorySpace> scratch_;
};

template <class MemorySpace>
class StreamStepper final : public Stepper<Kokkos::Cuda, MemorySpace> {
 public:
  StreamStepper(Kokkos::Cuda const& space, Coefficients<MemorySpace> coefficients)
      : coefficients_(std::move(coefficients)),
        layout_(stream_layout(coefficients_.params(), space.cuda_device())),
        plan_(Details::allocate<Kokkos::View<std::uint32_t*, MemorySpace>>(
            space, "wave2d::cuda-stream::plan",
            stream_plan_size(layout_, coefficients_.params().receivers.count))) {
    plan_stream_windows(coefficients_.params(), layout_, plan_.data(), space.cuda_stream());
  }

  void advance(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
               Receivers const& receivers) override {
    Kokkos::Profiling::ScopedRegion region("wave2d::cuda-stream::advance");
    Details::match_scratch(space, scratch_, fields, "wave2d::cuda-stream::scratch");
    KernelParams params = coefficients_.params();
    params.receivers = receivers;
    auto const result = advance_stream(params, layout_, plan_.data(),
                                       {fields.previous.data(), fields.current.data()},
                                       {scratch_.previous.data(), scratch_.current.data()},
                                       fields.step, n_steps, space.cuda_stream());
    if (result.previous == scratch_.previous.data() || result.previous == scratch_.current.data()) {
      std::swap(fields.previous, scratch_.previous);
      std::swap(fields.current, scratch_.current);
    }
    if (result.previous != fields.previous.data()) std::swap(fields.previous, fields.current);
    fields.step += n_steps;
  }

  std::string configuration() const override { return describe(layout_); }

 private:
  Coefficients<MemorySpace> coefficients_;
  StreamLayout layout_;
  Kokkos::View<std::uint32_t*, MemorySpace> plan_;
  FieldPair<MemorySpace> scratch_;
};

}  // namespace wave2d::cuda

#endif
