// A scene simulated by many MPI ranks: each advances its window of the grid with any
// backend, and the windows' halos are exchanged once every `halo` steps.
#ifndef WAVE2D_DISTRIBUTED_SIMULATION_HPP
#define WAVE2D_DISTRIBUTED_SIMULATION_HPP

#include <wave2d/detail/wave2d_Instantiation.hpp>
#include <wave2d/distributed/detail/wave2d_BorderStrips.hpp>
#include <wave2d/distributed/detail/wave2d_HaloMessages.hpp>
#include <wave2d/distributed/wave2d_Decomposition.hpp>
#include <wave2d/distributed/wave2d_MpiProcesses.hpp>
#include <wave2d/simulation/wave2d_FiniteCheck.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#include <mpi.h>
#include <Kokkos_Timer.hpp>
#include <wave2d/detail/wave2d_KokkosCompat.hpp>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wave2d {

namespace detail {

// Whether MPI can read and write CUDA device memory (Open MPI's extension says so).
inline bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

// (previous, current) over rect <-> buffer, previous first, row-major.
template <class Field, bool ToBuffer>
struct CopyRect {
  Field previous;
  Field current;
  float* buffer;
  Rect rect;

  KOKKOS_FUNCTION void operator()(int y, int x) const {
    std::int64_t const i = std::int64_t(y) * rect.nx + x;
    std::int64_t const cells = rect.cells();
    if constexpr (ToBuffer) {
      buffer[i] = previous(rect.y0 + y, rect.x0 + x);
      buffer[cells + i] = current(rect.y0 + y, rect.x0 + x);
    } else {
      previous(rect.y0 + y, rect.x0 + x) = buffer[i];
      current(rect.y0 + y, rect.x0 + x) = buffer[cells + i];
    }
  }
};

}  // namespace detail

template <class ExecutionSpace, class MemorySpace = typename ExecutionSpace::memory_space>
class DistributedSimulation {
  using Local = Simulation<ExecutionSpace, MemorySpace>;
  using Buffer = Kokkos::View<float*, MemorySpace>;
  using HostBuffer = typename Buffer::HostMirror;

 public:
  struct Options {
    std::array<int, 2> ranks{0, 0};  // ranks along x and y; 0: MPI_Dims_create chooses
    std::int32_t halo = 0;           // cells; 0: the backend's fused steps
    ValidationOptions validation;
    PlanOptions plan;  // for the backend "auto"
    // Whether a rank steps its window while its halos travel, then its border again from
    // the state before (BorderStrips), where its owned cells are more than twice the halo
    // each way; else it waits for the halos, then steps. On by default for device spaces
    // only: on a host space the cores that would step are those that run MPI, and the
    // strips' extra steps make it slower.
    bool overlap = !Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;
  };

  // How a job of `size` ranks splits the scene's grid for `backend`.
  struct Decomposition {
    std::array<int, 2> ranks{1, 1};  // along x and y
    std::int32_t halo = 0;           // cells
  };

  // The ranks: options.ranks, MPI_Dims_create choosing the zeros (or, where the grid does
  // not split so, the most even split that it does); the halo: options.halo, else the
  // backend's fused steps, for "auto" the deepest of its candidates' that the split allows. No
  // communication (MPI must be initialized): a program may check a run before it starts.
  // std::invalid_argument when the ranks do not make the job or the grid does not split so.
  static Decomposition decompose(Scene const& scene, std::string_view backend,
                                 Options const& options, int size) {
    int dims[2] = {options.ranks[0], options.ranks[1]};
    std::int64_t fixed = 1;  // the ranks given: 64 bits, so that no product wraps
    for (int const d : dims) fixed *= std::max(d, 1);
    bool const chosen = dims[0] == 0 || dims[1] == 0;
    if (dims[0] < 0 || dims[1] < 0 || (chosen ? size % fixed != 0 : fixed != size)) {
      throw std::invalid_argument("ranks " + std::to_string(dims[0]) + " x " +
                                  std::to_string(dims[1]) + " do not make a job of " +
                                  std::to_string(size) + (size == 1 ? " rank" : " ranks"));
    }
    std::array<int, 2> const given{dims[0], dims[1]};
    detail::check_mpi(MPI_Dims_create(size, 2, dims), "MPI_Dims_create");
    // The halo of a split: options.halo, else the backend's fused steps, for "auto" the
    // deepest of its candidates' that the split allows.
    auto const halo_of = [&](std::array<int, 2> ranks) {
      if (options.halo > 0) return options.halo;
      if (backend != auto_backend) {
        return std::int32_t(find_backend<ExecutionSpace, MemorySpace>(backend).fused_steps);
      }
      std::vector<std::int32_t> depths;
      for (auto const& candidate : detail::plan_candidates<ExecutionSpace, MemorySpace>()) {
        depths.push_back(candidate.fused_steps);
      }
      std::ranges::sort(depths, std::ranges::greater{});
      for (std::int32_t const depth : depths) {
        if (fits_decomposition(scene.nx, scene.ny, ranks, depth)) return depth;
      }
      return depths.back();
    };
    Decomposition decomposition{{dims[0], dims[1]}, halo_of({dims[0], dims[1]})};
    // MPI's choice where the grid splits so; else the most even split of the ranks left to
    // choose that does (a narrow grid splits along its long side alone).
    if (chosen &&
        !fits_decomposition(scene.nx, scene.ny, decomposition.ranks, decomposition.halo)) {
      std::vector<std::array<int, 2>> splits;
      for (int p = 1; p <= size; ++p) {
        if (size % p != 0) continue;
        std::array<int, 2> const split{p, size / p};
        if ((given[0] == 0 || given[0] == split[0]) && (given[1] == 0 || given[1] == split[1])) {
          splits.push_back(split);
        }
      }
      std::ranges::stable_sort(splits, {},
                               [](auto const& split) { return std::abs(split[0] - split[1]); });
      for (auto const& split : splits) {
        if (fits_decomposition(scene.nx, scene.ny, split, halo_of(split))) {
          decomposition = {split, halo_of(split)};
          break;
        }
      }
    }
    try {
      check_decomposition(scene.nx, scene.ny, decomposition.ranks, decomposition.halo);
    } catch (std::invalid_argument const& e) {
      if (options.halo > 0 || backend == auto_backend) throw;
      // The backend may not be the user's choice (a checkpoint's): named with its halo.
      throw std::invalid_argument(std::string(e.what()) + " (the fused steps of " +
                                  std::string(backend) + ")");
    }
    return decomposition;
  }

  // Collective over comm (which the application keeps owning). Throws on every rank if
  // anything fails on any rank. With "auto", rank 0 plans for its window and every rank
  // runs the backend it chose.
  DistributedSimulation(MPI_Comm comm, ExecutionSpace const& space, Scene const& scene,
                        std::string_view backend = auto_backend, Options options = {});

  ~DistributedSimulation() {
    if (cart_ != MPI_COMM_NULL) MPI_Comm_free(&cart_);
  }
  DistributedSimulation(DistributedSimulation const&) = delete;
  DistributedSimulation& operator=(DistributedSimulation const&) = delete;

  // Back to u0 = u1 = 0 at step 0 (the halos agree: no exchange needed).
  void reset(ExecutionSpace const& space) {
    local_->reset(space);
    valid_steps_ = window_.halo;
  }

  // Collective. Exchanges the halos whenever the last exchange's are used up.
  void advance(ExecutionSpace const& space, std::int64_t n_steps);

  // Sets this rank's window to the fields `previous` and `current` (local_ny x local_nx,
  // as local() holds them) at `step`, which every rank gives alike; the halos are
  // exchanged again before the next step, and the receivers' trace restarts at `step`
  // (Simulation::set_state).
  template <class Previous, class Current>
  void set_state(ExecutionSpace const& space, Previous const& previous, Current const& current,
                 std::int64_t step) {
    local_->set_state(space, previous, current, step);
    valid_steps_ = 0;
  }

  // The receivers' trace of an earlier run (a checkpoint's: every column, rows from
  // first_step to steps_done()), after set_state(): Simulation::restore_receivers.
  template <class Rows>
  void restore_receivers(ExecutionSpace const& space, Rows const& rows, std::int64_t first_step) {
    local_->restore_receivers(space, rows, first_step);
  }

  // Room in the trace for n_steps more steps: Simulation::reserve_receivers.
  void reserve_receivers(ExecutionSpace const& space, std::int64_t n_steps) {
    local_->reserve_receivers(space, n_steps);
  }

  // Collective: the first cell of the whole grid, in row-major order, where u(t_n) (with
  // previous_too, or u(t_{n-1})) is NaN or infinite, the same on every rank; none when all
  // are finite. Only owned cells are checked: a halo holds stale values between exchanges.
  std::optional<FieldCell> first_non_finite(ExecutionSpace const& space,
                                            bool previous_too = false) const {
    std::int64_t const cells = std::int64_t(window_.global_nx) * window_.global_ny;
    std::int64_t first = cells;
    auto const rows = std::pair<int, int>(window_.owned_y(), window_.owned_y() + window_.ny);
    auto const columns = std::pair<int, int>(window_.owned_x(), window_.owned_x() + window_.nx);
    auto const check = [&](typename Local::field_type const& field) {
      if (auto const cell = check_.first_non_finite(space, Kokkos::subview(field, rows, columns))) {
        first = std::min(
            first, std::int64_t(window_.y0 + cell->y) * window_.global_nx + window_.x0 + cell->x);
      }
    };
    check(local_->current());
    if (previous_too) check(local_->previous());
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT64_T, MPI_MIN, cart_),
                      "MPI_Allreduce");
    if (first == cells) return std::nullopt;
    return FieldCell{std::int32_t(first % window_.global_nx),
                     std::int32_t(first / window_.global_nx)};
  }

  // Collective: on the cartesian communicator's rank 0, the whole grid's u(t_{n-1}) and
  // u(t_n), row-major nx * ny; empty vectors elsewhere. For grids whose two fields fit int
  // counts (std::length_error on every rank otherwise).
  std::pair<std::vector<float>, std::vector<float>> gather(ExecutionSpace const& space);

  // Collective: on rank 0 of the cartesian communicator, the receivers' trace of the whole
  // grid (Simulation::receivers(): rows of time, a column per receiver, row-major), each
  // receiver from the rank that owns its cell; an empty vector elsewhere.
  std::vector<float> gather_receivers(ExecutionSpace const& space);

  std::int64_t steps_done() const { return local_->steps_done(); }
  std::array<int, 2> ranks() const { return ranks_; }  // along x and y
  Window const& window() const { return window_; }     // this rank's
  // This rank's simulation of its window: its fields, configuration, scene.
  Local const& local() const { return *local_; }
  // How "auto" chose the backend, on rank 0; null elsewhere and when a backend was named.
  Plan const* plan() const { return plan_ ? &*plan_ : nullptr; }
  // How halos travel: "host memory", "staged through host buffers" or "CUDA-aware MPI".
  std::string exchange_path() const {
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
      return "host memory";
    } else {
      return cuda_aware_ ? "CUDA-aware MPI" : "staged through host buffers";
    }
  }
  MPI_Comm communicator() const { return cart_; }
  // The ranks, for agreeing on what each does (core/wave2d_Processes.hpp).
  Processes const& processes() const { return processes_; }
  // Whether the ranks step while their halos travel (Options::overlap, where every rank's
  // window fits BorderStrips).
  bool overlaps() const { return strips_.has_value(); }
  // Wall time this rank spent in halo exchanges (packing to unpacking, fenced), since
  // construction.
  double exchange_seconds() const { return exchange_seconds_; }

 private:
  // Collective: every rank's `values` floats, concatenated in rank order on rank 0, with
  // where each rank's begin; two empty vectors on the other ranks. Every rank throws
  // std::length_error when the whole exceeds int counts.
  std::pair<std::vector<float>, std::vector<int>> gather_to_root(float const* data,
                                                                 std::size_t values) const {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(cart_, &rank);
    MPI_Comm_size(cart_, &size);
    std::uint64_t total = values;
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, cart_),
                      "MPI_Allreduce");
    if (total > std::uint64_t(std::numeric_limits<int>::max())) {
      throw std::length_error("DistributedSimulation: " + std::to_string(total) +
                              " values are too many to gather on one rank");
    }
    int const count = int(values);
    std::vector<int> counts(static_cast<std::size_t>(size));
    std::vector<int> displacements(static_cast<std::size_t>(size));
    detail::check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, cart_),
                      "MPI_Gather");
    std::vector<float> all;
    if (rank == 0) {
      for (int r = 1; r < size; ++r) displacements[r] = displacements[r - 1] + counts[r - 1];
      all.resize(std::size_t(displacements[size - 1] + counts[size - 1]));
    }
    detail::check_mpi(MPI_Gatherv(data, count, MPI_FLOAT, all.data(), counts.data(),
                                  displacements.data(), MPI_FLOAT, 0, cart_),
                      "MPI_Gatherv");
    if (rank != 0) return {};
    return {std::move(all), std::move(displacements)};
  }

  bool has_neighbour(int dx, int dy) const {
    return neighbours_[detail::direction_index(dx, dy)] != MPI_PROC_NULL;
  }

  // The owned cells that the neighbour in direction i needs: those within the halo of
  // that side (two sides for a corner). All eight go at once: a corner comes straight from
  // the rank that owns it, so the exchange is one round of messages.
  detail::Rect sent(std::size_t i) const {
    Window const& w = window_;
    auto const [x0, nx] = detail::sent_range(detail::directions[i][0], w.owned_x(), w.nx, w.halo);
    auto const [y0, ny] = detail::sent_range(detail::directions[i][1], w.owned_y(), w.ny, w.halo);
    return {x0, y0, nx, ny};
  }
  // The halo cells that come from the neighbour in direction i.
  detail::Rect received(std::size_t i) const {
    Window const& w = window_;
    auto const [x0, nx] =
        detail::received_range(detail::directions[i][0], w.owned_x(), w.nx, w.halo);
    auto const [y0, ny] =
        detail::received_range(detail::directions[i][1], w.owned_y(), w.ny, w.halo);
    return {x0, y0, nx, ny};
  }

  void allocate_buffers(ExecutionSpace const& space) {
    cuda_aware_ = detail::mpi_is_cuda_aware();
    for (std::size_t i = 0; i < detail::directions.size(); ++i) {
      if (neighbours_[i] == MPI_PROC_NULL) continue;
      auto const make = [&](char const* label, detail::Rect rect) {
        return Buffer(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label)),
                      std::size_t(2 * rect.cells()));
      };
      send_[i] = make("wave2d::DistributedSimulation::send", sent(i));
      receive_[i] = make("wave2d::DistributedSimulation::receive", received(i));
      host_send_[i] = Kokkos::create_mirror_view(send_[i]);
      host_receive_[i] = Kokkos::create_mirror_view(receive_[i]);
      send_type_[i] = detail::HaloType(sent(i));
      receive_type_[i] = detail::HaloType(received(i));
    }
  }

  bool through_device() const {
    return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible && cuda_aware_;
  }

  // Packs the owned strips and posts every message of an exchange.
  std::vector<MPI_Request> post(ExecutionSpace const& space) {
    std::vector<MPI_Request> requests;
    for (std::size_t i = 0; i < detail::directions.size(); ++i) {
      if (neighbours_[i] == MPI_PROC_NULL) continue;
      float* to = through_device() ? receive_[i].data() : host_receive_[i].data();
      requests.emplace_back();
      // A message is two elements of a rect's type, previous then current: no count
      // grows with the grid, so none overflows an int.
      detail::check_mpi(MPI_Irecv(to, 2, receive_type_[i].get(), neighbours_[i],
                                  int(detail::direction_index(-detail::directions[i][0],
                                                              -detail::directions[i][1])),
                                  cart_, &requests.back()),
                        "MPI_Irecv");
      pack(space, sent(i), send_[i]);
      if (!through_device()) Kokkos::deep_copy(space, host_send_[i], send_[i]);
    }
    wave2d::fence(space, "wave2d::DistributedSimulation::exchange: packed");
    for (std::size_t i = 0; i < detail::directions.size(); ++i) {
      if (neighbours_[i] == MPI_PROC_NULL) continue;
      float* from = through_device() ? send_[i].data() : host_send_[i].data();
      requests.emplace_back();
      detail::check_mpi(
          MPI_Isend(from, 2, send_type_[i].get(), neighbours_[i], int(i), cart_, &requests.back()),
          "MPI_Isend");
    }
    return requests;
  }

  // Waits for the exchange's messages; the received ones on the device.
  void wait(ExecutionSpace const& space, std::vector<MPI_Request>& requests) {
    detail::check_mpi(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                      "MPI_Waitall");
    if (through_device()) return;
    for (std::size_t i = 0; i < detail::directions.size(); ++i) {
      if (neighbours_[i] != MPI_PROC_NULL) Kokkos::deep_copy(space, receive_[i], host_receive_[i]);
    }
  }

  void exchange(ExecutionSpace const& space) {
    Kokkos::Profiling::ScopedRegion region("wave2d::DistributedSimulation::exchange");
    // The steps before must end first anyway; waiting for them is not exchange time.
    wave2d::fence(space, "wave2d::DistributedSimulation::exchange: steps done");
    Kokkos::Timer timer;
    auto requests = post(space);
    wait(space, requests);
    for (std::size_t i = 0; i < detail::directions.size(); ++i) {
      if (neighbours_[i] != MPI_PROC_NULL) unpack(space, received(i), receive_[i]);
    }
    wave2d::fence(space, "wave2d::DistributedSimulation::exchange: unpacked");
    exchange_seconds_ += timer.seconds();
    valid_steps_ = window_.halo;
  }

  // `steps` (at most the halo) with the exchange in flight: the window steps on its stale
  // halos, then the strips step its border again from the state before, with the halos
  // that came. The next steps need an exchange again.
  void advance_overlapped(ExecutionSpace const& space, std::int64_t steps) {
    Kokkos::Profiling::ScopedRegion region("wave2d::DistributedSimulation::advance_overlapped");
    wave2d::fence(space, "wave2d::DistributedSimulation::exchange: steps done");
    Kokkos::Timer timer;
    std::vector<MPI_Request> requests;
    processes_.agree([&] { strips_->take(space, *local_); });
    requests = post(space);
    double posted = timer.seconds();
    processes_.agree([&] { local_->advance(space, steps); });
    timer.reset();
    wait(space, requests);
    for (std::size_t i = 0; i < detail::directions.size(); ++i) {
      if (neighbours_[i] != MPI_PROC_NULL) strips_->receive(space, received(i), receive_[i].data());
    }
    exchange_seconds_ += posted + timer.seconds();
    processes_.agree([&] { strips_->advance_into(space, *local_); });
    valid_steps_ = 0;
  }

  // buffer <- (previous, current) over rect, previous first, row-major.
  void pack(ExecutionSpace const& space, detail::Rect rect, Buffer const& buffer) const {
    copy_rect<true>(space, "wave2d::DistributedSimulation::pack", rect, buffer);
  }
  void unpack(ExecutionSpace const& space, detail::Rect rect, Buffer const& buffer) const {
    copy_rect<false>(space, "wave2d::DistributedSimulation::unpack", rect, buffer);
  }
  template <bool ToBuffer>
  void copy_rect(ExecutionSpace const& space, char const* label, detail::Rect rect,
                 Buffer const& buffer) const {
    if (rect.cells() == 0) return;
    Kokkos::parallel_for(
        label,
        Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>>(
            space, {0, 0}, {rect.ny, rect.nx}),
        detail::CopyRect<typename Local::field_type, ToBuffer>{
            local_->previous(), local_->current(), buffer.data(), rect});
  }

  MPI_Comm cart_ = MPI_COMM_NULL;
  Processes processes_;  // the ranks of comm, as cart_ numbers them (no reordering)
  std::array<int, 2> ranks_{1, 1};
  std::array<int, 8> neighbours_{MPI_PROC_NULL, MPI_PROC_NULL, MPI_PROC_NULL, MPI_PROC_NULL,
                                 MPI_PROC_NULL, MPI_PROC_NULL, MPI_PROC_NULL, MPI_PROC_NULL};
  Window window_;
  std::optional<Local> local_;
  std::optional<Plan> plan_;
  std::int64_t valid_steps_ = 0;  // steps the halos stay exact for
  bool cuda_aware_ = false;
  double exchange_seconds_ = 0.0;
  std::optional<detail::BorderStrips<ExecutionSpace, MemorySpace>> strips_;
  // Per direction of detail::directions.
  std::array<Buffer, 8> send_;
  std::array<Buffer, 8> receive_;
  std::array<HostBuffer, 8> host_send_;
  std::array<HostBuffer, 8> host_receive_;
  std::array<detail::HaloType, 8> send_type_;
  std::array<detail::HaloType, 8> receive_type_;
  FiniteCheck<ExecutionSpace, MemorySpace> check_;
};

template <class ExecutionSpace, class MemorySpace>
DistributedSimulation<ExecutionSpace, MemorySpace>::DistributedSimulation(
    MPI_Comm comm, ExecutionSpace const& space, Scene const& scene, std::string_view backend,
    Options options)
    : check_(space) {
  int size = 0;
  detail::check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  // Checks and allocations agreed on, collectives between them: a rank that fails must
  // not leave the others waiting in a collective it skipped.
  processes_ = processes_of(comm);
  Processes const& processes = processes_;
  bool const planned = backend == auto_backend;
  Decomposition decomposition;
  processes.agree([&] {
    validate(scene, options.validation);
    decomposition = decompose(scene, backend, options, size);
  });
  int dims[2] = {decomposition.ranks[0], decomposition.ranks[1]};
  std::int32_t halo = decomposition.halo;
  std::string chosen(backend);
  if (planned) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::array<char, 64> name{};
    processes.agree([&] {
      if (rank != 0) return;
      Window const first = window_of(scene.nx, scene.ny, {dims[0], dims[1]}, {0, 0}, halo);
      PlanOptions plan = options.plan;
      if (options.halo <= 0) plan.max_fused_steps = halo;  // a backend the windows allow
      plan_ = plan_backend<ExecutionSpace, MemorySpace>(space, scene, first, plan);
      plan_->backend.copy(name.data(), name.size() - 1);
    });
    detail::check_mpi(MPI_Bcast(name.data(), int(name.size()), MPI_CHAR, 0, comm), "MPI_Bcast");
    chosen = name.data();
    if (options.halo <= 0) halo = find_backend<ExecutionSpace, MemorySpace>(chosen).fused_steps;
  }
  ranks_ = {dims[0], dims[1]};
  int const periodic[2] = {0, 0};
  detail::check_mpi(MPI_Cart_create(comm, 2, dims, periodic, 0, &cart_), "MPI_Cart_create");
  int rank = 0;
  int coords[2] = {0, 0};
  MPI_Comm_rank(cart_, &rank);
  detail::check_mpi(MPI_Cart_coords(cart_, rank, 2, coords), "MPI_Cart_coords");
  for (std::size_t i = 0; i < detail::directions.size(); ++i) {
    int const at[2] = {coords[0] + detail::directions[i][0], coords[1] + detail::directions[i][1]};
    if (at[0] >= 0 && at[0] < dims[0] && at[1] >= 0 && at[1] < dims[1]) {
      detail::check_mpi(MPI_Cart_rank(cart_, at, &neighbours_[i]), "MPI_Cart_rank");
    }
  }
  window_ = window_of(scene.nx, scene.ny, ranks_, {coords[0], coords[1]}, halo);
  // Every rank or none: the two ways make different collective calls.
  int overlap = options.overlap && detail::BorderStrips<ExecutionSpace, MemorySpace>::fits(window_);
  try {
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &overlap, 1, MPI_INT, MPI_MIN, cart_),
                      "MPI_Allreduce");
    processes_.agree([&] {
      local_.emplace(space, scene, window_, chosen, options.validation);
      allocate_buffers(space);
      if (overlap != 0) {
        strips_.emplace(space, scene, window_, chosen, options.validation,
                        std::array{std::array{has_neighbour(-1, 0), has_neighbour(1, 0)},
                                   std::array{has_neighbour(0, -1), has_neighbour(0, 1)}});
      }
    });
  } catch (...) {
    MPI_Comm_free(&cart_);
    throw;
  }
  valid_steps_ = window_.halo;
}

template <class ExecutionSpace, class MemorySpace>
void DistributedSimulation<ExecutionSpace, MemorySpace>::advance(ExecutionSpace const& space,
                                                                 std::int64_t n_steps) {
  Kokkos::Profiling::ScopedRegion region("wave2d::DistributedSimulation::advance");
  if (n_steps < 0) throw std::invalid_argument("advance: negative steps");
  while (n_steps > 0) {
    std::int64_t const chunk =
        std::min<std::int64_t>(n_steps, valid_steps_ > 0 ? valid_steps_ : window_.halo);
    if (valid_steps_ == 0 && strips_) {
      advance_overlapped(space, chunk);
    } else {
      if (valid_steps_ == 0) exchange(space);
      processes_.agree([&] { local_->advance(space, chunk); });
      valid_steps_ -= chunk;
    }
    n_steps -= chunk;
  }
}

template <class ExecutionSpace, class MemorySpace>
std::pair<std::vector<float>, std::vector<float>>
DistributedSimulation<ExecutionSpace, MemorySpace>::gather(ExecutionSpace const& space) {
  Kokkos::Profiling::ScopedRegion region("wave2d::DistributedSimulation::gather");
  detail::Rect const owned{window_.owned_x(), window_.owned_y(), window_.nx, window_.ny};
  Buffer buffer(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                   "wave2d::DistributedSimulation::gather"),
                std::size_t(2 * owned.cells()));
  pack(space, owned, buffer);
  auto host = Kokkos::create_mirror_view(buffer);
  Kokkos::deep_copy(space, host, buffer);
  wave2d::fence(space, "wave2d::DistributedSimulation::gather: owned cells on the host");

  auto const [all, displacements] = gather_to_root(host.data(), host.size());
  std::pair<std::vector<float>, std::vector<float>> fields;
  if (displacements.empty()) return fields;
  int const size = int(displacements.size());
  Scene const& scene = local_->scene();
  fields.first.resize(std::size_t(scene.cells()));
  fields.second.resize(std::size_t(scene.cells()));
  for (int r = 0; r < size; ++r) {
    int coords[2];
    MPI_Cart_coords(cart_, r, 2, coords);
    Window const w = window_of(scene.nx, scene.ny, ranks_, {coords[0], coords[1]}, 0);
    float const* block = all.data() + displacements[r];
    for (int f = 0; f < 2; ++f) {
      auto& field = f == 0 ? fields.first : fields.second;
      for (std::int32_t y = 0; y < w.ny; ++y) {
        std::copy_n(block + (std::int64_t(f) * w.ny + y) * w.nx, w.nx,
                    field.data() + scene.index(w.x0, w.y0 + y));
      }
    }
  }
  return fields;
}

template <class ExecutionSpace, class MemorySpace>
std::vector<float> DistributedSimulation<ExecutionSpace, MemorySpace>::gather_receivers(
    ExecutionSpace const& space) {
  Kokkos::Profiling::ScopedRegion region("wave2d::DistributedSimulation::gather_receivers");
  Scene const& scene = local_->scene();
  std::size_t const columns = scene.receivers.size();
  auto const trace = local_->receivers();
  std::size_t const rows = trace.extent(0);
  auto const host = Kokkos::create_mirror_view(trace);
  Kokkos::deep_copy(space, host, trace);
  wave2d::fence(space, "wave2d::DistributedSimulation::gather_receivers: trace on the host");
  // Each rank sends the columns of its owned receivers, rows x those, row-major.
  auto const owned_here = owned_receivers(scene, window_);
  std::vector<float> mine;
  for (std::size_t row = 0; row < rows; ++row) {
    for (std::size_t i : owned_here) mine.push_back(host(row, i));
  }
  auto const [all, displacements] = gather_to_root(mine.data(), mine.size());
  std::vector<float> gathered;
  if (displacements.empty()) return gathered;
  int const size = int(displacements.size());
  gathered.resize(rows * columns);
  for (int r = 0; r < size; ++r) {
    int coords[2];
    MPI_Cart_coords(cart_, r, 2, coords);
    auto const owned =
        owned_receivers(scene, window_of(scene.nx, scene.ny, ranks_, {coords[0], coords[1]}, 0));
    float const* from = all.data() + displacements[r];
    for (std::size_t row = 0; row < rows; ++row) {
      for (std::size_t i : owned) gathered[row * columns + i] = *from++;
    }
  }
  return gathered;
}

// The library's instantiations (detail/wave2d_Instantiation.hpp).
#define WAVE2D_DISTRIBUTED_SIMULATION_INSTANTIATIONS(PREFIX, SPACE) \
  PREFIX class DistributedSimulation<SPACE, SPACE::memory_space>;
WAVE2D_EXTERN_INSTANTIATIONS(WAVE2D_DISTRIBUTED_SIMULATION_INSTANTIATIONS)

}  // namespace wave2d

#endif
