// Explicit instantiation: the library compiles its templates once, for each execution space
// its Kokkos enables (Serial, OpenMP, Threads, Cuda), with the space's own memory space.
// Each public header ends by declaring its instantiations `extern` for those spaces, so an
// application's translation unit compiles declarations and links the library's code; other
// spaces, memory spaces and view types instantiate from the headers as before. Built with
// WAVE2D_ENABLE_ETI=OFF, the library instantiates nothing and the headers declare nothing.
//
// A header's list is a macro LIST(PREFIX, SPACE) of declarations starting with PREFIX;
// WAVE2D_EXTERN_INSTANTIATIONS(LIST) declares them extern for every space, and the library's
// sources (src/wave2d/eti/) expand LIST(template, SPACE) once per space.
#ifndef WAVE2D_INSTANTIATION_HPP
#define WAVE2D_INSTANTIATION_HPP

#include <wave2d/wave2d_Config.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#if defined(WAVE2D_ETI) && defined(KOKKOS_ENABLE_SERIAL)
#define WAVE2D_IMPL_ETI_SERIAL(LIST) LIST(extern template, Kokkos::Serial)
#else
#define WAVE2D_IMPL_ETI_SERIAL(LIST)
#endif
#if defined(WAVE2D_ETI) && defined(KOKKOS_ENABLE_OPENMP)
#define WAVE2D_IMPL_ETI_OPENMP(LIST) LIST(extern template, Kokkos::OpenMP)
#else
#define WAVE2D_IMPL_ETI_OPENMP(LIST)
#endif
#if defined(WAVE2D_ETI) && defined(KOKKOS_ENABLE_THREADS)
#define WAVE2D_IMPL_ETI_THREADS(LIST) LIST(extern template, Kokkos::Threads)
#else
#define WAVE2D_IMPL_ETI_THREADS(LIST)
#endif
#if defined(WAVE2D_ETI) && defined(KOKKOS_ENABLE_CUDA)
#define WAVE2D_IMPL_ETI_CUDA(LIST) LIST(extern template, Kokkos::Cuda)
#else
#define WAVE2D_IMPL_ETI_CUDA(LIST)
#endif

#define WAVE2D_EXTERN_INSTANTIATIONS(LIST) \
  WAVE2D_IMPL_ETI_SERIAL(LIST)             \
  WAVE2D_IMPL_ETI_OPENMP(LIST) WAVE2D_IMPL_ETI_THREADS(LIST) WAVE2D_IMPL_ETI_CUDA(LIST)

#endif
