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
#include <stdexcept>
#include <utility>

namespace wave2d::cuda {

template <class MemorySpace>
class NaiveStepper final : public Stepper<Kokkos::Cuda, MemorySpace> {
 public:
  explicit NaiveStepper(Coefficients<MemorySpace> coefficients)
      : coefficients_(std::move(coefficients)) {}

  void advance(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
               Receivers const& receivers) override {
    Kokkos::Profiling::ScopedRegion region("wave2d::cuda-naive::advance");
    KernelParams params = coefficients_.params();
    params.receivers = receivers;
    auto const result = advance_naive(params, {fields.previous.data(), fields.current.data()},
                                      fields.step, n_steps, space.cuda_stream());
    if (result.previous != fields.previous.data()) std::swap(fields.previous, fields.current);
    fields.step += n_steps;
  }

  std::string configuration() const override { return naive_configuration(); }

 private:
  Coefficients<MemorySpace> coefficients_;
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
            space, "wave2d::cuda-stream::plan", stream_plan_size(layout_))) {
    plan_stream_windows(coefficients_.params(), layout_, plan_.data(), space.cuda_stream());
    // Its warps walk columns with the levels in registers: recording receivers there is
    // not written yet (issue 11). Refused, not recorded at launch boundaries only.
    if (coefficients_.params().receivers.columns > 0) {
      throw std::invalid_argument(
          "cuda-stream does not record receivers yet: use cuda-shmem for a scene with "
          "receivers");
    }
  }

  void advance(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
               Receivers const&) override {
    Kokkos::Profiling::ScopedRegion region("wave2d::cuda-stream::advance");
    Details::match_scratch(space, scratch_, fields, "wave2d::cuda-stream::scratch");
    auto const result = advance_stream(coefficients_.params(), layout_, plan_.data(),
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
