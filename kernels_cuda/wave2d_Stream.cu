// cuda-stream: the register-streaming multistep kernel in its compiled shape.
#include <wave2d/cuda/detail/wave2d_StreamKernel.cuh>

namespace wave2d::cuda {

namespace {
using Shape = StreamRegistryShape;
}  // namespace

StreamLayout stream_layout(KernelParams const& params, int device) {
  return stream_layout_for<Shape>(params, device);
}

std::string describe(StreamLayout const& layout) { return Shape::describe(layout); }

void plan_stream_windows(KernelParams const& params, StreamLayout const& layout,
                         std::uint32_t* plan, cudaStream_t stream) {
  plan_stream_windows_of<Shape>(params, layout, plan, stream);
}

FieldPointers advance_stream(KernelParams const& params, StreamLayout const& layout,
                             std::uint32_t* plan, FieldPointers fields, FieldPointers scratch,
                             std::int64_t first_step, std::int64_t n_steps, cudaStream_t stream) {
  return advance_stream_of<Shape>(params, layout, plan, fields, scratch, first_step, n_steps,
                                  stream);
}

}  // namespace wave2d::cuda
