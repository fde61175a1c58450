#include <cli/wave2d_Commands.hpp>
#include <cli/wave2d_OutputFiles.hpp>
#include <wave2d/io/wave2d_Output.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace wave2d::cli {

namespace fs = std::filesystem;

namespace {

std::string frame_name(std::string const& stem, std::string const& number) {
  return stem + "_" + number + ".png";
}

// ffmpeg's image2 pattern of the frames: "%%" is a literal '%' in the directory's name.
std::string frame_pattern(OutputFiles const& files) {
  std::string directory;
  for (char c : fs::absolute(files.directory).string()) {
    directory += c == '%' ? std::string("%%") : std::string(1, c);
  }
  return (fs::path(directory) / frame_name(files.stem, "%05d")).string();
}

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

// Runs `program` with `arguments`, without a shell, and returns its exit status.
int run_program(fs::path const& program, std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), program.string());
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int const error = ::posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ);
  if (error != 0) {
    throw std::runtime_error("cannot run " + program.string() + ": " + std::strerror(error));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

fs::path OutputFiles::image() const { return directory / (stem + ".png"); }

fs::path OutputFiles::frame(std::int64_t index) const {
  char number[24];
  std::snprintf(number, sizeof(number), "%05lld", static_cast<long long>(index));
  return directory / frame_name(stem, number);
}

fs::path OutputFiles::video() const { return directory / (stem + ".mp4"); }

fs::path OutputFiles::receivers(std::string_view extension) const {
  return directory / (stem + ".receivers." + std::string(extension));
}

std::string file_stem(std::string_view name) {
  std::string stem;
  for (char c : name) {
    auto const byte = static_cast<unsigned char>(c);
    bool const safe = byte >= 0x80 || std::isalnum(byte) || c == '-' || c == '_' || c == '.';
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

// Whether `path` is one of frames 0 .. count - 1.
bool is_frame(RunFiles const& files, fs::path const& path) {
  if (!files.images || files.frame_count == 0) return false;
  OutputFiles const& images = *files.images;
  fs::path const file = identity(path);
  if (file.parent_path() != identity(images.directory)) return false;
  std::string const name = file.filename().string();
  std::string const prefix = images.stem + "_";
  if (!name.starts_with(prefix) || !name.ends_with(".png")) return false;
  std::string const digits = name.substr(prefix.size(), name.size() - prefix.size() - 4);
  if (digits.empty() || digits.size() > 18 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  std::int64_t const index = std::stoll(digits);
  return index < files.frame_count && images.frame(index).filename() == name;
}

void check_distinct(RunFiles const& files) {
  struct Named {
    std::string what;
    fs::path path;
  };
  std::vector<Named> outputs;
  if (files.npy) outputs.push_back({"--save-npy '" + files.npy->string() + "'", *files.npy});
  if (files.checkpoint) {
    outputs.push_back({"the checkpoint '" + files.checkpoint->string() + "'", *files.checkpoint});
  }
  if (files.images) {
    outputs.push_back(
        {"the image '" + files.images->image().string() + "'", files.images->image()});
    if (files.frame_count > 0) {
      outputs.push_back(
          {"the video '" + files.images->video().string() + "'", files.images->video()});
    }
  }
  for (auto const& file : files.receivers) {
    outputs.push_back({"the receivers' file '" + file.string() + "'", file});
  }
  auto const refuse = [](Named const& output, std::string const& problem) {
    throw InputError(output.what + " " + problem);
  };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (same_file(outputs[i].path, outputs[j].path))
        refuse(outputs[i], "is also " + outputs[j].what);
    }
    if (is_frame(files, outputs[i].path)) refuse(outputs[i], "is also one of the frames");
    for (auto const& input : files.inputs) {
      if (same_file(outputs[i].path, input)) {
        refuse(outputs[i], "would overwrite the input '" + input.string() + "'");
      }
    }
    if (files.resume && same_file(outputs[i].path, *files.resume) &&
        !(files.checkpoint && outputs[i].path == *files.checkpoint)) {
      refuse(outputs[i],
             "would overwrite the checkpoint resumed, '" + files.resume->string() + "'");
    }
  }
  for (auto const& input : files.inputs) {
    if (is_frame(files, input)) {
      throw InputError("a frame of the run would overwrite the input '" + input.string() + "'");
    }
  }
  if (files.npy && files.images) {
    // The output directory, or one above it: the images need it to be a directory.
    fs::path const npy = identity(*files.npy);
    fs::path const directory = identity(files.images->directory);
    auto const [end, unused] =
        std::mismatch(npy.begin(), npy.end(), directory.begin(), directory.end());
    if (end == npy.end()) refuse(outputs.front(), "is the image directory or one above it");
  }
}

// The output folder, made when missing so that the files in it can be probed, and
// removed when the probes are done: the run makes it again when it writes there. Only
// the folder itself is made: the one above must exist.
class ProbeDirectory {
 public:
  explicit ProbeDirectory(fs::path directory) {
    if (!directory.has_filename()) directory = directory.parent_path();  // "o/"
    std::error_code error;
    if (directory.empty() || fs::exists(fs::symlink_status(directory, error))) return;
    fs::path const parent = directory.has_parent_path() ? directory.parent_path() : ".";
    auto const refuse = [&](std::string const& reason) {
      throw InputError("cannot make the output folder '" + directory.string() + "': " + reason);
    };
    auto const parent_type = fs::status(parent, error).type();
    if (parent_type == fs::file_type::not_found) {
      refuse("the folder '" + parent.string() + "' does not exist");
    }
    if (parent_type != fs::file_type::directory) refuse("'" + parent.string() + "' is not a directory");
    long name_max = ::pathconf(parent.c_str(), _PC_NAME_MAX);
    if (name_max <= 0) name_max = NAME_MAX;
    if (directory.filename().native().size() > std::size_t(name_max)) {
      throw InputError("the output folder's name '" + directory.filename().string() +
                       "' is longer than the " + std::to_string(name_max) +
                       " bytes a name may have");
    }
    if (::mkdir(directory.c_str(), 0777) != 0) refuse(std::strerror(errno));
    made_ = directory;
  }
  ~ProbeDirectory() {
    if (!made_.empty()) ::rmdir(made_.c_str());
  }
  ProbeDirectory(ProbeDirectory const&) = delete;
  ProbeDirectory& operator=(ProbeDirectory const&) = delete;

 private:
  fs::path made_;
};

}  // namespace

void check_outputs(RunFiles const& files) {
  // Refused before any name is resolved.
  auto const refuse_empty = [](std::string const& option) {
    throw InputError(option + ": the path is empty");
  };
  if (files.npy && files.npy->empty()) refuse_empty("--save-npy");
  if (files.checkpoint && files.checkpoint->empty()) refuse_empty("--checkpoint-every");
  if ((files.images && files.images->directory.empty()) ||
      (!files.receivers.empty() && !files.receivers.front().has_parent_path())) {
    refuse_empty("--output");
  }
  check_distinct(files);
  std::vector<fs::path> outputs;
  if (files.npy) outputs.push_back(*files.npy);
  if (files.checkpoint) outputs.push_back(*files.checkpoint);
  std::optional<fs::path> directory;
  if (files.images) {
    directory = files.images->directory;
    outputs.push_back(files.images->image());
    if (files.frame_count > 0) {
      outputs.push_back(files.images->frame(files.frame_count - 1));  // the longest name
      outputs.push_back(files.images->video());
    }
  }
  for (auto const& file : files.receivers) {
    if (!directory) directory = file.parent_path();
    outputs.push_back(file);
  }
  // A signal during a probe removes its temporary too.
  remove_temporary_files_on_signals();
  std::optional<ProbeDirectory> made;
  if (directory) made.emplace(*directory);
  for (auto const& file : outputs) {
    try {
      probe_output(file);
    } catch (OutputError const& e) {
      throw InputError(e.what());
    }
  }
}

void create_parent_directory(fs::path const& file) {
  if (file.has_parent_path()) fs::create_directory(file.parent_path());
}

void make_video(OutputFiles const& files, std::int64_t frame_count, std::ostream& report,
                std::ostream& notes) {
  auto const ffmpeg = find_on_path("ffmpeg");
  if (!ffmpeg) {
    notes << "wave2d: note: no ffmpeg on PATH, so no video (the frames are in "
          << files.directory.string() << ")\n";
    return;
  }
  try {
    write_file_atomically(files.video(), [&](fs::path const& temporary) {
      // Absolute paths: ffmpeg must not read a name that starts with '-' as an option.
      int const status = run_program(*ffmpeg, {"-nostdin",
                                               "-hide_banner",
                                               "-loglevel",
                                               "error",
                                               "-y",
                                               "-framerate",
                                               "30",
                                               "-start_number",
                                               "0",
                                               "-i",
                                               frame_pattern(files),
                                               "-frames:v",
                                               std::to_string(frame_count),
                                               "-vf",
                                               "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                                               "-c:v",
                                               "libx264",
                                               "-pix_fmt",
                                               "yuv420p",
                                               "-f",
                                               "mp4",
                                               fs::absolute(temporary).string()});
      if (status != 0) throw OutputError("ffmpeg exited with status " + std::to_string(status));
    });
    report << "wrote " << files.video().string() << "\n";
  } catch (std::exception const& e) {
    notes << "wave2d: warning: no video: " << e.what() << " (the frames are in "
          << files.directory.string() << ")\n";
  }
}

}  // namespace wave2d::cli
