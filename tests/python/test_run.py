"""wave2d.run(): an experiment through the run layer, as `wave2d run` runs it: the outputs
together, progress and stop, checkpoints and resume, errors before a step, and the same
files as the program.

Run by CTest with the other tests of tests/python; WAVE2D_PROGRAM names the program.
"""

import csv
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest
import xml.etree.ElementTree as ElementTree

import numpy as np

import wave2d

if not wave2d.has_scene_files:
    raise unittest.SkipTest("this build reads no scene files nor dicts (toml++ not found)")

try:
    import h5py
except ImportError:
    h5py = None

SCENE = {
    "name": "composed",
    "grid": {"nx": 40, "ny": 30},
    "time": {"steps": 60},
    "walls": [{"rect": {"x0": 20, "y0": 0, "x1": 21, "y1": 12}}],
    "sources": [{"x": 10, "y": 10, "waveform": "ricker", "frequency": 15.0, "delay": 0.1}],
    "receivers": [{"x": 30, "y": 20, "name": "mic"}, {"x": 5, "y": 25}],
}

SCENE_TOML = """
name = "composed"
[grid]
nx = 40
ny = 30
[time]
steps = 60
[[walls]]
rect = { x0 = 20, y0 = 0, x1 = 21, y1 = 12 }
[[sources]]
x = 10
y = 10
waveform = "ricker"
frequency = 15.0
delay = 0.1
[[receivers]]
x = 30
y = 20
name = "mic"
[[receivers]]
x = 5
y = 25
"""

BACKEND = "kokkos-tiled"

NEEDS_HDF5 = unittest.skipUnless(wave2d.has_hdf5 and h5py, "no HDF5 in this build, or no h5py "
                                 "to read it (install python3-h5py)")
NEEDS_CHECKPOINTS = unittest.skipUnless(wave2d.has_checkpoints,
                                        "this build has no checkpoints (no xxHash or no HDF5)")


def run_python(code, timeout=120):
    """Runs `code` in a fresh interpreter with this one's environment."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=os.environ.copy(), timeout=timeout)


def advanced(scene, steps, backend=BACKEND):
    simulation = wave2d.Simulation(scene, backend=backend)
    simulation.advance(steps)
    return simulation


def datasets(path):
    """Every dataset of an HDF5 file by its name, as arrays."""
    found = {}
    with h5py.File(path, "r") as file:
        file.visititems(lambda name, item: found.__setitem__(name, item[()])
                        if isinstance(item, h5py.Dataset) else None)
    return found


class Case(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.folder = pathlib.Path(self.directory.name)

    def tearDown(self):
        self.directory.cleanup()

    def assert_same_bits(self, mine, expected):
        self.assertEqual((mine.shape, mine.dtype), (expected.shape, expected.dtype))
        np.testing.assert_array_equal(mine.view(np.uint32), expected.view(np.uint32))


class Outputs(Case):
    @NEEDS_HDF5
    @NEEDS_CHECKPOINTS
    def test_outputs_compose_in_one_run(self):
        npy, h5, checkpoint = self.folder / "c.npy", self.folder / "c.h5", self.folder / "c.ck"
        outputs = [wave2d.NpyFile(str(npy)), wave2d.Hdf5File(h5, frames_every=20),
                   wave2d.ReceiverFiles(self.folder / "out", plot=False),
                   wave2d.Checkpoints(checkpoint, 25)]
        result = wave2d.run(SCENE, backend=BACKEND, outputs=outputs)
        self.assertEqual((result.first_step, result.step, result.stopped), (0, 60, False))
        self.assertEqual((result.backend, result.plan), (BACKEND, None))
        self.assertGreater(result.seconds, 0.0)
        self.assertGreater(result.gcells_per_second, 0.0)
        self.assertEqual(result.checkpoint, checkpoint)
        self.assertEqual([(w.kind, w.files) for w in result.written], [
            ("checkpoint", [checkpoint]), ("checkpoint", [checkpoint]), ("checkpoint", [checkpoint]),
            ("hdf5", [h5, self.folder / "c.h5.xmf"]), ("npy", [npy]),
            ("receivers", [self.folder / "out/composed.receivers.npy",
                           self.folder / "out/composed.receivers.csv"])])
        for written in result.written:
            for path in written.files:
                self.assertTrue(path.is_file(), path)

        # The final pair, bit for bit: the result, the NPY file, the HDF5 file, a Simulation.
        alone = advanced(SCENE, 60)
        self.assert_same_bits(result.previous, alone.previous)
        self.assert_same_bits(result.current, alone.current)
        self.assert_same_bits(result.receivers, alone.receivers)
        self.assertEqual(result.receivers_first_step, 0)
        pair = np.load(npy)
        self.assert_same_bits(pair[0], result.previous)
        self.assert_same_bits(pair[1], result.current)
        with h5py.File(h5, "r") as file:
            self.assert_same_bits(file["field/previous"][()], result.previous)
            self.assert_same_bits(file["field/current"][()], result.current)
            frames = file["frames/u"][()]
            self.assertEqual(frames.shape, (4, 30, 40))  # steps 0, 20, 40, 60
            self.assert_same_bits(frames[2], advanced(SCENE, 40).current)
            self.assert_same_bits(frames[3], result.current)
            self.assert_same_bits(file["receivers/trace"][()], result.receivers)
        root = ElementTree.parse(self.folder / "c.h5.xmf").getroot()
        self.assertEqual(root.tag, "Xdmf")
        self.assertIn("c.h5:/field/current", ElementTree.tostring(root, encoding="unicode"))

        # The receivers' files and the checkpoint, at the last step.
        self.assert_same_bits(np.load(self.folder / "out/composed.receivers.npy"), result.receivers)
        with open(self.folder / "out/composed.receivers.csv", newline="") as text:
            rows = list(csv.reader(text))
        self.assertEqual(rows[0], ["step", "time", "mic", "r1"])
        self.assertEqual(len(rows), 1 + 61)
        resumed = wave2d.Simulation(SCENE, backend=BACKEND)
        resumed.resume(checkpoint)
        self.assertEqual(resumed.step, 60)
        self.assert_same_bits(resumed.current, result.current)
        self.assert_same_bits(resumed.receivers, result.receivers)

    def test_outputs_without_hdf5(self):
        npy = self.folder / "alone.npy"
        result = wave2d.run(SCENE, steps=30, backend=BACKEND,
                            outputs=wave2d.NpyFile(npy))  # one output, not in a list
        self.assertEqual([w.kind for w in result.written], ["npy"])
        self.assert_same_bits(np.load(npy)[1], advanced(SCENE, 30).current)
        nothing = wave2d.run(SCENE, steps=0, backend=BACKEND)
        self.assertEqual((nothing.step, nothing.written, nothing.checkpoint), (0, [], None))
        self.assertFalse(nothing.current.any())

    def test_the_classes_hold_what_they_were_given(self):
        self.assertEqual(repr(wave2d.Hdf5File("a.h5")),
                         "wave2d.Hdf5File('a.h5', frames_every=None, receivers=True)")
        pictures = wave2d.Pictures(scale=None, frames_every=10)
        self.assertEqual((pictures.directory, pictures.stem, pictures.scale, pictures.video),
                         (pathlib.Path("out"), "", None, True))
        self.assertEqual(wave2d.Checkpoints(pathlib.Path("x.ck"), every=5).every, 5)
        checkpoints = wave2d.Checkpoints("x.ck", 5)
        checkpoints.path = self.folder / "y.ck"
        self.assertEqual(checkpoints.path, self.folder / "y.ck")

    @unittest.skipUnless(wave2d.has_hdf5 and wave2d.has_checkpoints and h5py,
                         "needs HDF5, checkpoints and h5py")
    def test_runs_on_several_threads_write_their_hdf5_files_and_checkpoints(self):
        # Its own process: before HDF5's uses were serialized, this crashed the interpreter.
        result = run_python(f"""
            import pathlib, tempfile, threading, h5py, numpy as np, wave2d
            scene = {SCENE!r}
            folder = pathlib.Path(tempfile.mkdtemp())
            errors = []

            def work(i):
                try:
                    for k in range(4):
                        wave2d.run(scene, backend="{BACKEND}", outputs=[
                            wave2d.Hdf5File(folder / f"r{{i}}.{{k}}.h5", frames_every=5),
                            wave2d.Checkpoints(folder / f"r{{i}}.{{k}}.ck", every=7)])
                        simulation = wave2d.Simulation(scene, backend="{BACKEND}")
                        simulation.advance(11)
                        simulation.save_checkpoint(folder / f"s{{i}}.{{k}}.ck")
                        simulation.resume(folder / f"r{{i}}.{{k}}.ck")
                except Exception as e:
                    errors.append(f"{{type(e).__name__}}: {{e}}")

            threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert not errors, errors
            alone = wave2d.Simulation(scene, backend="{BACKEND}")
            alone.advance(60)
            for path in folder.glob("r*.h5"):
                with h5py.File(path) as f:
                    assert np.array_equal(f["/field/current"][...], alone.current), path
                    assert f["/frames/u"].shape[0] == 13, path
            print(len(list(folder.glob("*.h5"))), len(list(folder.glob("*.ck"))))
        """, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "16 32")


class Stopping(Case):
    @NEEDS_CHECKPOINTS
    def test_false_from_progress_stops_at_a_checkpoint_that_resumes_to_the_same_bytes(self):
        checkpoint, npy = self.folder / "s.ck", self.folder / "s.npy"
        told = []

        def progress(at):
            told.append((at.step, at.first_step, at.last_step, at.cells))
            return at.step < 10

        outputs = [wave2d.Checkpoints(checkpoint, 1000), wave2d.NpyFile(npy)]
        stopped = wave2d.run(SCENE, backend=BACKEND, outputs=outputs, progress=progress)
        self.assertTrue(stopped.stopped)
        self.assertTrue(10 <= stopped.step < 60, stopped.step)
        self.assertEqual(told[-1], (stopped.step, 0, 60, 1200))
        self.assertEqual(stopped.checkpoint, checkpoint)
        self.assertEqual([w.kind for w in stopped.written], ["checkpoint"])
        self.assertFalse(npy.exists())  # no final outputs
        self.assert_same_bits(stopped.current, advanced(SCENE, stopped.step).current)
        at = wave2d.Simulation(SCENE, backend=BACKEND)
        at.resume(checkpoint)
        self.assertEqual(at.step, stopped.step)

        resumed = wave2d.run(SCENE, backend="auto", outputs=[wave2d.NpyFile(npy)],
                             resume=checkpoint)
        self.assertEqual((resumed.first_step, resumed.step), (stopped.step, 60))
        self.assertEqual((resumed.backend, resumed.plan), (BACKEND, None))  # the checkpoint's
        whole = self.folder / "whole.npy"
        uninterrupted = wave2d.run(SCENE, backend=BACKEND, outputs=[wave2d.NpyFile(whole)])
        self.assertEqual(npy.read_bytes(), whole.read_bytes())
        self.assert_same_bits(resumed.receivers, uninterrupted.receivers)

    @NEEDS_CHECKPOINTS
    def test_a_resume_that_names_no_space_takes_the_checkpoints(self):
        if "serial" not in wave2d.spaces() or wave2d.spaces()[0] == "serial":
            self.skipTest("Serial is not a space besides the default one here")
        checkpoint = self.folder / "serial.ck"
        wave2d.run(SCENE, steps=20, backend=BACKEND, space="serial",
                   outputs=[wave2d.Checkpoints(checkpoint, 1000)])
        resumed = wave2d.run(SCENE, resume=checkpoint)
        self.assertEqual((resumed.space, resumed.backend, resumed.first_step),
                         ("Serial", BACKEND, 20))

    def test_numpys_false_stops_as_false_does_and_other_values_go_on(self):
        field = np.zeros(3)
        stopped = wave2d.run(SCENE, backend=BACKEND, progress=lambda at: (field > 1).any())
        self.assertTrue(stopped.stopped)
        self.assertLess(stopped.step, 60)
        for value in (None, 0, "", np.True_, np.zeros(0)):
            whole = wave2d.run(SCENE, backend=BACKEND, progress=lambda at: value)
            self.assertFalse(whole.stopped, repr(value))
            self.assertEqual(whole.step, 60)

    def test_an_exception_of_progress_stops_the_run_and_is_raised(self):
        def progress(at):
            if at.step >= 5:
                raise LookupError(f"enough at {at.step}")

        outputs = [wave2d.Checkpoints(self.folder / "e.ck", 1000)] if wave2d.has_checkpoints \
            else []
        with self.assertRaisesRegex(LookupError, r"enough at \d+"):
            wave2d.run(SCENE, backend=BACKEND, outputs=outputs, progress=progress)
        if outputs:
            self.assertTrue((self.folder / "e.ck").is_file())
        with self.assertRaisesRegex(TypeError, "progress must be callable"):
            wave2d.run(SCENE, progress=3)

    def test_ctrl_c_stops_the_run_then_raises_keyboard_interrupt(self):
        result = run_python(f"""
            import os, pathlib, signal, tempfile, threading, numpy as np, wave2d
            scene = {{"grid": {{"nx": 200, "ny": 150}}, "time": {{"steps": 5}},
                     "sources": [{{"x": 50, "y": 50, "frequency": 0.2}}]}}
            folder = pathlib.Path(tempfile.mkdtemp())
            outputs = [wave2d.Checkpoints(folder / "c.ck", 10**9)] if wave2d.has_checkpoints else []
            threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
            try:
                wave2d.run(scene, steps=10**6, backend="{BACKEND}", outputs=outputs)
            except KeyboardInterrupt:
                if outputs:
                    resumed = wave2d.Simulation(scene, backend="{BACKEND}")
                    resumed.resume(folder / "c.ck")
                    alone = wave2d.Simulation(scene, backend="{BACKEND}")
                    alone.advance(resumed.step)
                    assert 0 < resumed.step < 10**6
                    assert np.array_equal(resumed.current, alone.current)
                print("interrupted")
        """, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "interrupted")

    def test_finalize_from_another_thread_stops_the_run_first(self):
        result = run_python(f"""
            import pathlib, tempfile, threading, wave2d
            scene = {{"grid": {{"nx": 200, "ny": 150}}, "time": {{"steps": 5}}}}
            folder = pathlib.Path(tempfile.mkdtemp())
            outputs = [wave2d.Checkpoints(folder / "c.ck", 10**9)] if wave2d.has_checkpoints else []
            running = threading.Event()
            errors = []

            def work():
                try:
                    wave2d.run(scene, steps=10**6, backend="{BACKEND}", outputs=outputs,
                               progress=lambda at: running.set())
                except Exception as e:
                    errors.append(f"{{type(e).__name__}}: {{e}}")
                finally:
                    running.set()

            thread = threading.Thread(target=work)
            thread.start()
            running.wait()
            wave2d.finalize()
            print("finalized")
            thread.join()
            print(errors[0])
            assert not outputs or (folder / "c.ck").is_file()
        """, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"^finalized\nRuntimeError: wave2d: Kokkos was finalized "
                                        r"while running: the run stopped after step \d+\n$")

    def test_finalize_from_progress_is_refused(self):
        def progress(at):
            wave2d.finalize()

        with self.assertRaisesRegex(RuntimeError, r"finalize\(\) from a run's progress callback"):
            wave2d.run(SCENE, backend=BACKEND, progress=progress)
        self.assertTrue(wave2d.is_initialized())
        advanced(SCENE, 5)


class Errors(Case):
    def test_a_field_that_is_not_finite(self):
        unstable = dict(SCENE, time={"steps": 400, "dt": 0.9})
        npy = self.folder / "last.npy"
        with self.assertRaises(wave2d.NotFinite) as caught:
            wave2d.run(unstable, backend=BACKEND, allow_unstable=True, keep_last_finite=True,
                       outputs=[wave2d.NpyFile(npy)])
        error = caught.exception
        self.assertIsInstance(error, ArithmeticError)
        x, y = error.cell
        self.assertTrue(0 < error.step <= 400 and 0 <= x < 40 and 0 <= y < 30)
        self.assertRegex(str(error), rf"^the field is not finite after step {error.step}, first "
                                     rf"at cell \({x}, {y}\); wrote the last finite state, step "
                                     rf"{error.step - 1}$")
        simulation = wave2d.Simulation(unstable, backend=BACKEND, allow_unstable=True)
        simulation.advance(error.step - 1)
        self.assert_same_bits(np.load(npy)[1], simulation.current)
        self.assertTrue(np.isfinite(np.load(npy)).all())
        simulation.advance(1)
        self.assertFalse(np.isfinite(simulation.current[y, x]))
        with self.assertRaisesRegex(wave2d.SceneError, "allow_unstable=True runs it anyway"):
            wave2d.run(unstable)

    def test_everything_is_checked_before_a_step(self):
        scene_file = self.folder / "composed.toml"
        scene_file.write_text(SCENE_TOML)
        told = []
        refused = [
            (OSError, "is the receivers' folder or one above it",
             [wave2d.NpyFile(self.folder / "x"), wave2d.ReceiverFiles(self.folder / "x")]),
            (OSError, "is also the HDF5 file", [wave2d.NpyFile(self.folder / "x"),
                                                wave2d.Hdf5File(self.folder / "x")]),
            (ValueError, "a period of 0 steps", [wave2d.Checkpoints(self.folder / "c.ck", 0)]),
            (ValueError, "an experiment has one NPY file", [wave2d.NpyFile(self.folder / "a"),
                                                            wave2d.NpyFile(self.folder / "b")]),
            (TypeError, "outputs are wave2d.NpyFile, .* not a str", ["x.npy"]),
            (OSError, "composed.toml", [wave2d.NpyFile(scene_file)]),  # its input
            (OSError, "", [wave2d.NpyFile(self.folder / "missing/x.npy")]),
        ]
        for error, message, outputs in refused:
            with self.subTest(message=message):
                with self.assertRaisesRegex(error, message):
                    wave2d.run(str(scene_file), outputs=outputs, progress=told.append)
        with self.assertRaisesRegex(ValueError, "run: steps must be an int from 0"):
            wave2d.run(SCENE, steps=-1, progress=told.append)
        with self.assertRaisesRegex(ValueError, "plan: unknown mode 'often'"):
            wave2d.run(SCENE, plan="often", progress=told.append)
        with self.assertRaisesRegex(ValueError, "unknown backend 'warp-drive'"):
            wave2d.run(SCENE, backend="warp-drive", progress=told.append)
        with self.assertRaises(wave2d.CheckpointError):
            wave2d.run(SCENE, resume=self.folder / "none.ck", progress=told.append)
        self.assertEqual(told, [])
        self.assertEqual(sorted(p.name for p in self.folder.iterdir()), ["composed.toml"])

    def test_a_scene_read_by_a_relative_path_keeps_its_files_after_a_change_of_folder(self):
        scene_file = self.folder / "composed.toml"
        scene_file.write_text(SCENE_TOML)
        here = os.getcwd()
        try:
            os.chdir(self.folder)
            scene = wave2d.Scene("composed.toml")
            os.chdir(here)
            with self.assertRaisesRegex(OSError, "would overwrite the input"):
                wave2d.run(scene, outputs=[wave2d.NpyFile(scene_file)])
        finally:
            os.chdir(here)
        self.assertEqual(scene_file.read_text(), SCENE_TOML)

    def test_threads_that_make_the_first_arrays_at_once_do_not_wait_on_each_other(self):
        # In a fresh interpreter that has not imported NumPy.
        result = run_python("""
            import threading, wave2d
            scene = wave2d.Scene("double-slit-small")
            threads = [threading.Thread(target=lambda: scene.walls) for _ in range(4)]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            print("joined")
            """, timeout=60)
        self.assertEqual((result.returncode, result.stdout), (0, "joined\n"), result.stderr)

    def test_a_scene_object_keeps_its_files_from_being_written_over(self):
        scene_file = self.folder / "composed.toml"
        scene_file.write_text(SCENE_TOML)
        scene = wave2d.Scene(scene_file)
        self.assertEqual([pathlib.Path(f).name for f in scene.files], ["composed.toml"])
        self.assertEqual(wave2d.Scene(scene).files, scene.files)
        self.assertEqual(wave2d.Scene(SCENE).files, [])
        with self.assertRaisesRegex(OSError, "would overwrite the input '.*composed.toml'"):
            wave2d.run(scene, outputs=[wave2d.NpyFile(scene_file)])
        simulation = wave2d.Simulation(scene, backend=BACKEND)
        self.assertEqual(simulation.scene.files, scene.files)
        if wave2d.has_checkpoints:
            with self.assertRaisesRegex(OSError, "the checkpoint '.*composed.toml' would "
                                                 "overwrite the input"):
                simulation.save_checkpoint(scene_file)
        self.assertEqual(scene_file.read_text(), SCENE_TOML)
        self.assertEqual(sorted(p.name for p in self.folder.iterdir()), ["composed.toml"])

    def test_a_scene_file_names_its_time_step_key(self):
        scene_file = self.folder / "unstable.toml"
        scene_file.write_text(SCENE_TOML.replace("steps = 60", "steps = 60\ndt = 0.9"))
        with self.assertRaisesRegex(wave2d.SceneError, r"unstable\.toml:8: time\.dt: unstable "
                                                       r"time step: .*allow_unstable=True"):
            wave2d.run(scene_file)
        with self.assertRaisesRegex(wave2d.SceneError, r"unstable\.toml:8: time\.dt: unstable "):
            wave2d.Simulation(str(scene_file))
        with self.assertRaisesRegex(wave2d.SceneError, r"unstable\.toml:8: time\.dt: unstable "):
            wave2d.Simulation(wave2d.Scene(scene_file))


class Plans(Case):
    def test_auto_says_how_it_chose(self):
        result = wave2d.run(SCENE, steps=5, plan="estimate")
        self.assertEqual(result.plan["mode"], "estimate")
        self.assertEqual(result.plan["backend"], result.backend)
        self.assertIn(result.plan["summary"], result.configuration)
        self.assertIsNone(wave2d.run(SCENE, steps=5, backend="reference").plan)


@unittest.skipUnless(os.environ.get("WAVE2D_PROGRAM"), "WAVE2D_PROGRAM does not name the program")
class Program(Case):
    def test_the_program_and_run_write_the_same_files(self):
        scene_file = self.folder / "composed.toml"
        scene_file.write_text(SCENE_TOML)
        program, python = self.folder / "program", self.folder / "python"
        program.mkdir()
        python.mkdir()
        command = [os.environ["WAVE2D_PROGRAM"], "run", "--scene", str(scene_file),
                   "--backend", BACKEND, "--steps", "50", "--output", str(program / "out"),
                   "--frames-every", "20", "--save-npy", str(program / "c.npy"),
                   "--progress", "none"]
        outputs = [wave2d.NpyFile(python / "c.npy"), wave2d.ReceiverFiles(python / "out")]
        if wave2d.has_pictures:
            outputs.append(wave2d.Pictures(python / "out", frames_every=20))
        if wave2d.has_hdf5:
            command += ["--save-h5", str(program / "c.h5")]
            outputs.append(wave2d.Hdf5File(python / "c.h5", frames_every=20))
        if wave2d.has_checkpoints:
            command += ["--checkpoint-every", "20", str(program / "c.ck")]
            outputs.append(wave2d.Checkpoints(python / "c.ck", 20))
        ran = subprocess.run(command, capture_output=True, text=True, timeout=120)
        self.assertEqual(ran.returncode, 0, ran.stderr)
        wave2d.run(str(scene_file), steps=50, backend=BACKEND, outputs=outputs)

        same_bytes = ["c.npy", "out/composed.receivers.npy", "out/composed.receivers.csv"]
        if wave2d.has_pictures:
            same_bytes += ["out/composed.png"] + [f"out/composed.{step:06d}.png"
                                                  for step in (0, 20, 40, 50)]
        for name in same_bytes:
            with self.subTest(file=name):
                self.assertEqual((program / name).read_bytes(), (python / name).read_bytes())
        for name in ("c.h5", "c.ck"):
            if not (program / name).exists() and not (python / name).exists():
                continue
            with self.subTest(file=name):
                if h5py is None:
                    self.skipTest("no h5py to read the HDF5 files (install python3-h5py)")
                mine, theirs = datasets(python / name), datasets(program / name)
                self.assertEqual(sorted(mine), sorted(theirs))
                self.assertIn("field/current", mine)
                for dataset in mine:
                    np.testing.assert_array_equal(mine[dataset], theirs[dataset])
        if wave2d.has_hdf5:
            for folder in (program, python):
                self.assertEqual(ElementTree.parse(folder / "c.h5.xmf").getroot().tag, "Xdmf")


if __name__ == "__main__":
    unittest.main()
