// The run layer (run/wave2d_Run.hpp) as an application drives it: outputs composed, a run
// stopped by its listener and resumed, a run that goes non-finite, refusals before any work,
// and the same bytes as the program writes for the same experiment.
#include <wave2d/io/wave2d_Hdf5.hpp>
#include <wave2d/run/wave2d_Run.hpp>
#include <wave2d_TestFiles.hpp>
#include <wave2d_TestHelpers.hpp>

#if defined(WAVE2D_HAVE_HDF5)
#include <hdf5.h>
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <sys/wait.h>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;
using Space = Kokkos::DefaultExecutionSpace;

// A scene with receivers, small enough to run in a blink.
Scene scene_with_receivers() {
  Scene scene = busy_scene(57, 43, 3);
  scene.name = "room";
  scene.steps = 60;
  scene.receivers = {{30, 20, "mic"}, {5, 40, ""}};
  return scene;
}

#if defined(WAVE2D_HAVE_HDF5)
// A float dataset's values, read with HDF5's own API.
std::vector<float> dataset(fs::path const& file, char const* name) {
  hid_t const f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return {};
  hid_t const d = H5Dopen2(f, name, H5P_DEFAULT);
  std::vector<float> values;
  if (d >= 0) {
    hid_t const space = H5Dget_space(d);
    values.resize(std::size_t(H5Sget_simple_extent_npoints(space)));
    H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Sclose(space);
    H5Dclose(d);
  }
  H5Fclose(f);
  return values;
}
#endif

class Run : public ::testing::Test {
 protected:
  fs::path dir() const { return root_.path(); }
  Space space_;
  TemporaryDirectory root_;
};

TEST_F(Run, OutputsComposeAndEachIsToldOnceWritten) {
  Experiment e{.scene = scene_with_receivers(), .backend = "kokkos-mdrange", .steps = 37};
  e.outputs = {NpyFile{dir() / "f.npy"}, ReceiverFiles{dir() / "o", "", false}};
  if (can_write_png) e.outputs.push_back(Pictures{dir() / "o", "", 1.0f, 10, false});
  if (can_use_hdf5) e.outputs.push_back(Hdf5File{dir() / "f.h5", 10});
  if (can_checkpoint) e.outputs.push_back(Checkpoints{dir() / "ck", 20});
  std::vector<std::string> told;
  RunListener listener;
  listener.wrote = [&](WrittenOutput const& output) {
    told.push_back(output.kind);
    for (auto const& file : output.files) EXPECT_TRUE(fs::exists(file)) << file;
  };
  RunResult const result = run(space_, e, listener);
  EXPECT_EQ(result.step, 37);
  EXPECT_FALSE(result.stopped);
  EXPECT_EQ(std::count(told.begin(), told.end(), "npy"), 1);
  EXPECT_EQ(std::count(told.begin(), told.end(), "receivers"), 1);
  if (can_write_png) {
    EXPECT_EQ(std::count(told.begin(), told.end(), "frames"), 1);
    // Frames at steps 0, 10, 20, 30 and the last, named by step.
    for (char const* frame :
         {"room.000000.png", "room.000010.png", "room.000030.png", "room.000037.png"}) {
      EXPECT_TRUE(fs::exists(dir() / "o" / frame)) << frame;
    }
  }
  if (can_checkpoint) {
    EXPECT_EQ(std::count(told.begin(), told.end(), "checkpoint"), 2);  // at steps 20 and 37
    EXPECT_EQ(read_checkpoint(dir() / "ck").step, 37);
  }
  // The same fields as a simulation stepped by hand.
  Simulation<Space> alone(space_, scene_with_receivers(), "kokkos-mdrange");
  alone.advance(space_, 37);
  Npy const npy = parse_npy(read_file(dir() / "f.npy"));
  std::vector<float> pair = wave2d::to_host(space_, alone.previous());
  auto const current = wave2d::to_host(space_, alone.current());
  pair.insert(pair.end(), current.begin(), current.end());
  EXPECT_EQ(npy.data, pair);
#if defined(WAVE2D_HAVE_HDF5)
  EXPECT_EQ(dataset(dir() / "f.h5", "/field/current"), current);
  EXPECT_EQ(dataset(dir() / "f.h5", "/receivers/trace"),
            wave2d::to_host(space_, alone.receivers()));
  EXPECT_EQ(dataset(dir() / "f.h5", "/frames/u").size(), 5u * 57 * 43);
#endif
}

TEST_F(Run, StoppedByItsListenerItResumesToTheBytesOfAnUninterruptedRun) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  Experiment e{.scene = scene_with_receivers(), .backend = "kokkos-tiled", .steps = 50};
  e.outputs = {NpyFile{dir() / "once.npy"}};
  run(space_, e);
  e.outputs = {NpyFile{dir() / "twice.npy"}, Checkpoints{dir() / "ck", 1000}};
  RunListener stop_early;
  stop_early.progress = [](RunProgress const& at) { return at.step < 17; };
  RunResult const stopped = run(space_, e, stop_early);
  EXPECT_TRUE(stopped.stopped);
  EXPECT_GE(stopped.step, 17);
  EXPECT_LT(stopped.step, 50);
  EXPECT_EQ(stopped.checkpoint, dir() / "ck");
  EXPECT_FALSE(fs::exists(dir() / "twice.npy")) << "no final output of a stopped run";
  EXPECT_EQ(read_checkpoint(dir() / "ck").step, stopped.step);
  e.resume = dir() / "ck";
  RunResult const resumed = run(space_, e);
  EXPECT_EQ(resumed.first_step, stopped.step);
  EXPECT_EQ(read_file(dir() / "twice.npy"), read_file(dir() / "once.npy"));
}

// A checkpoint names the backend and the space that wrote it: an experiment that names
// neither resumes on both (where it names a space, that one, which the checkpoint refuses
// where it is another).
TEST_F(Run, AResumeThatNamesNoSpaceTakesTheCheckpoints) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
#if !defined(KOKKOS_ENABLE_SERIAL)
  GTEST_SKIP() << "Kokkos without Serial: the checkpoint is written on Serial";
#else
  Experiment e{.scene = scene_with_receivers(), .backend = "kokkos-mdrange", .space = "serial"};
  e.steps = 20;
  e.outputs = {Checkpoints{dir() / "ck", 1000}};
  wave2d::run(Kokkos::Serial(), e);
  Experiment resumed{.scene = e.scene, .steps = 30, .resume = dir() / "ck"};
  CheckedExperiment const checked = check(resumed);
  EXPECT_EQ(checked.experiment.space, "serial");
  EXPECT_EQ(checked.experiment.backend, "kokkos-mdrange");
  resumed.space = space_name<Space>();
  EXPECT_EQ(check(resumed).experiment.space, space_name<Space>());
  resumed.space.clear();
  resumed.backend = "kokkos-tiled";  // on Serial too, but another backend: refused by the run
  EXPECT_EQ(check(resumed).experiment.space, "serial");
#endif
}

// Folders that go during the run: that of an NPY file or a checkpoint is not made again (its
// file cannot be written); the output folder is, but a file of its name ends the run with the
// error of the file that needs it.
TEST_F(Run, AFolderRemovedDuringTheRunIsNotMadeAgainButTheOutputFolder) {
  Experiment e{.scene = scene_with_receivers(), .backend = "kokkos-mdrange", .steps = 30};
  RunListener remove;
  remove.progress = [&](RunProgress const&) {
    fs::remove_all(dir() / "d");
    return true;
  };
  auto const output_error = [&](RunListener const& listener) -> std::string {
    try {
      run(space_, e, listener);
    } catch (OutputError const& error) {
      return error.what();
    }
    return "no OutputError";
  };
  fs::create_directories(dir() / "d" / "sub");
  e.outputs = {NpyFile{dir() / "d" / "sub" / "f.npy"}};
  EXPECT_EQ(output_error(remove), "cannot write '" + (dir() / "d" / "sub" / "f.npy").string() +
                                      "': No such file or directory");
  fs::create_directories(dir() / "d");
  e.outputs = {NpyFile{dir() / "d" / "f.npy"}};
  EXPECT_THROW(run(space_, e, remove), OutputError);
  if (can_checkpoint) {
    fs::create_directories(dir() / "d");
    e.outputs = {Checkpoints{dir() / "d" / "ck", 10}};
    EXPECT_THROW(run(space_, e, remove), OutputError);
  }
  EXPECT_FALSE(fs::exists(dir() / "d"));
  // The output folder holds both: made at the end, as it was at the start.
  e.outputs = {NpyFile{dir() / "d" / "f.npy"}, ReceiverFiles{dir() / "d", "", false}};
  EXPECT_NO_THROW(run(space_, e, remove));
  EXPECT_TRUE(fs::exists(dir() / "d" / "f.npy"));
  if (can_write_png) {
    RunListener block;
    block.progress = [&](RunProgress const&) {
      if (!fs::exists(dir() / "o")) write_text(dir() / "o", "a file");
      return true;
    };
    e.outputs = {Pictures{.directory = dir() / "o"}};
    EXPECT_EQ(output_error(block), "cannot write '" + (dir() / "o" / "room.png").string() + "': '" +
                                       (dir() / "o").string() + "' is not a directory");
  }
}

// The output folder, with no picture or receivers' file in it, is made for the files named in
// it (the program's --output in a build without libpng), and only for them.
TEST_F(Run, TheOutputFolderIsMadeForTheFilesNamedInIt) {
  Experiment e{.scene = scene_with_receivers(), .backend = "kokkos-mdrange", .steps = 5};
  e.output_folder = dir() / "out";
  e.outputs = {NpyFile{dir() / "f.npy"}};
  run(space_, e);
  EXPECT_FALSE(fs::exists(dir() / "out")) << "made with nothing in it";
  e.outputs = {NpyFile{dir() / "out" / "f.npy"}};
  if (can_checkpoint) e.outputs.push_back(Checkpoints{dir() / "out" / "f.ck", 5});
  run(space_, e);
  EXPECT_TRUE(fs::is_regular_file(dir() / "out" / "f.npy"));
  EXPECT_EQ(fs::exists(dir() / "out" / "f.ck"), can_checkpoint);
  // Not the folders above it, nor one named through `..`.
  e.output_folder = dir() / "a" / "out";
  e.outputs = {NpyFile{dir() / "a" / "out" / "f.npy"}};
  EXPECT_THROW(run(space_, e), OutputError);
  e.output_folder = dir() / "b";
  e.outputs = {NpyFile{dir() / "b" / ".." / "b" / "f.npy"}};
  EXPECT_THROW(run(space_, e), OutputError);
  EXPECT_FALSE(fs::exists(dir() / "a"));
  EXPECT_FALSE(fs::exists(dir() / "b"));
}

#if defined(WAVE2D_HAVE_HDF5)
// The HDF5 file of a resumed run holds the frames from the step resumed on, that one included.
TEST_F(Run, AResumedRunsHdf5FramesBeginAtTheStepResumed) {
  if (!can_checkpoint) GTEST_SKIP() << checkpoints_unavailable_reason();
  Experiment e{.scene = scene_with_receivers(), .backend = "kokkos-mdrange", .steps = 40};
  e.outputs = {Hdf5File{dir() / "once.h5", 10}};
  run(space_, e);
  e.steps = 20;
  e.outputs = {Checkpoints{dir() / "ck", 20}};
  run(space_, e);
  e.steps = 40;
  e.resume = dir() / "ck";
  e.outputs = {Hdf5File{dir() / "resumed.h5", 10}};
  run(space_, e);
  std::vector<float> const once = dataset(dir() / "once.h5", "/frames/u");
  std::vector<float> const resumed = dataset(dir() / "resumed.h5", "/frames/u");
  std::size_t const frame = 57 * 43;
  ASSERT_EQ(once.size(), 5 * frame);  // steps 0, 10, 20, 30, 40
  ASSERT_EQ(resumed.size(), 3 * frame);
  EXPECT_TRUE(std::equal(resumed.begin(), resumed.end(), once.begin() + 2 * frame));
}
#endif

TEST_F(Run, AFieldThatStopsBeingFiniteThrowsNotFiniteAndKeepsTheLastFiniteStateWhenAsked) {
  Scene scene = plain_scene(40, 30);
  scene.dt = 0.9f;  // far past the stability bound
  scene.sources.push_back({10, 10, {Waveform::Shape::sine, 1.0f, 0.1f, 0.0f}});
  Experiment e{.scene = scene, .backend = "kokkos-mdrange", .steps = 2000};
  e.validation.allow_unstable = true;
  e.outputs = {NpyFile{dir() / "f.npy"}};
  try {
    run(space_, e);
    FAIL() << "it ran to the end";
  } catch (NotFinite const& error) {
    EXPECT_GT(error.step(), 0);
    EXPECT_FALSE(fs::exists(dir() / "f.npy"));
  }
  e.keep_last_finite = true;
  EXPECT_THROW(run(space_, e), NotFinite);
  EXPECT_TRUE(fs::exists(dir() / "f.npy"));

  // The array and the receivers' files of the last finite state: those of a run that ends
  // there.
  e.scene.receivers = {{20, 15, "mic"}, {5, 5, ""}};
  e.outputs = {NpyFile{dir() / "f.npy"}, ReceiverFiles{.directory = dir() / "kept", .plot = false}};
  std::int64_t last_finite = 0;
  try {
    run(space_, e);
    FAIL() << "it ran to the end";
  } catch (NotFinite const& error) {
    last_finite = error.step() - 1;
  }
  e.keep_last_finite = false;
  e.steps = last_finite;
  e.outputs = {NpyFile{dir() / "ran.npy"},
               ReceiverFiles{.directory = dir() / "ran", .plot = false}};
  run(space_, e);
  EXPECT_EQ(read_file(dir() / "f.npy"), read_file(dir() / "ran.npy"));
  for (char const* file : {"test.receivers.npy", "test.receivers.csv"}) {
    ASSERT_TRUE(fs::exists(dir() / "kept" / file)) << file;
    EXPECT_EQ(read_file(dir() / "kept" / file), read_file(dir() / "ran" / file)) << file;
  }
}

// Chunks double while short (0.05 s), and on up to 1 s while the checks after them weigh.
TEST(RunChunks, GrowWhileShortOrWhileTheirChecksWeigh) {
  detail::Chunks chunks;
  EXPECT_EQ(chunks.next(100), 1);
  chunks.took(1, 0.001);
  EXPECT_EQ(chunks.next(100), 2);
  chunks.took(1, 0.001);  // not a whole chunk: no change
  EXPECT_EQ(chunks.next(100), 2);
  chunks.took(2, 0.06);
  EXPECT_EQ(chunks.next(100), 2);
  chunks.took(2, 0.06, true);
  EXPECT_EQ(chunks.next(100), 4);
  chunks.took(4, 1.2, true);
  EXPECT_EQ(chunks.next(100), 4);
  EXPECT_EQ(chunks.next(3), 3);
}

TEST_F(Run, CheckRefusesBeforeAnyWork) {
  Experiment e{.scene = scene_with_receivers(), .steps = 10};
  e.outputs = {NpyFile{dir() / "a.npy"}, NpyFile{dir() / "b.npy"}};
  EXPECT_THROW(check(e), std::invalid_argument);  // one output of each kind
  e.outputs = {NpyFile{dir() / "missing" / "a.npy"}};
  EXPECT_THROW(check(e), OutputError);
  try {
    e.scene.receivers = {{1, 1, ""}};
    e.outputs = {NpyFile{dir() / "a.receivers.npy", "--save-npy"},
                 ReceiverFiles{dir(), "a", false}};
    check(e);
    FAIL() << "two outputs that are one file";
  } catch (OutputError const& error) {
    EXPECT_NE(std::string(error.what()).find("--save-npy '"), std::string::npos) << error.what();
  }
  e.outputs.clear();
  e.backend = "no-such-backend";
  EXPECT_THROW(check(e), UnknownBackend);
  e.backend = "auto";
  e.scene.dx = -1.0f;
  EXPECT_THROW(check(e), SceneError);
  e.scene.dx = scene_with_receivers().dx;
  for (std::string const& stem :
       std::vector<std::string>{"../up", "a/b", ".hidden", std::string("a\0b", 3)}) {
    e.outputs = {Pictures{.directory = dir(), .stem = stem}};
    EXPECT_THROW(check(e), std::invalid_argument) << stem;
    e.outputs = {ReceiverFiles{.directory = dir(), .stem = stem}};
    EXPECT_THROW(check(e), std::invalid_argument) << stem;
  }
  e.outputs = {Pictures{.directory = dir(), .stem = std::string("a\0b", 3)}};
  try {  // the whole stem said, its NUL as \0
    check(e);
    ADD_FAILURE() << "a stem with a NUL was taken";
  } catch (std::invalid_argument const& error) {
    EXPECT_TRUE(std::string_view(error.what()).find("stem 'a\\0b'") != std::string_view::npos)
        << error.what();
  }
  EXPECT_TRUE(fs::is_empty(dir()));
}

// A file named as the frames are, not one of them, is refused only where the frames become
// a video (ffmpeg would take it in).
TEST_F(Run, AStrayFrameMattersOnlyToTheVideo) {
  if (!can_write_png) GTEST_SKIP() << "this build has no libpng";
  write_text(dir() / "room.000015.png", "not a frame of the run");
  Experiment e{.scene = scene_with_receivers(), .steps = 10};
  e.outputs = {Pictures{.directory = dir(), .frames_every = 5}};
  EXPECT_THROW(check(e), OutputError);
  e.outputs = {Pictures{.directory = dir(), .frames_every = 5, .video = false}};
  EXPECT_NO_THROW(check(e));
}

// Receivers' files asked of a scene with none: nothing written, and a note says why.
TEST_F(Run, ReceiversFilesOfASceneWithoutReceiversAreANote) {
  Experiment e{.scene = scene_with_receivers(), .backend = "kokkos-mdrange", .steps = 5};
  e.scene.receivers.clear();
  e.outputs = {ReceiverFiles{.directory = dir(), .plot = false}};
  std::vector<std::string> notes;
  RunResult const result =
      wave2d::run(space_, e, {.note = [&](std::string const& note) { notes.push_back(note); }});
  EXPECT_TRUE(result.written.empty());
  EXPECT_TRUE(fs::is_empty(dir()));
  EXPECT_EQ(notes, std::vector<std::string>{
                       "the scene has no receivers: no receivers' files are written"});
}

// A checked experiment taken and changed is checked again in full, and runs only on the
// space it was checked for.
TEST_F(Run, AChangedExperimentIsCheckedAgainAndRunsOnItsOwnSpace) {
  Experiment e{.scene = scene_with_receivers(), .steps = 10};
  Experiment changed = check(e).experiment;
  changed.scene.walls.assign(3, 1);  // a mask of another size
  EXPECT_THROW(check(changed), SceneError);
  changed = check(e).experiment;
  changed.scene.receivers.push_back({100000, 1, "far"});
  EXPECT_THROW(check(changed), SceneError);

  std::string const other = std::is_same_v<Space, Kokkos::Serial> ? "" : "serial";
  if (other.empty() || compiled_spaces().find(other) == std::string::npos) {
    GTEST_SKIP() << "one execution space compiled: no other to check an experiment for";
  }
  e.space = other;
  try {
    wave2d::Run<Space> run(space_, check(e));
    FAIL() << "an experiment checked for " << other << " ran on " << Space::name();
  } catch (std::invalid_argument const& error) {
    EXPECT_NE(std::string(error.what()).find("checked for the space 'serial'"), std::string::npos)
        << error.what();
  }
  e.space.clear();  // wave2d::run gives it the space it runs on
  EXPECT_EQ(wave2d::run(space_, e).step, 10);
}

// The program and an application give the same experiment the same bytes: the arrays, the
// receivers' files and pictures, the HDF5 datasets and the checkpoints.
TEST_F(Run, TheProgramAndTheLibraryWriteTheSameBytes) {
  if (!has_scene_files) GTEST_SKIP() << without_toml;
  fs::path const scene_file = fs::path(WAVE2D_SOURCE_DIR) / "docs/examples/point-source-box.toml";
  std::string options =
      "--steps 45 --backend kokkos-mdrange --save-npy p/f.npy --frames-every 20 "
      "--output p";
  Experiment e = experiment_of(load_scene(scene_file.string()));
  e.backend = "kokkos-mdrange";
  e.steps = 45;
  e.outputs = {NpyFile{dir() / "a/f.npy"}, ReceiverFiles{dir() / "a", "", can_plot_receivers()}};
  if (can_write_png) e.outputs.push_back(Pictures{dir() / "a", "", 1.0f, 20});
  if (can_use_hdf5) {
    options += " --save-h5 p/f.h5";
    e.outputs.push_back(Hdf5File{dir() / "a/f.h5", 20});
  }
  if (can_checkpoint) {
    options += " --checkpoint-every 30 p/ck";
    e.outputs.push_back(Checkpoints{dir() / "a/ck", 30});
  }
  fs::create_directories(dir() / "a");
  fs::create_directories(dir() / "p");
  run(space_, e);
  std::string const command = "cd '" + dir().string() +
                              "' && OMP_NUM_THREADS=1 '" WAVE2D_CLI "' run --scene '" +
                              scene_file.string() + "' " + options + " >/dev/null 2>&1";
  int const status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
  std::vector<std::string> files = {"f.npy", "point_source_in_a_box.receivers.npy",
                                    "point_source_in_a_box.receivers.csv"};
  if (can_plot_receivers()) files.push_back("point_source_in_a_box.receivers.png");
  if (can_write_png) {
    for (char const* picture :
         {"point_source_in_a_box.png", "point_source_in_a_box.000000.png",
          "point_source_in_a_box.000020.png", "point_source_in_a_box.000045.png"}) {
      files.push_back(picture);
    }
  }
  for (auto const& file : files) {
    ASSERT_TRUE(fs::exists(dir() / "p" / file)) << file;
    EXPECT_EQ(read_file(dir() / "p" / file), read_file(dir() / "a" / file)) << file;
  }
#if defined(WAVE2D_HAVE_HDF5)
  for (char const* name : {"/field/previous", "/field/current", "/frames/u", "/receivers/trace"}) {
    auto const program = dataset(dir() / "p/f.h5", name);
    EXPECT_FALSE(program.empty()) << name;
    EXPECT_EQ(program, dataset(dir() / "a/f.h5", name)) << name;
  }
#endif
  if (can_checkpoint) {
    CheckpointData const program = read_checkpoint(dir() / "p/ck");
    CheckpointData const library = read_checkpoint(dir() / "a/ck");
    EXPECT_EQ(program.step, 45);
    EXPECT_EQ(program.step, library.step);
    EXPECT_EQ(program.numerics, library.numerics);
    EXPECT_EQ(program.previous, library.previous);
    EXPECT_EQ(program.current, library.current);
    EXPECT_EQ(program.trace, library.trace);
  }
}

// --no-receivers leaves the trace out of the program's HDF5 file, as Hdf5File's `receivers`
// does in the library; the fields stay.
TEST_F(Run, TheProgramsHdf5FileWithoutReceiversHasNoTrace) {
  if (!has_scene_files || !can_use_hdf5) GTEST_SKIP() << "needs scene files and HDF5";
#if defined(WAVE2D_HAVE_HDF5)
  fs::path const scene_file = fs::path(WAVE2D_SOURCE_DIR) / "docs/examples/point-source-box.toml";
  std::string const command = "cd '" + dir().string() +
                              "' && OMP_NUM_THREADS=1 '" WAVE2D_CLI "' run --scene '" +
                              scene_file.string() +
                              "' --steps 5 --backend kokkos-mdrange --no-receivers --output o "
                              "--save-h5 f.h5 >/dev/null 2>&1";
  int const status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
  EXPECT_FALSE(dataset(dir() / "f.h5", "/field/current").empty());
  EXPECT_TRUE(dataset(dir() / "f.h5", "/receivers/trace").empty());
  EXPECT_FALSE(fs::exists(dir() / "o" / "point_source_in_a_box.receivers.npy"));
#endif
}

}  // namespace
}  // namespace wave2d::test
