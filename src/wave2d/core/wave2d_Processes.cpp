#include <wave2d/core/wave2d_Errors.hpp>
#include <wave2d/core/wave2d_Processes.hpp>

#include <exception>
#include <stdexcept>
#include <utility>

namespace wave2d {

namespace {

class ThisProcess final : public Processes::Group {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int minimum(int value) const override { return value; }
  void broadcast(void*, std::size_t, int) const override {}
  void send(void const*, std::size_t, int) const override {
    throw std::logic_error("wave2d::Processes: no other process to send to");
  }
  std::vector<std::byte> receive(int) const override {
    throw std::logic_error("wave2d::Processes: no other process to receive from");
  }
};

// The kinds of exception agree() carries from one rank to all.
enum class Failure : int {
  runtime,
  invalid_argument,
  scene,
  output,
  checkpoint,
  memory,
  unknown_backend
};

Failure kind_of(std::exception const& e) {
  if (dynamic_cast<SceneError const*>(&e)) return Failure::scene;
  if (dynamic_cast<OutputError const*>(&e)) return Failure::output;
  if (dynamic_cast<CheckpointError const*>(&e)) return Failure::checkpoint;
  if (dynamic_cast<InsufficientMemory const*>(&e)) return Failure::memory;
  if (dynamic_cast<UnknownBackend const*>(&e)) return Failure::unknown_backend;
  if (dynamic_cast<std::invalid_argument const*>(&e)) return Failure::invalid_argument;
  return Failure::runtime;
}

[[noreturn]] void rethrow(Failure kind, std::string const& message) {
  switch (kind) {
    case Failure::scene: throw SceneError(message);
    case Failure::output: throw OutputError(message);
    case Failure::checkpoint: throw CheckpointError(message);
    case Failure::memory: throw InsufficientMemory(message);
    case Failure::unknown_backend: throw UnknownBackend(message);
    case Failure::invalid_argument: throw std::invalid_argument(message);
    default: throw std::runtime_error(message);
  }
}

}  // namespace

Processes::Processes() : group_(std::make_shared<ThisProcess const>()) {}

Processes::Processes(std::shared_ptr<Group const> group) : group_(std::move(group)) {
  if (!group_) throw std::invalid_argument("wave2d::Processes: no group");
}

void Processes::agree(std::function<void()> const& f) const {
  if (size() == 1) {
    f();
    return;
  }
  std::string message;
  Failure kind = Failure::runtime;
  bool failed = false;
  try {
    f();
  } catch (std::exception const& e) {
    failed = true;
    kind = kind_of(e);
    message = e.what();
  } catch (...) {
    failed = true;
    message = "unknown error";
  }
  int const first = group_->minimum(failed ? rank() : size());
  if (first == size()) return;
  int header[2] = {int(kind), int(message.size())};
  group_->broadcast(header, sizeof header, first);
  message.resize(std::size_t(header[1]));
  group_->broadcast(message.data(), message.size(), first);
  // Rank 0's failure, often every rank's (a file they all read), goes without its rank.
  rethrow(Failure(header[0]),
          first == 0 ? message : "rank " + std::to_string(first) + ": " + message);
}

bool Processes::any(bool value) const { return group_->minimum(value ? 0 : 1) == 0; }

void Processes::broadcast(std::string& text) const {
  if (size() == 1) return;
  auto length = text.size();
  group_->broadcast(&length, sizeof length, 0);
  text.resize(length);
  group_->broadcast(text.data(), length, 0);
}

void Processes::each_to_root(
    std::span<std::byte const> mine,
    std::function<void(int rank, std::span<std::byte const>)> const& take) const {
  if (!root()) {
    group_->send(mine.data(), mine.size(), 0);
    return;
  }
  std::exception_ptr failure;
  auto const taking = [&](int rank, std::span<std::byte const> bytes) {
    if (failure) return;
    try {
      take(rank, bytes);
    } catch (...) {
      failure = std::current_exception();
    }
  };
  taking(0, mine);
  for (int rank = 1; rank < size(); ++rank) {
    std::vector<std::byte> const bytes = group_->receive(rank);
    taking(rank, bytes);
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace wave2d
