// wave2d: run the library's scenes from the command line.
#include <cli/wave2d_Commands.hpp>
#include <cli/wave2d_KokkosArguments.hpp>
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_ReceiverFiles.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/run/wave2d_KokkosArguments.hpp>
#include <wave2d/run/wave2d_Spaces.hpp>
#include <wave2d/scene/wave2d_Scene.hpp>
#include <wave2d/wave2d_Config.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <CLI/CLI.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

namespace {

using namespace wave2d;
using namespace wave2d::cli;

// Whether this build splits a run over MPI ranks.
bool constexpr has_mpi =
#if defined(WAVE2D_HAVE_MPI)
    true;
#else
    false;
#endif

// Ends the help of an option that needs what the build lacks.
std::string unless_built(bool built, char const* note) {
  return built ? "" : std::string(" (") + note + ")";
}
std::string unless_scene_files() {
  return unless_built(can_read_scene_files, "not in this build: scene files need toml++");
}

// The version, Kokkos', and which of the features of optional libraries this build has.
std::string version() {
  std::pair<char const*, bool> const features[] = {
      {"scene files", can_read_scene_files},     {"PNG", can_write_png},
      {"receivers' plot", can_plot_receivers()}, {"HDF5", can_use_hdf5},
      {"checkpoints", can_checkpoint},           {"MPI", has_mpi}};
  std::string with, without;
  for (auto const& [name, there] : features) {
    std::string& list = there ? with : without;
    list += (list.empty() ? "" : ", ") + std::string(name);
  }
  return "wave2d " WAVE2D_VERSION " (Kokkos " + std::to_string(KOKKOS_VERSION_MAJOR) + "." +
         std::to_string(KOKKOS_VERSION_MINOR) + "." + std::to_string(KOKKOS_VERSION_PATCH) +
         ", default execution space " + Kokkos::DefaultExecutionSpace::name() +
         (with.empty() ? "" : "; with " + with) + (without.empty() ? "" : "; without " + without) +
         ")";
}

// The error for `text` unless it is a whole number of at least `least` (0 or 1), written
// as digits only.
std::string check_count(std::string const& text, std::int64_t least) {
  std::int64_t value = 0;
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range && end == text.data() + text.size()) {
    return "must be at most " + std::to_string(std::numeric_limits<std::int64_t>::max()) +
           ", got '" + text + "'";
  }
  if (error != std::errc() || end != text.data() + text.size() || value < least) {
    return std::string("must be a ") + (least > 0 ? "positive" : "non-negative") +
           " whole number, got '" + text + "'";
  }
  return {};
}

CLI::Validator count_of_at_least(std::int64_t least) {
  return CLI::Validator([least](std::string& text) { return check_count(text, least); }, "");
}

// A positive, finite number of seconds.
CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0.0;
        auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || !(value > 0.0) ||
            !std::isfinite(value)) {
          return "must be a positive number of seconds, got '" + text + "'";
        }
        return {};
      },
      "");
}

// "PxQ", P and Q whole numbers written as digits only, or "auto" (0 x 0: MPI's choice).
std::array<int, 2> parse_ranks(std::string const& text) {
#if !defined(WAVE2D_HAVE_MPI)
  throw CLI::ValidationError("--ranks",
                             "this build of wave2d has no MPI (install "
                             "libopenmpi-dev and rebuild)");
#endif
  if (text == "auto") return {0, 0};
  auto const number = [&](std::string_view digits) {
    int value = 0;
    auto const [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || digits.find_first_not_of("0123456789") != digits.npos ||
        error != std::errc() || end != digits.data() + digits.size() || value < 1) {
      throw CLI::ValidationError("--ranks", "expected PxQ (e.g. 2x2, each from 1 to " +
                                                std::to_string(std::numeric_limits<int>::max()) +
                                                ") or auto, got '" + text + "'");
    }
    return value;
  };
  auto const x = text.find('x');
  std::string_view const all(text);
  return {number(all.substr(0, x)), number(x == all.npos ? "" : all.substr(x + 1))};
}

// A positive amplitude, or nothing for "auto".
std::optional<float> parse_scale(std::string const& text) {
  if (text == "auto") return std::nullopt;
  float value = 0.0f;
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value > 0.0f) ||
      !std::isfinite(value)) {
    throw CLI::ValidationError("--scale",
                               "expected a positive amplitude or auto, got '" + text + "'");
  }
  return value;
}

void add_run_options(CLI::App& run, RunOptions& options) {
  run.add_option(
         "--scene", options.scene,
         "A built-in scene (see `wave2d scenes`) or a TOML scene file" + unless_scene_files())
      ->required()
      ->type_name("NAME|FILE");
  run.add_option("--backend", options.backend,
                 "The backend that steps the scene; auto: the fastest of the space's for this "
                 "grid (see `wave2d backends`)")
      ->capture_default_str()
      ->type_name("NAME");
  run.add_option("--space", options.space,
                 "The execution space: " + compiled_spaces() +
                     " (default: " + space_name<Kokkos::DefaultExecutionSpace>() +
                     ", or the host's for a "
                     "backend only it has)")
      ->type_name("SPACE");
  run.add_option("--plan", options.plan_mode,
                 "How auto chooses: cached (the default: the plan cache, else a trial that is "
                 "then kept), measure (a trial), estimate (a rule, no trial)")
      ->check(CLI::IsMember({"cached", "measure", "estimate"}))
      ->type_name("MODE");
  run.add_option("--steps", options.steps, "Number of time steps (default: the scene's)")
      ->check(count_of_at_least(0))
      ->type_name("N");
  run.add_option("--output", options.output_directory,
                 "Directory for the images and the video, created if missing")
      ->capture_default_str()
      ->type_name("DIR");
  run.add_option("--frames-every", options.frames_every,
                 "Also write DIR/<scene>.<step>.png at step 0, every K steps and at the end, "
                 "and with ffmpeg on PATH the video DIR/<scene>.mp4" +
                     unless_built(can_write_png, "no pictures in this build: they need libpng"))
      ->check(count_of_at_least(1))
      ->type_name("K");
  run.add_option_function<std::string>(
         "--scale", [&options](std::string const& text) { options.scale = parse_scale(text); },
         "The |u| at which the pictures' colours saturate (default 1), or auto: each "
         "picture's largest |u|; a colour bar beside the field gives the limits" +
             unless_built(can_write_png, "no pictures in this build: they need libpng"))
      ->type_name("A|auto");
  run.add_option("--save-npy", options.npy_file,
                 "Write [u(t_{n-1}), u(t_n)] as a float32 NumPy array of shape (2, ny, nx)")
      ->type_name("FILE");
  run.add_option("--save-h5", options.h5_file,
                 "Write the final pair of fields, the frames (with --frames-every) and the "
                 "receivers' traces to one HDF5 file, with FILE.xmf for ParaView and VisIt" +
                     unless_built(can_use_hdf5, "not in this build: it has no HDF5"))
      ->type_name("FILE");
  run.add_flag("--allow-unstable", options.allow_unstable,
               "Run even when c*dt/dx exceeds the stability bound (1/sqrt(2), less in the "
               "absorbing layer)");
  run.add_option_function<std::string>(
         "--ranks",
         [&options](std::string const& text) {
           options.ranks = parse_ranks(text);
           options.ranks_text = text;
         },
         "Under mpirun: split the grid over P x Q ranks, or 'auto' for MPI's choice "
         "(the default for a job of several ranks)" +
             unless_built(has_mpi, "not in this build: it has no MPI"))
      ->type_name("PxQ");
  run.add_option_function<std::string>(
         "--overlap", [&options](std::string const& text) { options.overlap = text == "yes"; },
         "Under mpirun: whether each rank steps its window while its halos travel (default: "
         "yes on GPUs, no on CPUs, whose cores would be those that run MPI)" +
             unless_built(has_mpi, "not in this build: it has no MPI"))
      ->check(CLI::IsMember({"yes", "no"}))
      ->type_name("yes|no");
  run.add_flag("--no-receivers", options.no_receivers,
               "Do not write the scene's receivers' traces (DIR/<scene>.receivers.npy, .csv, "
               ".png, and the --save-h5 file's /receivers), written by default when it has "
               "receivers");
  run.add_flag("--keep-last-finite", options.keep_last_finite,
               "When the field stops being finite, still write the last finite state's "
               "image, arrays and receivers' files (the run fails all the same)");
  run.add_option_function<std::vector<std::string>>(
         "--checkpoint-every",
         [&options](std::vector<std::string> const& values) {
           if (auto const error = check_count(values[0], 1); !error.empty()) {
             throw CLI::ValidationError("--checkpoint-every", "STEPS " + error);
           }
           options.checkpoint_every = std::stoll(values[0]);
           options.checkpoint_file = values[1];
         },
         "Write the fields and the step to FILE (atomically) every STEPS steps, at the end, "
         "and on SIGINT, SIGTERM or SIGHUP, which then end the run" +
             unless_built(can_checkpoint, "not in this build: checkpoints need HDF5 and xxHash"))
      ->expected(2)
      ->option_text("STEPS FILE");  // the values' names, without CLI11's " x 2"
  run.add_option("--progress", options.progress,
                 "On stderr: bar (redrawn in place), lines (one every --progress-every "
                 "seconds), none; auto: a bar on a terminal, else lines")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "bar", "lines", "none"}))
      ->type_name("STYLE");
  run.add_option("--progress-every", options.progress_every, "Seconds between progress lines")
      ->capture_default_str()
      ->check(positive_seconds())
      ->type_name("SECONDS");
  run.add_option(
         "--resume", options.resume_file,
         "Continue the run from a checkpoint of the same scene, backend, space and wave2d "
         "(without --backend and --space, those of the checkpoint); --steps counts from step 0" +
             unless_built(can_checkpoint, "not in this build: checkpoints need HDF5 and xxHash"))
      ->type_name("FILE");
}

}  // namespace

namespace wave2d::cli {

void check_arguments(std::vector<char*> const& kokkos_arguments) {
  try {
    check_kokkos_arguments(kokkos_arguments);
  } catch (std::invalid_argument const& e) {
    throw InputError(e.what());
  }
}

namespace {

bool error_reporter = true;  // false on the ranks of an MPI job other than 0
bool error_reported = false;
bool ranks_met = false;
std::string unreported;  // the error a rank other than 0 kept to itself

// Under mpirun, by the variables Open MPI and MPICH's launchers set.
int launched(char const* open_mpi, char const* mpich, int otherwise) {
  for (char const* variable : {open_mpi, mpich}) {
    if (char const* value = std::getenv(variable)) return std::atoi(value);
  }
  return otherwise;
}

}  // namespace

int launched_ranks() { return launched("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1); }
int launched_local_ranks() { return launched("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", 1); }

void report_errors(bool here, bool met) {
  error_reporter = here;
  ranks_met = met;
}

namespace {

// Where a cut of `text` at about `at` may fall: not inside a UTF-8 character.
std::size_t character_start(std::string_view text, std::size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xc0) == 0x80) --at;
  return at;
}

}  // namespace

std::string one_line(std::string_view text) {
  // A value quoted whole could make a line of megabytes (a scene file's string, a mask's
  // number): a long text keeps its start and its end, which say where and what.
  constexpr std::size_t longest = 6000;
  constexpr std::size_t head = 4500;
  constexpr std::size_t tail = 1000;
  if (text.size() > longest) {
    std::size_t const head_end = character_start(text, head);
    std::size_t const tail_start = character_start(text, text.size() - tail);
    return one_line(text.substr(0, head_end)) + " [... " + std::to_string(tail_start - head_end) +
           " bytes left out ...] " + one_line(text.substr(tail_start));
  }
  std::string line;
  for (char const c : text) {
    auto const code = static_cast<unsigned char>(c);
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\t') {
      line += "\\t";
    } else if (code < 0x20 || code == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", code);
      line += escaped;
    } else {
      line += c;
    }
  }
  return line;
}

void report_error(std::string const& message) {
  if (!error_reporter && unreported.empty()) unreported = message;
  if (!error_reporter || error_reported) return;
  // One write: mpirun's banner, written beside it, cannot cut it in two.
  std::string const line = "wave2d: error: " + one_line(message) + "\n";
  std::fflush(stderr);
  if (::write(STDERR_FILENO, line.data(), line.size()) < 0) {
    // nowhere left to say it
  }
  error_reported = true;
}

namespace {

// The exit status of a failure. mpirun ends the job once one rank has failed, rank 0 with
// it: a rank other than 0 that failed before the ranks met (the command line, a command
// refused under mpirun; every rank fails alike) waits for that end, so that rank 0 has
// written why first. A failure rank 0 did not share outlasts the wait and is said here.
int failing(int status) {
  if (!error_reporter && !ranks_met) {
    std::this_thread::sleep_for(std::chrono::seconds(10));
    error_reporter = true;
    report_error("rank " + std::to_string(launched("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0)) + ": " +
                 unreported);
  }
  return status;
}

// CLI11's message, or ours where it reads oddly: `first`, the first argument where no
// command was recognized.
std::string usage_error(CLI::ParseError const& e, char const* first) {
  std::string const message = e.what();
  if (message.starts_with("A subcommand is required")) {
    std::string const commands = "scenes, backends, plan or run";
    if (first == nullptr || std::string_view(first).starts_with("-")) {
      return "a command is required: " + commands;
    }
    return "unknown command '" + std::string(first) + "': " + commands;
  }
  // "--steps: At Most 1 required but received 2": an option given twice.
  static std::regex const repeated("(-[^:]*): At Most 1 required but received [0-9]+");
  if (std::smatch match; std::regex_match(message, match, repeated)) {
    return match[1].str() + ": given more than once; give it once";
  }
  return message;
}

}  // namespace

bool is_input_error(std::exception const& e) {
  return dynamic_cast<InputError const*>(&e) != nullptr ||
         dynamic_cast<wave2d::SceneError const*>(&e) != nullptr;
}

}  // namespace wave2d::cli

int main(int argc, char* argv[]) {
  wave2d::quiet_hdf5_errors();
  // A file-size limit (ulimit -f) or a reader gone from a pipe fails the write with an error
  // (EFBIG, EPIPE) instead of ending the program before it removes its temporary files and
  // says why. Programs it starts get both back (run_program).
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  // Kokkos takes its own --kokkos-* arguments; CLI11 gets the others, and would refuse them.
  std::vector<char*> kokkos_arguments{argv[0]};
  std::vector<char*> arguments{argv[0]};
  for (int i = 1; i < argc; ++i) {
    bool const for_kokkos = std::string_view(argv[i]).starts_with("--kokkos-");
    (for_kokkos ? kokkos_arguments : arguments).push_back(argv[i]);
  }
  // As --help: whatever else is asked.
  if (asks_for_kokkos_help(kokkos_arguments)) {
    print_kokkos_help(argv[0]);
    return 0;
  }

  CLI::App app{"Explicit 2D wave-equation simulation on Kokkos execution spaces.", "wave2d"};
  app.set_version_flag("--version", version());
  app.require_subcommand(1);
  app.footer(
      "Arguments --kokkos-* (--kokkos-num-threads=N, --kokkos-device-id=N, ...) go to "
      "Kokkos: --kokkos-help lists them.");
  CLI::App* scenes = app.add_subcommand("scenes", "List the built-in scenes");
  CLI::App* backends =
      app.add_subcommand("backends", "List the backends `run` accepts, per execution space");
  std::string backends_scene;
  backends
      ->add_option("--scene", backends_scene,
                   "Also say what auto chooses for this scene (a built-in one or a TOML scene "
                   "file) on each space" +
                       unless_scene_files())
      ->type_name("NAME|FILE");
  CLI::App* plan = app.add_subcommand(
      "plan", "Measure auto's candidates for a scene and print them ranked (keeps the plan)");
  std::string plan_scene;
  std::string plan_space;
  plan->add_option("--scene", plan_scene,
                   "A built-in scene or a TOML scene file" + unless_scene_files())
      ->required()
      ->type_name("NAME|FILE");
  plan->add_option("--space", plan_space, "The execution space: " + compiled_spaces())
      ->type_name("SPACE");
  CLI::App* run = app.add_subcommand(
      "run", "Simulate a scene; write its final field as DIR/<scene>.png, and more on request");
  RunOptions options;
  add_run_options(*run, options);

  // Under mpirun, rank 0 alone says what went wrong, and alone prints help, the version
  // and the lists (every rank would print the same).
  bool const first_rank = launched("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0) == 0;
  report_errors(first_rank, false);
  try {
    app.parse(int(arguments.size()), arguments.data());
  } catch (CLI::ParseError const& e) {
    if (e.get_exit_code() == int(CLI::ExitCodes::Success)) {  // help, version
      return first_rank ? app.exit(e) : 0;
    }
    std::string const command = *run ? "run " : *plan ? "plan " : *backends ? "backends " : "";
    report_error(usage_error(e, command.empty() && arguments.size() > 1 ? arguments[1] : nullptr) +
                 " (see wave2d " + command + "--help)");
    return failing(exit_input_error);
  }

  try {
    check_arguments(kokkos_arguments);  // what no command uses is still refused when wrong
    if (*scenes) {
      if (first_rank) list_scenes(std::cout);
    } else if (*backends && backends_scene.empty()) {
      if (first_rank) list_backends(std::cout);
    } else if (*backends) {
      list_backends_for(std::cout, backends_scene, kokkos_arguments);
    } else if (*plan) {
      plan_command(plan_scene, plan_space, kokkos_arguments);
    } else if (*run) {
      run_command(options, kokkos_arguments);
    }
    return 0;
  } catch (std::bad_alloc const&) {  // past the memory check: what it could not foresee
    report_error("out of memory");
    return failing(exit_runtime_failure);
  } catch (std::exception const& e) {
    report_error(e.what());
    return failing(is_input_error(e) ? exit_input_error : exit_runtime_failure);
  }
}
