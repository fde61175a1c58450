// The ranks of an MPI job as the processes of one HDF5 file: each writes or reads its block
// through MPI-IO. Only in builds with the parallel HDF5 (libhdf5-openmpi-dev); for
// programs that link MPI (wave2d::distributed).
#ifndef WAVE2D_HDF5_PARALLEL_HPP
#define WAVE2D_HDF5_PARALLEL_HPP

#include <wave2d/io/wave2d_Hdf5.hpp>

#if !defined(WAVE2D_HAVE_PARALLEL_HDF5)
#error "wave2d_Hdf5Parallel.hpp: this build of wave2d has no parallel HDF5"
#endif

#include <mpi.h>

namespace wave2d {

// The ranks of `comm`, in a communicator of their own (without comm's topology). Collective.
Processes processes_of(MPI_Comm comm);

}  // namespace wave2d

#endif
