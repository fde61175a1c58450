// The cuda-* backends: this folder's raw kernels on Kokkos::Cuda views, run on the
// instance's stream.
#ifndef WAVE2D_CUDA_STEPPERS_HPP
#define WAVE2D_CUDA_STEPPERS_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_DeviceCoefficients.hpp>
#include <wave2d/backend/wave2d_Stepper.hpp>
#include <wave2d/cuda/detail/wave2d_CudaCheck.cuh>
#include <wave2d/cuda/wave2d_CudaKernels.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

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
      : Stepper<Kokkos::Cuda, MemorySpace>(name),
        coefficients_(std::move(coefficients)),
        advance_(advance),
        configuration_(std::move(configuration)) {}

  std::string configuration() const override { return configuration_; }

 private:
  void run_steps(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
                 Receivers const& receivers) override {
    auto const result =
        advance_(coefficients_.params(receivers), {fields.previous.data(), fields.current.data()},
                 fields.step, n_steps, space.cuda_stream());
    if (result.previous != fields.previous.data()) std::swap(fields.previous, fields.current);
    fields.step += n_steps;
  }

  Coefficients<MemorySpace> coefficients_;
  Advance advance_;
  std::string configuration_;
};

template <class MemorySpace>
class ShmemStepper final : public Stepper<Kokkos::Cuda, MemorySpace> {
 public:
  // The tile: `tile` if given, else the one shmem_tile_for picks for this grid.
  ShmemStepper(Kokkos::Cuda const& space, Coefficients<MemorySpace> coefficients,
               std::optional<ShmemTile> tile)
      : Stepper<Kokkos::Cuda, MemorySpace>("cuda-shmem"),
        coefficients_(std::move(coefficients)),
        tile_(tile ? *tile : shmem_tile_for(coefficients_.params(), space.cuda_device())) {}

  std::string configuration() const override { return describe(tile_); }

 private:
  void run_steps(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
                 Receivers const& receivers) override {
    wave2d::detail::match_scratch(space, scratch_, fields, "wave2d::cuda-shmem::scratch");
    auto const result = advance_shmem(tile_, coefficients_.params(receivers),
                                      {fields.previous.data(), fields.current.data()},
                                      {scratch_.previous.data(), scratch_.current.data()},
                                      fields.step, n_steps, space.cuda_stream());
    if (result.previous == scratch_.previous.data()) {
      std::swap(fields.previous, scratch_.previous);
      std::swap(fields.current, scratch_.current);
    }
    fields.step += n_steps;
  }

  Coefficients<MemorySpace> coefficients_;
  ShmemTile tile_;
  FieldPair<MemorySpace> scratch_;
};

template <class MemorySpace>
class StreamStepper final : public Stepper<Kokkos::Cuda, MemorySpace> {
 public:
  StreamStepper(Kokkos::Cuda const& space, Coefficients<MemorySpace> coefficients)
      : Stepper<Kokkos::Cuda, MemorySpace>("cuda-stream"),
        coefficients_(std::move(coefficients)),
        layout_(stream_layout(coefficients_.params(), space.cuda_device())),
        plan_(make_plan(space, layout_, "wave2d::cuda-stream::plan")) {
    KernelParams const& params = coefficients_.params();
    if (std::int64_t(params.nx) * params.ny >= stream_deep_min_cells) {
      deep_layout_ = stream_layout(params, space.cuda_device(), stream_deep_fused_steps);
      deep_plan_ = make_plan(space, deep_layout_, "wave2d::cuda-stream::deep_plan");
    }
  }

  std::string configuration() const override {
    std::string const padding =
        padded()
            ? ", rows padded to " + std::to_string(stream_pitch(coefficients_.params().nx)) +
                  " cells in runs of " + std::to_string(stream_padded_min_steps) + " steps or more"
            : "";
    if (deep()) {
      return describe(deep_layout_) + "; the last steps of a run not a multiple of " +
             std::to_string(stream_deep_fused_steps) + ": " + describe(layout_) + padding;
    }
    return describe(layout_) + padding;
  }

 private:
  void run_steps(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields, std::int64_t n_steps,
                 Receivers const& receivers) override {
    KernelParams const params = coefficients_.params(receivers);
    // Once padded, always: the padded fields replace the scratch pair.
    if (padded() && (n_steps >= stream_padded_min_steps || padded_code_.extent(0) > 0)) {
      advance_padded(space, fields, n_steps, params);
    } else {
      advance_in_place(space, fields, n_steps, params);
    }
    fields.step += n_steps;
  }

  bool padded() const {
    return stream_pitch(coefficients_.params().nx) != coefficients_.params().pitch;
  }
  bool deep() const { return deep_plan_.extent(0) > 0; }

  Kokkos::View<std::uint32_t*, MemorySpace> make_plan(Kokkos::Cuda const& space,
                                                      StreamLayout const& layout,
                                                      std::string const& label) const {
    KernelParams const& params = coefficients_.params();
    auto plan = wave2d::detail::allocate<Kokkos::View<std::uint32_t*, MemorySpace>>(
        space, label, stream_plan_size(layout, params.receivers.count));
    plan_stream_windows(params, layout, plan.data(), space.cuda_stream());
    return plan;
  }

  // The deep shape's launches where it has any, the rest in the registry's shape. Returns
  // the pair that holds the result, as advance_stream does. As many deep launches as leave
  // the fewest steps to run one a launch: n_steps % 4 from 12 steps (the registry's shape
  // alone leaves n_steps % 8).
  FieldPointers advance(KernelParams const& params, FieldPointers fields, FieldPointers scratch,
                        std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream) {
    constexpr int t = stream_deep_fused_steps;
    static_assert(stream_fused_steps == 8 && t % 8 == 4, "one launch fewer leaves n_steps % 4");
    std::int64_t launches = deep() ? n_steps / t : 0;
    if (launches > 0 && (n_steps - launches * t) % 8 != n_steps % 4) --launches;
    std::int64_t const deep_steps = launches * t;
    if (deep_steps > 0) {
      FieldPointers const result = advance_stream(params, deep_layout_, deep_plan_.data(), fields,
                                                  scratch, first_step, deep_steps, stream);
      bool const in_fields =
          result.previous == fields.previous || result.previous == fields.current;
      scratch = in_fields ? scratch : fields;
      fields = result;
    }
    return advance_stream(params, layout_, plan_.data(), fields, scratch, first_step + deep_steps,
                          n_steps - deep_steps, stream);
  }

  // On the fields, and the scratch pair of their shape.
  void advance_in_place(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields,
                        std::int64_t n_steps, KernelParams const& params) {
    wave2d::detail::match_scratch(space, scratch_, fields, "wave2d::cuda-stream::scratch");
    auto const result = advance(params, {fields.previous.data(), fields.current.data()},
                                {scratch_.previous.data(), scratch_.current.data()}, fields.step,
                                n_steps, space.cuda_stream());
    if (result.previous == scratch_.previous.data() || result.previous == scratch_.current.data()) {
      std::swap(fields.previous, scratch_.previous);
      std::swap(fields.current, scratch_.current);
    }
    if (result.previous != fields.previous.data()) std::swap(fields.previous, fields.current);
  }

  // On copies of the fields and coefficients in padded rows; the result copied back.
  void advance_padded(Kokkos::Cuda const& space, FieldPair<MemorySpace>& fields,
                      std::int64_t n_steps, KernelParams params) {
    cudaStream_t const stream = space.cuda_stream();
    std::int64_t const nx = params.nx, ny = params.ny, pitch = stream_pitch(nx);
    if (padded_code_.extent(0) == 0) {
      scratch_ = {};  // freed first: the padded fields replace it
      // Zeroed, so that nothing in the padding is undefined, by the copy engine (no kernel).
      auto const rows = [&](std::string const& label) {
        auto view = wave2d::detail::allocate<Field<MemorySpace>>(space, label, ny, pitch);
        WAVE2D_CUDA_CHECK(cudaMemsetAsync(view.data(), 0, view.span() * sizeof(float), stream));
        return view;
      };
      padded_code_ = rows("wave2d::cuda-stream::padded_code");
      copy_rows(padded_code_.data(), pitch, params.code, params.pitch, nx, ny, stream);
      if (params.kappa != nullptr) {
        padded_kappa_ = rows("wave2d::cuda-stream::padded_kappa");
        copy_rows(padded_kappa_.data(), pitch, params.kappa, params.pitch, nx, ny, stream);
      }
      for (int i = 0; i < 4; ++i) {
        padded_fields_[i] = rows("wave2d::cuda-stream::padded" + std::to_string(i));
      }
    }
    // The fields' rows are nx cells apart, the coefficients' params.pitch.
    float* const previous = padded_fields_[0].data();
    float* const current = padded_fields_[1].data();
    copy_rows(previous, pitch, fields.previous.data(), nx, nx, ny, stream);
    copy_rows(current, pitch, fields.current.data(), nx, nx, ny, stream);
    params.pitch = pitch;
    params.code = padded_code_.data();
    if (params.kappa != nullptr) params.kappa = padded_kappa_.data();
    auto const result =
        advance(params, {previous, current}, {padded_fields_[2].data(), padded_fields_[3].data()},
                fields.step, n_steps, stream);
    copy_rows(fields.previous.data(), nx, result.previous, pitch, nx, ny, stream);
    copy_rows(fields.current.data(), nx, result.current, pitch, nx, ny, stream);
  }

  Coefficients<MemorySpace> coefficients_;
  StreamLayout layout_;
  Kokkos::View<std::uint32_t*, MemorySpace> plan_;
  // On grids of stream_deep_min_cells or more: the deep shape's (else no plan).
  StreamLayout deep_layout_;
  Kokkos::View<std::uint32_t*, MemorySpace> deep_plan_;
  FieldPair<MemorySpace> scratch_;
  // Made at the first padded run: the codes, κ per cell where the scene has it, and two
  // pairs of fields, in rows of stream_pitch(nx) cells. Fields, padded fields and codes:
  // 8 floats a cell at most, 10 with κ (the memory check counts 10 and 13).
  Field<MemorySpace> padded_code_;
  Field<MemorySpace> padded_kappa_;
  Field<MemorySpace> padded_fields_[4];
};

}  // namespace wave2d::cuda

#endif
