// cuda-stream: the register-streaming multistep kernel in its compiled shapes.
#include <wave2d/cuda/detail/wave2d_StreamKernel.cuh>

#include <stdexcept>
#include <string>

namespace wave2d::cuda {

namespace {

// f(Shape{}) for the compiled shape that fuses `fused_steps`.
template <class F>
decltype(auto) with_shape(int fused_steps, F&& f) {
  if (fused_steps == StreamDeepShape::steps) return f(StreamDeepShape{});
  if (fused_steps != StreamRegistryShape::steps) {
    throw std::invalid_argument("cuda-stream: no compiled shape fuses " +
                                std::to_string(fused_steps) + " steps");
  }
  return f(StreamRegistryShape{});
}

}  // namespace

StreamLayout stream_layout(KernelParams const& params, int device, int fused_steps) {
  return with_shape(fused_steps,
                    [&](auto shape) { return stream_layout_for<decltype(shape)>(params, device); });
}

std::string describe(StreamLayout const& layout) {
  return with_shape(layout.fused_steps,
                    [&](auto shape) { return decltype(shape)::describe(layout); });
}

void plan_stream_windows(KernelParams const& params, StreamLayout const& layout,
                         std::uint32_t* plan, cudaStream_t stream) {
  with_shape(layout.fused_steps, [&](auto shape) {
    plan_stream_windows_of<decltype(shape)>(params, layout, plan, stream);
  });
}

FieldPointers advance_stream(KernelParams const& params, StreamLayout const& layout,
                             std::uint32_t* plan, FieldPointers fields, FieldPointers scratch,
                             std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream) {
  return with_shape(layout.fused_steps, [&](auto shape) {
    return advance_stream_of<decltype(shape)>(params, layout, plan, fields, scratch, first_step,
                                              n_steps, stream);
  });
}

}  // namespace wave2d::cuda
