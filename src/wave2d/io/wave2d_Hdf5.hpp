// What wave2d's HDF5 files share: written or read by Processes (core/wave2d_Processes.hpp),
// each with its block of the grid (the whole grid for one process); every call on a file of
// several processes is collective, and rank 0 alone writes it. Needs HDF5: libhdf5-dev, or
// libhdf5-openmpi-dev (its MPI flavour, used as a serial library).
#ifndef WAVE2D_HDF5_HPP
#define WAVE2D_HDF5_HPP

#include <wave2d/wave2d_Config.hpp>

#include <wave2d/core/wave2d_Processes.hpp>

namespace wave2d {

// Whether this build reads and writes HDF5 files.
inline constexpr bool can_use_hdf5 =
#if defined(WAVE2D_HAVE_HDF5)
    true;
#else
    false;
#endif

// The reason given wherever an HDF5 file is asked of a build without HDF5.
inline constexpr char const* no_hdf5_reason =
    "this build has no HDF5 (install libhdf5-dev or libhdf5-openmpi-dev, and rebuild)";

// For a program of its own: HDF5 prints no errors of its own on stderr (wave2d's errors say
// what failed). Without it, HDF5 1.10 prints lines at exit, after the last line of the
// program's, when it read a file with damaged metadata. Nothing without HDF5.
void quiet_hdf5_errors();

}  // namespace wave2d

#endif
