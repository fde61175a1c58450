// The MPI job the distributed tests run in (MPI_COMM_WORLD).
#ifndef WAVE2D_TEST_MPI_HPP
#define WAVE2D_TEST_MPI_HPP

#include <mpi.h>

namespace wave2d::test {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace wave2d::test

#endif
