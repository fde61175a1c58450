// The `wave2d` program's outputs: each is proven writable before the first step, so that
// no result is lost at the end of a run.
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>
#include <wave2d_TestFiles.hpp>
#include <wave2d_TestUsers.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;

bool contains(std::string const& text, std::string const& part) {
  return text.find(part) != std::string::npos;
}

struct Result {
  int status = -1;  // the exit status; 128 + N when ended by signal N
  std::string out;
  std::string err;
};

struct RunAs {
  std::optional<uid_t> user;  // another user's run (root only)
  std::string path;           // PATH, when not the test's own
  std::string cache_home;     // XDG_CACHE_HOME, when not the test's own
};

class CliOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::permissions(root_.path(), fs::perms::owner_all | fs::perms::others_exec);
    fs::create_directory(work());
  }

  // Runs `wave2d <arguments>` in work(), without a shell: its status, stdout and stderr.
  Result wave2d(std::vector<std::string> const& arguments, RunAs const& run = {}) const {
    return finish(start(arguments, run));
  }

  // Starts `wave2d <arguments>` in work(), SIGINT and SIGTERM at their defaults (a test
  // runner may ignore them): its pid.
  pid_t start(std::vector<std::string> arguments, RunAs const& run = {}) const {
    fs::path const out = root_.path() / "stdout";
    fs::path const err = root_.path() / "stderr";
    arguments.insert(arguments.begin(), WAVE2D_CLI);
    arguments.push_back("--kokkos-num-threads=1");
    std::vector<char*> argv;
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    pid_t const pid = ::fork();
    if (pid == 0) {
      int const out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int const err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out_fd < 0 || err_fd < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0 ||
          ::chdir(work().c_str()) != 0) {
        ::_exit(126);
      }
      for (int signal_number : {SIGINT, SIGTERM}) std::signal(signal_number, SIG_DFL);
      ::setenv("OMP_PROC_BIND", "false", 1);
      if (!run.path.empty()) ::setenv("PATH", run.path.c_str(), 1);
      if (!run.cache_home.empty()) ::setenv("XDG_CACHE_HOME", run.cache_home.c_str(), 1);
      if (run.user &&
          (::setgroups(0, nullptr) != 0 || ::setgid(*run.user) != 0 || ::setuid(*run.user) != 0)) {
        ::_exit(126);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }

  Result finish(pid_t pid) const {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
            read_file(root_.path() / "stdout"), read_file(root_.path() / "stderr")};
  }

  fs::path work() const { return root_.path() / "work"; }
  std::vector<std::string> work_contents() const {
    std::vector<std::string> names;
    for (auto const& entry : fs::recursive_directory_iterator(work())) {
      names.push_back(fs::relative(entry.path(), work()).string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  TemporaryDirectory root_;
};

std::vector<std::string> small_run(std::vector<std::string> const& more,
                                   std::string const& steps = "4") {
  std::vector<std::string> arguments = {"run", "--scene", "double-slit-small", "--steps",
                                        steps, "--plan",  "estimate"};
  arguments.insert(arguments.end(), more.begin(), more.end());
  return arguments;
}

// Refused with a one-line usage error before the run started: it printed nothing.
void expect_refused_first(Result const& result, std::string const& message) {
  EXPECT_EQ(result.status, 2) << result.err;
  EXPECT_EQ(result.err, "wave2d: error: " + message + "\n");
  EXPECT_EQ(result.out, "");
}

TEST_F(CliOutputs, ALinkIntoAMissingFolderIsRefusedBeforeTheRun) {
  fs::create_symlink("nodir/sub/x.npy", work() / "l.npy");
  expect_refused_first(wave2d(small_run({"--save-npy", "l.npy"})),
                       "cannot write 'l.npy': the folder 'nodir/sub' does not exist");
  if (can_checkpoint) {
    expect_refused_first(wave2d(small_run({"--checkpoint-every", "2", "l.npy"})),
                         "cannot write 'l.npy': the folder 'nodir/sub' does not exist");
  }
  EXPECT_EQ(work_contents(), std::vector<std::string>{"l.npy"});
}

// A frame of the run that is there but cannot be replaced is found before the run, not
// after its steps.
TEST_F(CliOutputs, AFrameThatCannotBeReplacedIsRefusedBeforeTheRun) {
  if (!can_write_png) GTEST_SKIP() << without_libpng;
  fs::create_directories(work() / "o" / "double-slit-small.000002.png");
  fs::create_directory(work() / "p");
  ASSERT_EQ(::mkfifo((work() / "p" / "double-slit-small.000002.png").c_str(), 0600), 0);
  auto const before = work_contents();
  expect_refused_first(
      wave2d(small_run({"--output", "o", "--frames-every", "2", "--save-npy", "f.npy"})),
      "cannot write 'o/double-slit-small.000002.png': it is a directory");
  expect_refused_first(
      wave2d(small_run({"--output", "p", "--frames-every", "2", "--save-npy", "f.npy"})),
      "cannot write 'p/double-slit-small.000002.png': it is a FIFO, which wave2d does not write "
      "to");
  EXPECT_EQ(work_contents(), before);
}

// Control characters in what an error quotes are escaped: the error stays one line.
TEST_F(CliOutputs, AnErrorQuotingALineBreakIsOneLine) {
  expect_refused_first(wave2d(small_run({"--save-npy", "no\nfolder/a.npy"})),
                       "cannot write 'no\\nfolder/a.npy': the folder 'no\\nfolder' does not exist");
  expect_refused_first(wave2d({"run", "--scene", "no\nsuch\x1b[1m"}),
                       "unknown scene 'no\\nsuch\\x1b[1m': neither a built-in scene "
                       "(double-slit, double-slit-small, point-source, slit) nor a scene file");
}

// A plan the cache cannot keep says so once, though the run's check tries to keep it again.
TEST_F(CliOutputs, APlanThatCannotBeKeptSaysSoOnce) {
  write_text(work() / "cache", "a file, not a folder");
  Result const result = wave2d(
      {"run", "--scene", "double-slit-small", "--steps", "4", "--plan", "measure", "--output", "o"},
      {.cache_home = (work() / "cache").string()});
  ASSERT_EQ(result.status, 0) << result.err;
  std::string const note = "wave2d: note: the plan is not kept: cannot make ";
  auto const first = result.err.find(note);
  EXPECT_TRUE(first != std::string::npos && result.err.find(note, first + 1) == std::string::npos)
      << result.err;
}

// Folders named by the user are not made for them; the output folder itself is.
TEST_F(CliOutputs, MissingFoldersOfExplicitPathsAreRefused) {
  expect_refused_first(wave2d(small_run({"--save-npy", "a/b.npy"})),
                       "cannot write 'a/b.npy': the folder 'a' does not exist");
  if (can_checkpoint) {
    expect_refused_first(wave2d(small_run({"--checkpoint-every", "2", "a/b.ck"})),
                         "cannot write 'a/b.ck': the folder 'a' does not exist");
  }
  if (can_write_png) {
    expect_refused_first(wave2d(small_run({"--output", "a/b"})),
                         "cannot make the folder 'a/b': the folder 'a' does not exist");
  }
  EXPECT_TRUE(work_contents().empty());
  Result const made = wave2d(small_run({"--output", "o", "--save-npy", "o/f.npy"}));
  ASSERT_EQ(made.status, 0) << made.err;
  EXPECT_TRUE(fs::exists(work() / "o/f.npy"));
  ASSERT_EQ(wave2d(small_run({})).status, 0);
  EXPECT_EQ(fs::exists(work() / "out/double-slit-small.png"), can_write_png);
}

// A file in the output folder the run makes, named by a path that reaches that folder only
// once it is there, is refused before the run, not after its steps.
TEST_F(CliOutputs, AFileInTheNewOutputFolderSpelledThroughDotsIsRefusedFirst) {
  if (!can_write_png) GTEST_SKIP() << without_libpng;
  expect_refused_first(wave2d(small_run({"--output", "o", "--save-npy", "o/./x.npy"})),
                       "cannot write 'o/./x.npy': the folder 'o/.' does not exist");
  expect_refused_first(wave2d(small_run({"--output", "o", "--save-npy", "o/../o/x.npy"})),
                       "cannot write 'o/../o/x.npy': the folder 'o/../o' does not exist");
  if (can_checkpoint) {
    expect_refused_first(
        wave2d(small_run({"--output", "o", "--checkpoint-every", "2", "o/sub/../c.ck"})),
        "cannot write 'o/sub/../c.ck': the folder 'o/sub/..' does not exist");
  }
  EXPECT_TRUE(work_contents().empty());
  Result const made = wave2d(small_run({"--output", "./o", "--save-npy", "o/x.npy"}));
  ASSERT_EQ(made.status, 0) << made.err;
  EXPECT_TRUE(fs::exists(work() / "o/x.npy"));
}

// A frame of the run already in the folder is written over through a link: one that leads
// to an input or to another output is refused as they are.
TEST_F(CliOutputs, AFrameLinkedToAnInputOrAnOutputIsRefusedFirst) {
  if (!can_write_png) GTEST_SKIP() << without_libpng;
  write_text(work() / "keep.npy", "earlier work");
  fs::create_directory(work() / "o");
  fs::create_symlink("../keep.npy", work() / "o/double-slit-small.000002.png");
  expect_refused_first(
      wave2d(small_run({"--output", "o", "--frames-every", "2", "--save-npy", "keep.npy"})),
      "the frame 'o/double-slit-small.000002.png' is also --save-npy 'keep.npy'");
  if (can_checkpoint) {
    ASSERT_EQ(wave2d(small_run({"--checkpoint-every", "2", "c.ck", "--output", "p"})).status, 0);
    fs::remove(work() / "o/double-slit-small.000002.png");
    fs::create_hard_link(work() / "c.ck", work() / "o/double-slit-small.000002.png");
    expect_refused_first(
        wave2d(small_run({"--output", "o", "--frames-every", "2", "--resume", "c.ck"})),
        "the frame 'o/double-slit-small.000002.png' would overwrite the checkpoint "
        "resumed, 'c.ck'");
  }
  EXPECT_EQ(read_file(work() / "keep.npy"), "earlier work");
}

TEST_F(CliOutputs, AnEmptyPathIsSaidToBeEmpty) {
  expect_refused_first(wave2d(small_run({"--save-npy", ""})), "--save-npy: the path is empty");
  if (can_checkpoint) {
    expect_refused_first(wave2d(small_run({"--checkpoint-every", "2", ""})),
                         "--checkpoint-every: the path is empty");
  }
  if (can_write_png) {
    expect_refused_first(wave2d(small_run({"--output", ""})), "--output: the path is empty");
  }
  EXPECT_TRUE(work_contents().empty());
}

// The sidecar names its HDF5 file, and XDMF readers end that name at its first ':', and XML
// has no control characters: such a name is refused before the run (a folder's name is not in
// the sidecar).
TEST_F(CliOutputs, AnHdf5FileWithAColonInItsNameIsRefusedBeforeTheRun) {
  if (!can_use_hdf5) GTEST_SKIP() << no_hdf5_reason;
  expect_refused_first(wave2d(small_run({"--save-h5", "run:1.h5"})),
                       "--save-h5 'run:1.h5': its XDMF sidecar could not name a file with ':' "
                       "in its name (XDMF readers end the name there)");
  expect_refused_first(wave2d(small_run({"--save-h5", "run\x01.h5"})),
                       "--save-h5 'run\\x01.h5': its XDMF sidecar could not name a file with a "
                       "control character in its name (XML has no place for one)");
  // The sidecar is read as UTF-8: a Latin-1 name, and U+FFFE, which XML does not allow.
  for (std::string const name : {"caf\xe9.h5", "run\xef\xbf\xbe.h5"}) {
    expect_refused_first(wave2d(small_run({"--save-h5", name})),
                         "--save-h5 '" + name +
                             "': its XDMF sidecar could not name a file whose name is not text "
                             "XML can hold (UTF-8, no U+FFFE or U+FFFF)");
  }
  EXPECT_TRUE(work_contents().empty());
  // UTF-8 names are written as they are.
  ASSERT_EQ(wave2d(small_run({"--save-h5", "caf\xc3\xa9.h5"})).status, 0);
  EXPECT_NE(read_file(work() / "caf\xc3\xa9.h5.xmf").find("caf\xc3\xa9.h5:/"), std::string::npos);
}

// The same run a few seconds later writes the same HDF5 file and checkpoint, byte for byte:
// no object records when it was made.
TEST_F(CliOutputs, TheSameRunWritesTheSameHdf5Bytes) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  for (std::string const run : {"a", "b"}) {
    if (run == "b") std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    Result const result = wave2d(small_run(
        {"--frames-every", "2", "--save-h5", run + ".h5", "--checkpoint-every", "2", run + ".ck"}));
    ASSERT_EQ(result.status, 0) << result.err;
  }
  EXPECT_TRUE(read_file(work() / "a.h5") == read_file(work() / "b.h5"));
  EXPECT_TRUE(read_file(work() / "a.ck") == read_file(work() / "b.ck"));
}

// An HDF5 file is written at offsets and renamed: a device for one is refused before the
// run, as every other refusal is (status 2).
TEST_F(CliOutputs, ADeviceForAnHdf5FileIsRefusedBeforeTheRun) {
  if (!can_use_hdf5) GTEST_SKIP() << no_hdf5_reason;
  expect_refused_first(wave2d(small_run({"--save-h5", "/dev/null"})),
                       "cannot write '/dev/null': an HDF5 file is written to a regular file, "
                       "not a device");
  if (can_checkpoint) {
    expect_refused_first(wave2d(small_run({"--checkpoint-every", "2", "/dev/null"})),
                         "cannot write '/dev/null': an HDF5 file is written to a regular file, "
                         "not a device");
  }
  EXPECT_TRUE(work_contents().empty());
}

TEST_F(CliOutputs, AnImmutableTargetIsRefusedBeforeTheRun) {
  write_text(work() / "kept.npy", "kept");
  InodeFlag const immutable(work() / "kept.npy", FS_IMMUTABLE_FL);
  if (!immutable.set()) GTEST_SKIP() << InodeFlag::why_not();
  expect_refused_first(wave2d(small_run({"--save-npy", "kept.npy"})),
                       "cannot write 'kept.npy': it is immutable (chattr +i), so it cannot be "
                       "replaced");
  EXPECT_EQ(read_file(work() / "kept.npy"), "kept");
}

// Why the program cannot be run as other_user here, if it cannot: not root, or a folder
// above the build closed to other users (a checkout under a 0700 folder).
std::optional<std::string> why_not_as_other_user() {
  if (::geteuid() != 0) return needs_root;
  if (as_user(other_user, [] { return ::access(WAVE2D_CLI, X_OK) == 0 ? "yes" : "no"; }) != "yes") {
    return "uid " + std::to_string(other_user) + " cannot run " + WAVE2D_CLI +
           " (a folder above it is closed to other users)";
  }
  return std::nullopt;
}

// Another user's file in a /tmp-like folder: its owner alone may replace it, root too.
TEST_F(CliOutputs, AnotherUsersFileInAStickyFolderIsRefusedBeforeTheRun) {
  if (auto const why = why_not_as_other_user()) GTEST_SKIP() << *why;
  ASSERT_EQ(::chown(work().c_str(), other_user, other_user), 0);
  fs::path const sticky = root_.path() / "tmp";
  fs::create_directory(sticky);
  fs::permissions(sticky, fs::perms::all | fs::perms::sticky_bit);
  fs::path const theirs = sticky / "theirs.npy";
  write_text(theirs, "theirs");
  ASSERT_EQ(::chown(theirs.c_str(), third_user, third_user), 0);
  expect_refused_first(wave2d(small_run({"--save-npy", theirs.string()}), {.user = other_user}),
                       "cannot write '" + theirs.string() + "': it belongs to another user (uid " +
                           std::to_string(third_user) + ") in the sticky folder '" +
                           sticky.string() + "', where only they can replace it");
  EXPECT_EQ(read_file(theirs), "theirs");
  Result const as_root = wave2d(small_run({"--save-npy", theirs.string()}));
  EXPECT_EQ(as_root.status, 0) << as_root.err;
}

TEST_F(CliOutputs, AFolderTheUserCannotWriteIsRefusedBeforeTheRun) {
  if (auto const why = why_not_as_other_user()) GTEST_SKIP() << *why;
  ASSERT_EQ(::chown(work().c_str(), other_user, other_user), 0);
  fs::path const folder = root_.path() / "roots";
  fs::create_directory(folder);
  expect_refused_first(
      wave2d(small_run({"--save-npy", (folder / "f.npy").string()}), {.user = other_user}),
      "cannot write '" + (folder / "f.npy").string() + "': cannot create files in '" +
          folder.string() + "': Permission denied");
  EXPECT_TRUE(fs::is_empty(folder));
}

// A program called ffmpeg, first on PATH, that writes its arguments one a line to
// `arguments`, then "video" to its last argument, the output.
std::string fake_ffmpeg(fs::path const& bin, fs::path const& arguments,
                        std::string const& before_output = "") {
  fs::create_directories(bin);
  write_text(bin / "ffmpeg", "#!/bin/sh\nfor a; do printf '%s\\n' \"$a\"; done > '" +
                                 arguments.string() + "'\n" + before_output +
                                 "for last; do :; done\necho video > \"$last\"\n");
  fs::permissions(bin / "ffmpeg", fs::perms::owner_all);
  return bin.string() + ":" + std::getenv("PATH");
}

// What ffmpeg's glob (glob(3) with its flags) finds for the pattern it was given: the
// names of the files, in ffmpeg's order.
std::vector<std::string> frames_ffmpeg_reads(fs::path const& arguments) {
  std::string const lines = read_file(arguments);
  auto const input = lines.find("\n-i\n");
  if (input == std::string::npos) return {"no -i in: " + lines};
  auto const start = input + 4;
  std::string const pattern = lines.substr(start, lines.find('\n', start) - start);
  glob_t found{};
  ::glob(pattern.c_str(), GLOB_NOCHECK | GLOB_BRACE | GLOB_NOMAGIC, nullptr, &found);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < found.gl_pathc; ++i) {
    names.push_back(fs::path(found.gl_pathv[i]).filename().string());
  }
  ::globfree(&found);
  return names;
}

// Frames are numbered by step, zero-padded to the width of the last step, from a frame
// of step 0; ffmpeg's glob takes them in order and nothing else, whatever the folder's
// name, and not a file of another width nor the receivers' plot.
TEST_F(CliOutputs, FramesAreNumberedByStepAndTheVideoTakesThemAll) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  std::string const folder = "o[1]*{a,b}?\\";
  fs::path const arguments = root_.path() / "ffmpeg-arguments";
  std::string const path = fake_ffmpeg(root_.path() / "bin", arguments);
  fs::create_directory(work() / folder);
  write_text(work() / folder / "double-slit-small.0000005.png", "another run's");
  write_text(work() / folder / "double-slit-small.receivers.png", "a plot");
  Result const result =
      wave2d(small_run({"--frames-every", "10", "--output", folder}, "25"), {.path = path});
  ASSERT_EQ(result.status, 0) << result.err;
  std::vector<std::string> const frames = {
      "double-slit-small.000000.png", "double-slit-small.000010.png",
      "double-slit-small.000020.png", "double-slit-small.000025.png"};
  for (auto const& frame : frames) EXPECT_TRUE(fs::exists(work() / folder / frame)) << frame;
  EXPECT_TRUE(contains(result.out, "wrote 4 frames " + folder +
                                       "/double-slit-small.000000.png .. "
                                       "double-slit-small.000025.png"))
      << result.out;
  EXPECT_EQ(frames_ffmpeg_reads(arguments), frames);
  EXPECT_EQ(read_file(work() / folder / "double-slit-small.mp4"), "video\n");
}

// An ffmpeg that fails: no video, and one line of warning that ends with ffmpeg's last word
// (its own lines do not reach the terminal); the earlier video is kept.
TEST_F(CliOutputs, AFailingFfmpegIsOneLineOfWarning) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  fs::path const arguments = root_.path() / "ffmpeg-arguments";
  std::string const path =
      fake_ffmpeg(root_.path() / "bin", arguments,
                  "echo 'a first line' >&2; printf 'Unknown encoder \\033[1mlibx264\\n\\n' >&2; "
                  "exit 1\n");
  fs::create_directory(work() / "o");
  write_text(work() / "o" / "double-slit-small.mp4", "earlier video");
  Result const result =
      wave2d(small_run({"--frames-every", "10", "--output", "o"}, "20"), {.path = path});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err,
            "wave2d: warning: no video: ffmpeg exited with status 1: Unknown encoder  [1mlibx264 "
            "(the frames are in o)\n");
  EXPECT_EQ(read_file(work() / "o" / "double-slit-small.mp4"), "earlier video");
}

// SIGTERM or SIGINT while ffmpeg encodes: ffmpeg is ended and waited for, its temporary
// removed, then the run ends by the signal. The fake ffmpeg writes its output, sleeps and
// writes again: left running, it would leave the temporary behind.
TEST_F(CliOutputs, ASignalWhileFfmpegEncodesLeavesNoTemporary) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  fs::path const arguments = root_.path() / "ffmpeg-arguments";
  std::string const path = fake_ffmpeg(root_.path() / "bin", arguments,
                                       "for last; do :; done\necho partial > \"$last\"\n"
                                       "sleep 1\necho more >> \"$last\"\n");
  // SIGTERM and SIGINT stop the run; SIGUSR1 ends it at once. ffmpeg ends first either way:
  // it would write its output again after its sleep.
  for (int signal_number : {SIGTERM, SIGINT, SIGUSR1}) {
    fs::remove(arguments);
    pid_t const pid = start(small_run({"--frames-every", "2", "--output", "o"}), {.path = path});
    ASSERT_GT(pid, 0);
    // ffmpeg has begun once it has written its arguments and its output.
    auto const encoding = [&] {
      if (!fs::exists(arguments)) return false;
      for (auto const& entry : fs::directory_iterator(work() / "o")) {
        if (entry.path().extension() == ".tmp") return true;
      }
      return false;
    };
    for (int wait = 0; wait < 500 && !encoding(); ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(encoding()) << "ffmpeg did not start";
    ::kill(pid, signal_number);
    Result const result = finish(pid);
    EXPECT_EQ(result.status, 128 + signal_number) << result.err;
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // past ffmpeg's sleep
    for (auto const& name : work_contents()) {
      EXPECT_FALSE(fs::path(name).filename().string().starts_with(".")) << "left " << name;
    }
    EXPECT_FALSE(fs::exists(work() / "o/double-slit-small.mp4"));
    fs::remove_all(work() / "o");
  }
}

// A file the video's glob would take that is not one of the run's frames: refused first.
TEST_F(CliOutputs, AStrayFrameIsRefusedBeforeTheRun) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  fs::create_directory(work() / "o");
  write_text(work() / "o/double-slit-small.000015.png", "a frame of another run");
  expect_refused_first(
      wave2d(small_run({"--frames-every", "10", "--output", "o"}, "20")),
      "'o/double-slit-small.000015.png' is named as the run's frames are, but is not one: ffmpeg "
      "would put it in the video (remove it, or give --output another folder)");
  // All of them counted, the first by name.
  write_text(work() / "o/double-slit-small.000005.png", "another");
  write_text(work() / "o/double-slit-small.000025.png", "and another");
  expect_refused_first(
      wave2d(small_run({"--frames-every", "10", "--output", "o"}, "20")),
      "'o/double-slit-small.000005.png' and 2 more files are named as the run's frames are, but "
      "are not its frames: ffmpeg would put them in the video (remove them, or give --output "
      "another folder)");
}

std::uint32_t big_endian_32(std::string const& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t i = at; i < at + 4; ++i) value = value << 8 | std::uint8_t(bytes[i]);
  return value;
}

// The pictures saturate at the scale: 1 by default (the textbook's), a given amplitude,
// or with auto the largest |u| of the field drawn. It is in the PNG's text, and the
// colour bar beside the field makes the picture wider than the grid.
TEST_F(CliOutputs, PicturesSaturateAtTheScaleTheirColourBarGives) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no images";
  Scene const scene = builtin_scene("double-slit-small");
  for (std::string const scale : {"", "0.25", "auto"}) {
    std::string const folder = scale.empty() ? "default" : scale;
    std::vector<std::string> more = {"--output", folder, "--save-npy", folder + ".npy"};
    if (!scale.empty()) more.insert(more.end(), {"--scale", scale});
    Result const result = wave2d(small_run(more, "150"));
    ASSERT_EQ(result.status, 0) << result.err;
    std::string expected = scale.empty() ? "1" : scale;
    if (scale == "auto") {
      std::vector<float> const pair = parse_npy(read_file(work() / (folder + ".npy"))).data;
      std::vector<float> const current(pair.begin() + scene.cells(), pair.end());
      char exact[32];
      std::snprintf(exact, sizeof(exact), "%.9g", double(largest_amplitude(current, scene.walls)));
      expected = exact;
    }
    std::string const png = read_file(work() / folder / "double-slit-small.png");
    ASSERT_GT(png.size(), 24u);
    EXPECT_GT(big_endian_32(png, 16), 201u) << "the colour bar beside the field";
    EXPECT_EQ(big_endian_32(png, 20), 201u);
    EXPECT_NE(png.find("tEXtwave2d scale" + std::string(1, '\0') + expected), std::string::npos)
        << scale << ": expected " << expected;
  }
  for (std::string const bad : {"0", "-1", "x", "1e-50", "inf"}) {
    expect_refused_first(wave2d(small_run({"--scale", bad})),
                         "--scale: expected a positive amplitude or auto, got '" + bad +
                             "' (see wave2d run --help)");
  }
}

// Frames scaled one by one have one size, so that the video shows each whole: the zeros of
// step 0 (labelled "1") and the later fields (labels such as "0.123") alike.
TEST_F(CliOutputs, FramesScaledOneByOneHaveOneSize) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no images";
  Result const result =
      wave2d(small_run({"--output", "o", "--frames-every", "50", "--scale", "auto"}, "150"));
  ASSERT_EQ(result.status, 0) << result.err;
  std::set<std::uint32_t> widths;
  for (std::string const step : {"000000", "000050", "000100", "000150"}) {
    std::string const png = read_file(work() / "o" / ("double-slit-small." + step + ".png"));
    ASSERT_GT(png.size(), 24u) << step;
    widths.insert(big_endian_32(png, 16));
  }
  EXPECT_EQ(widths.size(), 1u);
  std::string const last = read_file(work() / "o" / "double-slit-small.png");
  EXPECT_EQ(big_endian_32(last, 16), *widths.begin());
}

// Checkpoints of double-slit-small, written by the program: at step 10 in work()/ck.
class CliResume : public CliOutputs {
 protected:
  void SetUp() override {
    CliOutputs::SetUp();
    if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
    Result const first = wave2d(resume_run("10", {"--checkpoint-every", "10", "ck"}));
    ASSERT_EQ(first.status, 0) << first.err;
  }

  static std::vector<std::string> resume_run(std::string const& steps,
                                             std::vector<std::string> const& more) {
    std::vector<std::string> arguments = {"run",       "--scene",  "double-slit-small",
                                          "--steps",   steps,      "--backend",
                                          "reference", "--output", "o"};
    arguments.insert(arguments.end(), more.begin(), more.end());
    return arguments;
  }
};

// A checksum-valid checkpoint holding NaN, as the library's writer writes one: refused,
// --keep-last-finite or not, and nothing written.
TEST_F(CliResume, ACheckpointThatIsNotFiniteIsRefused) {
  CheckpointData data = read_checkpoint(work() / "ck");
  data.current[201 * 100 + 30] = std::numeric_limits<float>::quiet_NaN();
  write_checkpoint(work() / "nan.ck", data);
  auto const before = work_contents();
  for (std::string const keep : {"", "--keep-last-finite"}) {
    std::vector<std::string> more = {"--resume", "nan.ck", "--save-npy", "f.npy"};
    if (!keep.empty()) more.push_back(keep);
    expect_refused_first(wave2d(resume_run("20", more)),
                         "checkpoint 'nan.ck' holds nan in u at step 10, cell (30, 100): no run "
                         "can go on from a state that is not finite");
    EXPECT_EQ(work_contents(), before);
  }
}

// An output over the checkpoint resumed (but the run's own checkpoints) would replace it.
TEST_F(CliResume, AnOutputOverTheCheckpointResumedIsRefused) {
  auto const before = work_contents();
  std::string const bytes = read_file(work() / "ck");
  expect_refused_first(wave2d(resume_run("20", {"--resume", "ck", "--save-npy", "ck"})),
                       "--save-npy 'ck' would overwrite the checkpoint resumed, 'ck'");
  EXPECT_EQ(work_contents(), before);
  EXPECT_EQ(read_file(work() / "ck"), bytes);
}

// A checkpoint named as the run's frames are would be replaced by a frame.
TEST_F(CliResume, ACheckpointNamedAsTheFramesAreIsRefused) {
  if (!can_write_png) GTEST_SKIP() << without_libpng;
  fs::create_directory(work() / "o");
  fs::copy_file(work() / "ck", work() / "o" / "double-slit-small.000020.png");
  auto const before = work_contents();
  expect_refused_first(
      wave2d(
          resume_run("30", {"--frames-every", "10", "--resume", "o/double-slit-small.000020.png"})),
      "the checkpoint resumed, 'o/double-slit-small.000020.png', is named as the frames are");
  EXPECT_EQ(work_contents(), before);
  EXPECT_EQ(read_file(work() / "o" / "double-slit-small.000020.png"), read_file(work() / "ck"));
}

// Checkpoints damaged in their metadata (HDF5's superblock and root object header): a
// one-line error each, nothing after it (HDF5 itself would print at exit), nothing written.
TEST_F(CliResume, ACheckpointWithDamagedMetadataIsOneLineError) {
  std::string const bytes = read_file(work() / "ck");
  auto const before = work_contents();
  for (std::size_t const at : {20u, 60u, 100u, 140u, 200u, 300u}) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0xAA);
    write_text(work() / "damaged.ck", damaged);
    Result const result = wave2d(resume_run("20", {"--resume", "damaged.ck"}));
    EXPECT_EQ(result.status, 2) << "byte " << at << ": " << result.err;
    EXPECT_TRUE(result.err.starts_with("wave2d: error: checkpoint 'damaged.ck' ") &&
                std::count(result.err.begin(), result.err.end(), '\n') == 1)
        << "byte " << at << ": " << result.err;
    fs::remove(work() / "damaged.ck");
    EXPECT_EQ(work_contents(), before) << "byte " << at;
  }
}

// A resumed run's video takes the frames of the run it resumed too; where they are
// missing, it is not made, and a warning says so.
TEST_F(CliResume, TheVideoOfAResumedRunTakesTheEarlierFrames) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  fs::path const arguments = root_.path() / "ffmpeg-arguments";
  std::string const path = fake_ffmpeg(root_.path() / "bin", arguments);
  std::vector<std::string> const frames = {"--frames-every", "10", "--checkpoint-every", "10",
                                           "f.ck"};
  ASSERT_EQ(wave2d(resume_run("20", frames), {.path = path}).status, 0);
  std::vector<std::string> resume = frames;
  resume.insert(resume.end(), {"--resume", "f.ck"});
  Result const resumed = wave2d(resume_run("40", resume), {.path = path});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(contains(resumed.out,
                       "wrote 2 frames o/double-slit-small.000030.png .. "
                       "double-slit-small.000040.png"))
      << resumed.out;
  EXPECT_EQ(
      frames_ffmpeg_reads(arguments),
      (std::vector<std::string>{"double-slit-small.000000.png", "double-slit-small.000010.png",
                                "double-slit-small.000020.png", "double-slit-small.000030.png",
                                "double-slit-small.000040.png"}));
  fs::remove(arguments);
  Result const elsewhere =
      wave2d({"run", "--scene", "double-slit-small", "--steps", "40", "--backend", "reference",
              "--output", "p", "--frames-every", "10", "--resume", "ck"},
             {.path = path});
  ASSERT_EQ(elsewhere.status, 0) << elsewhere.err;
  EXPECT_EQ(elsewhere.err,
            "wave2d: warning: no video: the frame 'p/double-slit-small.000000.png' is "
            "missing (the frames are in p)\n");
  EXPECT_FALSE(fs::exists(arguments)) << "ffmpeg ran";
}

// A finished run continued to more steps in its folder, once and again: the last frames of
// the runs it continues, at no multiple of --frames-every, are in its video. A run stopped
// there wrote no such frame: its video is an uninterrupted run's.
TEST_F(CliResume, ARunContinuedInItsFolderKeepsTheEarlierLastFramesInTheVideo) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  fs::path const arguments = root_.path() / "ffmpeg-arguments";
  std::string const path = fake_ffmpeg(root_.path() / "bin", arguments);
  std::vector<std::string> const frames = {"--frames-every", "10", "--checkpoint-every", "10",
                                           "f.ck"};
  ASSERT_EQ(wave2d(resume_run("25", frames), {.path = path}).status, 0);
  fs::copy_file(work() / "f.ck", work() / "at25.ck");
  std::vector<std::string> resume = frames;
  resume.insert(resume.end(), {"--resume", "f.ck"});
  Result const continued = wave2d(resume_run("33", resume), {.path = path});
  ASSERT_EQ(continued.status, 0) << continued.err;
  EXPECT_TRUE(contains(continued.out,
                       "wrote 2 frames o/double-slit-small.000030.png .. "
                       "double-slit-small.000033.png"))
      << continued.out;
  Result const again = wave2d(resume_run("50", resume), {.path = path});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(
      frames_ffmpeg_reads(arguments),
      (std::vector<std::string>{"double-slit-small.000000.png", "double-slit-small.000010.png",
                                "double-slit-small.000020.png", "double-slit-small.000025.png",
                                "double-slit-small.000030.png", "double-slit-small.000033.png",
                                "double-slit-small.000040.png", "double-slit-small.000050.png"}));
  // Stopped at step 25 instead: no frame there, the frames of a run never stopped.
  for (std::string const step : {"25", "30", "33", "40", "50"}) {
    fs::remove(work() / ("o/double-slit-small.0000" + step + ".png"));
  }
  fs::remove(arguments);
  Result const resumed =
      wave2d(resume_run("50", {"--frames-every", "10", "--resume", "at25.ck"}), {.path = path});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_FALSE(fs::exists(work() / "o/double-slit-small.000025.png"));
  EXPECT_EQ(
      frames_ffmpeg_reads(arguments),
      (std::vector<std::string>{"double-slit-small.000000.png", "double-slit-small.000010.png",
                                "double-slit-small.000020.png", "double-slit-small.000030.png",
                                "double-slit-small.000040.png", "double-slit-small.000050.png"}));
}

// A run stopped while ffmpeg ran, resumed at its end: no step to run, but its checkpoint and
// its video. So too a run of 0 steps has its checkpoint.
TEST_F(CliResume, ARunResumedAtItsEndMakesItsVideoAndCheckpoint) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  fs::path const arguments = root_.path() / "ffmpeg-arguments";
  std::string const path = fake_ffmpeg(root_.path() / "bin", arguments);
  ASSERT_EQ(wave2d(resume_run("20", {"--frames-every", "10", "--checkpoint-every", "10", "e.ck"}),
                   {.path = "/nonexistent"})
                .status,
            0);
  ASSERT_FALSE(fs::exists(work() / "o/double-slit-small.mp4"));
  Result const resumed = wave2d(resume_run("20", {"--frames-every", "10", "--resume", "e.ck",
                                                  "--checkpoint-every", "10", "e.ck"}),
                                {.path = path});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(contains(resumed.out, "wrote o/double-slit-small.mp4")) << resumed.out;
  EXPECT_TRUE(contains(resumed.out, "checkpoint     e.ck, step 20")) << resumed.out;
  Result const none = wave2d(resume_run("0", {"--checkpoint-every", "10", "z.ck"}));
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_TRUE(contains(none.out, "checkpoint     z.ck, step 0")) << none.out;
  EXPECT_EQ(read_checkpoint(work() / "z.ck").step, 0);
}

// 20 GB that are not there, refused at once where reading them would take long: a file
// of zeros. (A checkpoint whose header says a 50000 x 50000 grid: test_hdf5_checkpoint.cpp.)
TEST_F(CliResume, A20GBCheckpointIsRefusedAtOnce) {
  fs::path const zeros = work() / "zeros.ck";
  write_text(zeros, "");
  if (::truncate(zeros.c_str(), off_t(20ll << 30)) != 0) {
    GTEST_SKIP() << "this file system holds no 20 GB sparse file";
  }
  auto const start = std::chrono::steady_clock::now();
  expect_refused_first(wave2d(resume_run("20", {"--resume", "zeros.ck"})),
                       "checkpoint 'zeros.ck' is not a wave2d checkpoint");
  double const seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.0) << "the program's start and the refusal";
}

}  // namespace
}  // namespace wave2d::test
