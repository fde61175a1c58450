// The subcommands of the `wave2d` program and the errors that choose its exit status.
#ifndef WAVE2D_CLI_COMMANDS_HPP
#define WAVE2D_CLI_COMMANDS_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wave2d::cli {

// A problem with what the user asked for (exit status 2), found before any output is
// made. Anything else that fails is a runtime failure (exit status 1).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int exit_runtime_failure = 1;
inline constexpr int exit_input_error = 2;

// An InputError, or the library's SceneError.
bool is_input_error(std::exception const& e);

// check_kokkos_arguments (run/wave2d_KokkosArguments.hpp), its refusal an InputError.
void check_arguments(std::vector<char*> const& kokkos_arguments);

// "1 receiver", "3 receivers": a count and its noun, in agreement.
inline std::string counted(std::int64_t count, std::string const& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

struct RunOptions {
  std::string scene;  // a built-in scene's name, or a scene file
  std::string backend = "auto";
  std::string space;                     // --space; empty: Kokkos' default execution space
  std::optional<std::string> plan_mode;  // --plan: how auto chooses (default: cached)
  std::optional<std::int64_t> steps;     // the scene's own when not given
  std::string output_directory = "out";
  std::optional<std::int64_t> frames_every;
  std::optional<std::string> npy_file;
  std::optional<std::string> h5_file;  // --save-h5
  std::optional<float> scale = 1.0f;   // --scale: the pictures' amplitude; empty: "auto"
  bool allow_unstable = false;
  bool keep_last_finite = false;
  bool no_receivers = false;  // skip the receivers' files and the HDF5 file's trace
  // --ranks PxQ (0 x 0: "auto"): a distributed run, under mpirun; ranks_text as given.
  std::optional<std::array<int, 2>> ranks;
  std::string ranks_text;
  // --overlap yes|no: whether the ranks step while their halos travel; empty: the space's
  // default (DistributedSimulation::Options::overlap).
  std::optional<bool> overlap;
  std::string progress = "auto";  // --progress: auto, bar, lines or none
  double progress_every = 10.0;   // seconds between progress lines
  // --checkpoint-every STEPS FILE: the checkpoint every STEPS steps, at the end and on SIGINT,
  // SIGTERM or SIGHUP.
  std::optional<std::int64_t> checkpoint_every;
  std::string checkpoint_file;
  std::optional<std::string> resume_file;  // continues from this checkpoint
};

// Prints "wave2d: error: <message>" once, and only where report_errors(true) was said last
// (rank 0 of an MPI job; the other ranks say nothing, so that an error shows once).
// `ranks_met`: the ranks have met in MPI, whose finalization no rank leaves before rank 0 has
// reported; before that, failing() holds the other ranks back.
void report_error(std::string const& message);
void report_errors(bool here, bool ranks_met);

// `text` with its control characters as escapes (\n, \x1b): a path or scene name that holds
// a line break still makes one line. Beyond 6000 bytes, its first 4500 and last 1000 with
// how many were left out between them.
std::string one_line(std::string_view text);

// How many ranks mpirun started (1 outside an MPI job), in all and on this node.
int launched_ranks();
int launched_local_ranks();

// `kokkos_arguments` (the program's name first) initialize Kokkos, which only the run
// needs.
void run_command(RunOptions options, std::vector<char*> kokkos_arguments);

void list_scenes(std::ostream& out);

// Per compiled space, one line per backend: its name, a tab, what it is.
void list_backends(std::ostream& out);
// The same, and what `auto` chooses for the scene on each space (from the plan cache, else
// by a trial that is then kept).
void list_backends_for(std::ostream& out, std::string const& scene,
                       std::vector<char*> kokkos_arguments);

// `wave2d plan`: measures every candidate of `auto` for the scene on the space (empty: the
// default) and prints them ranked, with the estimate's choice; keeps the plan.
void plan_command(std::string const& scene, std::string const& space,
                  std::vector<char*> kokkos_arguments);

}  // namespace wave2d::cli

#endif
