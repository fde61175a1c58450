// A window's coefficients in the kernels' memory space, and the KernelParams that
// point into them.
#ifndef WAVE2D_DEVICE_COEFFICIENTS_HPP
#define WAVE2D_DEVICE_COEFFICIENTS_HPP

#include <wave2d/backend/detail/wave2d_KokkosHelpers.hpp>
#include <wave2d/backend/wave2d_Fields.hpp>
#include <wave2d/core/wave2d_Coefficients.hpp>
#include <wave2d/detail/wave2d_Instantiation.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

namespace wave2d {

template <class MemorySpace>
class Coefficients {
  static_assert(Kokkos::is_memory_space_v<MemorySpace>);

 public:
  Coefficients() = default;

  template <class ExecutionSpace>
  Coefficients(ExecutionSpace const& space, HostCoefficients const& host) : window_(host.window) {
    static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);
    std::int32_t const nx = window_.local_nx();
    std::int32_t const ny = window_.local_ny();
    code_ = upload<Field<MemorySpace>>(space, "wave2d::Coefficients::code", host.code, ny, nx);
    if (!host.kappa.empty()) {
      kappa_ = upload<Field<MemorySpace>>(space, "wave2d::Coefficients::kappa", host.kappa, ny, nx);
    }
    sources_ = upload<Kokkos::View<Waveform*, MemorySpace>>(space, "wave2d::Coefficients::sources",
                                                            host.sources, host.sources.size());
    receivers_ = upload<Kokkos::View<ReceiverCell*, MemorySpace>>(
        space, "wave2d::Coefficients::receivers", host.receivers, host.receivers.size());
    params_ = host.params(code_.data(), kappa_.data(), sources_.data(), receivers_.data(), nx);
    // The host vectors may die on return.
    wave2d::fence(space, "wave2d::Coefficients: uploaded");
  }

  KernelParams const& params() const { return params_; }
  // The parameters of a run that records `receivers`.
  KernelParams params(Receivers const& receivers) const {
    KernelParams params = params_;
    params.receivers = receivers;
    return params;
  }
  Window const& window() const { return window_; }

 private:
  template <class View, class ExecutionSpace, class T, class... Extents>
  static View upload(ExecutionSpace const& space, std::string const& label,
                     std::vector<T> const& host, Extents... extents) {
    auto view = detail::allocate<View>(space, label, extents...);
    using HostView = Kokkos::View<typename View::const_data_type, typename View::array_layout,
                                  Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    detail::copy(space, view, HostView(host.data(), extents...), label);
    return view;
  }

  Window window_;
  Field<MemorySpace> code_;
  Field<MemorySpace> kappa_;  // empty when κ is uniform
  Kokkos::View<Waveform*, MemorySpace> sources_;
  Kokkos::View<ReceiverCell*, MemorySpace> receivers_;  // in the owned cells
  KernelParams params_;
};

template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
Coefficients<MemorySpace> make_coefficients(ExecutionSpace const& space, Scene const& scene,
                                            Window const& window) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>);
  Kokkos::Profiling::ScopedRegion region("wave2d::make_coefficients");
  return Coefficients<MemorySpace>(space, precompute_coefficients(scene, window));
}

template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
Coefficients<MemorySpace> make_coefficients(ExecutionSpace const& space, Scene const& scene) {
  return make_coefficients<ExecutionSpace, MemorySpace>(space, scene,
                                                        Window::whole(scene.nx, scene.ny));
}

// The library's instantiations (detail/wave2d_Instantiation.hpp).
#define WAVE2D_COEFFICIENTS_INSTANTIATIONS(PREFIX, SPACE)                                 \
  PREFIX Coefficients<SPACE::memory_space> make_coefficients<SPACE, SPACE::memory_space>( \
      SPACE const&, Scene const&, Window const&);                                         \
  PREFIX Coefficients<SPACE::memory_space> make_coefficients<SPACE, SPACE::memory_space>( \
      SPACE const&, Scene const&);
WAVE2D_EXTERN_INSTANTIATIONS(WAVE2D_COEFFICIENTS_INSTANTIATIONS)

}  // namespace wave2d

#endif
