// The `wave2d` program as a user runs it: each test runs the real binary in a fresh
// directory and checks its output, its files, and that bad input leaves nothing behind.
#include <wave2d/io/wave2d_Checkpoint.hpp>
#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/reference/wave2d_Reference.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>
#include <wave2d/wave2d_Config.hpp>
#include <wave2d_TestFiles.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include <csignal>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

bool contains(std::string const& text, std::string const& part) {
  return text.find(part) != std::string::npos;
}

// A scene file in the format of docs/scene-files.md: a small grid and a 20 Hz source.
std::string scene_file(std::string const& grid, std::string const& time,
                       std::string const& more = "") {
  return "[grid]\n" + grid + "\n[time]\n" + time + "\n" + more +
         "[[sources]]\nx = 10\ny = 10\nfrequency = 20.0\n";
}

// A PNG of a few bytes whose header says width x height: no pixel data at all.
std::string png_header_only(std::uint32_t width, std::uint32_t height) {
  auto const crc = [](std::string const& bytes) {
    std::uint32_t c = 0xffffffffu;
    for (unsigned char byte : bytes) {
      c ^= byte;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
  };
  auto const be32 = [](std::uint32_t v) {
    return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  };
  std::string const ihdr =
      "IHDR" + be32(width) + be32(height) + std::string("\x08\x00\x00\x00\x00", 5);
  std::string const idat = "IDAT";
  std::string const iend = "IEND";
  return std::string("\x89PNG\r\n\x1a\n", 8) + be32(13) + ihdr + be32(crc(ihdr)) + be32(0) + idat +
         be32(crc(idat)) + be32(0) + iend + be32(crc(iend));
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directory(work());
    fs::create_directory(inputs());
    write_text(inputs() / "blocker", "a file where a directory is expected\n");
    write_text(inputs() / "tiny.toml",
               "name = \"tiny room\"\n" + scene_file("nx = 40\nny = 30", "steps = 50"));
    write_text(inputs() / "malformed.toml", "[grid]\nnx = 40\nny = = 30\n");
    write_text(inputs() / "source-outside.toml", scene_file("nx = 8\nny = 8", "steps = 5"));
    // Receivers on the source, on the border, on a wall and in the open.
    std::string const receivers =
        "[[walls]]\nrect = { x0 = 20, y0 = 0, x1 = 20, y1 = 12 }\n"
        "[[receivers]]\nx = 30\ny = 20\nname = \"mic\"\n"
        "[[receivers]]\nx = 10\ny = 10\n"
        "[[receivers]]\nx = 0\ny = 5\nname = \"border\"\n"
        "[[receivers]]\nx = 20\ny = 4\nname = \"wall\"\n";
    write_text(inputs() / "receivers.toml",
               "name = \"room\"\n" + scene_file("nx = 40\nny = 30", "steps = 50", receivers));
    write_text(inputs() / "receiver-outside.toml",
               scene_file("nx = 40\nny = 30", "steps = 5", "[[receivers]]\nx = 3\ny = 30\n"));
    write_text(inputs() / "wall-outside.toml",
               scene_file("nx = 40\nny = 30", "steps = 5",
                          "[[walls]]\nrect = { x0 = 20, y0 = 0, x1 = 20, y1 = 45 }\n"));
    write_text(inputs() / "unstable.toml", scene_file("nx = 40\nny = 30", "steps = 5\ndt = 0.1"));
    write_text(inputs() / "diverging.toml",
               scene_file("nx = 64\nny = 48", "steps = 400\ndt = 0.05"));
    write_text(inputs() / "huge-amplitude.toml",
               "[grid]\nnx = 40\nny = 30\n[time]\nsteps = 5\n"
               "[[sources]]\nx = 10\ny = 10\nfrequency = 20.0\namplitude = 3e38\n");
    write_text(inputs() / "ricker-overflow.toml",
               "[grid]\nnx = 40\nny = 30\n[time]\nsteps = 5\n[[sources]]\nx = 10\ny = 10\n"
               "waveform = \"ricker\"\nfrequency = 1e30\n");
    write_text(inputs() / "long-name.toml", "name = \"" + std::string(250, 'n') + "\"\n" +
                                                scene_file("nx = 40\nny = 30", "steps = 5"));
    // Named by its file: 250 bytes of stem.
    write_text(inputs() / (std::string(250, 'n') + ".toml"),
               scene_file("nx = 40\nny = 30", "steps = 5"));
    std::string light;
    for (int i = 0; i < 40 * 30; ++i) light += "1 ";
    write_text(inputs() / "walls.pgm", "P2\n40 30\n1\n" + light + "\n");
    write_text(inputs() / "with-mask.toml",
               scene_file("nx = 40\nny = 30", "steps = 5", "[[walls]]\nmask = \"walls.pgm\"\n"));
    write_text(inputs() / "dev-zero-mask.toml",
               scene_file("nx = 40\nny = 30", "steps = 5", "[[walls]]\nmask = \"/dev/zero\"\n"));
    write_text(inputs() / "lying.png", png_header_only(100000, 100000));
    write_text(inputs() / "lying-png-on-a-grid.toml",
               scene_file("nx = 64\nny = 48", "steps = 5", "[[walls]]\nmask = \"lying.png\"\n"));
    write_text(inputs() / "lying-png-sets-the-grid.toml",
               "[time]\nsteps = 5\n[[walls]]\nmask = \"lying.png\"\n");
    write_text(inputs() / "wide-with-one-wall.toml",
               scene_file("nx = 100000\nny = 100000", "steps = 5",
                          "[[walls]]\nrect = { x0 = 20, y0 = 0, x1 = 20, y1 = 5 }\n"));
    write_text(
        inputs() / "widest-with-a-region.toml",
        scene_file("nx = 2147483647\nny = 2147483647", "steps = 5",
                   "[[medium.region]]\nc = 0.5\nrect = { x0 = 20, y0 = 0, x1 = 20, y1 = 5 }\n"));
    std::string dotted = "a";
    for (int i = 0; i < 500000; ++i) dotted += ".b";
    write_text(inputs() / "dotted.toml", dotted + " = 1\n");
    write_text(inputs() / "nested.toml", "x = " + std::string(100000, '[') + "\n");
    fs::create_symlink(inputs() / "loop.toml", inputs() / "loop.toml");
    fs::create_symlink(inputs() / "loop.npy", inputs() / "loop.npy");
    write_text(inputs() / "dt-underflow.toml",
               scene_file("nx = 40\nny = 30", "steps = 5\ndt = 1e-50"));
    // 4e18 cells: refused before anything is allocated, or when the wall mask cannot be.
    std::string const huge_grid = "nx = 2000000000\nny = 2000000000\ndx = 1.0";
    write_text(inputs() / "huge.toml", scene_file(huge_grid, "steps = 5\ndt = 0.25"));
    write_text(inputs() / "huge-with-walls.toml",
               scene_file(huge_grid, "steps = 5\ndt = 0.25",
                          "[[walls]]\nrect = { x0 = 20, y0 = 0, x1 = 20, y1 = 5 }\n"));
  }

  // Runs `wave2d <arguments>` in work(), an empty directory; stdout and stderr are
  // captured outside it. One thread, OpenMP's binding left to the program.
  Result wave2d(std::string const& arguments, std::string const& environment = "") const {
    auto const out = root_.path() / "stdout";
    auto const err = root_.path() / "stderr";
    std::string const command = "cd '" + work().string() +
                                "' && env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS=1 " +
                                environment + " '" WAVE2D_CLI "' " + arguments + " >'" +
                                out.string() + "' 2>'" + err.string() + "'";
    int const status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
  }

  fs::path work() const { return root_.path() / "work"; }
  fs::path inputs() const { return root_.path() / "inputs"; }
  std::vector<std::string> work_contents() const {
    std::vector<std::string> names;
    for (auto const& entry : fs::recursive_directory_iterator(work())) {
      names.push_back(fs::relative(entry.path(), work()).string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // A program called ffmpeg, first on PATH, that runs `script` (sh).
  std::string fake_ffmpeg(std::string const& script) const {
    auto const bin = root_.path() / "bin";
    fs::create_directory(bin);
    write_text(bin / "ffmpeg", "#!/bin/sh\n" + script);
    fs::permissions(bin / "ffmpeg", fs::perms::owner_all);
    return "PATH='" + bin.string() + "':\"$PATH\"";
  }

  TemporaryDirectory root_;
};

// The pair the reference computes for `steps` steps of the scene.
std::vector<float> reference_pair(Scene const& scene, std::int64_t steps) {
  std::vector<float> u0(scene.cells()), u1(scene.cells());
  auto const [previous, current] = reference::run(scene, 0, steps, u0.data(), u1.data());
  std::vector<float> pair(previous, previous + scene.cells());
  pair.insert(pair.end(), current, current + scene.cells());
  return pair;
}

// `output` is what the run printed: it names the execution space it ran on.
void expect_reference_npy(fs::path const& path, std::int64_t steps, std::string const& output) {
  Scene const scene = builtin_scene("double-slit-small");
  std::string const bytes = read_file(path);
  Npy const npy = parse_npy(bytes);
  EXPECT_EQ(npy.header.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 201, 201), }"),
            0u)
      << npy.header;
  EXPECT_EQ(bytes.size(), 10 + npy.header.size() + 2 * 201 * 201 * sizeof(float));
  auto const expected = reference_pair(scene, steps);
  if (!contains(output, "Cuda")) {
    // The CPU backends compute the reference's float expression in its order, in chunks or not.
    EXPECT_TRUE(npy.data == expected) << "the .npy differs from the reference";
    return;
  }
  // GPU compilers contract to FMA: the GPU bar, per field.
  auto const cells = std::size_t(scene.cells());
  for (std::size_t field = 0; field < 2; ++field) {
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = field * cells; i < (field + 1) * cells; ++i) {
      diff += (double(expected[i]) - npy.data[i]) * (double(expected[i]) - npy.data[i]);
      norm += double(expected[i]) * expected[i];
    }
    EXPECT_LT(std::sqrt(diff / norm), 1e-5) << "field " << field << " of the .npy";
  }
}

std::vector<std::string> with_images(std::vector<std::string> files,
                                     std::vector<std::string> const& images) {
  if (can_write_png) files.insert(files.end(), images.begin(), images.end());
  std::sort(files.begin(), files.end());
  return files;
}

// A value of any length in an error (here a backend's name of 120 kB) still makes a line of
// a few kB: its start and end, cut between characters, and how much was left out.
TEST_F(Cli, AnErrorQuotesALongValueInPart) {
  std::string name;
  for (int i = 0; i < 60000; ++i) name += "\u00e9";  // two bytes each
  Result const result = wave2d("run --scene double-slit-small --backend '" + name + "'");
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(result.err.find("wave2d: error: unknown backend '\u00e9\u00e9"), 0u)
      << result.err.substr(0, 100);
  EXPECT_TRUE(contains(result.err, "bytes left out ...]")) << result.err.substr(0, 100);
  EXPECT_TRUE(contains(result.err, "\u00e9' (available: ")) << result.err.substr(0, 100);
  EXPECT_LT(result.err.size(), 6200u);
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1);
  for (std::size_t i = 0; i < result.err.size(); ++i) {  // every \u00e9 whole
    bool const lead = result.err[i] == '\xc3';
    bool const trail = result.err[i] == '\xa9';
    if (lead) EXPECT_EQ(result.err[i + 1], '\xa9') << "at " << i;
    if (trail) EXPECT_EQ(result.err[i - 1], '\xc3') << "at " << i;
  }
}

TEST_F(Cli, ScenesListsTheBuiltinScenes) {
  Result const result = wave2d("scenes");
  EXPECT_EQ(result.status, 0) << result.err;
  for (auto const& info : builtin_scenes()) {
    EXPECT_TRUE(contains(result.out, std::string(info.name))) << result.out;
    EXPECT_TRUE(contains(result.out, std::string(info.description))) << result.out;
  }
  EXPECT_TRUE(contains(result.out, "201 x 201")) << result.out;
  EXPECT_TRUE(contains(result.out, "3201 x 3201")) << result.out;
  EXPECT_TRUE(contains(result.out, "12800")) << result.out;
}

// The spaces `wave2d backends` lists ("openmp:" lines), each followed by its backends.
std::vector<std::string> listed_spaces(std::string const& listing) {
  std::vector<std::string> spaces;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == ':') spaces.push_back(line.substr(0, line.size() - 1));
  }
  return spaces;
}

TEST_F(Cli, BackendsListsWhatRunAcceptsPerSpace) {
  Result const result = wave2d("backends");
  ASSERT_EQ(result.status, 0) << result.err;
  Result const help = wave2d("run --help");
  std::istringstream lines(result.out);
  int listed = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.back() == ':') {
      EXPECT_TRUE(contains(help.out, line.substr(0, line.size() - 1))) << line << " in --space";
      continue;
    }
    ASSERT_EQ(line.rfind("  ", 0), 0u) << "  name<TAB>summary: " << line;
    EXPECT_NE(line.find('\t'), std::string::npos) << "  name<TAB>summary: " << line;
    ++listed;
  }
  EXPECT_FALSE(listed_spaces(result.out).empty()) << result.out;
  EXPECT_TRUE(contains(result.out, "  auto\t")) << result.out;
  EXPECT_GE(listed, 3) << result.out;  // auto, the reference and a Kokkos kernel
  // auto never tries the sequential reference, and the list says so.
  EXPECT_TRUE(contains(result.out,
                       "(the oracle), evaluates the scene per cell (not among auto's "
                       "candidates)\n"))
      << result.out;
}

// auto, on every compiled space: the reference's bits, and what it chose is said.
TEST_F(Cli, AutoRunsOnEverySpace) {
  auto const spaces = listed_spaces(wave2d("backends").out);
  ASSERT_FALSE(spaces.empty());
  for (auto const& space : spaces) {
    fs::remove(work() / "f.npy");
    Result const result = wave2d(
        "run --scene double-slit-small --steps 21 --save-npy f.npy --output . --space " + space);
    ASSERT_EQ(result.status, 0) << space << ": " << result.err;
    EXPECT_TRUE(contains(result.out, "auto chose ")) << result.out;
    EXPECT_TRUE(contains(result.out, "trial ")) << result.out;
    expect_reference_npy(work() / "f.npy", 21, result.out);
  }
}

TEST_F(Cli, PlanRanksTheCandidatesAndKeepsThePlan) {
  fs::path const cache = work() / "cache";
  std::string const environment = "XDG_CACHE_HOME='" + cache.string() + "'";
  Result const plan = wave2d("plan --scene double-slit-small", environment);
  ASSERT_EQ(plan.status, 0) << plan.err;
  for (auto part :
       {"double-slit-small, 201 x 201", "trial ", "1. ", "GCells/s", "<- auto", "estimate  "}) {
    EXPECT_TRUE(contains(plan.out, part)) << part << " in\n" << plan.out;
  }
  // Where the plan was kept, and its rates to at most three significant digits, said once.
  fs::path const plans = cache / "wave2d" / "plans";
  EXPECT_TRUE(contains(plan.out, "kept in   " + plans.string())) << plan.out;
  Result const cached = wave2d("run --scene double-slit-small --steps 3 --output o", environment);
  ASSERT_EQ(cached.status, 0) << cached.err;
  EXPECT_TRUE(contains(cached.out, "from the plan cache (" + plans.string())) << cached.out;
  EXPECT_TRUE(contains(cached.out, "\ncached trial   ")) << cached.out;
  EXPECT_FALSE(contains(cached.out, "\ntrial ")) << "the cache's rates are not this run's";
  Result const measured =
      wave2d("run --scene double-slit-small --steps 3 --output o --plan measure", environment);
  ASSERT_EQ(measured.status, 0) << measured.err;
  EXPECT_TRUE(contains(measured.out, ", kept in " + plans.string())) << measured.out;
  auto const trial = measured.out.find("\ntrial ");
  ASSERT_NE(trial, std::string::npos) << measured.out;
  std::string const rates = measured.out.substr(trial, measured.out.find('\n', trial + 1) - trial);
  EXPECT_FALSE(contains(rates, " 0.00,") || contains(rates, " 0.00 ")) << rates;
  auto const said = [](std::string const& text, std::string const& part) {
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
  };
  EXPECT_EQ(said(measured.out, "auto chose"), 1u) << measured.out;
  // --plan beside a named backend chooses nothing, and says so.
  Result const named = wave2d(
      "run --scene double-slit-small --steps 3 --output o --plan measure --backend reference",
      environment);
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_TRUE(contains(named.err, "wave2d: note: --plan measure chooses for auto alone"))
      << named.err;
  Result const estimated =
      wave2d("run --scene double-slit-small --steps 3 --output o --plan estimate", environment);
  ASSERT_EQ(estimated.status, 0) << estimated.err;
  EXPECT_TRUE(contains(estimated.out, "estimated, no trial")) << estimated.out;
  Result const chooses = wave2d("backends --scene double-slit-small", environment);
  ASSERT_EQ(chooses.status, 0) << chooses.err;
  EXPECT_TRUE(contains(chooses.out, "auto chose ")) << chooses.out;
  EXPECT_TRUE(contains(chooses.out, "for double-slit-small")) << chooses.out;

  // A corrupt entry is ignored with a note; the run goes on and replaces it (the entries of
  // the other spaces stay as they are).
  for (auto const& entry : fs::directory_iterator(cache / "wave2d" / "plans")) {
    std::ofstream(entry.path(), std::ios::trunc) << "not a plan";
  }
  Result const corrupt = wave2d("run --scene double-slit-small --steps 3 --output o", environment);
  ASSERT_EQ(corrupt.status, 0) << corrupt.err;
  EXPECT_TRUE(contains(corrupt.err, "wave2d: note: ignored the plan cache entry")) << corrupt.err;
  EXPECT_TRUE(contains(corrupt.out, "measured")) << corrupt.out;
  int replaced = 0;
  for (auto const& entry : fs::directory_iterator(cache / "wave2d" / "plans")) {
    replaced += read_file(entry.path()) != "not a plan";
  }
  EXPECT_EQ(replaced, 1);
  // A cache folder that cannot be made: the plan is not kept, with a note.
  std::ofstream(work() / "blocker") << "x";
  Result const unwritable = wave2d("run --scene double-slit-small --steps 3 --output o",
                                   "XDG_CACHE_HOME='" + (work() / "blocker").string() + "'");
  ASSERT_EQ(unwritable.status, 0) << unwritable.err;
  EXPECT_TRUE(contains(unwritable.err, "wave2d: note: the plan is not kept")) << unwritable.err;
}

TEST_F(Cli, HelpAndVersion) {
  Result const version = wave2d("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out.find("wave2d " WAVE2D_VERSION), 0u) << version.out;
  // The features of optional libraries, in the list of those the build has or has not.
  std::string const with = version.out.substr(0, version.out.find("; without "));
  EXPECT_EQ(contains(with, "scene files"), has_scene_files) << version.out;
  EXPECT_EQ(contains(with, "PNG"), can_write_png) << version.out;
  EXPECT_EQ(contains(with, "checkpoints"), can_checkpoint) << version.out;

  Result const help = wave2d("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_TRUE(contains(help.out, "run") && contains(help.out, "scenes")) << help.out;

  Result const run_help = wave2d("run --help");
  EXPECT_EQ(run_help.status, 0);
  for (auto option : {"--scene", "--backend", "--space", "--plan", "--steps", "--output",
                      "--frames-every", "--save-npy", "--allow-unstable", "auto",
                      "--checkpoint-every STEPS FILE", "--progress STYLE", "--ranks PxQ"}) {
    EXPECT_TRUE(contains(run_help.out, option)) << option << " in\n" << run_help.out;
  }
  EXPECT_FALSE(contains(run_help.out, " x 2")) << run_help.out;
  // Options that need what the build lacks say so.
  for (auto command : {"plan --help", "backends --help"}) {
    Result const help_of = wave2d(command);
    EXPECT_EQ(contains(help_of.out, "(not in this build: scene files need toml++)"),
              !has_scene_files)
        << help_of.out;
  }
  EXPECT_EQ(contains(run_help.out, "(not in this build: scene files need toml++)"),
            !has_scene_files)
      << run_help.out;
  EXPECT_EQ(contains(run_help.out, "(no pictures in this build: they need libpng)"), !can_write_png)
      << run_help.out;
  EXPECT_EQ(contains(run_help.out, "(not in this build: it has no HDF5)"), !can_use_hdf5)
      << run_help.out;
  EXPECT_EQ(contains(run_help.out, "(not in this build: checkpoints need HDF5 and xxHash)"),
            !can_checkpoint)
      << run_help.out;

  // Kokkos' own help, as --help: whatever else is asked.
  for (auto arguments : {"--kokkos-help", "run --scene nowhere --kokkos-help"}) {
    Result const kokkos_help = wave2d(arguments);
    EXPECT_EQ(kokkos_help.status, 0) << arguments << ": " << kokkos_help.err;
    EXPECT_TRUE(contains(kokkos_help.out, "--kokkos-help") &&
                contains(kokkos_help.out, "print this message"))
        << arguments << ":\n"
        << kokkos_help.out;
  }
  EXPECT_TRUE(work_contents().empty());
}

// Kokkos' OpenMP warns of an unset OMP_PROC_BIND (unset here): the program tells it that
// threads are unbound, as they are, and an error or a run stays free of Kokkos' warnings.
TEST_F(Cli, KokkosSaysNothingByDefault) {
  Result const result =
      wave2d("run --scene double-slit-small --steps 2 --output o --progress none");
  EXPECT_EQ(result.status, 0) << result.err;
  if (can_write_png) EXPECT_EQ(result.err, "");
  EXPECT_FALSE(contains(result.err, "Kokkos")) << result.err;
  EXPECT_FALSE(contains(result.err, "OMP_PROC_BIND")) << result.err;
}

// A Kokkos tool library that loads is taken (one with no tool's functions runs as none).
TEST_F(Cli, AKokkosToolLibraryThatLoadsIsTaken) {
  Result const result =
      wave2d("run --scene double-slit-small --steps 2 --output o --kokkos-tools-libs=libm.so.6");
  EXPECT_EQ(result.status, 0) << result.err;
}

// Progress lines of a run of 400 steps: each of a later step than the one before.
void check_progress_lines(Result const& lines) {
  ASSERT_EQ(lines.status, 0) << lines.err;
  std::istringstream err(lines.err);
  std::regex const line(
      R"(wave2d: step ([0-9]+) of 400 \([0-9]+%\), [0-9.e+-]+ GCells/s, ETA [0-9]+ s)");
  int count = 0;
  std::int64_t last = 0;
  for (std::string text; std::getline(err, text);) {
    std::smatch match;
    if (text.find("without lib") != std::string::npos) continue;  // a build's notes
    ASSERT_TRUE(std::regex_match(text, match, line)) << text;
    std::int64_t const step = std::stoll(match[1].str());
    EXPECT_GT(step, last) << text;
    last = step;
    ++count;
  }
  EXPECT_GE(count, 2) << lines.err;
}

// Where stderr is not a terminal (a log, a batch job), a line every --progress-every
// seconds, the last step's at most once (not again while ffmpeg makes the video); none with
// --progress none.
TEST_F(Cli, ProgressIsALineEverySoOftenInLogs) {
  std::string const slow_ffmpeg =
      fake_ffmpeg("sleep 0.5\nfor last; do :; done\necho video > \"$last\"\n");
  for (std::string const video : {"", "--frames-every 200 "}) {
    if (!video.empty() && !can_write_png) continue;  // no frames, no video
    check_progress_lines(wave2d("run --scene double-slit-small --steps 400 --output o " + video +
                                    "--progress-every 0.000001",
                                slow_ffmpeg));
  }

  Result const none = wave2d(
      "run --scene double-slit-small --steps 400 --output o --progress none "
      "--progress-every 0.000001");
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_FALSE(contains(none.err, "wave2d: step")) << none.err;
}

// What the run prints of a scene's name and its outputs' paths stays one line each.
TEST_F(Cli, ANameWithALineBreakPrintsOneLine) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  write_text(inputs() / "two-lines.toml",
             "name = \"two\\nlines\"\n" + scene_file("nx = 40\nny = 30", "steps = 5"));
  Result const result = wave2d("run --scene '" + (inputs() / "two-lines.toml").string() +
                               "' --output o --save-npy \"$(printf 'f\\n.npy')\"");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(result.out.starts_with("scene          two\\nlines (")) << result.out;
  EXPECT_TRUE(contains(result.out, "\nwrote f\\n.npy\n")) << result.out;
}

TEST_F(Cli, RunWritesTheImageAndTheReferencePair) {
  Result const result =
      wave2d("run --scene double-slit-small --steps 20 --save-npy f.npy --output o");
  ASSERT_EQ(result.status, 0) << result.err;
  for (auto part :
       {"double-slit-small", "201 x 201", "20", "auto chose ", "GCells/s", "wrote f.npy"}) {
    EXPECT_TRUE(contains(result.out, part)) << part << " in\n" << result.out;
  }
  EXPECT_EQ(work_contents(), with_images({"f.npy"}, {"o", "o/double-slit-small.png"}));
  expect_reference_npy(work() / "f.npy", 20, result.out);
}

TEST_F(Cli, RunsTheReferenceBackend) {
  // Kokkos gets its own arguments; the reference runs on a host space, which has threads.
  Result const reference = wave2d(
      "run --scene double-slit-small --backend reference --steps 20 --save-npy f.npy --output . "
      "--kokkos-num-threads=1");
  ASSERT_EQ(reference.status, 0) << reference.err;
  EXPECT_TRUE(contains(reference.out, "(1 thread)")) << reference.out;
  expect_reference_npy(work() / "f.npy", 20, reference.out);
  EXPECT_EQ(work_contents(), with_images({"f.npy"}, {"double-slit-small.png"}));
}

TEST_F(Cli, RunsSceneFiles) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  Result const file = wave2d("run --scene '" + (inputs() / "tiny.toml").string() + "' --output o");
  ASSERT_EQ(file.status, 0) << file.err;
  EXPECT_TRUE(contains(file.out, "tiny room")) << file.out;
  EXPECT_TRUE(contains(file.out, "40 x 30")) << file.out;
  EXPECT_TRUE(contains(file.out, "50")) << file.out;  // the file's steps
  EXPECT_EQ(work_contents(), with_images({}, {"o", "o/tiny_room.png"}));
}

// What the steps give is checked over the steps the run makes: --steps below the file's
// runs a scene whose source would overflow only later, and --steps past it is refused.
TEST_F(Cli, StepsGivenAreTheStepsChecked) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  write_text(inputs() / "fast.toml",
             "[grid]\nnx = 40\nny = 30\n[time]\nsteps = 8000000\n[[sources]]\nx = 10\n"
             "y = 10\nwaveform = \"sine\"\nfrequency = 1e37\n");
  std::string const run = "run --scene '" + (inputs() / "fast.toml").string() + "' --output o";
  Result const whole = wave2d(run);
  EXPECT_EQ(whole.status, 2);
  EXPECT_TRUE(contains(whole.err, "fast.toml:10: sources[0].frequency: source 0's value at step"))
      << whole.err;
  Result const shorter = wave2d(run + " --steps 10");
  EXPECT_EQ(shorter.status, 0) << shorter.err;
  EXPECT_EQ(wave2d(run + " --steps 9000000").status, 2);
}

// Outputs are named after the scene: a scene file named like a built-in scene says that
// its outputs take the built-in's names; one named otherwise says nothing.
TEST_F(Cli, SceneFileNamedLikeABuiltinSceneSaysSo) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  write_text(inputs() / "slit.toml", scene_file("nx = 40\nny = 30", "steps = 5"));
  Result const named = wave2d("run --scene '" + (inputs() / "slit.toml").string() + "' --output o");
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_TRUE(contains(named.err,
                       "wave2d: note: the scene file is named 'slit', as a built-in "
                       "scene: its outputs (o/slit.png, ...) take that scene's names"))
      << named.err;
  Result const other = wave2d("run --scene '" + (inputs() / "tiny.toml").string() + "' --output o");
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_FALSE(contains(other.err, "note: the scene file is named")) << other.err;
  Result const builtin = wave2d("run --scene double-slit-small --steps 2 --output o");
  ASSERT_EQ(builtin.status, 0) << builtin.err;
  EXPECT_FALSE(contains(builtin.err, "note: the scene file is named")) << builtin.err;
}

// A file here named as a built-in scene does not run in its place, and the note says how
// it would.
TEST_F(Cli, AFileNamedAsABuiltinSceneIsNoted) {
  Result const alone = wave2d("run --scene double-slit-small --steps 2 --output o");
  ASSERT_EQ(alone.status, 0) << alone.err;
  EXPECT_FALSE(contains(alone.err, "is a built-in scene")) << alone.err;
  write_text(work() / "double-slit-small", "not a scene");
  Result const beside = wave2d("run --scene double-slit-small --steps 2 --output o");
  ASSERT_EQ(beside.status, 0) << beside.err;
  // A build that reads no scene files could not run it: no note.
  EXPECT_EQ(has_scene_files,
            contains(beside.err,
                     "wave2d: note: 'double-slit-small' is a built-in scene, and runs as one; "
                     "'./double-slit-small' runs the file of that name here"))
      << beside.err;
}

TEST_F(Cli, ReceiversAreWrittenAsNpyCsvAndAPlot) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  Scene const scene = load_scene_file(inputs() / "receivers.toml");
  // The reference's trace: u at the receivers after each step, from step 0.
  std::vector<float> u0(scene.cells()), u1(scene.cells()), expected;
  float* previous = u0.data();
  float* current = u1.data();
  for (std::int64_t step = 0;; ++step) {
    for (auto const& r : scene.receivers) expected.push_back(current[scene.index(r.x, r.y)]);
    if (step == 50) break;
    std::tie(previous, current) = reference::run(scene, step, 1, previous, current);
  }
  for (std::string backend : {"kokkos-mdrange", "kokkos-tiled", "reference"}) {
    SCOPED_TRACE(backend);
    Result const result = wave2d("run --scene '" + (inputs() / "receivers.toml").string() +
                                 "' --output o --backend " + backend);
    ASSERT_EQ(result.status, 0) << result.err;
    bool const plot = !contains(result.err, "without libplot");
    EXPECT_TRUE(contains(result.out, "(4 receivers, 51 rows)")) << result.out;
    std::vector<std::string> files = {"o", "o/room.receivers.csv", "o/room.receivers.npy"};
    if (plot) files.push_back("o/room.receivers.png");
    EXPECT_EQ(work_contents(), with_images(files, {"o/room.png"}));

    std::string const bytes = read_file(work() / "o/room.receivers.npy");
    Npy const npy = parse_npy(bytes);
    EXPECT_EQ(npy.header.find("{'descr': '<f4', 'fortran_order': False, 'shape': (51, 4), }"), 0u)
        << npy.header;
#if defined(WAVE2D_HAVE_CUDA_BACKENDS)
    // The program runs on the GPU: contracted multiply-adds round differently.
    ASSERT_EQ(npy.data.size(), expected.size());
    double error = 0, norm = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      error += (double(npy.data[i]) - expected[i]) * (double(npy.data[i]) - expected[i]);
      norm += double(expected[i]) * expected[i];
    }
    EXPECT_LE(std::sqrt(error / norm), backend == "reference" ? 0.0 : 1e-5)
        << "the trace differs from the reference's";
#else
    // Host backends: the reference's float expression, bit for bit.
    EXPECT_TRUE(npy.data == expected) << "the trace differs from the reference's";
#endif

    std::istringstream csv(read_file(work() / "o/room.receivers.csv"));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "step,time,mic,r1,border,wall");
    std::getline(csv, line);
    EXPECT_EQ(line, "0,0,0,0,0,0");
    int rows = 1;
    while (std::getline(csv, line)) {
      ++rows;
      if (rows == 3) {  // step 2: the source's value, the border and the wall at 0
        EXPECT_TRUE(line.starts_with("2,")) << line;
        EXPECT_TRUE(line.ends_with(",0,0")) << line;
        EXPECT_EQ(
            std::stof(line.substr(line.find(',', line.find(',', line.find(',') + 1) + 1) + 1)),
            expected[2 * 4 + 1])
            << line;
      }
    }
    EXPECT_EQ(rows, 51);
    if (plot) {
      EXPECT_EQ(read_file(work() / "o/room.receivers.png").substr(0, 8),
                std::string("\x89PNG\r\n\x1a\n", 8));
    }
    fs::remove_all(work() / "o");
  }
  Result const none = wave2d("run --scene '" + (inputs() / "receivers.toml").string() +
                             "' --output o --no-receivers");
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(work_contents(), with_images({}, {"o", "o/room.png"}));
}

TEST_F(Cli, CountsAgreeWithTheirNouns) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  write_text(inputs() / "one-receiver.toml",
             "name = \"one\"\n" +
                 scene_file("nx = 40\nny = 30", "steps = 3", "[[receivers]]\nx = 3\ny = 4\n"));
  // Step 0 alone: one row of the trace, one frame.
  Result const result = wave2d("run --scene '" + (inputs() / "one-receiver.toml").string() +
                                   "' --output o --frames-every 5 --steps 0",
                               "PATH=/nonexistent");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(contains(result.out, " (1 receiver, 1 row)\n")) << result.out;
  if (can_write_png) {
    EXPECT_TRUE(contains(result.out, "wrote 1 frame o/one.000000.png\n")) << result.out;
  }
}

TEST_F(Cli, FramesEveryKStepsAndTheLastThenAVideo) {
  std::string const path =
      fake_ffmpeg("echo \"$@\" > '" + (inputs() / "ffmpeg-arguments").string() +
                  "'\nfor last; do :; done\necho video > \"$last\"\n");
  Result const result = wave2d(
      "run --scene double-slit-small --steps 25 --frames-every 10 --output o --save-npy f.npy",
      path);
  ASSERT_EQ(result.status, 0) << result.err;
  expect_reference_npy(work() / "f.npy", 25,
                       result.out);  // frames cut the run into chunks: same result
  if (!can_write_png) {
    EXPECT_TRUE(contains(result.err, "libpng")) << result.err;
    return;
  }
  EXPECT_EQ(work_contents(),
            (std::vector<std::string>{
                "f.npy", "o", "o/double-slit-small.000000.png", "o/double-slit-small.000010.png",
                "o/double-slit-small.000020.png", "o/double-slit-small.000025.png",
                "o/double-slit-small.mp4", "o/double-slit-small.png"}));
  EXPECT_EQ(read_file(work() / "o/double-slit-small.png"),
            read_file(work() / "o/double-slit-small.000025.png"));  // the last frame is final
  EXPECT_TRUE(contains(result.out, "wrote o/double-slit-small.mp4")) << result.out;
  std::string const arguments = read_file(inputs() / "ffmpeg-arguments");
  for (auto part : {"-framerate 30", "-f image2 -pattern_type glob",
                    "double-slit-small.[0-9][0-9][0-9][0-9][0-9][0-9].png",
                    "pad=", "-c:v libx264 -threads 4", "-pix_fmt yuv420p"}) {
    EXPECT_TRUE(contains(arguments, part)) << part << " in\n" << arguments;
  }
}

// ffmpeg itself, where it is installed: its glob finds every frame.
TEST_F(Cli, FfmpegMakesTheVideoOfEveryFrame) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  if (std::system("command -v ffmpeg > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no ffmpeg on PATH (install ffmpeg)";
  }
  Result const result =
      wave2d("run --scene double-slit-small --steps 20 --frames-every 5 --output o");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "wrote o/double-slit-small.mp4")) << result.out << result.err;
  EXPECT_FALSE(contains(result.err, "warning")) << result.err;
  // The same bytes on one core as on all of them (x264 writes its thread count).
  if (std::system("command -v taskset > /dev/null 2>&1") == 0) {
    Result const one_core = wave2d(
        "run --scene double-slit-small --steps 20 --frames-every 5 --output one", "taskset -c 0");
    ASSERT_EQ(one_core.status, 0) << one_core.err;
    EXPECT_EQ(read_file(work() / "one/double-slit-small.mp4"),
              read_file(work() / "o/double-slit-small.mp4"));
  }
  if (std::system("command -v ffprobe > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no ffprobe on PATH: the video's frames not counted";
  }
  std::string const count = (work() / "frames").string();
  ASSERT_EQ(std::system(("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                         "stream=nb_read_frames -of csv=p=0 '" +
                         (work() / "o/double-slit-small.mp4").string() + "' > '" + count + "'")
                            .c_str()),
            0);
  EXPECT_EQ(read_file(count), "5\n");
}

TEST_F(Cli, WithoutFfmpegTheFramesStayAndANoteSaysSo) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  Result const result =
      wave2d("run --scene double-slit-small --steps 4 --frames-every 2", "PATH=/nonexistent");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(contains(result.err, "no ffmpeg on PATH")) << result.err;
  EXPECT_EQ(work_contents(),
            (std::vector<std::string>{
                "out", "out/double-slit-small.000000.png", "out/double-slit-small.000002.png",
                "out/double-slit-small.000004.png", "out/double-slit-small.png"}));
}

TEST_F(Cli, AFailingFfmpegCostsOnlyTheVideo) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  std::string const path =
      fake_ffmpeg("for last; do :; done\necho half a video > \"$last\"\nexit 3\n");
  Result const result =
      wave2d("run --scene double-slit-small --steps 4 --frames-every 4 --output o", path);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(contains(result.err, "warning: no video: ffmpeg exited with status 3")) << result.err;
  EXPECT_EQ(work_contents(), (std::vector<std::string>{"o", "o/double-slit-small.000000.png",
                                                       "o/double-slit-small.000004.png",
                                                       "o/double-slit-small.png"}));
}

TEST_F(Cli, AllowUnstableRunsWhatValidationRefuses) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  Result const result = wave2d("run --scene '" + (inputs() / "unstable.toml").string() +
                               "' --allow-unstable --save-npy f.npy");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(work_contents(), with_images({"f.npy"}, {"out", "out/unstable.png"}));
}

// The unstable time step's error names the scene file as the user did, as every other
// problem of the file does.
TEST_F(Cli, AnUnstableTimeStepNamesTheFileAsGiven) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  fs::copy_file(inputs() / "unstable.toml", work() / "u.toml");
  Result const result = wave2d("run --scene u.toml");
  EXPECT_EQ(result.status, 2) << result.err;
  EXPECT_TRUE(result.err.starts_with("wave2d: error: u.toml:6: time.dt: unstable time step"))
      << result.err;
}

// Where the reference first goes non-finite: the step, its first cell in row-major
// order, and the pair before that step.
struct Divergence {
  std::int64_t step = 0;
  std::int64_t cell = -1;
  std::vector<float> last_finite_pair;
};

Divergence reference_divergence(Scene const& scene, std::int64_t steps) {
  std::vector<float> previous(scene.cells()), current(scene.cells());
  for (std::int64_t s = 0; s < steps; ++s) {
    std::vector<float> pair(previous);
    pair.insert(pair.end(), current.begin(), current.end());
    reference::step(scene, Window::whole(scene.nx, scene.ny), time_of_step(scene.t0, scene.dt, s),
                    previous.data(), current.data());
    std::swap(previous, current);
    auto const bad =
        std::find_if(current.begin(), current.end(), [](float u) { return !std::isfinite(u); });
    if (bad != current.end()) return {s + 1, bad - current.begin(), pair};
  }
  return {};
}

TEST_F(Cli, ARunThatGoesNonFiniteStopsSaysWhereAndWritesNothing) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  fs::path const file = inputs() / "diverging.toml";
  Scene const scene = load_scene_file(file);
  Divergence const expected = reference_divergence(scene, scene.steps);
  ASSERT_GT(expected.step, 0) << "the scene must diverge";
  std::string const where = "the field is not finite after step " + std::to_string(expected.step) +
                            ", first at cell (" + std::to_string(expected.cell % scene.nx) + ", " +
                            std::to_string(expected.cell / scene.nx) + ")";

  Result const refused =
      wave2d("run --scene '" + file.string() + "' --allow-unstable --save-npy f.npy");
  EXPECT_EQ(refused.status, 1);
  EXPECT_EQ(refused.err,
            "wave2d: error: " + where + " (--keep-last-finite writes the last finite state)\n");
  EXPECT_TRUE(work_contents().empty());

  // The reference backend, so that the kept state can be compared bit for bit (on a GPU
  // the default backend's FMAs round differently).
  Result const kept = wave2d("run --scene '" + file.string() +
                             "' --backend reference --allow-unstable --save-npy f.npy "
                             "--keep-last-finite");
  EXPECT_EQ(kept.status, 1);
  EXPECT_EQ(kept.err, "wave2d: error: " + where + "; wrote the last finite state, step " +
                          std::to_string(expected.step - 1) + "\n");
  EXPECT_EQ(work_contents(), with_images({"f.npy"}, {"out", "out/diverging.png"}));
  EXPECT_TRUE(parse_npy(read_file(work() / "f.npy")).data == expected.last_finite_pair);
}

TEST_F(Cli, ZeroStepsWriteTheInitialState) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  write_text(inputs() / "still.toml", scene_file("nx = 40\nny = 30", "steps = 0"));
  for (std::string const steps : {"", " --steps 0"}) {
    Result const result = wave2d("run --scene '" + (inputs() / "still.toml").string() + "'" +
                                 steps + " --save-npy f.npy");
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_TRUE(contains(result.out, "steps          0")) << result.out;
    EXPECT_FALSE(contains(result.out, "GCells/s")) << result.out;
    EXPECT_EQ(work_contents(), with_images({"f.npy"}, {"out", "out/still.png"}));
    EXPECT_TRUE(parse_npy(read_file(work() / "f.npy")).data ==
                std::vector<float>(2 * 40 * 30, 0.0f));
  }
}

// Names in other scripts stay distinct; one that starts with '.' names no hidden file.
TEST_F(Cli, NamesInOtherScriptsStayDistinctAndNoneIsHidden) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no images";
  for (std::string const name : {"水", "火", ".", ".."}) {
    write_text(inputs() / "scene.toml",
               "name = \"" + name + "\"\n" + scene_file("nx = 40\nny = 30", "steps = 2"));
    Result const result = wave2d("run --scene '" + (inputs() / "scene.toml").string() + "'");
    ASSERT_EQ(result.status, 0) << result.err;
  }
  EXPECT_EQ(work_contents(), (std::vector<std::string>{"out", "out/_..png", "out/_.png",
                                                       "out/水.png", "out/火.png"}));
}

// A link is followed and its target written atomically; a character device is written
// through, a FIFO refused, neither replaced by a regular file.
TEST_F(Cli, SpecialFilesAreNeverReplaced) {
  fs::path const link = inputs() / "link.npy";
  fs::create_symlink("target.npy", link);
  Result const through_link = wave2d(
      "run --scene double-slit-small --steps 2 --output o --save-npy '" + link.string() + "'");
  ASSERT_EQ(through_link.status, 0) << through_link.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(parse_npy(read_file(inputs() / "target.npy")).data.size(), 2u * 201 * 201);

  fs::path const fifo = inputs() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Result const refused_fifo = wave2d(
      "run --scene double-slit-small --steps 2 --output o --save-npy '" + fifo.string() + "'");
  EXPECT_EQ(refused_fifo.status, 2);
  EXPECT_TRUE(contains(refused_fifo.err, "fifo': it is a FIFO, which wave2d does not write to"))
      << refused_fifo.err;
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);

  if (::geteuid() != 0) {
    GTEST_SKIP() << "making device nodes needs root: the device-file cases not run";
  }
  fs::path const null = inputs() / "null";
  ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0);
  Result const device = wave2d("run --scene double-slit-small --steps 2 --output o --save-npy '" +
                               null.string() + "'");
  EXPECT_EQ(device.status, 0) << device.err;
  EXPECT_EQ(fs::status(null).type(), fs::file_type::character);
  fs::path const block = inputs() / "block";
  ASSERT_EQ(::mknod(block.c_str(), S_IFBLK | 0600, ::makedev(7, 0)), 0);
  Result const refused = wave2d("run --scene double-slit-small --steps 2 --output o --save-npy '" +
                                block.string() + "'");
  EXPECT_EQ(refused.status, 2);
  EXPECT_TRUE(contains(refused.err, "it is a block device, which wave2d never writes"))
      << refused.err;
  EXPECT_EQ(fs::status(block).type(), fs::file_type::block);
}

// Starts argv (null-terminated) in `work` without a shell, stdout and stderr to those
// files, the signals the tests send at their defaults (a test runner may ignore them): its
// pid, or -1 when it cannot start.
pid_t spawn(std::vector<char*>& argv, fs::path const& work, fs::path const& out,
            fs::path const& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, work.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int signal_number : {SIGINT, SIGTERM, SIGUSR1, SIGALRM}) {
    sigaddset(&defaults, signal_number);
  }
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int const spawned = ::posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  return spawned == 0 ? pid : -1;
}

// SIGTERM, SIGINT, and signals that end a process without a word (SIGUSR1, SIGALRM) while
// frames are being written: the run ends by the signal, and no hidden temporary is left.
// Started without a shell, whose background jobs ignore SIGINT.
TEST_F(Cli, SignalsLeaveNoTemporaryFiles) {
  if (!can_write_png) GTEST_SKIP() << "built without libpng: no frames";
  std::vector<std::string> arguments = {WAVE2D_CLI,
                                        "run",
                                        "--scene",
                                        "double-slit-small",
                                        "--steps",
                                        "100000",
                                        "--frames-every",
                                        "1",
                                        "--output",
                                        "o",
                                        "--kokkos-num-threads=1"};
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  int told_the_step = 0;
  for (int trial = 0; trial < 12; ++trial) {
    int const signal_number = std::array{SIGTERM, SIGINT, SIGUSR1, SIGALRM}[trial % 4];
    pid_t const pid = spawn(argv, work(), "/dev/null", (work() / "err").string());
    ASSERT_GT(pid, 0);
    // Two trials in three once the run steps (its second frame written: a GPU's start can
    // outlast the delays), the others wherever the delay falls.
    if (trial / 4 != 1) {
      auto const frames = [&] {
        std::error_code error;
        int count = 0;
        for (auto const& entry : fs::directory_iterator(work() / "o", error)) {
          count += entry.path().extension() == ".png" &&
                   !entry.path().filename().string().starts_with(".");
        }
        return count;
      };
      auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (frames() < 2 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10 * trial));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(200 + 30 * trial));
    }
    ::kill(pid, signal_number);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << "trial " << trial;
    // Stopped while stepping, it says the step it reached.
    std::string const err = read_file(work() / "err");
    if (contains(err, "wave2d: interrupted after step ")) {
      ++told_the_step;
      EXPECT_TRUE(contains(err, " (--checkpoint-every STEPS FILE keeps a checkpoint")) << err;
    }
    for (auto const& name : work_contents()) {
      EXPECT_FALSE(fs::path(name).filename().string().starts_with("."))
          << "trial " << trial << " left " << name;
    }
    fs::remove_all(work() / "o");
  }
  EXPECT_GT(told_the_step, 0);
}

// Checkpoints. A run stopped at a checkpoint and resumed writes the bytes of a run that
// never stopped: the array, the image and the frames, on every host backend.
class CliCheckpoint : public Cli, public ::testing::WithParamInterface<std::string> {};

TEST_P(CliCheckpoint, AResumedRunWritesTheBytesOfAnUninterruptedOne) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  std::string const run = "run --scene double-slit-small --backend " + GetParam() +
                          " --frames-every 100 --kokkos-num-threads=1 ";
  std::string const no_ffmpeg = "PATH=/nonexistent";
  Result const first = wave2d(run + "--steps 230 --checkpoint-every 100 ck --output a", no_ffmpeg);
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_TRUE(contains(first.out, "checkpoint     ck, step 230")) << first.out;
  // Resumed into the same file, which now holds step 500.
  Result const resumed =
      wave2d(run + "--steps 500 --resume ck --checkpoint-every 100 ck --output b --save-npy b.npy",
             no_ffmpeg);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(contains(resumed.out, "resumed        from ck, step 230")) << resumed.out;
  Result const whole = wave2d(run + "--steps 500 --output c --save-npy c.npy", no_ffmpeg);
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_EQ(read_file(work() / "b.npy"), read_file(work() / "c.npy"));
  expect_reference_npy(work() / "c.npy", 500, whole.out);
  CheckpointData const last = read_checkpoint(work() / "ck");
  EXPECT_EQ(last.step, 500);
  if (can_write_png) {
    EXPECT_EQ(read_file(work() / "b/double-slit-small.png"),
              read_file(work() / "c/double-slit-small.png"));
    // Frames are numbered by step: the resumed run wrote those of steps 300 .. 500.
    for (auto frame : {"double-slit-small.000300.png", "double-slit-small.000500.png"}) {
      EXPECT_EQ(read_file(work() / "b" / frame), read_file(work() / "c" / frame)) << frame;
    }
    EXPECT_FALSE(fs::exists(work() / "b/double-slit-small.000200.png"));
  }
}

// The receivers' files too: the checkpoint carries the trace from step 0, also through a
// leg resumed with --no-receivers (which writes no receivers' files, but checkpoints
// with the trace).
TEST_P(CliCheckpoint, AResumedRunWritesTheReceiversOfAnUninterruptedOne) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  std::string const run = "run --scene '" + (inputs() / "receivers.toml").string() +
                          "' --backend " + GetParam() + " --kokkos-num-threads=1 ";
  Result const first = wave2d(run + "--steps 23 --checkpoint-every 10 ck --output a");
  ASSERT_EQ(first.status, 0) << first.err;
  bool const plot = !contains(first.err, "without libplot");
  CheckpointData const at_23 = read_checkpoint(work() / "ck");
  EXPECT_EQ(at_23.step, 23);
  EXPECT_EQ(at_23.receivers, 4u);
  EXPECT_EQ(at_23.trace_first_step, 0);
  EXPECT_EQ(at_23.trace.size(), 24u * 4u);
  Result const second =
      wave2d(run + "--steps 37 --resume ck --checkpoint-every 10 ck --output b --no-receivers");
  ASSERT_EQ(second.status, 0) << second.err;
  std::vector<std::string> files = {"a", "a/room.receivers.csv", "a/room.receivers.npy", "b", "ck"};
  if (plot) files.push_back("a/room.receivers.png");
  EXPECT_EQ(work_contents(), with_images(files, {"a/room.png", "b/room.png"}))
      << "--no-receivers wrote receivers' files";
  Result const last = wave2d(run + "--resume ck --checkpoint-every 10 ck --output c");
  ASSERT_EQ(last.status, 0) << last.err;
  EXPECT_TRUE(contains(last.out, "resumed        from ck, step 37")) << last.out;
  EXPECT_TRUE(contains(last.out, "(4 receivers, 51 rows)")) << last.out;
  Result const whole = wave2d(run + "--output w");
  ASSERT_EQ(whole.status, 0) << whole.err;
  for (std::string extension : {"npy", "csv", "png"}) {
    if (extension == "png" && !plot) continue;
    std::string const name = "room.receivers." + extension;
    ASSERT_TRUE(fs::exists(work() / "c" / name)) << name;
    EXPECT_EQ(read_file(work() / "c" / name), read_file(work() / "w" / name)) << name;
  }
  // The last checkpoint holds the whole trace, as written.
  CheckpointData const at_50 = read_checkpoint(work() / "ck");
  EXPECT_EQ(at_50.step, 50);
  EXPECT_TRUE(at_50.trace == parse_npy(read_file(work() / "w/room.receivers.npy")).data);
}

INSTANTIATE_TEST_SUITE_P(Cli, CliCheckpoint,
                         ::testing::Values("reference", "kokkos-mdrange", "kokkos-tiled"),
                         [](auto const& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST_F(Cli, CheckpointsOfAnotherRunAreRefused) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  std::string const scene = "run --scene double-slit-small --steps 60 ";
  ASSERT_EQ(wave2d("run --scene double-slit-small --backend kokkos-mdrange --steps 40 "
                   "--checkpoint-every 20 ck --output o")
                .status,
            0);
  std::string const good = read_file(work() / "ck");
  auto const with = [&](std::string const& name, std::string const& bytes) {
    write_text(inputs() / name, bytes);
    return (inputs() / name).string();
  };
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x10;  // a bit of the fields
  // A checkpoint of format 2, a raw binary file, as wave2d wrote them before HDF5.
  std::string const binary = std::string("WAVE2DCK\x02\x00\x00\x00", 12) + std::string(80, '\0');
  CheckpointData older = read_checkpoint(work() / "ck");
  older.numerics.replace(0, std::string("wave2d " WAVE2D_VERSION).size(), "wave2d 0.0.1");
  write_checkpoint(inputs() / "older", older);
  std::string const tiny = "'" + (inputs() / "tiny.toml").string() + "'";
  write_text(inputs() / "tiny-louder.toml",
             "[grid]\nnx = 40\nny = 30\n[time]\nsteps = 50\n"
             "[[sources]]\nx = 10\ny = 10\nfrequency = 20.0\namplitude = 2.0\n");
  ASSERT_EQ(wave2d("run --scene " + tiny + " --steps 10 --checkpoint-every 5 tiny.ck").status,
            has_scene_files ? 0 : 2);
  struct Refusal {
    std::string arguments;
    std::string message;
  };
  std::vector<Refusal> refusals = {
      {scene + "--resume " + with("truncated", good.substr(0, good.size() - 1)),
       "cannot be read: HDF5: truncated file"},
      {scene + "--resume " + with("header", good.substr(0, 20)), "cannot be read: "},
      {scene + "--resume " + with("flipped", flipped),
       "is corrupted (/field/previous cannot be read back: reading: HDF5: data error detected "
       "by Fletcher32 checksum)"},
      {scene + "--resume " + with("binary", binary),
       "is a checkpoint of format 2, from before checkpoints were HDF5 files: this "
       "wave2d " WAVE2D_VERSION " reads format 3 only"},
      {scene + "--resume " + (inputs() / "older").string(),
       "was written by wave2d 0.0.1, backend kokkos-mdrange"},
      {scene + "--resume " + (inputs() / "tiny.toml").string(), "is not a wave2d checkpoint"},
      {scene + "--backend reference --resume ck", "resume it with the same wave2d, backend"},
      {"run --scene slit --resume ck", "is of another scene: its grid is 201 x 201"},
      {"run --scene double-slit-small --steps 30 --resume ck",
       "is at step 40, past the run's 30 steps"},
      {scene + "--resume missing", "checkpoint 'missing' does not exist"},
  };
  if (has_scene_files) {
    refusals.push_back(
        {"run --scene '" + (inputs() / "tiny-louder.toml").string() + "' --resume tiny.ck",
         "is of another scene: its medium, walls, sources or time step differ"});
    // The same fields, but the trace's columns would not be this scene's: --no-receivers
    // or not, since the run's own checkpoints go on with the trace.
    std::string const room = read_file(inputs() / "receivers.toml");
    std::string const last_receiver = "[[receivers]]\nx = 20\ny = 4\nname = \"wall\"\n";
    ASSERT_NE(room.find(last_receiver), std::string::npos);
    std::string fewer = room;
    fewer.erase(fewer.find(last_receiver), last_receiver.size());
    std::string moved = room;
    moved.replace(moved.find("x = 30\ny = 20"), 13, "x = 31\ny = 20");
    ASSERT_EQ(wave2d("run --scene '" + (inputs() / "receivers.toml").string() +
                     "' --steps 10 --checkpoint-every 5 room.ck --output r")
                  .status,
              0);
    for (std::string const no_receivers : {"", " --no-receivers"}) {
      refusals.push_back(
          {"run --scene '" + with("fewer.toml", fewer) + "' --resume room.ck" + no_receivers,
           "is of another scene: it has the trace of 4 receivers, this scene has 3"});
    }
    refusals.push_back({"run --scene '" + with("moved.toml", moved) + "' --resume room.ck",
                        "is of another scene: its receivers are at other cells"});
  }
  auto const before = work_contents();
  for (auto const& refusal : refusals) {
    Result const result = wave2d(refusal.arguments + " --save-npy f.npy --output p");
    EXPECT_EQ(result.status, 2) << refusal.arguments << "\n" << result.err;
    EXPECT_EQ(result.err.find("wave2d: error: "), 0u) << result.err;
    EXPECT_TRUE(contains(result.err, refusal.message))
        << "expected '" << refusal.message << "' in\n"
        << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "not one line:\n" << result.err;
    EXPECT_EQ(work_contents(), before) << refusal.arguments;
  }
}

// Runs `wave2d <arguments>` in work() as Cli::wave2d does, sends it `signal_number` once
// its stdout has `when` and `after` has passed (by default: once it has stepped for a
// while), and waits for it: its wait status, stdout and stderr.
struct Interrupted {
  int wait_status = 0;
  std::string out;
  std::string err;
};

Interrupted interrupt(fs::path const& work, fs::path const& outside,
                      std::vector<std::string> arguments, int signal_number,
                      std::string const& when = "configuration",
                      std::chrono::milliseconds after = std::chrono::milliseconds(300)) {
  arguments.insert(arguments.begin(), WAVE2D_CLI);
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  fs::path const out = outside / "stdout";
  fs::path const err = outside / "stderr";
  pid_t const pid = spawn(argv, work, out, err);
  if (pid <= 0) return {-1, "", "cannot start " WAVE2D_CLI};
  // Stepping has begun once the configuration is printed.
  for (int wait = 0; wait < 30000 && !contains(read_file(out), when); ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(after);
  ::kill(pid, signal_number);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) status = -1;
  return {status, read_file(out), read_file(err)};
}

void expect_ended_by(Interrupted const& run, int signal_number) {
  EXPECT_TRUE(WIFSIGNALED(run.wait_status) && WTERMSIG(run.wait_status) == signal_number)
      << run.err;
  EXPECT_TRUE(contains(run.err, "interrupted after step")) << run.err;
}

// SIGTERM or SIGINT during a run with checkpoints: a last checkpoint, of the step the run
// had reached, then the end by the signal; resumed, it gives the reference's result.
TEST_F(Cli, SignalsWriteALastCheckpoint) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  for (int signal_number : {SIGTERM, SIGINT}) {
    // Never a periodic checkpoint: the file comes from the signal alone. 10^7 steps: a
    // run longer than the test, within those whose t every step changes.
    expect_ended_by(interrupt(work(), root_.path(),
                              {"run", "--scene", "double-slit-small", "--backend", "reference",
                               "--steps", "10000000", "--checkpoint-every", "9999999", "ck",
                               "--output", "o", "--kokkos-num-threads=1"},
                              signal_number),
                    signal_number);
    EXPECT_EQ(work_contents(), std::vector<std::string>{"ck"});
    CheckpointData const last = read_checkpoint(work() / "ck");
    EXPECT_GT(last.step, 0);
    std::int64_t const steps = last.step + 7;
    Result const resumed = wave2d("run --scene double-slit-small --backend reference --steps " +
                                  std::to_string(steps) + " --resume ck --save-npy f.npy");
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    expect_reference_npy(work() / "f.npy", steps, resumed.out);
    fs::remove_all(work());
    fs::create_directory(work());
  }
}

// A signal while the last step's files are written: they are finished, the run's lines
// printed, and the run says that it ended whole before the signal ends it.
TEST_F(Cli, ASignalDuringTheLastWritesLetsThemFinish) {
  if (!can_write_png) GTEST_SKIP() << "no pictures in this build (libpng not found)";
  // The picture of 3201 x 3201 cells is written after the NPY file, and for longer than the
  // signal takes to come.
  Interrupted const run = interrupt(
      work(), root_.path(),
      {"run", "--scene", "point-source", "--backend", "reference", "--steps", "2", "--save-npy",
       "f.npy", "--output", "o", "--kokkos-num-threads=1", "--progress", "none"},
      SIGTERM, "wrote f.npy", std::chrono::milliseconds(0));
  EXPECT_TRUE(WIFSIGNALED(run.wait_status) && WTERMSIG(run.wait_status) == SIGTERM) << run.err;
  EXPECT_TRUE(contains(run.err,
                       "wave2d: interrupted after step 2, the last: every output was "
                       "written\n"))
      << run.err;
  EXPECT_TRUE(contains(run.out, "wrote o/point-source.png")) << run.out;
  EXPECT_TRUE(contains(run.out, "throughput")) << run.out;
  EXPECT_EQ(work_contents(), with_images({"f.npy"}, {"o", "o/point-source.png"}));
  std::string const png = read_file(work() / "o/point-source.png");
  EXPECT_TRUE(png.size() > 12 && png.substr(png.size() - 8, 4) == "IEND") << "not whole";
}

// The checkpoint a signal makes carries the receivers' trace: resumed, the run writes the
// receivers' files of a run never stopped.
TEST_F(Cli, SignalCheckpointsCarryTheReceiversTrace) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  // Large enough to step for a while; two receivers keep the reserved trace small.
  std::string const scene = (inputs() / "hall.toml").string();
  write_text(scene, "name = \"hall\"\n" +
                        scene_file("nx = 200\nny = 150", "steps = 50",
                                   "[[receivers]]\nx = 150\ny = 70\n"
                                   "[[receivers]]\nx = 10\ny = 10\nname = \"source\"\n"));
  Interrupted const run =
      interrupt(work(), root_.path(),
                {"run", "--scene", scene, "--backend", "reference", "--steps", "2000000",
                 "--checkpoint-every", "1999999", "ck", "--output", "o", "--kokkos-num-threads=1"},
                SIGTERM);
  expect_ended_by(run, SIGTERM);
  CheckpointData const last = read_checkpoint(work() / "ck");
  ASSERT_GT(last.step, 0);
  EXPECT_EQ(last.receivers, 2u);
  EXPECT_EQ(last.trace_first_step, 0);
  EXPECT_EQ(last.trace.size(), std::size_t(last.step + 1) * 2);
  std::string const steps = " --steps " + std::to_string(last.step + 7);
  Result const resumed =
      wave2d("run --scene '" + scene + "' --backend reference --resume ck --output r" + steps);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  Result const whole = wave2d("run --scene '" + scene + "' --backend reference --output w" + steps);
  ASSERT_EQ(whole.status, 0) << whole.err;
  for (std::string extension : {"npy", "csv", "png"}) {
    if (extension == "png" && contains(whole.err, "without libplot")) continue;
    std::string const name = "hall.receivers." + extension;
    ASSERT_TRUE(fs::exists(work() / "r" / name)) << name;
    EXPECT_EQ(read_file(work() / "r" / name), read_file(work() / "w" / name)) << name;
  }
}

struct BadInput {
  std::string name;
  std::string arguments;  // "@" stands for the directory of the inputs, "+" for outputs
  std::string message;
  bool reads_a_scene_file = false;
  int status = 2;
  std::string environment;
};

void PrintTo(BadInput const& bad, std::ostream* out) { *out << bad.name; }

class CliBadInput : public Cli, public ::testing::WithParamInterface<BadInput> {};

TEST_P(CliBadInput, IsAOneLineErrorAndLeavesNothing) {
  BadInput const& bad = GetParam();
  if (bad.reads_a_scene_file && !has_scene_files) {
    GTEST_SKIP() << without_toml;
  }
#if !defined(WAVE2D_KOKKOS_OPENMP)
  if (bad.name.ends_with("beyond_the_pool")) {
    GTEST_SKIP() << "this Kokkos has no OpenMP backend, so no thread pool to overflow";
  }
#endif
  if (bad.name.find("checkpoint") != std::string::npos && !can_checkpoint) {
    GTEST_SKIP() << checkpoints_unavailable_reason();
  }
  constexpr std::array<std::string_view, 6> about_images = {
      "output_directory_is_a_file", "output_directory_name_too_long",
      "npy_is_the_image_directory", "npy_is_above_the_image_directory",
      "npy_is_the_image",           "npy_is_a_frame"};
  if (!can_write_png && std::ranges::find(about_images, bad.name) != about_images.end()) {
    GTEST_SKIP() << "built without libpng: no image in the output directory";
  }
  std::string arguments = bad.arguments;
  for (auto at = arguments.find('@'); at != std::string::npos; at = arguments.find('@')) {
    arguments.replace(at, 1, inputs().string());
  }
  if (arguments.ends_with(" +")) {
    arguments.replace(arguments.size() - 1, 1, "--output o --save-npy f.npy --frames-every 5");
  }
  // A run over ranks starts Open MPI, whose plugins leave what they allocate at exit,
  // unloaded by then: in the sanitizer build its leaks stay unchecked, as under mpiexec.
  std::string const environment =
      bad.environment +
      (arguments.find("--ranks") == std::string::npos
           ? ""
           : " ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1");
  Result const result = wave2d(arguments, environment);
  EXPECT_EQ(result.status, bad.status) << result.err;
  EXPECT_EQ(result.err.find("wave2d: error: "), 0u) << result.err;
  EXPECT_TRUE(contains(result.err, bad.message)) << "expected '" << bad.message << "' in\n"
                                                 << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "not one line:\n" << result.err;
  EXPECT_TRUE(work_contents().empty());
}

bool const reads_a_scene_file = true;

#if defined(WAVE2D_HAVE_MPI)
bool const has_mpi = true;
#else
bool const has_mpi = false;
#endif

// --ranks `ranks` (as the shell reads it), which is not PxQ of whole numbers.
BadInput ranks_input(std::string const& name, std::string const& ranks) {
  std::string const given = ranks.starts_with('\'') ? ranks.substr(1, ranks.size() - 2) : ranks;
  std::string const message =
      has_mpi ? "--ranks: expected PxQ (e.g. 2x2, each from 1 to 2147483647) or auto, got '" +
                    given + "'"
              : "--ranks: this build of wave2d has no MPI";
  return {name, "run --scene double-slit-small --ranks " + ranks + " +", message};
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CliBadInput,
    ::testing::Values(
        BadInput{"unknown_scene", "run --scene triple-slit +", "unknown scene 'triple-slit'"},
        BadInput{"missing_scene_file", "run --scene @/missing.toml +",
                 "/missing.toml': neither a built-in scene"},
        BadInput{"malformed_scene_file", "run --scene @/malformed.toml +",
                 "malformed.toml:3: ", reads_a_scene_file},
        BadInput{"source_outside_the_grid", "run --scene @/source-outside.toml +",
                 "source-outside.toml:7: sources[0].x: 10 lies outside the grid",
                 reads_a_scene_file},
        BadInput{"receiver_outside_the_grid", "run --scene @/receiver-outside.toml +",
                 "receiver-outside.toml:8: receivers[0].y: 30 lies outside the grid",
                 reads_a_scene_file},
        BadInput{"wall_outside_the_grid", "run --scene @/wall-outside.toml +",
                 "walls[0].rect.y1: 45 lies outside the grid", reads_a_scene_file},
        BadInput{"unstable_time_step", "run --scene @/unstable.toml +",
                 "; --allow-unstable runs it anyway", reads_a_scene_file},
        BadInput{"unstable_time_step_at_its_key", "run --scene @/unstable.toml +",
                 "unstable.toml:6: time.dt: unstable time step", reads_a_scene_file},
        BadInput{"amplitude_beyond_single_precision", "run --scene @/huge-amplitude.toml +",
                 "source 0 has amplitude 3e+38, above the", reads_a_scene_file},
        BadInput{"source_value_not_finite", "run --scene @/ricker-overflow.toml +",
                 "source 0's value at step 1 (t = 0.00641026) is not finite in single precision",
                 reads_a_scene_file},
        BadInput{"dt_underflows", "run --scene @/dt-underflow.toml +",
                 "dt-underflow.toml:6: time.dt: underflows single precision to 0",
                 reads_a_scene_file},
        BadInput{"unknown_backend", "run --scene double-slit-small --backend warp-drive +",
                 "unknown backend 'warp-drive' (available: "},
        BadInput{"unknown_space", "run --scene double-slit-small --space warp +",
                 "unknown execution space 'warp' (compiled: "},
        BadInput{"backend_not_on_the_space",
                 "run --scene double-slit-small --backend cuda-stream --space serial +",
                 "unknown backend 'cuda-stream' on serial (available: serial: auto, "},
        BadInput{"unknown_plan_mode", "run --scene double-slit-small --plan sometimes +",
                 "--plan: sometimes not in {cached,measure,estimate}"},
        BadInput{"plan_on_an_unknown_space", "plan --scene double-slit-small --space warp",
                 "unknown execution space 'warp' (compiled: "},
        BadInput{"plan_of_an_unknown_scene", "plan --scene nowhere", "unknown scene 'nowhere'"},
        BadInput{"plan_of_an_unstable_scene_file", "plan --scene @/unstable.toml",
                 "unstable.toml:6: time.dt: unstable time step", reads_a_scene_file},
        BadInput{"backends_of_an_unstable_scene_file", "backends --scene @/unstable.toml",
                 "unstable.toml:6: time.dt: unstable time step", reads_a_scene_file},
        BadInput{"negative_steps", "run --scene double-slit-small --steps -3 +",
                 "--steps: must be a non-negative whole number, got '-3'"},
        BadInput{"steps_twice", "run --scene double-slit-small --steps 3 --steps 4",
                 "--steps: given more than once; give it once"},
        BadInput{"unknown_command", "simulate --scene double-slit-small",
                 "unknown command 'simulate': scenes, backends, plan or run"},
        BadInput{"no_command", "--kokkos-num-threads=1",
                 "a command is required: scenes, "
                 "backends, plan or run"},
        BadInput{"kokkos_threads_zero_for_scenes", "scenes --kokkos-num-threads=0",
                 "--kokkos-num-threads=0: the number of threads must be a whole number from 1"},
        BadInput{"steps_beyond_int64", "run --scene double-slit-small --steps 18446744073709551615",
                 "--steps: must be at most 9223372036854775807, got '18446744073709551615'"},
        BadInput{"zero_frames_every", "run --scene double-slit-small --frames-every 0",
                 "--frames-every: must be a positive whole number"},
        BadInput{"negative_frames_every", "run --scene double-slit-small --frames-every=-2",
                 "--frames-every: must be a positive whole number"},
        BadInput{"output_directory_is_a_file",
                 "run --scene double-slit-small --output @/blocker --save-npy f.npy",
                 "blocker' is not a directory"},
        BadInput{"npy_below_a_file", "run --scene double-slit-small --save-npy @/blocker/f.npy",
                 "blocker' is not a directory"},
        BadInput{"npy_is_a_directory", "run --scene double-slit-small --save-npy @",
                 "it is a directory"},
        BadInput{"npy_where_no_file_can_be_made",
                 "run --scene double-slit-small --save-npy /proc/f.npy",
                 "cannot write '/proc/f.npy'"},
        BadInput{"grid_too_large_for_memory", "run --scene @/huge.toml +",
                 "the 2000000000 x 2000000000 grid needs about", reads_a_scene_file},
        // Refused from the grid's size alone, before the wall mask is made: under ASan too.
        BadInput{"wall_mask_too_large_for_memory", "run --scene @/huge-with-walls.toml +",
                 "the 2000000000 x 2000000000 grid needs about", reads_a_scene_file},
        BadInput{"one_wall_on_a_grid_too_large", "run --scene @/wide-with-one-wall.toml +",
                 "the 100000 x 100000 grid needs about", reads_a_scene_file},
        BadInput{"widest_grid_with_a_region", "run --scene @/widest-with-a-region.toml +",
                 "the 2147483647 x 2147483647 grid needs about", reads_a_scene_file},
        BadInput{"png_header_larger_than_the_grid", "run --scene @/lying-png-on-a-grid.toml +",
                 "walls[0].mask: the image is 100000 x 100000 pixels, the grid 64 x 48 cells",
                 reads_a_scene_file},
        BadInput{"png_header_sets_a_grid_too_large", "run --scene @/lying-png-sets-the-grid.toml +",
                 "the 100000 x 100000 grid needs about", reads_a_scene_file},
        BadInput{"mask_is_dev_zero", "run --scene @/dev-zero-mask.toml +",
                 "walls[0].mask: /dev/zero: is not a regular file (a device, FIFO or socket)",
                 reads_a_scene_file},
        BadInput{"scene_is_dev_zero", "run --scene /dev/zero +",
                 "/dev/zero: is not a regular file (a device, FIFO or socket), so not a scene file",
                 reads_a_scene_file},
        BadInput{"scene_is_a_directory", "run --scene @ +", ": is a directory, not a scene file",
                 reads_a_scene_file},
        BadInput{"scene_is_a_symlink_loop", "run --scene @/loop.toml +",
                 "loop.toml: cannot open the scene file: Too many levels of symbolic links",
                 reads_a_scene_file},
        BadInput{"dotted_key_of_500000_parts", "run --scene @/dotted.toml +",
                 "dotted.toml:1: a dotted key of more than 32 parts", reads_a_scene_file},
        BadInput{"arrays_nested_100000_deep", "run --scene @/nested.toml +",
                 "nested.toml:1: brackets and braces nested more than 32 deep", reads_a_scene_file},
        BadInput{"npy_temporary_name_too_long",
                 "run --scene double-slit-small --save-npy " + std::string(246, 'f') + ".npy",
                 "of its temporary is longer than the 255 bytes a name may have"},
        BadInput{"scene_name_too_long", "run --scene @/long-name.toml",
                 "long-name.toml:1: name: is longer than 128 bytes (it names the outputs)",
                 reads_a_scene_file},
        BadInput{"scene_file_name_too_long_for_the_image",
                 "run --scene @/" + std::string(250, 'n') + ".toml",
                 "of its temporary is longer than the 255 bytes a name may have",
                 reads_a_scene_file},
        BadInput{"output_directory_name_too_long",
                 "run --scene double-slit-small --output " + std::string(300, 'd'),
                 "is longer than the 255 bytes a name may have"},
        BadInput{"npy_is_the_image_directory",
                 "run --scene double-slit-small --output o --save-npy o",
                 "--save-npy 'o' is the image directory or one above it"},
        BadInput{"npy_is_above_the_image_directory",
                 "run --scene double-slit-small --output o/p --save-npy ./o",
                 "--save-npy './o' is the image directory or one above it"},
        BadInput{"npy_is_the_image",
                 "run --scene double-slit-small --output o --save-npy o/../o/double-slit-small.png",
                 "is also the image 'o/double-slit-small.png'"},
        BadInput{"npy_is_a_frame",
                 "run --scene double-slit-small --steps 10 --frames-every 5 --output o "
                 "--save-npy o/double-slit-small.000005.png",
                 "is named as the frames are"},
        BadInput{"npy_is_the_scene_file", "run --scene @/tiny.toml --save-npy @/tiny.toml",
                 "would overwrite the input '", reads_a_scene_file},
        BadInput{"npy_is_a_mask", "run --scene @/with-mask.toml --save-npy @/walls.pgm",
                 "would overwrite the input '", reads_a_scene_file},
        BadInput{"npy_is_a_symlink_loop", "run --scene double-slit-small --save-npy @/loop.npy",
                 "loop.npy': too many levels of symbolic links"},
        BadInput{
            "kokkos_threads_not_a_number",
            "run --scene double-slit-small --kokkos-num-threads=abc +",
            "--kokkos-num-threads=abc: the number of threads must be a whole number from 1 to"},
        BadInput{"kokkos_threads_zero", "run --scene double-slit-small --kokkos-num-threads=0 +",
                 "--kokkos-num-threads=0: the number of threads must be"},
        BadInput{"kokkos_threads_beyond_the_pool",
                 "run --scene double-slit-small --kokkos-num-threads=600 +",
                 "--kokkos-num-threads=600: the number of threads must be"},
        BadInput{"kokkos_threads_twice",
                 "run --scene double-slit-small --kokkos-num-threads=1 --kokkos-num-threads=2 +",
                 "--kokkos-num-threads=2: given after --kokkos-num-threads=1; give it once"},
        BadInput{
            "kokkos_tool_library_in_both_spellings",
            "run --scene double-slit-small --kokkos-tools-libs=libm.so.6 "
            "--kokkos-tools-library=libm.so.6 +",
            "--kokkos-tools-library=libm.so.6: given after --kokkos-tools-libs=libm.so.6; give "
            "it once"},
        BadInput{"kokkos_threads_old_spelling",
                 "run --scene double-slit-small --kokkos-threads=2 +",
                 "--kokkos-threads=2: Kokkos no longer takes it; use --kokkos-num-threads=N"},
        BadInput{"kokkos_device_id_not_a_number",
                 "run --scene double-slit-small --kokkos-device-id=abc +",
                 "--kokkos-device-id=abc: the device id must be a non-negative whole number"},
        BadInput{"omp_threads_beyond_the_pool", "run --scene double-slit-small +",
                 "OMP_NUM_THREADS=600: the number of threads must be", false, 2,
                 "OMP_NUM_THREADS=600"},
        BadInput{"omp_threads_list_beyond_the_pool", "run --scene double-slit-small +",
                 "OMP_NUM_THREADS=513,2: the number of threads must be", false, 2,
                 "OMP_NUM_THREADS=513,2"},
        BadInput{"kokkos_num_threads_variable", "run --scene double-slit-small +",
                 "KOKKOS_NUM_THREADS=abc: the number of threads must be", false, 2,
                 "KOKKOS_NUM_THREADS=abc"},
        BadInput{"kokkos_num_threads_variable_empty", "run --scene double-slit-small +",
                 "KOKKOS_NUM_THREADS=: the number of threads must be", false, 2,
                 "KOKKOS_NUM_THREADS="},
        BadInput{"kokkos_boolean_variable", "run --scene double-slit-small +",
                 "KOKKOS_DISABLE_WARNINGS=maybe: expected yes, true, 1, no, false or 0", false, 2,
                 "KOKKOS_DISABLE_WARNINGS=maybe"},
        BadInput{"kokkos_map_device_id_by_variable", "run --scene double-slit-small +",
                 "KOKKOS_MAP_DEVICE_ID_BY=bogus: expected random or mpi_rank", false, 2,
                 "KOKKOS_MAP_DEVICE_ID_BY=bogus"},
        BadInput{"unknown_kokkos_argument", "run --scene double-slit-small --kokkos-warp=9 +",
                 "unknown Kokkos argument '--kokkos-warp=9'"},
        BadInput{"kokkos_tool_library_missing",
                 "run --scene double-slit-small --kokkos-tools-libs=@/missing.so +",
                 "/missing.so: cannot load the tool library '"},
        BadInput{"kokkos_tool_library_not_a_library",
                 "run --scene double-slit-small --kokkos-tools-library=@/blocker +",
                 "/blocker: cannot load the tool library '"},
        BadInput{"kokkos_tools_libs_variable", "run --scene double-slit-small +",
                 "KOKKOS_TOOLS_LIBS=/nonexistent/tool.so: cannot load the tool library", false, 2,
                 "KOKKOS_TOOLS_LIBS=/nonexistent/tool.so"},
        BadInput{"unknown_progress_style", "run --scene double-slit-small --progress sometimes +",
                 "--progress: sometimes not in {auto,bar,lines,none}"},
        BadInput{"progress_every_zero", "run --scene double-slit-small --progress-every 0 +",
                 "--progress-every: must be a positive number of seconds, got '0'"},
        BadInput{"progress_every_not_a_number",
                 "run --scene double-slit-small --progress-every nan +",
                 "--progress-every: must be a positive number of seconds, got 'nan'"},
        ranks_input("ranks_wrapping_around", "4294967298x1"),
        ranks_input("ranks_with_a_space", "' 2x1'"), ranks_input("ranks_with_signs", "+2x+1"),
        ranks_input("ranks_without_q", "2x"), ranks_input("ranks_of_three_numbers", "2x1x1"),
        ranks_input("ranks_zero", "0x1"),
        // MPI starts: Open MPI's plugins leave what they allocate at exit, unloaded by then,
        // so a sanitized build checks no leaks here (as under mpiexec).
        BadInput{"ranks_not_making_the_job", "run --scene double-slit-small --ranks 2x1 +",
                 has_mpi ? "--ranks 2x1: ranks 2 x 1 do not make a job of 1 rank"
                         : "--ranks: this build of wave2d has no MPI",
                 false, 2, "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1"},
        BadInput{"checkpoint_every_zero", "run --scene double-slit-small --checkpoint-every 0 ck +",
                 "--checkpoint-every: STEPS must be a positive whole number, got '0'"},
        BadInput{"checkpoint_without_a_file", "run --scene double-slit-small --checkpoint-every 5",
                 "--checkpoint-every"},
        BadInput{"checkpoint_is_the_npy",
                 "run --scene double-slit-small --checkpoint-every 5 f.npy +",
                 "is also --checkpoint-every 'f.npy'"},
        BadInput{"checkpoint_is_the_scene_file",
                 "run --scene @/tiny.toml --checkpoint-every 5 @/tiny.toml +",
                 "would overwrite the input '", reads_a_scene_file},
        BadInput{"checkpoint_where_no_file_can_be_made",
                 "run --scene double-slit-small --checkpoint-every 5 /proc/ck +",
                 "cannot write '/proc/ck'"},
        BadInput {
          "missing_checkpoint_of_a_distributed_run",
              "run --scene double-slit-small --ranks 2x1 --resume missing +",
#if defined(WAVE2D_HAVE_MPI)
              "checkpoint 'missing' does not exist"
#else
              "--ranks: this build of wave2d has no MPI"
#endif
        },
        BadInput{"no_scene", "run", "--scene is required"},
        BadInput{"unknown_option", "run --scene double-slit-small --warp 9 +", "--warp"},
        BadInput{"no_command_at_all", "", "a command is required: scenes, backends, plan or run"}),
    [](::testing::TestParamInfo<BadInput> const& info) { return info.param.name; });

}  // namespace
}  // namespace wave2d::test
