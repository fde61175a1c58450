# A Kokkos other than the one wave2d was built with, found first (package_other_kokkos).
set(Kokkos_FOUND TRUE)
set(Kokkos_VERSION 99.1.0)
set(Kokkos_VERSION_MAJOR 99)
set(Kokkos_VERSION_MINOR 1)
set(Kokkos_DEVICES SERIAL CUDA)  # a list: named as "CUDA, SERIAL"
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos INTERFACE IMPORTED)
endif()
