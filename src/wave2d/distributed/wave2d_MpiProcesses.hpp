// The ranks of an MPI communicator as Processes (core/wave2d_Processes.hpp).
#ifndef WAVE2D_MPI_PROCESSES_HPP
#define WAVE2D_MPI_PROCESSES_HPP

#include <wave2d/core/wave2d_Processes.hpp>

#include <mpi.h>

#include <climits>
#include <memory>
#include <stdexcept>
#include <string>

namespace wave2d {

namespace detail {

inline void check_mpi(int status, char const* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

// The caller's ranks in a communicator of their own, without its topology: Open MPI 4.1's
// MPI-IO (OMPIO) corrupts some collective writes over Cartesian communicators (seen on 3
// ranks), and the group's calls must not mix with the caller's messages.
class MpiGroup final : public Processes::Group {
 public:
  explicit MpiGroup(MPI_Comm comm) {
    check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
    check_mpi(MPI_Comm_split(comm, 0, rank_, &comm_), "MPI_Comm_split");
  }
  ~MpiGroup() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  MpiGroup(MpiGroup const&) = delete;
  MpiGroup& operator=(MpiGroup const&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int minimum(int value) const override {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
    return value;
  }
  void broadcast(void* data, std::size_t bytes, int root) const override {
    auto* at = static_cast<char*>(data);
    while (bytes > 0) {  // counts are ints
      int const count = bytes > std::size_t(INT_MAX) ? INT_MAX : int(bytes);
      check_mpi(MPI_Bcast(at, count, MPI_BYTE, root, comm_), "MPI_Bcast");
      at += count;
      bytes -= std::size_t(count);
    }
  }
  std::any native() const override { return comm_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace detail

// The ranks of `comm` (which the caller keeps owning). Collective.
inline Processes processes_of(MPI_Comm comm) {
  return Processes(std::make_shared<detail::MpiGroup const>(comm));
}

}  // namespace wave2d

#endif
