// The processes that do one thing together: this process alone, or the ranks of an MPI job
// (distributed/wave2d_MpiProcesses.hpp makes those). Files of several processes, distributed
// simulations and runs agree through it: a failure on one process ends the step on all of
// them, with the same error, instead of leaving the others waiting in a collective call.
// Plain C++: the MPI calls are the group's.
#ifndef WAVE2D_PROCESSES_HPP
#define WAVE2D_PROCESSES_HPP

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wave2d {

class Processes {
 public:
  // How the processes talk: the primitives agree() and broadcast() are made of.
  class Group {
   public:
    virtual ~Group() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // The least of every process's `value`, on every process.
    virtual int minimum(int value) const = 0;
    // `bytes` bytes at `data` of process `root`, on every process.
    virtual void broadcast(void* data, std::size_t bytes, int root) const = 0;
    // Point to point: `bytes` to process `to`; the bytes process `from` sends.
    virtual void send(void const* data, std::size_t bytes, int to) const = 0;
    virtual std::vector<std::byte> receive(int from) const = 0;
  };

  Processes();  // this process alone
  explicit Processes(std::shared_ptr<Group const> group);

  int rank() const { return group_->rank(); }
  int size() const { return group_->size(); }
  bool root() const { return rank() == 0; }
  Group const& group() const { return *group_; }

  // Runs f on every process. If it throws on any, throws on every one the exception of the
  // lowest failing rank, its message prefixed "rank R: " for a rank other than 0. The
  // library's exceptions (core/wave2d_Errors.hpp) and std::invalid_argument keep their
  // type; others become std::runtime_error.
  void agree(std::function<void()> const& f) const;
  // Whether `value` is true on any process, on every process.
  bool any(bool value) const;
  // Rank 0's `text` on every process.
  void broadcast(std::string& text) const;
  // Every process's `mine`, on rank 0 one process's at a time, in rank order: take(rank,
  // bytes) there, so that rank 0 never holds more than one of them. When take throws, rank
  // 0 still receives the others' bytes (which would otherwise wait), then throws. Use it
  // inside agree() for every process to learn of a failure.
  void each_to_root(std::span<std::byte const> mine,
                    std::function<void(int rank, std::span<std::byte const>)> const& take) const;

 private:
  std::shared_ptr<Group const> group_;
};

}  // namespace wave2d

#endif
