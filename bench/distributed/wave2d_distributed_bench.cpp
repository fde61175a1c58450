// Times DistributedSimulation under mpirun: fenced wall time of the stepping after a
// warm-up, the median of several runs, and the share of it spent in halo exchanges.
//   mpirun -np N wave2d_distributed_bench [--scene NAME | --size N | --per-rank N]
//       [--steps S] [--backend B] [--ranks PxQ] [--halo H] [--overlap yes|no]
//       [--repetitions R]
// --size N: the point-source scene on N x N cells (strong scaling); --per-rank N: on
// N x N cells per rank (weak scaling).
#include <wave2d/distributed/wave2d_DistributedSimulation.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>

#include <mpi.h>
#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;

struct Arguments {
  std::string scene = "double-slit";
  std::int32_t size = 0;
  std::int32_t per_rank = 0;
  std::int64_t steps = 0;  // 0: the scene's
  std::string backend = "kokkos-mdrange";
  std::array<int, 2> ranks{0, 0};
  std::int32_t halo = 0;
  std::optional<bool> overlap;  // unset: the library's default for the space
  int repetitions = 5;
};

Arguments parse(int argc, char* argv[]) {
  Arguments a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const key = argv[i];
    std::string const value = argv[i + 1];
    if (key == "--scene")
      a.scene = value;
    else if (key == "--size")
      a.size = std::stoi(value);
    else if (key == "--per-rank")
      a.per_rank = std::stoi(value);
    else if (key == "--steps")
      a.steps = std::stoll(value);
    else if (key == "--backend")
      a.backend = value;
    else if (key == "--halo")
      a.halo = std::stoi(value);
    else if (key == "--overlap") {
      if (value != "yes" && value != "no") throw std::invalid_argument("--overlap takes yes or no");
      a.overlap = value == "yes";
    }
    else if (key == "--repetitions")
      a.repetitions = std::stoi(value);
    else if (key == "--ranks") {
      auto const x = value.find('x');
      if (x == std::string::npos) throw std::invalid_argument("--ranks takes PxQ");
      a.ranks = {std::stoi(value.substr(0, x)), std::stoi(value.substr(x + 1))};
    } else {
      throw std::invalid_argument("unknown argument " + key);
    }
  }
  return a;
}

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

int run(Arguments const& a) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Space space;
  wave2d::Scene scene;
  if (a.per_rank > 0 || a.size > 0) {
    int dims[2] = {a.ranks[0], a.ranks[1]};
    MPI_Dims_create(size, 2, dims);
    std::int32_t const nx = a.per_rank > 0 ? a.per_rank * dims[0] : a.size;
    std::int32_t const ny = a.per_rank > 0 ? a.per_rank * dims[1] : a.size;
    scene = wave2d::point_source_scene(std::max(nx, ny));
    scene.nx = nx;
    scene.ny = ny;
    scene.sources.front().x = nx / 2;
    scene.sources.front().y = ny / 2;
  } else {
    scene = wave2d::builtin_scene(a.scene);
  }
  std::int64_t const steps = a.steps > 0 ? a.steps : scene.steps;
  wave2d::DistributedSimulation<Space>::Options options;
  options.ranks = a.ranks;
  options.halo = a.halo;
  if (a.overlap) options.overlap = *a.overlap;
  wave2d::DistributedSimulation<Space> simulation(MPI_COMM_WORLD, space, scene, a.backend, options);
  std::vector<double> seconds;
  std::vector<double> exchange_share;
  for (int r = 0; r <= a.repetitions; ++r) {  // r = 0 warms up
    simulation.reset(space);
    wave2d::fence(space, "wave2d::bench: reset");
    MPI_Barrier(MPI_COMM_WORLD);
    double const exchanged = simulation.exchange_seconds();
    Kokkos::Timer timer;
    simulation.advance(space, steps);
    wave2d::fence(space, "wave2d::bench: stepped");
    double local[2] = {timer.seconds(), simulation.exchange_seconds() - exchanged};
    double slowest[2];
    MPI_Allreduce(local, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r > 0) {
      seconds.push_back(slowest[0]);
      exchange_share.push_back(slowest[1] / slowest[0]);
    }
  }
  if (rank == 0) {
    double const s = median(seconds);
    std::printf(
        "ranks %dx%d  grid %dx%d  steps %lld  backend %s  halo %d  space %s  exchange %s%s\n"
        "median %.4f s of %d (min %.4f, max %.4f)  %.3f GCells/s  exchange share %.1f%% "
        "(slowest rank)\n",
        simulation.ranks()[0], simulation.ranks()[1], scene.nx, scene.ny,
        static_cast<long long>(steps), a.backend.c_str(), simulation.window().halo, Space::name(),
        simulation.exchange_path().c_str(), simulation.overlaps() ? ", overlapped" : "", s,
        a.repetitions,
        *std::min_element(seconds.begin(), seconds.end()),
        *std::max_element(seconds.begin(), seconds.end()),
        double(scene.cells()) * double(steps) / s / 1e9, 100.0 * median(exchange_share));
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    try {
      status = run(parse(argc, argv));
    } catch (std::exception const& e) {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) std::fprintf(stderr, "wave2d_distributed_bench: error: %s\n", e.what());
      status = 2;
    }
  }
  MPI_Finalize();
  return status;
}
