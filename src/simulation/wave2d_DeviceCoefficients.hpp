#ifndef WAVE2D_DEVICE_COEFFICIENTS_HPP
#define WAVE2D_DEVICE_COEFFICIENTS_HPP

#include <core/wave2d_Coefficients.hpp>
#include <simulation/detail/wave2d_KokkosHelpers.hpp>
#include <simulation/wave2d_Fields.hpp>

#include <wave2d_KokkosCompat.hpp>

namespace wave2d {

// HostCoefficients, stored in MemorySpace for the kernels.
template <class MemorySpace>
struct Coefficients {
  static_assert(Kokkos::is_memory_space_v<MemorySpace>);
  std::int32_t nx = 0;
  std::int32_t ny = 0;
  Field<MemorySpace> code;
  Field<MemorySpace> kappa;  // empty when κ is uniform
  float kappa_uniform = 0.0f;
  Kokkos::View<Waveform*, MemorySpace> sources;
  float t0 = 0.0f;
  float dt = 0.0f;

  bool uniform_kappa() const { return kappa.size() == 0; }
};

template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
Coefficients<MemorySpace> make_coefficients(ExecutionSpace const& space, Scene const& scene) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>);
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible);
  Kokkos::Profiling::ScopedRegion region("wave2d::make_coefficients");

  auto const host = precompute_coefficients(scene);
  using HostField = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Coefficients<MemorySpace> coefficients;
  coefficients.nx = host.nx;
  coefficients.ny = host.ny;
  coefficients.kappa_uniform = host.kappa_uniform;
  coefficients.t0 = host.t0;
  coefficients.dt = host.dt;
  coefficients.code = Details::allocate<Field<MemorySpace>>(space, "wave2d::Coefficients::code",
                                                            host.ny, host.nx);
  Details::copy(space, coefficients.code, HostField(host.code.data(), host.ny, host.nx),
                "wave2d::Coefficients::copy_code");
  if (!host.kappa.empty()) {
    coefficients.kappa = Details::allocate<Field<MemorySpace>>(
        space, "wave2d::Coefficients::kappa", host.ny, host.nx);
    Details::copy(space, coefficients.kappa, HostField(host.kappa.data(), host.ny, host.nx),
                  "wave2d::Coefficients::copy_kappa");
  }
  coefficients.sources = Details::allocate<Kokkos::View<Waveform*, MemorySpace>>(
      space, "wave2d::Coefficients::sources", host.sources.size());
  Details::copy(space, coefficients.sources,
                Kokkos::View<Waveform const*, Kokkos::HostSpace,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.sources.data(),
                                                                      host.sources.size()),
                "wave2d::Coefficients::copy_sources");
  // The host buffers die on return.
  wave2d::fence(space, "wave2d::make_coefficients");
  return coefficients;
}

}  // namespace wave2d

#endif
