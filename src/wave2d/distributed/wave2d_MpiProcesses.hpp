// The ranks of an MPI communicator as Processes (core/wave2d_Processes.hpp).
#ifndef WAVE2D_MPI_PROCESSES_HPP
#define WAVE2D_MPI_PROCESSES_HPP

#include <wave2d/core/wave2d_Processes.hpp>

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace wave2d {

namespace detail {

inline void check_mpi(int status, char const* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

// The caller's ranks in a communicator of their own, so that the group's messages never
// mix with the caller's.
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
  void send(void const* data, std::size_t bytes, int to) const override {
    std::uint64_t size = bytes;
    check_mpi(MPI_Send(&size, 1, MPI_UINT64_T, to, 0, comm_), "MPI_Send");
    auto const* at = static_cast<char const*>(data);
    while (bytes > 0) {  // counts are ints
      int const count = bytes > std::size_t(INT_MAX) ? INT_MAX : int(bytes);
      check_mpi(MPI_Send(at, count, MPI_BYTE, to, 0, comm_), "MPI_Send");
      at += count;
      bytes -= std::size_t(count);
    }
  }
  std::vector<std::byte> receive(int from) const override {
    std::uint64_t size = 0;
    check_mpi(MPI_Recv(&size, 1, MPI_UINT64_T, from, 0, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    std::vector<std::byte> bytes(size);
    auto* at = reinterpret_cast<char*>(bytes.data());
    while (size > 0) {
      int const count = size > std::uint64_t(INT_MAX) ? INT_MAX : int(size);
      check_mpi(MPI_Recv(at, count, MPI_BYTE, from, 0, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
      at += count;
      size -= std::uint64_t(count);
    }
    return bytes;
  }

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
