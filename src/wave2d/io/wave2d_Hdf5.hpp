// What wave2d's HDF5 files share: the processes that write or read one file together,
// each with its block of the grid (the whole grid for one process). Needs HDF5: the
// serial libhdf5-dev, or libhdf5-openmpi-dev, whose MPI-IO lets the ranks of a distributed
// run write one file (wave2d_Hdf5Parallel.hpp).
#ifndef WAVE2D_HDF5_HPP
#define WAVE2D_HDF5_HPP

#include <wave2d/wave2d_Config.hpp>

#include <functional>
#include <memory>
#include <string>

namespace wave2d {

// Whether this build reads and writes HDF5 files.
inline constexpr bool can_use_hdf5 =
#if defined(WAVE2D_HAVE_HDF5)
    true;
#else
    false;
#endif

// Whether the ranks of an MPI job can write one HDF5 file together.
inline constexpr bool can_use_parallel_hdf5 =
#if defined(WAVE2D_HAVE_PARALLEL_HDF5)
    true;
#else
    false;
#endif

// The reason given wherever an HDF5 file is asked of a build without HDF5.
inline constexpr char const* no_hdf5_reason =
    "this build has no HDF5 (install libhdf5-dev, or libhdf5-openmpi-dev for distributed "
    "runs, and rebuild)";

// The processes that open one file together: this process alone (the default), or the
// ranks of an MPI communicator (processes_of in wave2d_Hdf5Parallel.hpp). Every call on a
// file of several processes is collective: each process makes it, in the same order.
class Processes {
 public:
  Processes();  // this process alone
  int rank() const;
  int size() const;
  bool root() const { return rank() == 0; }

  // Runs f on every process. If it throws on any, throws on every one the exception of
  // the lowest failing rank, its message prefixed "rank R: " for a rank other than 0: no
  // process is left waiting in a collective call the others skipped.
  // OutputError, CheckpointError and std::invalid_argument keep their type; others
  // become std::runtime_error.
  void agree(std::function<void()> const& f) const;
  // Rank 0's `text` on every process.
  void broadcast(std::string& text) const;

  // The implementation's: how the processes talk (an MPI communicator).
  struct Group;
  explicit Processes(std::shared_ptr<Group const> group);
  Group const* group() const { return group_.get(); }

 private:
  std::shared_ptr<Group const> group_;
};

}  // namespace wave2d

#endif
