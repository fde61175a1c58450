// Per-cell coefficients: what the backends read instead of evaluating the scene's
// damping function, walls and sources in their inner loops. Computed once per scene
// and window (precompute_coefficients, scene/wave2d_Scene.hpp).
#ifndef WAVE2D_COEFFICIENTS_HPP
#define WAVE2D_COEFFICIENTS_HPP

#include <wave2d/core/wave2d_CellRule.hpp>
#include <wave2d/core/wave2d_KernelParams.hpp>
#include <wave2d/core/wave2d_Window.hpp>

#include <cstdint>
#include <vector>

namespace wave2d {

// The coefficients of a window's local grid, row-major without padding.
struct HostCoefficients {
  Window window;
  std::vector<float> code;   // local cells' codes (core/wave2d_CellRule.hpp)
  std::vector<float> kappa;  // κ per local cell; empty when κ is uniform
  float kappa_uniform = 0.0f;
  std::vector<Waveform> sources;  // indexed by the source codes
  float t0 = 0.0f;
  float dt = 0.0f;
  // The scene's receivers that lie in the window's owned cells, in local cells, and
  // how many the scene has (the trace's columns).
  std::vector<ReceiverCell> receivers;
  std::int32_t receiver_columns = 0;

  // The kernels' parameters, given where copies of code, kappa (ignored when κ is
  // uniform), sources and receivers live, with rows `pitch` elements apart: the one place
  // that assembles KernelParams. They record nothing until given a trace.
  KernelParams params(float const* code_copy, float const* kappa_copy, Waveform const* sources_copy,
                      ReceiverCell const* receivers_copy, std::int64_t pitch) const {
    return {window.local_nx(),
            window.local_ny(),
            pitch,
            code_copy,
            kappa.empty() ? nullptr : kappa_copy,
            kappa_uniform,
            sources_copy,
            t0,
            dt,
            Receivers{std::int32_t(receivers.size()), receivers.empty() ? nullptr : receivers_copy,
                      nullptr, receiver_columns, 0}};
  }
};

}  // namespace wave2d

#endif
