#include <wave2d/io/wave2d_Hdf5FieldFile.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/run/wave2d_OutputFiles.hpp>
#include <wave2d/wave2d_Config.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace wave2d::detail {

namespace fs = std::filesystem;

namespace {

// glob(3)'s special characters escaped, as ffmpeg's glob reads them.
std::string glob_escaped(std::string const& text) {
  std::string escaped;
  for (char c : text) {
    if (std::string_view("\\*?[]{}").find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return escaped;
}

// Six digits, more for a run of a million steps or more: a run continued to more steps
// names its frames as the run it continues did.
int frame_digits(std::int64_t last_step) {
  return std::max(6, int(std::to_string(last_step).size()));
}

// The image2 demuxer keeps the first 1023 bytes of its input's name.
constexpr std::size_t ffmpeg_pattern_bytes = 1023;

std::optional<fs::path> find_on_path(std::string_view program) {
  char const* const path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view directories(path);
  while (true) {
    auto const colon = directories.find(':');
    auto const directory = directories.substr(0, colon);
    auto const candidate = fs::path(directory.empty() ? "." : directory) / program;
    std::error_code error;
    if (fs::is_regular_file(candidate, error) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    directories.remove_prefix(colon + 1);
  }
}

// How a program ended: its exit status, and the last line it wrote to stderr.
struct ProgramEnd {
  int status = 0;
  std::string said;
};

// The last line of what a program wrote to `errors` (a memory file), control characters
// as spaces: it goes into the run's one line.
std::string last_line(int errors) {
  off_t const size = ::lseek(errors, 0, SEEK_END);
  std::string tail(std::size_t(std::clamp<off_t>(size, 0, 4096)), '\0');
  if (size <= 0 || ::pread(errors, tail.data(), tail.size(), size - off_t(tail.size())) < 0) {
    return {};
  }
  while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back()))) tail.pop_back();
  std::string line = tail.substr(tail.find_last_of('\n') + 1);
  for (char& c : line) {
    if (std::iscntrl(static_cast<unsigned char>(c))) c = ' ';
  }
  return line.substr(0, 300);
}

// Runs `program` with `arguments`, without a shell, its stderr kept for ProgramEnd. When
// `stop` says so, the program is ended first (SIGTERM, then SIGKILL after 5 s), so that it
// writes nothing after the run is gone.
ProgramEnd run_program(fs::path const& program, std::vector<std::string> arguments,
                       std::function<bool()> const& stop, bool& stopped) {
  arguments.insert(arguments.begin(), program.string());
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  // With the signals' default actions, which the calling program may have set to be ignored.
  posix_spawnattr_t attributes;
  ::posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGXFSZ);
  ::posix_spawnattr_setsigdefault(&attributes, &defaults);
  sigset_t none;  // the program starts with no signal blocked (this thread's are, a moment)
  sigemptyset(&none);
  ::posix_spawnattr_setsigmask(&attributes, &none);
  ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  int const errors = ::memfd_create("wave2d-program-stderr", MFD_CLOEXEC);
  std::unique_ptr<int const, void (*)(int const*)> const closed(&errors, [](int const* fd) {
    if (*fd >= 0) ::close(*fd);
  });
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  if (errors >= 0) ::posix_spawn_file_actions_adddup2(&actions, errors, 2);
  pid_t pid = 0;
  RegisteredChild child;  // a signal that ends the process ends the program first
  int const error =
      ::posix_spawn(&pid, program.c_str(), &actions, &attributes, argv.data(), environ);
  if (error == 0) child.started(pid);
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw std::runtime_error("cannot run " + program.string() + ": " + std::strerror(error));
  }
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> terminated;
  while (true) {
    siginfo_t ended{};
    if (::waitid(P_PID, id_t(pid), &ended, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR) {
      throw std::system_error(errno, std::generic_category(), "waitid");
    }
    if (ended.si_pid == pid) break;
    if (!terminated && stop && stop()) {
      stopped = true;
      ::kill(pid, SIGTERM);
      terminated = Clock::now();
    } else if (terminated && Clock::now() - *terminated > std::chrono::seconds(5)) {
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  child.release();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
          errors >= 0 ? last_line(errors) : std::string()};
}

}  // namespace

fs::path OutputFiles::image() const { return directory / (stem + ".png"); }

void OutputFiles::write_picture(fs::path const& path, std::span<float const> u,
                                Scene const& scene) const {
  write_picture(path, picture_part(u, scene.walls, Window::whole(scene.nx, scene.ny)), scene);
}

void OutputFiles::write_picture(fs::path const& path, PicturePart const& field,
                                Scene const& scene) const {
  float amplitude = scale ? *scale : picture_amplitude(field);
  if (!(amplitude > 0.0f)) amplitude = 1.0f;  // a field of zeros: the textbook's scale
  // Scaled one by one, the pictures keep one size: their labels' room is that of any scale.
  RgbImage picture;
  try {
    picture = with_colour_bar(render_picture(field, amplitude), field.width, field.height,
                              amplitude, scale ? LabelRoom::fitted : LabelRoom::any_scale);
  } catch (std::bad_alloc const&) {
    throw OutputError("cannot write '" + path.string() + "': out of memory");
  }
  char exact[32];
  std::snprintf(exact, sizeof(exact), "%.9g", double(amplitude));
  create_parent_directory(path);
  write_png(path, picture.rgb, picture.width, picture.height,
            {{"Software", "wave2d " WAVE2D_VERSION},
             {"Description", "The field u of " + (scene.name.empty() ? stem : scene.name) +
                                 ": blue at -" + exact + " and below, white at 0, red at " + exact +
                                 " and above; walls black"},
             {"wave2d scale", exact}});
}

fs::path OutputFiles::frame(std::int64_t step) const {
  char number[24];
  std::snprintf(number, sizeof(number), "%0*lld", frame_digits(last_step),
                static_cast<long long>(step));
  return directory / (stem + "." + number + ".png");
}

std::string OutputFiles::frame_glob() const {
  std::string digits;
  for (int i = 0; i < frame_digits(last_step); ++i) digits += "[0-9]";
  return glob_escaped((fs::absolute(directory) / stem).string()) + "." + digits + ".png";
}

std::optional<std::int64_t> OutputFiles::frame_step(std::string const& name) const {
  std::size_t const digits = std::size_t(frame_digits(last_step));
  std::string const prefix = stem + ".";
  if (name.size() != prefix.size() + digits + 4 || !name.starts_with(prefix) ||
      !name.ends_with(".png")) {
    return std::nullopt;
  }
  std::string const number = name.substr(prefix.size(), digits);
  if (number.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(number);
}

fs::path OutputFiles::video() const { return directory / (stem + ".mp4"); }

fs::path OutputFiles::receivers(std::string_view extension) const {
  return directory / (stem + ".receivers." + std::string(extension));
}

std::string file_stem(std::string_view name) {
  std::string stem;
  for (char c : name) {
    auto const byte = static_cast<unsigned char>(c);
    bool const safe =
        byte >= 0x80 || std::isalnum(byte) || c == '-' || c == '_' || (c == '.' && !stem.empty());
    stem += safe ? c : '_';
  }
  return stem;
}

namespace {

// One name per file: links followed (a dangling one to the file an output would
// create), "." and ".." resolved.
fs::path identity(fs::path const& path) {
  std::error_code error;
  fs::path target = path;
  if (fs::is_symlink(fs::symlink_status(path, error))) {
    try {
      target = output_target(path).path;
    } catch (OutputError const&) {  // what probe_output refuses: no file to compare
    }
  }
  fs::path const resolved = fs::weakly_canonical(fs::absolute(target), error);
  return error ? fs::absolute(target).lexically_normal() : resolved;
}

bool same_file(fs::path const& a, fs::path const& b) {
  std::error_code error;
  return identity(a) == identity(b) || fs::equivalent(a, b, error);
}

void refuse_overwriting(std::string const& what, fs::path const& output,
                        std::vector<fs::path> const& inputs) {
  for (auto const& input : inputs) {
    if (same_file(output, input)) {
      throw OutputError(what + " would overwrite the input '" + input.string() + "'");
    }
  }
}

// The step `path` would be the frame of: a name of the frames' pattern in their folder.
std::optional<std::int64_t> frame_step(RunFiles const& files, fs::path const& path) {
  if (!files.images || !files.frames) return std::nullopt;
  fs::path const file = identity(path);
  if (file.parent_path() != identity(files.images->directory)) return std::nullopt;
  return files.images->frame_step(file.filename().string());
}

// The folder holds no file ffmpeg's glob would take for a frame, other than the run's:
// it would be in the video. Of the run's, each that is there can be replaced (not a folder
// nor a FIFO: found now, not after the steps).
void check_no_stray_frames(RunFiles const& files) {
  if (!files.images || !files.frames || !files.video) return;
  // The label names the folder: an option (the program's --output) or a phrase.
  std::string const elsewhere = files.images_label.starts_with("-")
                                    ? "give " + files.images_label + " another folder"
                                    : "write the pictures to another folder";
  std::error_code error;
  std::vector<fs::path> strays;  // all of them counted: removing one shows the next
  for (fs::directory_iterator entry(files.images->directory, error), end; !error && entry != end;
       entry.increment(error)) {
    auto const step = files.images->frame_step(entry->path().filename().string());
    if (!step) continue;
    if (!files.frames->contains(*step)) {
      strays.push_back(entry->path());
    } else if (!fs::is_regular_file(fs::symlink_status(entry->path(), error))) {
      probe_output(entry->path());
    }
  }
  if (strays.empty()) return;
  std::ranges::sort(strays);
  std::string const first = "'" + strays.front().string() + "'";
  if (strays.size() == 1) {
    throw OutputError(first +
                      " is named as the run's frames are, but is not one: ffmpeg would put it "
                      "in the video (remove it, or " +
                      elsewhere + ")");
  }
  throw OutputError(first + " and " + std::to_string(strays.size() - 1) +
                    (strays.size() == 2 ? " more file" : " more files") +
                    " are named as the run's frames are, but are not its frames: ffmpeg would "
                    "put them in the video (remove them, or " +
                    elsewhere + ")");
}

// How a message names an output: its label and path ("--save-npy 'f.npy'").
std::string named(NamedOutput const& output) {
  return output.label + " '" + output.path.string() + "'";
}

void check_distinct(RunFiles const& files) {
  struct Named {
    std::string what;
    fs::path path;
  };
  std::vector<Named> outputs;
  if (files.npy) outputs.push_back({named(*files.npy), files.npy->path});
  if (files.h5) {
    fs::path const sidecar = xdmf_path(files.h5->path);
    outputs.push_back({named(*files.h5), files.h5->path});
    outputs.push_back({"the sidecar '" + sidecar.string() + "'", sidecar});
  }
  if (files.checkpoint) outputs.push_back({named(*files.checkpoint), files.checkpoint->path});
  if (files.images) {
    outputs.push_back(
        {"the image '" + files.images->image().string() + "'", files.images->image()});
    if (files.frames) {
      outputs.push_back(
          {"the video '" + files.images->video().string() + "'", files.images->video()});
    }
  }
  for (auto const& file : files.receivers) {
    outputs.push_back({"the receivers' file '" + file.string() + "'", file});
  }
  auto const refuse = [](Named const& output, std::string const& problem) {
    throw OutputError(output.what + " " + problem);
  };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (same_file(outputs[i].path, outputs[j].path))
        refuse(outputs[i], "is also " + outputs[j].what);
    }
    if (frame_step(files, outputs[i].path)) refuse(outputs[i], "is named as the frames are");
    refuse_overwriting(outputs[i].what, outputs[i].path, files.inputs);
    if (files.resume && same_file(outputs[i].path, *files.resume) &&
        !(files.checkpoint && outputs[i].path == files.checkpoint->path)) {
      refuse(outputs[i],
             "would overwrite the checkpoint resumed, '" + files.resume->string() + "'");
    }
  }
  for (auto const& input : files.inputs) {
    if (frame_step(files, input)) {
      throw OutputError("the input '" + input.string() + "' is named as the frames are");
    }
  }
  if (files.resume && frame_step(files, *files.resume)) {
    throw OutputError("the checkpoint resumed, '" + files.resume->string() +
                      "', is named as the frames are");
  }
  // The run's frames already in their folder are written over, through a link to its
  // target.
  if (files.images && files.frames) {
    std::error_code error;
    for (fs::directory_iterator entry(files.images->directory, error), end; !error && entry != end;
         entry.increment(error)) {
      auto const step = files.images->frame_step(entry->path().filename().string());
      if (!step || !files.frames->contains(*step)) continue;
      Named const frame{"the frame '" + entry->path().string() + "'", entry->path()};
      for (auto const& output : outputs) {
        if (same_file(frame.path, output.path)) refuse(frame, "is also " + output.what);
      }
      refuse_overwriting(frame.what, frame.path, files.inputs);
      if (files.resume && same_file(frame.path, *files.resume)) {
        refuse(frame, "would overwrite the checkpoint resumed, '" + files.resume->string() + "'");
      }
    }
  }
  // No file is a folder the run writes in, or one above it: those must be folders.
  std::vector<std::pair<fs::path, std::string>> folders;
  if (files.images) folders.emplace_back(identity(files.images->directory), "the image directory");
  if (!files.receivers.empty()) {
    folders.emplace_back(identity(files.receivers.front().parent_path()), "the receivers' folder");
  }
  for (auto const& output : outputs) {
    fs::path const file = identity(output.path);
    for (auto const& [folder, what] : folders) {
      auto const [end, unused] =
          std::mismatch(file.begin(), file.end(), folder.begin(), folder.end());
      if (end == file.end()) refuse(output, "is " + what + " or one above it");
    }
  }
}

// `path` without "." and "..", nor a trailing separator: to tell which outputs are in the
// output folder by their names.
fs::path normal(fs::path const& path) {
  fs::path const normal = path.lexically_normal();
  return normal.has_filename() || !normal.has_parent_path() ? normal : normal.parent_path();
}

// Whether `file` is in `folder`, one the run makes, by a spelling of the folder that makes
// it ("new/." and "new/../new" name it only once it is there).
bool in_folder_made(fs::path const& file, fs::path const& folder) {
  fs::path const parent = file.parent_path();
  std::error_code error;
  return parent.filename() != "." && parent.filename() != ".." &&
         (!parent.has_parent_path() || fs::is_directory(parent.parent_path(), error)) &&
         normal(file).parent_path() == normal(folder);
}

// Probes an output; one in a folder that the run makes is probed in the folder
// probe_new_folder() has found possible.
void probe(fs::path const& file, std::vector<fs::path> const& new_folders) {
  for (auto const& folder : new_folders) {
    if (in_folder_made(file, folder)) {
      fs::path const made = normal(folder);
      check_output_name_lengths(file, made.has_parent_path() ? made.parent_path() : ".");
      return;
    }
  }
  probe_output(file);
}

}  // namespace

void refuse_overwriting_inputs(NamedOutput const& output, std::vector<fs::path> const& inputs) {
  refuse_overwriting(named(output), output.path, inputs);
}

void check_outputs(RunFiles const& files) {
  // Refused before any name is resolved.
  auto const refuse_empty = [](std::string const& label) {
    throw OutputError(label + ": the path is empty");
  };
  for (auto const* output : {&files.npy, &files.h5, &files.checkpoint}) {
    if (*output && (*output)->path.empty()) refuse_empty((*output)->label);
  }
  if (files.images && files.images->directory.empty()) refuse_empty(files.images_label);
  if (!files.receivers.empty() && !files.receivers.front().has_parent_path()) {
    refuse_empty(files.receivers_label);
  }
  if (files.h5) {
    if (auto const problem = sidecar_naming_problem(files.h5->path)) {
      throw OutputError(named(*files.h5) + ": " + *problem);
    }
  }
  check_distinct(files);
  check_no_stray_frames(files);
  std::vector<fs::path> outputs;
  if (files.npy) outputs.push_back(files.npy->path);
  if (files.h5) {
    outputs.push_back(files.h5->path);
    outputs.push_back(xdmf_path(files.h5->path));
  }
  if (files.checkpoint) outputs.push_back(files.checkpoint->path);
  std::vector<fs::path> folders;  // that the run makes when missing
  if (files.images) {
    folders.push_back(files.images->directory);
    outputs.push_back(files.images->image());
    if (files.frames) {
      outputs.push_back(files.images->frame(files.frames->last));
      outputs.push_back(files.images->video());
    }
  }
  if (!files.receivers.empty()) folders.push_back(files.receivers.front().parent_path());
  for (auto const& file : files.receivers) outputs.push_back(file);
  auto const in_output_folder = [&](fs::path const& file) {
    return in_folder_made(file, files.output_folder);
  };
  if (!files.output_folder.empty() && std::ranges::any_of(outputs, in_output_folder)) {
    folders.push_back(files.output_folder);
  }
  std::vector<fs::path> new_folders;
  for (auto const& folder : folders) {
    std::error_code error;
    bool const known = std::ranges::any_of(
        new_folders, [&](fs::path const& made) { return normal(made) == normal(folder); });
    if (known || fs::exists(fs::symlink_status(folder, error))) continue;
    probe_new_folder(folder);
    new_folders.push_back(folder);
  }
  for (auto const& file : outputs) probe(file, new_folders);
}

void create_parent_directory(fs::path const& file) {
  if (!file.has_parent_path()) return;
  std::error_code error;
  fs::create_directory(file.parent_path(), error);
  if (error) {
    throw OutputError("cannot write '" + file.string() + "': " +
                      (error == std::errc::file_exists
                           ? "'" + file.parent_path().string() + "' is not a directory"
                           : error.message()));
  }
}

void create_parent_directory(fs::path const& file, std::vector<fs::path> const& folders) {
  if (std::ranges::any_of(folders, [&](fs::path const& f) { return in_folder_made(file, f); })) {
    create_parent_directory(file);
  }
}

VideoOutcome make_video(OutputFiles const& files, FrameSteps const& steps,
                        std::function<bool()> const& stop) {
  std::string const frames_are_kept = " (the frames are in " + files.directory.string() + ")";
  auto const ffmpeg = find_on_path("ffmpeg");
  if (!ffmpeg) return {false, false, "no ffmpeg on PATH, so no video" + frames_are_kept};
  auto const no_video = [&](std::string const& why) {
    return VideoOutcome{false, true, "no video: " + why + frames_are_kept};
  };
  for (std::int64_t step = 0;; step = steps.next(step)) {
    if (!fs::exists(files.frame(step))) {
      return no_video("the frame '" + files.frame(step).string() + "' is missing");
    }
    if (step == steps.last) break;
  }
  std::string const pattern = files.frame_glob();
  if (pattern.size() > ffmpeg_pattern_bytes) {
    return no_video("the frames' path is longer than the " + std::to_string(ffmpeg_pattern_bytes) +
                    " bytes ffmpeg reads of a pattern");
  }
  bool stopped = false;
  try {
    write_file_atomically(files.video(), [&](fs::path const& temporary) {
      // Absolute paths: ffmpeg must not read a name that starts with '-' as an option.
      ProgramEnd const end = run_program(*ffmpeg,
                                         {"-nostdin",
                                          "-hide_banner",
                                          "-loglevel",
                                          "error",
                                          "-y",
                                          "-framerate",
                                          "30",
                                          "-f",  // else ffmpeg opens the pattern as a file
                                          "image2",
                                          "-pattern_type",
                                          "glob",
                                          "-i",
                                          pattern,
                                          "-vf",
                                          "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                                          "-c:v",
                                          "libx264",
                                          "-threads",  // else the bytes follow the cores
                                          "4",
                                          "-pix_fmt",
                                          "yuv420p",
                                          "-f",
                                          "mp4",
                                          fs::absolute(temporary).string()},
                                         stop, stopped);
      if (stopped) throw OutputError("interrupted");
      if (end.status != 0) {
        throw OutputError("ffmpeg exited with status " + std::to_string(end.status) +
                          (end.said.empty() ? "" : ": " + end.said));
      }
    });
    return {true, false, {}};
  } catch (std::exception const& e) {
    return no_video(e.what());
  }
}

}  // namespace wave2d::detail
