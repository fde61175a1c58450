// `wave2d run`: everything the user asked for is checked first, then Kokkos starts, the
// scene is stepped and the results are written, each file complete or not at all.
#include <cli/wave2d_Commands.hpp>
#include <cli/wave2d_Memory.hpp>
#include <cli/wave2d_OutputFiles.hpp>
#include <cli/wave2d_ProgressBar.hpp>
#include <io/wave2d_Output.hpp>
#include <io/wave2d_SceneFile.hpp>
#include <scene/wave2d_BuiltinScenes.hpp>
#include <simulation/wave2d_Backends.hpp>
#include <simulation/wave2d_Simulation.hpp>

#include <wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <new>
#include <sstream>
#include <type_traits>

namespace wave2d::cli {

namespace {

namespace fs = std::filesystem;

// A run, checked: what it simulates and where its results go.
struct RunPlan {
  Scene scene;
  std::string scene_label;  // as the user named it
  std::string backend;
  ValidationOptions validation;
  std::int64_t steps = 0;
  bool images = false;
  std::optional<std::int64_t> frames_every;
  OutputFiles files;
  std::optional<fs::path> npy_file;
};

std::string join(std::vector<std::string> const& names) {
  std::string list;
  for (auto const& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

Scene load_scene(std::string const& name_or_file) {
  std::vector<std::string> names;
  for (auto const& info : builtin_scenes()) {
    if (info.name == name_or_file) return builtin_scene(info.name);
    names.emplace_back(info.name);
  }
  std::error_code error;
  if (!fs::exists(name_or_file, error)) {
    throw InputError("unknown scene '" + name_or_file + "': neither a built-in scene (" +
                     join(names) + ") nor a scene file");
  }
  try {
    return load_scene_file(name_or_file);
  } catch (std::bad_alloc const&) {  // its wall mask or speed map, one value per cell
    throw InputError("the grid of scene file '" + name_or_file + "' is too large for memory");
  }
}

void print_line(std::string_view label, std::string const& value) {
  std::cout << std::left << std::setw(12) << label << value << "\n";
}

template <class ExecutionSpace>
std::string describe(ExecutionSpace const& space) {
  std::string text = ExecutionSpace::name();
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    int const threads = space.concurrency();
    text += " (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
  }
  return text;
}

template <class ExecutionSpace>
Simulation<ExecutionSpace> start_simulation(ExecutionSpace const& space, RunPlan const& plan) {
  auto const failure = [&](std::exception const& e) {
    return std::runtime_error("cannot set up the " + std::to_string(plan.scene.nx) + " x " +
                              std::to_string(plan.scene.ny) + " grid on " +
                              ExecutionSpace::name() + ": " + e.what());
  };
  try {
    return Simulation<ExecutionSpace>(space, plan.scene, plan.backend, plan.validation);
  } catch (std::bad_alloc const& e) {
    throw failure(e);
  } catch (std::runtime_error const& e) {  // Kokkos' allocation failures
    throw failure(e);
  }
}

template <class ExecutionSpace, class Field>
std::vector<float> to_host(ExecutionSpace const& space, Field const& field) {
  std::vector<float> host(field.size());
  Kokkos::deep_copy(space,
                    Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        host.data(), field.extent(0), field.extent(1)),
                    field);
  wave2d::fence(space, "wave2d::cli::to_host");
  return host;
}

void write_image(fs::path const& path, std::vector<float> const& u, Scene const& scene) {
  create_parent_directories(path);
  write_png(path, render_field(u, scene.walls, scene.nx, scene.ny), scene.nx, scene.ny);
}

struct Stepping {
  double seconds = 0.0;  // of the stepping alone, fenced
  std::int64_t frames = 0;
};

// Runs the plan's steps, writing the frames on the way.
template <class ExecutionSpace>
Stepping step(ExecutionSpace const& space, Simulation<ExecutionSpace>& simulation,
              RunPlan const& plan) {
  Stepping stepping;
  ProgressBar progress(plan.steps);
  // Chunks of steps double until one lasts about 0.1 s: few enough fences not to slow
  // the run, often enough for the progress bar. Steps are global indices, so the
  // chunking does not change the result.
  std::int64_t chunk = 1;
  while (simulation.steps_done() < plan.steps) {
    std::int64_t const done = simulation.steps_done();
    std::int64_t n = std::min(chunk, plan.steps - done);
    if (plan.frames_every) n = std::min(n, *plan.frames_every - done % *plan.frames_every);
    auto const start = std::chrono::steady_clock::now();
    simulation.advance(space, n);
    wave2d::fence(space, "wave2d::cli::run: end of a chunk of steps");
    double const seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stepping.seconds += seconds;
    if (n == chunk && seconds < 0.05) chunk *= 2;
    std::int64_t const now = simulation.steps_done();
    if (plan.frames_every && (now % *plan.frames_every == 0 || now == plan.steps)) {
      write_image(plan.files.frame(stepping.frames++), to_host(space, simulation.current()),
                  plan.scene);
    }
    progress.update(now);
  }
  return stepping;
}

template <class ExecutionSpace>
void write_results(ExecutionSpace const& space, Simulation<ExecutionSpace> const& simulation,
                   RunPlan const& plan, std::int64_t frames) {
  Scene const& scene = plan.scene;
  if (plan.npy_file) {
    create_parent_directories(*plan.npy_file);
    write_npy(*plan.npy_file, to_host(space, simulation.previous()),
              to_host(space, simulation.current()), scene.nx, scene.ny);
    std::cout << "wrote " << plan.npy_file->string() << "\n";
  }
  if (plan.images) {
    write_image(plan.files.image(), to_host(space, simulation.current()), scene);
    std::cout << "wrote " << plan.files.image().string() << "\n";
  }
  if (frames > 0) {
    std::cout << "wrote " << frames << " frames " << plan.files.frame(0).string() << " .. "
              << plan.files.frame(frames - 1).filename().string() << "\n";
    make_video(plan.files, frames, std::cout, std::cerr);
  }
}

template <class ExecutionSpace>
void simulate(RunPlan const& plan, std::vector<char*> kokkos_arguments) {
  int kokkos_argc = int(kokkos_arguments.size());
  kokkos_arguments.push_back(nullptr);
  Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_arguments.data());
  ExecutionSpace const space;
  Scene const& scene = plan.scene;
  check_memory(space, scene);
  // Only now that every check has passed: an error stays a single line.
  if (!plan.images) {
    std::cerr << "wave2d: note: built without libpng, so no images (install libpng-dev and "
                 "rebuild)\n";
  }

  print_line("scene", plan.scene_label);
  print_line("grid", std::to_string(scene.nx) + " x " + std::to_string(scene.ny));
  print_line("steps", std::to_string(plan.steps));
  print_line("backend", plan.backend);
  print_line("space", describe(space));
  std::cout << std::flush;

  auto simulation = start_simulation(space, plan);
  print_line("configuration", simulation.configuration());
  std::cout << std::flush;
  Stepping const stepping = step(space, simulation, plan);
  std::ostringstream time, throughput;
  time << std::setprecision(4) << stepping.seconds << " s";
  throughput << std::setprecision(4)
             << double(scene.cells()) * double(plan.steps) / stepping.seconds / 1e9
             << " GCells/s";
  print_line("time", time.str());
  print_line("throughput", throughput.str());
  write_results(space, simulation, plan, stepping.frames);
}

using Simulate = void (*)(RunPlan const&, std::vector<char*>);

// The backend runs on the default execution space where it can, else on the default
// host space (where "reference" runs when the default space is a GPU's).
Simulate simulation_for(std::string const& backend) {
  using Default = Kokkos::DefaultExecutionSpace;
  using Host = Kokkos::DefaultHostExecutionSpace;
  if (has_backend<Default>(backend)) return &simulate<Default>;
  if constexpr (!std::is_same_v<Default, Host>) {
    if (has_backend<Host>(backend)) return &simulate<Host>;
  }
  throw InputError("unknown backend '" + backend + "' (available: " + available_backends() +
                   ")");
}

}  // namespace

namespace {

// name -> summary, those of the default execution space first.
std::vector<std::pair<std::string, std::string>> runnable_backends() {
  std::vector<std::pair<std::string, std::string>> list;
  auto const add_backends_of = [&]<class ExecutionSpace>() {
    for (auto const& backend : backends<ExecutionSpace>()) {
      if (std::ranges::find(list, backend.name, [](auto const& b) { return b.first; }) ==
          list.end()) {
        list.emplace_back(backend.name, backend.summary);
      }
    }
  };
  add_backends_of.template operator()<Kokkos::DefaultExecutionSpace>();
  add_backends_of.template operator()<Kokkos::DefaultHostExecutionSpace>();
  return list;
}

}  // namespace

std::string available_backends() {
  std::vector<std::string> names;
  for (auto const& backend : runnable_backends()) names.push_back(backend.first);
  return join(names);
}

void list_backends(std::ostream& out) {
  for (auto const& [name, summary] : runnable_backends()) out << name << "\t" << summary << "\n";
}

void run_command(RunOptions const& options, std::vector<char*> kokkos_arguments) {
  RunPlan plan;
  plan.scene = load_scene(options.scene);
  plan.validation.allow_unstable = options.allow_unstable;
  validate(plan.scene, plan.validation);
  auto const simulate = simulation_for(options.backend);
  plan.backend = options.backend;
  plan.steps = options.steps.value_or(plan.scene.steps);
  if (plan.steps <= 0) {
    throw InputError("the scene sets no number of steps: give one with --steps N");
  }

  std::string const& name = plan.scene.name;
  plan.scene_label =
      name.empty() || name == options.scene ? options.scene : name + " (" + options.scene + ")";
  plan.files.directory = options.output_directory;
  plan.files.stem = file_stem(name.empty() ? fs::path(options.scene).stem().string() : name);
  plan.images = can_write_png;
  if (plan.images) {
    plan.frames_every = options.frames_every;
    check_can_write(plan.files.image());
    if (plan.frames_every) {
      check_can_write(plan.files.frame(0));
      check_can_write(plan.files.video());
    }
  }
  if (options.npy_file) {
    plan.npy_file = *options.npy_file;
    check_can_write(*plan.npy_file);
  }
  simulate(plan, std::move(kokkos_arguments));
}

}  // namespace wave2d::cli
