// The Python module `wave2d`: scenes, simulations on the library's backends, fields as
// NumPy arrays, runs with their outputs (the run layer, as the program). pybind11 does the
// binding; the library does everything else.
//
// Kokkos is initialized once, by wave2d.initialize(args) or else by the first simulation or
// run, and finalized at exit (atexit). Before it is, every simulation and every array that
// holds a Kokkos allocation lets it go, and every run stops: a simulation is then unusable
// (RuntimeError), and an array viewing a field must not be read any more (atexit handlers
// registered before wave2d was imported run after it).
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/plan/wave2d_Backends.hpp>
#include <wave2d/plan/wave2d_Planner.hpp>
#include <wave2d/run/wave2d_Checkpoints.hpp>
#include <wave2d/run/wave2d_Experiment.hpp>
#include <wave2d/run/wave2d_KokkosArguments.hpp>
#include <wave2d/run/wave2d_Run.hpp>
#include <wave2d/run/wave2d_RunMemory.hpp>
#include <wave2d/run/wave2d_Spaces.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>
#include <wave2d/simulation/wave2d_Simulation.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>
#include <wave2d/wave2d_Config.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <python/wave2d_SceneDict.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace wave2d::python {

namespace {

namespace fs = std::filesystem;

// What holds Kokkos allocations, to be let go before Kokkos::finalize. Made and destroyed
// with the GIL held.
class Resource {
 public:
  Resource();
  virtual ~Resource();
  Resource(Resource const&) = delete;
  Resource& operator=(Resource const&) = delete;
  virtual void release() = 0;
  std::uint64_t serial() const { return serial_; }

 private:
  std::uint64_t serial_;  // unlike an address, never another resource's
};

struct Runtime {
  bool initialized_here = false;
  bool finalized = false;
  std::unordered_set<Resource*> resources;
  std::uint64_t made = 0;
};

Runtime& runtime() {
  static Runtime instance;
  return instance;
}

Resource::Resource() : serial_(runtime().made++) { runtime().resources.insert(this); }
Resource::~Resource() { runtime().resources.erase(this); }

// The runs under way on this thread: finalize() from one's progress callback would wait for
// the run that called it.
thread_local int runs_here = 0;

void initialize(std::vector<std::string> const& arguments) {
  Runtime& state = runtime();
  if (state.finalized) {
    throw std::runtime_error("wave2d: Kokkos was finalized and cannot start again in this process");
  }
  if (Kokkos::is_initialized()) {
    throw std::runtime_error(
        "wave2d: Kokkos is already initialized: call wave2d.initialize(...) once, before the "
        "first simulation");
  }
  std::vector<std::string> kept{"wave2d"};
  kept.insert(kept.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& argument : kept) argv.push_back(argument.data());
  check_kokkos_arguments(argv);  // Kokkos aborts on some bad ones
  for (std::string_view const help : {"--kokkos-help", "--kokkos-tools-help"}) {
    if (std::ranges::find(kept, help) != kept.end()) {  // Kokkos prints it and exits
      throw std::invalid_argument(std::string(help) + " would end Python after the help: `wave2d " +
                                  std::string(help) + "` prints it");
    }
  }
  int argc = int(argv.size());
  argv.push_back(nullptr);
  // As the program: threads are unbound unless OMP_PROC_BIND or OMP_PLACES says otherwise (the
  // OpenMP runtime read them when it was loaded); "false" says so to Kokkos, whose OpenMP
  // would warn of it on every start.
  if (std::getenv("OMP_PROC_BIND") == nullptr && std::getenv("OMP_PLACES") == nullptr) {
    ::setenv("OMP_PROC_BIND", "false", 0);
  }
  Kokkos::initialize(argc, argv.data());
  state.initialized_here = true;
}

void ensure_initialized() {
  if (runtime().finalized) {
    throw std::runtime_error("wave2d: Kokkos was finalized: no more simulations in this process");
  }
  if (!Kokkos::is_initialized()) initialize({});
}

void finalize() {
  if (runs_here > 0) {
    throw std::runtime_error(
        "wave2d: finalize() from a run's progress callback: return False to stop the run first");
  }
  Runtime& state = runtime();
  state.finalized = true;  // no simulation or run starts from here on
  // A release may let the GIL go, to wait for a run or an advance: resources may end, and
  // arrays of those not released yet come, meanwhile. Each is looked for anew.
  std::unordered_set<std::uint64_t> released;
  while (true) {
    auto const next = std::ranges::find_if(state.resources, [&](Resource* resource) {
      return !released.contains(resource->serial());
    });
    if (next == state.resources.end()) break;
    released.insert((*next)->serial());
    (*next)->release();
  }
  if (state.initialized_here && Kokkos::is_initialized()) Kokkos::finalize();
}

// ---- Scenes -----------------------------------------------------------------------

// The (x, y) cells of a scene's sources or receivers.
template <class Points>
std::vector<std::pair<std::int32_t, std::int32_t>> cells_of(Points const& points) {
  std::vector<std::pair<std::int32_t, std::int32_t>> cells;
  for (auto const& point : points) cells.emplace_back(point.x, point.y);
  return cells;
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (auto const& info : builtin_scenes()) names.emplace_back(info.name);
  return names;
}

SceneFileOptions const scene_file_options{.check_grid = check_host_memory};

// A scene and the files it was read from: a wave2d.Scene (which keeps them), a dict (its
// masks), a str as `wave2d run --scene` takes it (a built-in scene's name, else a scene
// file), or a path of a scene file.
SceneFile scene_file_of(py::handle source) {
  if (py::isinstance<SceneFile>(source)) return source.cast<SceneFile>();
  if (py::isinstance<py::dict>(source)) return scene_from_dict(source, scene_file_options);
  // As a path: a name os.fsdecode made of bytes that are not UTF-8 is a file name too.
  if (py::isinstance<py::str>(source)) return load_scene(source.cast<fs::path>().string());
  if (py::hasattr(source, "__fspath__")) {
    return read_scene_file(source.cast<fs::path>(), scene_file_options);
  }
  throw py::type_error("a scene is a wave2d.Scene, a built-in scene's name, a TOML file or a dict");
}

Scene to_scene(py::handle source) { return scene_file_of(source).scene; }

// ---- Fields and traces as arrays -----------------------------------------------------

// A field's (or trace's) allocation, kept alive by the NumPy array that views it.
template <class View>
class FieldHolder final : public Resource {
 public:
  explicit FieldHolder(View view) : view(std::move(view)) {}
  void release() override { view = View(); }
  View view;
};

// The field as a (ny, nx) float32 array (a trace as (rows, receivers)): a read-only view
// of the simulation's memory on a host space; a writable copy from a GPU's.
template <class Field>
py::array to_array(Field const& field) {
  using MemorySpace = typename Field::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    auto* holder = new FieldHolder<Field>(field);
    py::capsule base(holder, [](void* p) { delete static_cast<FieldHolder<Field>*>(p); });
    py::array_t<float> array({py::ssize_t(field.extent(0)), py::ssize_t(field.extent(1))},
                             {py::ssize_t(field.stride(0) * sizeof(float)),
                              py::ssize_t(field.stride(1) * sizeof(float))},
                             field.data(), base);
    py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return std::move(array);
  } else {
    py::array_t<float> array({py::ssize_t(field.extent(0)), py::ssize_t(field.extent(1))});
    Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        host(array.mutable_data(), field.extent(0), field.extent(1));
    Kokkos::deep_copy(host, field);
    return std::move(array);
  }
}

// ---- Plans --------------------------------------------------------------------------

PlanMode plan_mode(std::string const& text) {
  auto const mode = parse_plan_mode(text);
  if (!mode) {
    throw std::invalid_argument("plan: unknown mode '" + text + "' (measure, cached or estimate)");
  }
  return *mode;
}

// What `wave2d plan` shows of a plan, `estimate` the rule's choice for the same grid.
py::dict plan_dict(Plan const& plan, std::string const& estimate) {
  py::list ranking;
  for (auto const& rate : plan.ranking) {
    ranking.append(py::make_tuple(rate.backend, rate.gcells_per_second));
  }
  py::dict key;
  key["device"] = plan.key.device;
  key["space"] = plan.key.space;
  key["threads"] = plan.key.threads;
  key["nx"] = plan.key.nx;
  key["ny"] = plan.key.ny;
  key["version"] = plan.key.version;
  py::dict dict;
  dict["backend"] = plan.backend;
  dict["mode"] = std::string(plan_mode_name(plan.mode));
  dict["from_cache"] = plan.from_cache;
  dict["ranking"] = ranking;
  dict["trial_seconds"] = plan.trial_seconds;
  dict["notes"] = py::cast(plan.notes);
  dict["cache_file"] =
      plan.cache_file.empty() ? py::object(py::none()) : py::str(plan.cache_file.string());
  dict["summary"] = plan.summary();
  dict["estimate"] = estimate;
  dict["key"] = key;
  return dict;
}

// As `wave2d plan`: what `auto` chooses for the scene's grid on the space, and why.
py::dict plan_scene(py::handle source, std::string const& space, std::string const& mode) {
  Scene const scene = to_scene(source);
  validate(scene);
  PlanOptions options;
  options.mode = plan_mode(mode);
  std::string const space_name = space_for(space, auto_backend);  // before Kokkos starts
  ensure_initialized();
  py::dict plan;
  on_space(space_name, [&]<class ExecutionSpace>() {
    ExecutionSpace const instance;
    check_memory(instance, scene);
    Window const whole = Window::whole(scene.nx, scene.ny);
    plan =
        plan_dict(plan_backend(instance, scene, whole, options), estimate_backend(instance, whole));
  });
  return plan;
}

// ---- Simulations --------------------------------------------------------------------

// A Python int as a count of steps: TypeError for what is not an int, ValueError for one
// below `least` or above `most`.
std::int64_t step_count(py::handle value, char const* what, std::int64_t least = 0,
                        std::int64_t most = std::numeric_limits<std::int64_t>::max()) {
  py::object const index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) {
    PyErr_Clear();
    throw py::type_error(std::string(what) + " must be an int, not a " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  }
  int overflow = 0;
  long long const count = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (count == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0 || count < least || count > most) {
    throw std::invalid_argument(std::string(what) + " must be an int from " +
                                std::to_string(least) + " to " + std::to_string(most));
  }
  return count;
}

// A field given to set_state as a C-contiguous float32 array of the grid's shape (a
// copy only where it is not one already: a simulation's own field stays a view of it).
py::array_t<float> field_array(py::handle field, char const* name, std::int64_t ny,
                               std::int64_t nx) {
  std::string const where = std::string("set_state: ") + name;
  py::object array;
  try {
    py::module_ const numpy = py::module_::import("numpy");
    // A cast to float32 would drop an imaginary part without a word.
    if (numpy.attr("iscomplexobj")(field).cast<bool>()) {
      throw py::type_error(where + ": complex values (a field is real)");
    }
    array = numpy.attr("ascontiguousarray")(field, "float32");
  } catch (py::error_already_set const& e) {
    std::string const message = where + ": " + std::string(py::str(e.value()));
    if (e.matches(PyExc_TypeError)) throw py::type_error(message);
    throw py::value_error(message);
  }
  auto const checked = array.cast<py::array_t<float>>();
  if (checked.ndim() != 2 || checked.shape(0) != ny || checked.shape(1) != nx) {
    throw std::invalid_argument(where + " must have the shape (ny, nx) = (" + std::to_string(ny) +
                                ", " + std::to_string(nx) + ")");
  }
  return checked;
}

// How advance() reports: progress(step) after every `every` steps of the call (after
// chunks of about 0.1 s when every is None) and after the last.
struct Progress {
  py::object callback;  // None for no report
  std::optional<std::int64_t> every;
};

class AnySimulation : public Resource {
 public:
  virtual void advance(std::int64_t steps, Progress const& progress) = 0;
  virtual void reset() = 0;
  virtual void set_state(py::handle previous, py::handle current, std::int64_t step) = 0;
  virtual py::array previous() = 0;
  virtual py::array current() = 0;
  virtual py::array receivers() = 0;
  virtual std::int64_t receivers_first_step() = 0;
  virtual std::int64_t step() = 0;
  virtual float time() = 0;
  virtual std::string configuration() = 0;
  virtual std::string space() const = 0;
  virtual Scene scene() = 0;
  virtual std::string backend() = 0;
  virtual void write_checkpoint(fs::path const& path) = 0;
  virtual void resume(fs::path const& path) = 0;
  virtual py::object plan() = 0;

  // The files the scene was read from, which no checkpoint overwrites, and the key that set
  // its time step: what a wave2d.Scene of it keeps.
  std::vector<fs::path> inputs;
  SceneFileKey time_step_key;

  SceneFile scene_file() { return {scene(), inputs, time_step_key}; }
  void save_checkpoint(fs::path const& path) {
    detail::refuse_overwriting_inputs({"the checkpoint", path}, inputs);
    write_checkpoint(path);
  }

 protected:
  // One thread at a time in a simulation: the calls of others wait, without the GIL
  // (advance() takes it back between its chunks). The thread in advance() may come back
  // through its progress callback, to read the simulation, not to change it.
  class Access {
   public:
    enum Kind { reads, changes };
    Access(AnySimulation& simulation, Kind kind) : lock_(simulation.mutex_, std::try_to_lock) {
      if (!lock_.owns_lock()) {
        py::gil_scoped_release unlocked;
        lock_.lock();
      }
      if (kind == changes && simulation.advancing_) {
        throw std::runtime_error(
            "wave2d: advance()'s progress callback may read the simulation, not change it");
      }
    }

   private:
    std::unique_lock<std::recursive_mutex> lock_;
  };

  std::recursive_mutex mutex_;
  bool advancing_ = false;              // in advance(), the lock held
  std::atomic<bool> releasing_{false};  // finalize() waits for advance() to stop
};

template <class ExecutionSpace>
class SimulationOn final : public AnySimulation {
 public:
  SimulationOn(Scene scene, std::string const& backend, ValidationOptions options,
               PlanOptions const& plan)
      : simulation_(std::in_place, space_, std::move(scene), backend, options, plan) {}

  void release() override {
    releasing_ = true;
    Access const access(*this, Access::reads);
    simulation_.reset();
  }

  void advance(std::int64_t steps, Progress const& progress) override {
    Access const access(*this, Access::changes);
    auto& simulation = get();
    // The count and the whole trace's memory before any step; the trace grows as it goes,
    // so that an interrupted run has not waited for all of it.
    simulation.check_advance(space_, steps);
    advancing_ = true;
    struct Done {
      bool& flag;
      ~Done() { flag = false; }
    } const done_advancing{advancing_};
    std::int64_t done = 0;
    detail::Chunks chunks;
    while (done < steps) {
      // wave2d.finalize(), from another thread or the callback, lets the simulation go.
      if (releasing_) throw std::runtime_error("wave2d: Kokkos was finalized while advancing");
      std::int64_t n = chunks.next(steps - done);
      if (progress.every) n = std::min(n, *progress.every - done % *progress.every);
      double const seconds = run_chunk(simulation, n);
      done += n;
      chunks.took(n, seconds);
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // Ctrl-C: KeyboardInterrupt
      bool const report = !progress.every || done % *progress.every == 0 || done == steps;
      if (!progress.callback.is_none() && report) progress.callback(simulation.steps_done());
    }
  }
  void reset() override {
    Access const access(*this, Access::changes);
    get().reset(space_);
    wave2d::fence(space_, "wave2d::python::reset");
  }
  void set_state(py::handle previous, py::handle current, std::int64_t step) override {
    Access const access(*this, Access::changes);
    auto& simulation = get();
    Window const& window = simulation.window();
    auto const previous_array =
        field_array(previous, "previous", window.local_ny(), window.local_nx());
    auto const current_array =
        field_array(current, "current", window.local_ny(), window.local_nx());
    set_state(simulation, previous_array.data(), current_array.data(), step);
  }
  py::array previous() override {
    return reading([](auto& simulation) { return to_array(simulation.previous()); });
  }
  py::array current() override {
    return reading([](auto& simulation) { return to_array(simulation.current()); });
  }
  // advance() makes room for its rows itself: the trace is whole after any advance(n).
  py::array receivers() override {
    return reading([](auto& simulation) { return to_array(simulation.receivers()); });
  }
  std::int64_t receivers_first_step() override {
    return reading([](auto& simulation) { return simulation.receivers_first_step(); });
  }
  std::int64_t step() override {
    return reading([](auto& simulation) { return simulation.steps_done(); });
  }
  float time() override {
    return reading([](auto& simulation) { return simulation.time(); });
  }
  std::string configuration() override {
    return reading([](auto& simulation) { return simulation.configuration(); });
  }
  std::string space() const override { return ExecutionSpace::name(); }
  Scene scene() override {
    return reading([](auto& simulation) { return simulation.scene(); });
  }
  std::string backend() override {
    return reading([](auto& simulation) { return simulation.backend(); });
  }

  void write_checkpoint(fs::path const& path) override {
    Access const access(*this, Access::reads);
    py::gil_scoped_release const unlocked;  // a large file's write lets other threads go on
    wave2d::write_checkpoint(path, space_, get());
  }
  void resume(fs::path const& path) override {
    Access const access(*this, Access::changes);
    py::gil_scoped_release const unlocked;
    wave2d::resume(path, space_, get());
  }
  py::object plan() override {
    return reading([&](auto& simulation) -> py::object {
      Plan const* plan = simulation.plan();
      if (!plan) return py::none();
      return plan_dict(*plan, estimate_backend(space_, simulation.window()));
    });
  }

 private:
  Simulation<ExecutionSpace>& get() {
    if (!simulation_) {
      throw std::runtime_error("wave2d: this simulation was let go when Kokkos was finalized");
    }
    return *simulation_;
  }

  template <class Read>
  auto reading(Read&& read) {
    Access const access(*this, Access::reads);
    return read(get());
  }

  // n steps without the GIL, fenced; their seconds.
  double run_chunk(Simulation<ExecutionSpace>& simulation, std::int64_t n) {
    py::gil_scoped_release unlocked;
    auto const start = std::chrono::steady_clock::now();
    simulation.advance(space_, n);
    wave2d::fence(space_, "wave2d::python::advance");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void set_state(Simulation<ExecutionSpace>& simulation, float const* previous,
                 float const* current, std::int64_t step) {
    Window const& window = simulation.window();
    using Host = Kokkos::View<float const**, Kokkos::LayoutRight, Kokkos::HostSpace,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    simulation.set_state(space_, Host(previous, window.local_ny(), window.local_nx()),
                         Host(current, window.local_ny(), window.local_nx()), step);
    wave2d::fence(space_, "wave2d::python::set_state");  // the host buffers go after it
  }

  ExecutionSpace space_;
  std::optional<Simulation<ExecutionSpace>> simulation_;
};

using Default = Kokkos::DefaultExecutionSpace;
using Host = Kokkos::DefaultHostExecutionSpace;

// On `space` (a name of compiled_spaces()), else as `wave2d run` chooses: the default
// execution space where the backend runs there, else the host's (the reference, when the
// default space is a GPU's).
std::unique_ptr<AnySimulation> make_simulation(py::handle scene_source, std::string const& backend,
                                               bool allow_unstable, std::string const& space,
                                               std::string const& plan) {
  SceneFile file = scene_file_of(scene_source);
  PlanMode const mode = plan_mode(plan);
  ValidationOptions options{.allow_unstable = allow_unstable,
                            .how_to_allow_unstable = "allow_unstable=True"};
  validate(file, options);  // an unstable time step named at its file's key
  options.validated = true;
  Scene scene = std::move(file.scene);
  std::string const space_name = space_for(space, backend);  // before Kokkos starts
  std::unique_ptr<AnySimulation> made;
  ensure_initialized();
  on_space(space_name, [&]<class ExecutionSpace>() {
    made = std::make_unique<SimulationOn<ExecutionSpace>>(std::move(scene), backend, options,
                                                          PlanOptions{.mode = mode});
  });
  made->inputs = std::move(file.files);
  made->time_step_key = std::move(file.time_step_key);
  return made;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  auto const add = [&](auto const& list) {
    for (auto const& backend : list) {
      if (std::find(names.begin(), names.end(), backend.name) == names.end()) {
        names.emplace_back(backend.name);
      }
    }
  };
  add(backends<Default>());
  add(backends<Host>());
  return names;
}

// A (ny, nx) copy of a scene's per-cell values (all T() where it has none), read-only: a
// scene changes by the assignment of a whole array, not through a copy.
template <class T, class Values>
py::array grid_copy(Scene const& scene, Values const& values) {
  py::array_t<T> array({py::ssize_t(scene.ny), py::ssize_t(scene.nx)});
  T* out = array.mutable_data();
  for (std::int64_t i = 0; i < scene.cells(); ++i) {
    out[i] = values.empty() ? T() : T(values[std::size_t(i)]);
  }
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return std::move(array);
}

// `value` as a C-contiguous array of T of the scene's grid, (ny, nx), from an array of
// one of NumPy's `kinds` ("b" bool, "iuf" real numbers): ValueError naming the problem.
template <class T>
py::array_t<T> grid_values(Scene const& scene, py::handle value, std::string const& what,
                           std::string_view kinds, std::string const& expected) {
  py::module_ const numpy = py::module_::import("numpy");
  auto const array = numpy.attr("asarray")(value).cast<py::array>();
  if (kinds.find(array.dtype().kind()) == std::string_view::npos) {
    throw std::invalid_argument(what + ": " + expected + ", not of " +
                                std::string(py::str(array.dtype())));
  }
  if (array.ndim() != 2 || array.shape(0) != scene.ny || array.shape(1) != scene.nx) {
    throw std::invalid_argument(what + ": the grid's shape (ny, nx) = (" +
                                std::to_string(scene.ny) + ", " + std::to_string(scene.nx) +
                                "), not " + std::string(py::str(array.attr("shape"))));
  }
  return numpy.attr("ascontiguousarray")(array, py::dtype::of<T>()).template cast<py::array_t<T>>();
}

// An array of no wall is none: the scene is then the one without walls.
void set_walls(Scene& scene, py::handle value) {
  std::vector<std::uint8_t> walls;
  if (!value.is_none()) {
    auto const array = grid_values<bool>(scene, value, "Scene.walls", "b", "a bool array");
    bool const* cells = array.data();
    if (std::any_of(cells, cells + scene.cells(), [](bool wall) { return wall; })) {
      walls.assign(cells, cells + scene.cells());
    }
    // As a scene file's: the rule holds walls at 0, and a source there would be silent.
    for (std::size_t i = 0; i < scene.sources.size(); ++i) {
      auto const& source = scene.sources[i];  // in the grid: checked when the scene was made
      if (!walls.empty() && walls[scene.index(source.x, source.y)]) {
        throw std::invalid_argument("Scene.walls: a wall on source " + std::to_string(i) + " at (" +
                                    std::to_string(source.x) + ", " + std::to_string(source.y) +
                                    ") would silence it");
      }
    }
  }
  scene.walls = std::move(walls);
}

void set_speed(Scene& scene, py::handle value) {
  if (value.is_none()) {
    scene.speed.clear();
    return;
  }
  auto const speed =
      grid_values<float>(scene, value, "Scene.speed", "iuf", "an array of real numbers");
  scene.speed.assign(speed.data(), speed.data() + scene.cells());
}

void advance(AnySimulation& simulation, py::handle steps, py::object progress, py::handle every) {
  if (!progress.is_none() && !PyCallable_Check(progress.ptr())) {
    throw py::type_error("advance: progress must be callable (it is given the step)");
  }
  Progress const reporting{
      std::move(progress),
      every.is_none() ? std::nullopt : std::optional(step_count(every, "advance: every", 1))};
  simulation.advance(step_count(steps, "advance: steps"), reporting);
}

// ---- Runs -------------------------------------------------------------------------------

// A run in progress, for finalize(): released, it stops the run at its next report and
// waits until the run has let its Kokkos allocations go.
class RunningExperiment final : public Resource {
 public:
  struct State {
    std::mutex running;  // held by the run while it holds Kokkos allocations
    std::atomic<bool> released{false};
  };

  void release() override {
    auto const state = state_;  // the run may end, and this go, while it waits
    state->released = true;
    py::gil_scoped_release unlocked;
    std::lock_guard const ended(state->running);
  }
  State& state() { return *state_; }

 private:
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

// What run() returns: the run layer's result, what ran, and the state it ended at.
struct RunOutcome {
  RunResult result;
  std::string backend;
  std::string configuration;
  std::string space;
  py::object plan;
  py::array previous;
  py::array current;
  py::array receivers;
  std::int64_t receivers_first_step = 0;
  std::vector<std::string> notes;
};

// A float32 array of rows x columns that owns `values`.
py::array array_of(std::vector<float> values, std::size_t rows, std::size_t columns) {
  auto* owned = new std::vector<float>(std::move(values));
  py::capsule base(owned, [](void* p) { delete static_cast<std::vector<float>*>(p); });
  return py::array_t<float>({rows, columns}, owned->data(), base);
}

// False, or NumPy's (np.False_, as comparisons give it): what from a run's progress stops it.
bool is_false(py::handle value) {
  if (value.ptr() == Py_False) return true;
  std::string_view const type = Py_TYPE(value.ptr())->tp_name;
  return (type == "numpy.bool_" || type == "numpy.bool") && PyObject_IsTrue(value.ptr()) == 0;
}

// Steps the checked experiment on ExecutionSpace without the GIL, taking it back to report
// to `progress` (a RunProgress) and to check signals: False from it, an exception of it,
// Ctrl-C or finalize() stop the run where the run layer stops it (a last checkpoint where
// it writes them); the exception, KeyboardInterrupt or a RuntimeError is then raised.
template <class ExecutionSpace>
RunOutcome run_on(CheckedExperiment checked, py::object const& progress) {
  RunningExperiment running;
  auto& state = running.state();
  struct Here {
    Here() { ++runs_here; }
    ~Here() { --runs_here; }
  } const here;
  std::optional<py::error_already_set> raised;
  bool stop = false;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
  RunListener listener;
  listener.progress = [&](RunProgress const& at) {
    if (stop || state.released) return false;
    py::gil_scoped_acquire const held;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      stop = !progress.is_none() && is_false(progress(at));
    } catch (py::error_already_set& error) {
      raised.emplace(std::move(error));
      stop = true;
    }
    return !stop;
  };
  listener.note = [&](std::string const& note) { notes.push_back(note); };
  listener.warning = [&](std::string const& warning) { warnings.push_back(warning); };

  RunOutcome outcome;
  std::optional<Plan> plan;
  std::string estimate;
  std::vector<float> previous, current, trace;
  std::size_t ny = 0, nx = 0, rows = 0, receivers = 0;
  {
    std::lock_guard const holding(state.running);
    py::gil_scoped_release const unlocked;
    ExecutionSpace const space;
    Run<ExecutionSpace> run(space, std::move(checked));
    outcome.result = run.execute(listener);
    auto const& simulation = run.simulation();
    outcome.backend = run.backend();
    outcome.configuration = run.configuration();
    if (Plan const* chosen = run.plan()) {
      plan = *chosen;
      estimate = estimate_backend(space, simulation.window());
    }
    ny = simulation.current().extent(0);
    nx = simulation.current().extent(1);
    previous = to_host(space, simulation.previous());
    current = to_host(space, simulation.current());
    rows = simulation.receivers().extent(0);
    receivers = simulation.receivers().extent(1);
    trace = to_host(space, simulation.receivers());
    outcome.receivers_first_step = simulation.receivers_first_step();
  }
  if (raised) throw std::move(*raised);
  if (state.released) {
    throw std::runtime_error(
        "wave2d: Kokkos was finalized while running: the run stopped after step " +
        std::to_string(outcome.result.step));
  }
  for (auto const& warning : warnings) {
    if (PyErr_WarnEx(PyExc_RuntimeWarning, warning.c_str(), 1) != 0) throw py::error_already_set();
  }
  outcome.space = ExecutionSpace::name();
  outcome.plan = plan ? py::object(plan_dict(*plan, estimate)) : py::none();
  outcome.previous = array_of(std::move(previous), ny, nx);
  outcome.current = array_of(std::move(current), ny, nx);
  outcome.receivers = array_of(std::move(trace), rows, receivers);
  outcome.notes = std::move(notes);
  return outcome;
}

// The outputs run() takes: one, or an iterable of them.
Output output_of(py::handle item) {
  if (py::isinstance<NpyFile>(item)) return item.cast<NpyFile>();
  if (py::isinstance<Hdf5File>(item)) return item.cast<Hdf5File>();
  if (py::isinstance<Pictures>(item)) return item.cast<Pictures>();
  if (py::isinstance<ReceiverFiles>(item)) return item.cast<ReceiverFiles>();
  if (py::isinstance<Checkpoints>(item)) return item.cast<Checkpoints>();
  throw py::type_error(
      "run: outputs are wave2d.NpyFile, Hdf5File, Pictures, ReceiverFiles and Checkpoints, "
      "not a " +
      std::string(py::str(item.get_type().attr("__name__"))));
}

std::vector<Output> outputs_of(py::handle outputs) {
  if (!py::isinstance<py::iterable>(outputs)) return {output_of(outputs)};
  std::vector<Output> list;
  for (py::handle item : outputs) list.push_back(output_of(item));
  return list;
}

// The experiment as the program makes it of its options, checked before Kokkos starts,
// then run on its space.
RunOutcome run_experiment(py::handle scene, py::handle steps, std::string const& backend,
                          std::string const& space, std::string const& plan, py::handle outputs,
                          std::optional<fs::path> resume, py::object const& progress,
                          bool keep_last_finite, bool allow_unstable) {
  if (!progress.is_none() && !PyCallable_Check(progress.ptr())) {
    throw py::type_error("run: progress must be callable (it is given a wave2d.RunProgress)");
  }
  Experiment experiment = experiment_of(scene_file_of(scene));
  experiment.backend = backend;
  experiment.space = space;
  if (!steps.is_none()) experiment.steps = step_count(steps, "run: steps");
  experiment.validation = {.allow_unstable = allow_unstable,
                           .how_to_allow_unstable = "allow_unstable=True"};
  experiment.plan.mode = plan_mode(plan);
  experiment.outputs = outputs_of(outputs);
  experiment.resume = std::move(resume);
  experiment.keep_last_finite = keep_last_finite;
  CheckedExperiment checked = check(std::move(experiment));
  ensure_initialized();
  RunOutcome outcome;
  on_space(checked.experiment.space, [&]<class ExecutionSpace>() {
    outcome = run_on<ExecutionSpace>(std::move(checked), progress);
  });
  return outcome;
}

// The Python types of the library's errors.
py::exception<SceneError>* scene_error = nullptr;
py::exception<CheckpointError>* checkpoint_error = nullptr;
py::exception<NotFinite>* not_finite = nullptr;

}  // namespace

}  // namespace wave2d::python

using namespace wave2d;
using namespace wave2d::python;

PYBIND11_MODULE(wave2d, m) {
  m.doc() =
      "Explicit 2D wave-equation simulation on Kokkos execution spaces: scenes, simulations on "
      "the library's backends, fields as NumPy arrays, runs that write their outputs as the "
      "program does.";
  m.attr("__version__") = WAVE2D_VERSION;
  // NumPy's C API loaded now, once: loaded at first use, by two threads at once, the second
  // waited for the first's import holding the GIL, which the import needs (a hang).
  (void)py::array_t<float>(0);
  // As h5py does: errors reach Python as exceptions, not as HDF5's lines on stderr.
  wave2d::quiet_hdf5_errors();
  // Built without xxHash or HDF5, save/resume raise CheckpointError saying which.
  m.attr("has_checkpoints") = wave2d::can_checkpoint;
  // Built without HDF5 or libpng, run() refuses Hdf5File or Pictures with an OSError.
  m.attr("has_hdf5") = wave2d::can_use_hdf5;
  m.attr("has_pictures") = wave2d::can_write_png;
  // Built without toml++, Scene() of a file or a dict raises SceneError.
  m.attr("has_scene_files") = wave2d::can_read_scene_files;

  // The library's errors, with its messages: bad scenes, inputs and checkpoints are
  // ValueErrors, files that cannot be written OSErrors, what does not fit in memory
  // MemoryErrors, a field that stopped being finite an ArithmeticError.
  // Never destroyed: they would be after the interpreter.
  scene_error = new py::exception<SceneError>(m, "SceneError", PyExc_ValueError);
  checkpoint_error = new py::exception<CheckpointError>(m, "CheckpointError", PyExc_ValueError);
  not_finite = new py::exception<NotFinite>(m, "NotFinite", PyExc_ArithmeticError);
  not_finite->doc() =
      "The field of a run stopped being finite: u(t_step) is the first field that is not, "
      "first at cell (x, y) of the grid (attributes step and cell).";
  py::register_exception_translator([](std::exception_ptr error) {
    // A path's bytes that are not UTF-8 as os.fsdecode gives them (else no message at all).
    auto const raise = [](PyObject* type, std::string_view message) {
      py::object const text = py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(message.data(), py::ssize_t(message.size()), "surrogateescape"));
      PyErr_SetObject(type, text.ptr());
    };
    try {
      if (error) std::rethrow_exception(error);
    } catch (NotFinite const& e) {
      py::object const raised = py::handle(*not_finite)(e.what());
      raised.attr("step") = e.step();
      raised.attr("cell") = py::make_tuple(e.x(), e.y());
      PyErr_SetObject(not_finite->ptr(), raised.ptr());
    } catch (SceneError const& e) {
      raise(scene_error->ptr(), e.what());
    } catch (CheckpointError const& e) {
      raise(checkpoint_error->ptr(), e.what());
    } catch (InsufficientMemory const& e) {
      raise(PyExc_MemoryError, e.what());
    } catch (std::invalid_argument const& e) {
      // "wave2d::Simulation::set_state: ...": set_state is what Python called.
      std::string_view message = e.what();
      if (message.starts_with("wave2d::Simulation::")) message.remove_prefix(20);
      raise(PyExc_ValueError, message);
    } catch (OutputError const& e) {
      raise(PyExc_OSError, e.what());
    }
  });

  m.def("initialize", &initialize, py::arg("args") = std::vector<std::string>{},
        "Initialize Kokkos with these arguments (e.g. ['--kokkos-num-threads=2']); at most "
        "once, before the first simulation, which otherwise initializes it without any.");
  m.def(
      "is_initialized", [] { return Kokkos::is_initialized(); }, "Whether Kokkos is initialized.");
  m.def("finalize", &finalize,
        "Stop every run and let every simulation and field go, then finalize Kokkos; runs at "
        "exit by itself.");
  m.def("plan", &plan_scene, py::arg("scene"), py::arg("space") = "", py::arg("mode") = "measure",
        "What backend 'auto' chooses for the scene's grid on the space, as `wave2d plan` "
        "shows it: a dict of backend, mode, from_cache, ranking ([(backend, GCells/s)], "
        "fastest first), trial_seconds, notes, cache_file (or None), summary, estimate (the "
        "rule's choice, no trial) and key (device, space, threads, nx, ny, version). mode: "
        "'measure' (a trial, kept in the plan cache), 'cached' or 'estimate'.");
  m.def("backends", &backend_names,
        "The backends a Simulation takes: those of the default execution space, then the "
        "host's.");
  m.def("scenes", &builtin_names, "The built-in scenes' names.");
  m.def(
      "spaces",
      [] {
        std::vector<std::string> names;
        for_each_space(
            [&]<class ExecutionSpace>() { names.push_back(space_name<ExecutionSpace>()); });
        return names;
      },
      "The execution spaces a Simulation takes (space=), the default first.");
  m.def(
      "execution_space", [] { return std::string(Default::name()); },
      "The default execution space of this build's Kokkos.");

  // A scene and the files it was read from, which no run's output overwrites.
  py::class_<SceneFile>(m, "Scene",
                        "A scene: a built-in scene's name, a TOML scene file "
                        "(docs/scene-files.md) or a dict with the keys of one.")
      .def(py::init(&scene_file_of), py::arg("source"))
      .def_property(
          "name", [](SceneFile const& file) { return file.scene.name; },
          [](SceneFile& file, std::string name) { file.scene.name = std::move(name); })
      .def_property_readonly("nx", [](SceneFile const& file) { return file.scene.nx; })
      .def_property_readonly("ny", [](SceneFile const& file) { return file.scene.ny; })
      .def_property_readonly("c", [](SceneFile const& file) { return file.scene.c; })
      .def_property_readonly("dx", [](SceneFile const& file) { return file.scene.dx; })
      .def_property_readonly("dt", [](SceneFile const& file) { return file.scene.dt; })
      .def_property_readonly("t0", [](SceneFile const& file) { return file.scene.t0; })
      .def_property(
          "steps", [](SceneFile const& file) { return file.scene.steps; },
          [](SceneFile& file, std::int64_t steps) {
            if (steps < 0) throw py::value_error("Scene.steps must not be negative");
            file.scene.steps = steps;
          },
          "The scene's default number of steps.")
      .def_property(
          "walls",
          [](SceneFile const& file) { return grid_copy<bool>(file.scene, file.scene.walls); },
          [](SceneFile& file, py::handle walls) { set_walls(file.scene, walls); },
          "A (ny, nx) bool array, True on walls: a read-only copy. Assign a bool array of the "
          "grid's shape to change them, None for none.")
      .def_property(
          "speed",
          [](SceneFile const& file) -> py::object {
            if (file.scene.speed.empty()) return py::none();
            return grid_copy<float>(file.scene, file.scene.speed);
          },
          [](SceneFile& file, py::handle speed) { set_speed(file.scene, speed); },
          "The wave speed of each cell, a (ny, nx) float32 array (a read-only copy), or None "
          "where it is c everywhere. Assign an array of real numbers of the grid's shape, or "
          "None; its values are checked when the scene runs.")
      .def_property_readonly(
          "sources", [](SceneFile const& file) { return cells_of(file.scene.sources); },
          "The sources' cells, (x, y).")
      .def_property_readonly(
          "receivers", [](SceneFile const& file) { return cells_of(file.scene.receivers); },
          "The receivers' cells, (x, y): the columns of Simulation.receivers.")
      .def_property_readonly(
          "receiver_names",
          [](SceneFile const& file) {
            std::vector<std::string> names;
            for (std::size_t i = 0; i < file.scene.receivers.size(); ++i) {
              names.push_back(receiver_name(file.scene, i));
            }
            return names;
          },
          "The receivers' names, 'r<index>' for those the scene leaves unnamed.")
      .def_property_readonly(
          "files", [](SceneFile const& file) { return file.files; },
          "The files it was read from (the scene file, its masks), which run() and "
          "Simulation.save_checkpoint never write over.")
      .def(
          "courant_number", [](SceneFile const& file) { return courant_number(file.scene); },
          "c*dt/dx of the fastest cell; a run needs it at most 1/sqrt(2).")
      .def("__repr__", [](SceneFile const& file) {
        Scene const& scene = file.scene;
        return "<wave2d.Scene '" + scene.name + "' " + std::to_string(scene.nx) + " x " +
               std::to_string(scene.ny) + ", " + std::to_string(scene.steps) + " steps>";
      });

  py::class_<AnySimulation>(m, "Simulation",
                            "A scene stepped by one backend, from u = 0 at step 0.")
      .def(py::init(&make_simulation), py::arg("scene"), py::arg("backend") = "auto",
           py::arg("allow_unstable") = false, py::arg("space") = "", py::arg("plan") = "cached",
           "backend 'auto' chooses the fastest of the space's for the grid (plan: 'cached', "
           "'measure' or 'estimate'); space: one of spaces(), default the default's.")
      .def("advance", &advance, py::arg("steps") = 1, py::arg("progress") = py::none(),
           py::arg("every") = py::none(),
           "Advance by this many steps, in chunks without the GIL. progress(step), if given, "
           "is called after every `every` steps (None: about every 0.1 s) and after the "
           "last; it may read the simulation. Ctrl-C (KeyboardInterrupt), or an exception "
           "of progress, stops it between chunks, where `step` says.")
      .def("reset", &AnySimulation::reset, "Back to u = 0 at step 0.")
      .def(
          "set_state",
          [](AnySimulation& simulation, py::handle previous, py::handle current, py::handle step) {
            simulation.set_state(
                previous, current,
                step_count(step, "set_state: step", 0, Simulation<Host>::max_steps));
          },
          py::arg("previous"), py::arg("current"), py::arg("step"),
          "Continue from u(t_{step-1}), u(t_step): (ny, nx) arrays of finite numbers, "
          "copied (views of this simulation's own fields too); the receivers' trace restarts "
          "there.")
      .def_property_readonly("previous", &AnySimulation::previous,
                             "u(t_{n-1}), (ny, nx) float32: a read-only view of the "
                             "simulation's memory on a host space (it changes with advance(); "
                             ".copy() keeps it), a copy from a GPU.")
      .def_property_readonly("current", &AnySimulation::current, "u(t_n), as previous.")
      .def_property_readonly(
          "receivers", &AnySimulation::receivers,
          "The receivers' trace, (rows, receivers) float32: row r holds u at scene.receivers "
          "after receivers_first_step + r steps, up to step (so step + 1 rows from step 0). "
          "A read-only view on a host space (reset(), set_state() and resume() overwrite it; "
          ".copy() keeps it), a copy from a GPU.")
      .def_property_readonly("receivers_first_step", &AnySimulation::receivers_first_step,
                             "The step of the trace's row 0: 0, or the step of set_state(), or "
                             "where a resumed checkpoint's trace began.")
      .def_property_readonly("step", &AnySimulation::step, "n, the steps done.")
      .def_property_readonly("time", &AnySimulation::time)
      .def_property_readonly("backend", &AnySimulation::backend)
      .def_property_readonly("configuration", &AnySimulation::configuration,
                             "What the backend runs for this grid.")
      .def_property_readonly("space", &AnySimulation::space, "The execution space it runs on.")
      .def_property_readonly("scene", &AnySimulation::scene_file)
      .def_property_readonly("plan", &AnySimulation::plan,
                             "How backend 'auto' chose, as wave2d.plan() gives it; None when "
                             "the backend was named.")
      .def("save_checkpoint", &AnySimulation::save_checkpoint, py::arg("path"),
           "Write the state as a checkpoint file (the format `wave2d run` writes); never over "
           "the files its scene was read from.")
      .def("resume", &AnySimulation::resume, py::arg("path"),
           "Continue from a checkpoint of the same scene (receivers included), backend and "
           "wave2d; its receivers' trace too.");

  // The outputs of run(), as Experiment's (run/wave2d_Experiment.hpp).
  py::class_<NpyFile>(m, "NpyFile",
                      "The final pair (u(t_{n-1}), u(t_n)) as a float32 NumPy array of shape "
                      "(2, ny, nx).")
      .def(py::init([](fs::path path) { return NpyFile{std::move(path)}; }), py::arg("path"))
      .def_readwrite("path", &NpyFile::path)
      .def("__repr__", [](NpyFile const& o) {
        return py::str("wave2d.NpyFile({!r})").format(o.path.string());
      });
  py::class_<Hdf5File>(m, "Hdf5File",
                       "One HDF5 file and its XDMF sidecar <path>.xmf: the final pair "
                       "(/field/previous, /field/current), the frames /frames/u (step 0, every "
                       "frames_every steps and the last; none when None) and, with receivers, "
                       "the receivers' trace of the whole run (/receivers/trace).")
      .def(py::init([](fs::path path, std::optional<std::int64_t> frames_every, bool receivers) {
             return Hdf5File{std::move(path), frames_every, receivers};
           }),
           py::arg("path"), py::arg("frames_every") = py::none(), py::arg("receivers") = true)
      .def_readwrite("path", &Hdf5File::path)
      .def_readwrite("frames_every", &Hdf5File::frames_every)
      .def_readwrite("receivers", &Hdf5File::receivers)
      .def("__repr__", [](Hdf5File const& o) {
        return py::str("wave2d.Hdf5File({!r}, frames_every={!r}, receivers={!r})")
            .format(o.path.string(), o.frames_every, o.receivers);
      });
  py::class_<Pictures>(m, "Pictures",
                       "PNG pictures in `directory` (made when missing), named after `stem` "
                       "(empty: the scene's name): the final field <stem>.png; with "
                       "frames_every the frames <stem>.<step>.png and, with video and ffmpeg on "
                       "PATH, <stem>.mp4. The colours saturate at |u| = scale, or at each "
                       "picture's largest |u| when scale is None.")
      .def(py::init([](fs::path directory, std::string stem, std::optional<float> scale,
                       std::optional<std::int64_t> frames_every, bool video) {
             return Pictures{std::move(directory), std::move(stem), scale, frames_every, video};
           }),
           py::arg("directory") = "out", py::arg("stem") = "", py::arg("scale") = 1.0f,
           py::arg("frames_every") = py::none(), py::arg("video") = true)
      .def_readwrite("directory", &Pictures::directory)
      .def_readwrite("stem", &Pictures::stem)
      .def_readwrite("scale", &Pictures::scale)
      .def_readwrite("frames_every", &Pictures::frames_every)
      .def_readwrite("video", &Pictures::video)
      .def("__repr__", [](Pictures const& o) {
        return py::str(
                   "wave2d.Pictures({!r}, stem={!r}, scale={!r}, frames_every={!r}, video={!r})")
            .format(o.directory.string(), o.stem, o.scale, o.frames_every, o.video);
      });
  py::class_<ReceiverFiles>(m, "ReceiverFiles",
                            "The receivers' trace of the whole run as <stem>.receivers.npy and "
                            ".csv in `directory` (made when missing; stem empty: the scene's "
                            "name), with plot its plot .png (by default where this build "
                            "plots).")
      .def(py::init([](fs::path directory, std::string stem, bool plot) {
             return ReceiverFiles{std::move(directory), std::move(stem), plot};
           }),
           py::arg("directory") = "out", py::arg("stem") = "",
           py::arg("plot") = can_plot_receivers())
      .def_readwrite("directory", &ReceiverFiles::directory)
      .def_readwrite("stem", &ReceiverFiles::stem)
      .def_readwrite("plot", &ReceiverFiles::plot)
      .def("__repr__", [](ReceiverFiles const& o) {
        return py::str("wave2d.ReceiverFiles({!r}, stem={!r}, plot={!r})")
            .format(o.directory.string(), o.stem, o.plot);
      });
  py::class_<Checkpoints>(m, "Checkpoints",
                          "The state and the receivers' trace as the checkpoint `path`, every "
                          "`every` steps, at the end and when the run is stopped; run(..., "
                          "resume=path) goes on from it.")
      .def(py::init([](fs::path path, std::int64_t every) {
             return Checkpoints{std::move(path), every};
           }),
           py::arg("path"), py::arg("every"))
      .def_readwrite("path", &Checkpoints::path)
      .def_readwrite("every", &Checkpoints::every)
      .def("__repr__", [](Checkpoints const& o) {
        return py::str("wave2d.Checkpoints({!r}, every={!r})").format(o.path.string(), o.every);
      });

  py::class_<RunProgress>(m, "RunProgress", "Where a run is, as its progress callback is told.")
      .def_readonly("step", &RunProgress::step, "The step reached.")
      .def_readonly("first_step", &RunProgress::first_step,
                    "Where the run began: 0, or the step of the checkpoint resumed.")
      .def_readonly("last_step", &RunProgress::last_step, "Where it ends.")
      .def_readonly("cells", &RunProgress::cells, "Of the grid.")
      .def_readonly("seconds", &RunProgress::seconds, "Of stepping so far, fenced.")
      .def("__repr__", [](RunProgress const& p) {
        return "<wave2d.RunProgress step " + std::to_string(p.step) + " of " +
               std::to_string(p.first_step) + " .. " + std::to_string(p.last_step) + ">";
      });
  py::class_<WrittenOutput>(m, "Written", "An output a run wrote, complete.")
      .def_readonly("kind", &WrittenOutput::kind,
                    "npy, hdf5, picture, frames, video, receivers or checkpoint.")
      .def_readonly("files", &WrittenOutput::files)
      .def_readonly("text", &WrittenOutput::text, "As `wave2d run` says it after 'wrote'.")
      .def("__repr__", [](WrittenOutput const& w) {
        return "<wave2d.Written " + w.kind + ": " + w.text + ">";
      });
  py::class_<RunOutcome>(m, "RunResult", "What run() did, and the state it ended at.")
      .def_property_readonly(
          "step", [](RunOutcome const& r) { return r.result.step; }, "The step reached.")
      .def_property_readonly(
          "first_step", [](RunOutcome const& r) { return r.result.first_step; },
          "Where the run began: 0, or the step of the checkpoint resumed.")
      .def_property_readonly(
          "seconds", [](RunOutcome const& r) { return r.result.seconds; },
          "Of the stepping alone, fenced.")
      .def_property_readonly("gcells_per_second",
                             [](RunOutcome const& r) { return r.result.gcells_per_second(); })
      .def_property_readonly(
          "stopped", [](RunOutcome const& r) { return r.result.stopped; },
          "Stopped by progress before the end: no final outputs; the checkpoint, where the run "
          "writes them, holds `step`.")
      .def_property_readonly(
          "checkpoint", [](RunOutcome const& r) { return r.result.checkpoint; },
          "The path of the last checkpoint written, at `step`; None when none was.")
      .def_property_readonly(
          "written", [](RunOutcome const& r) { return r.result.written; },
          "The outputs written, wave2d.Written, in the order they were.")
      .def_readonly("backend", &RunOutcome::backend)
      .def_readonly("configuration", &RunOutcome::configuration,
                    "What the backend ran for this grid.")
      .def_readonly("space", &RunOutcome::space, "The execution space it ran on.")
      .def_readonly("plan", &RunOutcome::plan,
                    "How backend 'auto' chose, as wave2d.plan() gives it; None when the "
                    "backend was named or the checkpoint resumed named it.")
      .def_readonly("previous", &RunOutcome::previous, "u(t_{step-1}), a (ny, nx) float32 copy.")
      .def_readonly("current", &RunOutcome::current, "u(t_step), a (ny, nx) float32 copy.")
      .def_readonly("receivers", &RunOutcome::receivers,
                    "The receivers' trace, (rows, receivers) float32: row r holds u at "
                    "scene.receivers after receivers_first_step + r steps, up to step.")
      .def_readonly("receivers_first_step", &RunOutcome::receivers_first_step)
      .def_readonly("notes", &RunOutcome::notes,
                    "What the run noted: the plan cache's problems, no ffmpeg for the video.")
      .def("__repr__", [](RunOutcome const& r) {
        return "<wave2d.RunResult " + r.backend + ", steps " + std::to_string(r.result.first_step) +
               " .. " + std::to_string(r.result.step) + (r.result.stopped ? ", stopped>" : ">");
      });

  m.def("run", &run_experiment, py::arg("scene"), py::arg("steps") = py::none(),
        py::arg("backend") = "auto", py::arg("space") = "", py::arg("plan") = "cached",
        py::arg("outputs") = py::tuple(), py::arg("resume") = py::none(),
        py::arg("progress") = py::none(), py::arg("keep_last_finite") = false,
        py::arg("allow_unstable") = false,
        "Run the scene as `wave2d run` does, writing `outputs` (NpyFile, Hdf5File, Pictures, "
        "ReceiverFiles, Checkpoints), and return a RunResult. steps: from step 0 (None: the "
        "scene's); resume: a checkpoint to go on from (backend 'auto' takes its backend). "
        "Everything is checked before a step runs. progress(RunProgress) is called after "
        "each chunk of steps, without the GIL between: False from it (NumPy's too) stops the run "
        "(after a "
        "last checkpoint, where it writes them; result.stopped); an exception of it or "
        "Ctrl-C stops it so too, then is raised. A field that stops being finite raises "
        "NotFinite (keep_last_finite: after writing the outputs of the last finite state).");

  // Kokkos goes at exit, after every simulation and field lets it go.
  py::module_::import("atexit").attr("register")(py::cpp_function(&finalize));
}
