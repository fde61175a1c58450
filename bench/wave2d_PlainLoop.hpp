// plain-openmp: the loop a C++ programmer writes by hand for one CPU, the comparator
// of the portable kernels on host spaces. Per-cell coefficients are precomputed, so
// the inner loop has no branch and vectorizes (`omp simd`); hard sources are set after
// each sweep. One pass over the grid per step: it reads u(t - dt), u(t) and three
// coefficients and writes u(t + dt), 24 bytes per cell and step.
#ifndef WAVE2D_PLAIN_LOOP_HPP
#define WAVE2D_PLAIN_LOOP_HPP

#include <wave2d/core/wave2d_Coefficients.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wave2d::bench {

class PlainLoop {
 public:
  // Runs on `threads` OpenMP threads.
  PlainLoop(Scene const& scene, int threads) : nx_(scene.nx), ny_(scene.ny), threads_(threads) {
    HostCoefficients const host = precompute_coefficients(scene);
    std::size_t const cells = host.code.size();
    // u(t + dt) = a·u(t) − b·u(t − dt) + k·(neighbours): stencil()'s expression with its
    // two coefficient subexpressions precomputed; a = b = k = 0 on fixed cells.
    a_.assign(cells, 0.0f);
    b_.assign(cells, 0.0f);
    k_.assign(cells, 0.0f);
    for (std::size_t i = 0; i < cells; ++i) {
      float const d = host.code[i];
      if (d < 0.0f) {
        if (d != cell_code::fixed_zero) {
          sources_.emplace_back(i, host.sources[cell_code::source_index(d)]);
        }
        continue;
      }
      float const kappa = host.kappa.empty() ? host.kappa_uniform : host.kappa[i];
      a_[i] = 2.0f - d - 4.0f * kappa;
      b_[i] = 1.0f - d;
      k_[i] = kappa;
    }
    t0_ = host.t0;
    dt_ = host.dt;
    previous_.resize(cells);
    current_.resize(cells);
    reset();
  }

  void reset() {
    initialize(previous_);
    initialize(current_);
    step_ = 0;
  }

  void advance(std::int64_t n_steps) {
    std::int64_t const nx = nx_;
    for (std::int64_t s = 0; s < n_steps; ++s, ++step_) {
      float* __restrict__ next = previous_.data();  // u(t - dt), overwritten by u(t + dt)
      float const* __restrict__ u = current_.data();
      float const* __restrict__ a = a_.data();
      float const* __restrict__ b = b_.data();
      float const* __restrict__ k = k_.data();
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (std::int32_t y = 1; y < ny_ - 1; ++y) {
        std::int64_t const row = y * nx;
#pragma omp simd
        for (std::int64_t i = row + 1; i < row + nx - 1; ++i) {
          next[i] =
              a[i] * u[i] - b[i] * next[i] + k[i] * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
        }
      }
      float const t = time_of_step(t0_, dt_, step_);
      for (auto const& [i, waveform] : sources_) previous_[i] = waveform.value(t);
      std::swap(previous_, current_);
    }
  }

  std::string configuration() const {
    return "hand-written OpenMP loop, rows over " + std::to_string(threads_) +
           (threads_ == 1 ? " thread" : " threads") +
           ", omp simd along x, per-cell coefficients, sources after the sweep";
  }

 private:
  // Zeros, on the threads that sweep them.
  void initialize(std::vector<float>& field) const {
    float* data = field.data();
    std::int64_t const nx = nx_;
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::int32_t y = 0; y < ny_; ++y) std::fill_n(data + y * nx, nx, 0.0f);
  }

  std::int32_t nx_;
  std::int32_t ny_;
  int threads_;
  std::vector<float> a_, b_, k_;
  std::vector<std::pair<std::size_t, Waveform>> sources_;
  float t0_ = 0.0f;
  float dt_ = 0.0f;
  std::vector<float> previous_, current_;
  std::int64_t step_ = 0;
};

}  // namespace wave2d::bench

#endif
