"""The Python module wave2d given hostile input: self-referencing, deep or huge values,
numbers at the limits of int64, states that are not finite or that view the simulation's own
fields, several threads at once, interruptions, and memory limits. Each is a Python exception
with a one-line message, or done right; never a crash.
"""

import os
import subprocess
import sys
import textwrap
import threading
import unittest

import numpy as np

import wave2d

if not wave2d.has_scene_files:
    raise unittest.SkipTest("this build reads no scene files nor dicts (toml++ not found)")

SCENE = {
    "name": "limits",
    "grid": {"nx": 40, "ny": 30},
    "time": {"steps": 60},
    "sources": [{"x": 10, "y": 10, "waveform": "ricker", "frequency": 15.0, "delay": 0.1}],
    "receivers": [{"x": 30, "y": 20}],
}

INT64_MAX = 2**63 - 1

SANITIZED = os.environ.get("WAVE2D_SANITIZED") == "1"


def run_python(code, timeout=120):
    """Runs `code` in a fresh interpreter with this one's environment."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=os.environ.copy(), timeout=timeout)


class HostileSceneDicts(unittest.TestCase):
    def assert_refused(self, source, message, error=wave2d.SceneError):
        with self.assertRaises(error) as caught:
            wave2d.Scene(source)
        text = str(caught.exception)
        self.assertIn(message, text)
        self.assertNotIn("\n", text)
        self.assertNotRegex(text, r"<dict>|:\d+:")  # no line of a text the user never saw

    def test_a_dict_that_contains_itself(self):
        d = {}
        d["a"] = d
        self.assert_refused(d, "scene dict: a: contains itself")
        looped = dict(SCENE, grid={"nx": 40, "ny": 30})
        looped["grid"]["more"] = [looped]
        self.assert_refused(looped, "scene dict: grid.more[0]: contains itself")

    def test_a_list_that_contains_itself(self):
        items = []
        items.append(items)
        self.assert_refused(dict(SCENE, sources=items), "scene dict: sources[0]: contains itself")
        self.assert_refused(dict(SCENE, sources=(items,)),
                            "scene dict: sources[0][0]: contains itself")

    def test_a_value_met_twice_apart_is_no_loop(self):
        shared = {"x": 1, "y": 1}
        scene = wave2d.Scene(dict(SCENE, receivers=[shared, shared]))
        self.assertEqual(scene.receivers, [(1, 1), (1, 1)])

    def test_deep_nesting(self):
        deep = {}
        for _ in range(30000):
            deep = {"a": deep}
        self.assert_refused(deep, "nested more than 32 dicts and lists deep")
        deep_list = [1.0]
        for _ in range(30000):
            deep_list = [deep_list]
        self.assert_refused(dict(SCENE, sources=deep_list), "nested more than 32 dicts and lists")

    def test_sizes_beyond_a_scene_file(self):
        self.assert_refused(dict(SCENE, name="n" * (17 << 20)), "scene dict: name: a string "
                            "longer than 16777216 bytes")
        self.assert_refused(dict(SCENE, sources=[0] * (9 << 20)),
                            "scene dict: sources: more than a scene file may hold")
        self.assert_refused(dict(SCENE, grid={"nx": 2**64, "ny": 30}),
                            "scene dict: grid.nx: an integer beyond 64 bits")
        self.assert_refused(dict(SCENE, grid={"n" * 300: 1}), "a string longer than 256 bytes")

    def test_values_that_run_code_cannot_pull_the_dict_away(self):
        scene = dict(SCENE)

        class Shrinking:
            def __index__(self):
                scene.clear()
                return 40

        scene["grid"] = {"nx": Shrinking(), "ny": 30}
        self.assertEqual(wave2d.Scene(scene).nx, 40)

        class Endless(list):
            def __iter__(self):
                while True:
                    yield {"x": 1, "y": 1}

        self.assertEqual(wave2d.Scene(dict(SCENE, receivers=Endless())).receivers, [])

    def test_errors_name_the_key_path(self):
        sources = [{"x": 10, "y": 10, "frequency": 15.0}, {"x": 12, "y": 10, "frequency": -1.0}]
        self.assert_refused(dict(SCENE, sources=sources),
                            "scene dict: sources[1].frequency: must be positive, got -1")
        self.assert_refused(dict(SCENE, grid={"nx": 40}), "scene dict: grid.ny: missing")
        no_steps = {"grid": {"nx": 40, "ny": 30}}  # of a table the dict lacks: no line either
        with self.assertRaisesRegex(wave2d.SceneError, r"^scene dict: time\.steps: missing"):
            wave2d.Scene(no_steps)
        self.assert_refused({"grid": {"nx": None}}, "scene dict: grid.nx: a NoneType",
                            error=TypeError)
        self.assert_refused(dict(SCENE, grid={"nx": np.array([40, 41]), "ny": 30}),
                            "scene dict: grid.nx: a ndarray is not a TOML value", error=TypeError)
        self.assert_refused(dict(SCENE, name="\ud800"),
                            "scene dict: name: a string that UTF-8 cannot hold")

    def test_numpy_scalars_are_numbers(self):
        scene = wave2d.Scene(dict(SCENE, grid={"nx": np.int64(40), "ny": np.array(30)},
                                  time={"steps": 5, "dt": np.array(0.005)}))
        self.assertEqual((scene.nx, scene.ny), (40, 30))
        self.assertAlmostEqual(scene.dt, 0.005)

    def test_the_unstable_step_names_allow_unstable(self):
        unstable = dict(SCENE, time={"steps": 5, "dt": 0.9})
        with self.assertRaisesRegex(wave2d.SceneError, r"^unstable time step: c\*dt/dx = .*; "
                                    r"allow_unstable=True runs it anyway$"):
            wave2d.Simulation(unstable)
        wave2d.Simulation(unstable, allow_unstable=True, backend="reference")


class StepLimits(unittest.TestCase):
    def test_step_counts_that_would_wrap_are_refused_before_any_step(self):
        zero = np.zeros((30, 40), np.float32)
        for backend in wave2d.backends():
            with self.subTest(backend=backend):
                simulation = wave2d.Simulation(SCENE, backend=backend)
                with self.assertRaisesRegex(MemoryError, r"^the receivers' trace "
                                            r"\(4611686018427387905 steps x 1 receiver\) needs"):
                    simulation.advance(2**62)
                simulation.advance(1)
                with self.assertRaisesRegex(ValueError, "pass the largest step count"):
                    simulation.advance(2**63 - 2)
                with self.assertRaisesRegex(ValueError, "steps must be an int from 0 to"):
                    simulation.advance(2**64)
                with self.assertRaisesRegex(TypeError, "steps must be an int, not a float"):
                    simulation.advance(2.0)
                self.assertEqual(simulation.step, 1)
                for step in (-1, INT64_MAX):  # one message, one bound
                    with self.assertRaisesRegex(ValueError, "set_state: step must be an int from "
                                                "0 to 9223372036854775806$"):
                        simulation.set_state(zero, zero, step)
                simulation.set_state(zero, zero, INT64_MAX - 1)
                with self.assertRaisesRegex(ValueError, "pass the largest step count"):
                    simulation.advance(1)
                self.assertEqual(simulation.step, INT64_MAX - 1)
                self.assertEqual(simulation.receivers.shape, (1, 1))


class SetState(unittest.TestCase):
    def test_complex_fields_are_refused_not_cut_to_their_real_part(self):
        simulation = wave2d.Simulation(SCENE, backend="reference")
        simulation.advance(3)
        field = simulation.current.astype(np.complex64) + 1j
        with self.assertRaisesRegex(TypeError, "set_state: previous: complex values"):
            simulation.set_state(field, simulation.current, 3)
        with self.assertRaisesRegex(TypeError, "set_state: current: complex values"):
            simulation.set_state(simulation.previous, [[1j] * field.shape[1]] * field.shape[0], 3)
        self.assertEqual(simulation.step, 3)

    def test_views_of_the_simulations_own_fields(self):
        for backend in wave2d.backends():
            with self.subTest(backend=backend):
                simulation = wave2d.Simulation(SCENE, backend=backend)
                simulation.advance(12)
                previous, current = simulation.previous.copy(), simulation.current.copy()
                self.assertFalse(np.array_equal(previous, current))
                simulation.set_state(simulation.current, simulation.previous, 10)
                np.testing.assert_array_equal(simulation.previous, current)
                np.testing.assert_array_equal(simulation.current, previous)
                simulation.set_state(simulation.previous, simulation.previous, 10)
                np.testing.assert_array_equal(simulation.previous, current)
                np.testing.assert_array_equal(simulation.current, current)
                self.assertEqual(simulation.step, 10)

    def test_fields_that_are_not_finite_are_refused_and_change_nothing(self):
        simulation = wave2d.Simulation(SCENE, backend="reference")
        simulation.advance(7)
        kept = simulation.current.copy()
        zero = np.zeros((30, 40), np.float32)
        for bad_value, field in ((np.nan, "previous"), (np.inf, "current"), (-np.inf, "previous")):
            bad = zero.copy()
            bad[3, 4] = bad_value
            fields = (bad, zero) if field == "previous" else (zero, bad)
            with self.assertRaisesRegex(ValueError,
                                        f"^set_state: {field} is not finite at cell \\(4, 3\\)$"):
                simulation.set_state(*fields, 3)
        # float64 beyond float32 becomes inf on the way.
        with self.assertRaisesRegex(ValueError, "current is not finite"), np.errstate(over="ignore"):
            simulation.set_state(zero, np.full((30, 40), 1e300), 3)
        self.assertEqual(simulation.step, 7)
        np.testing.assert_array_equal(simulation.current, kept)

    def test_arrays_that_are_not_fields(self):
        simulation = wave2d.Simulation(SCENE, backend="reference")
        zero = np.zeros((30, 40), np.float32)
        looped = []
        looped.append(looped)
        deep = [0.0]
        for _ in range(30000):
            deep = [deep]
        for bad, error in ((looped, ValueError), (deep, ValueError), ([[1, 2], [3]], ValueError),
                           (object(), TypeError), (np.zeros((40, 30)), ValueError),
                           (np.zeros(1200), ValueError)):
            with self.assertRaises(error) as caught:
                simulation.set_state(zero, bad, 3)
            self.assertTrue(str(caught.exception).startswith("set_state: current"))
        with self.assertRaisesRegex(TypeError, "step must be an int"):
            simulation.set_state(zero, zero, "3")


class Threads(unittest.TestCase):
    def test_threads_share_a_simulation_one_call_at_a_time(self):
        for backend in wave2d.backends():
            with self.subTest(backend=backend):
                simulation = wave2d.Simulation(SCENE, backend=backend)
                seen = []

                def read():
                    for _ in range(300):
                        rows = simulation.receivers.shape[0]
                        seen.append((rows, simulation.step))

                threads = [threading.Thread(target=simulation.advance, args=(300,))
                           for _ in range(3)] + [threading.Thread(target=read)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                alone = wave2d.Simulation(SCENE, backend=backend)
                alone.advance(900)
                self.assertEqual(simulation.step, 900)
                np.testing.assert_array_equal(simulation.current, alone.current)
                np.testing.assert_array_equal(simulation.receivers, alone.receivers)
                for rows, step_after in seen:
                    self.assertLessEqual(rows, step_after + 1)


class Advance(unittest.TestCase):
    def test_progress_every_k_steps_and_at_the_end(self):
        simulation = wave2d.Simulation(SCENE, backend="reference")
        simulation.advance(3)
        steps = []
        simulation.advance(25, progress=steps.append, every=10)
        self.assertEqual(steps, [13, 23, 28])
        reports = []
        simulation.advance(40, progress=lambda step: reports.append(
            (step, simulation.step, simulation.receivers.shape[0])))
        self.assertEqual(reports[-1], (68, 68, 69))
        for step, also, rows in reports:
            self.assertEqual((step, rows), (also, step + 1))
        alone = wave2d.Simulation(SCENE, backend="reference")
        alone.advance(68)
        np.testing.assert_array_equal(simulation.current, alone.current)
        with self.assertRaisesRegex(ValueError, "every must be an int from 1"):
            simulation.advance(5, progress=print, every=0)
        with self.assertRaisesRegex(TypeError, "progress must be callable"):
            simulation.advance(5, progress=3)

    def test_an_exception_of_progress_stops_it_at_that_step(self):
        simulation = wave2d.Simulation(SCENE, backend="reference")

        def stop_at_20(step):
            if step == 20:
                raise LookupError("enough")

        with self.assertRaisesRegex(LookupError, "enough"):
            simulation.advance(100, progress=stop_at_20, every=5)
        self.assertEqual(simulation.step, 20)
        self.assertEqual(simulation.receivers.shape, (21, 1))
        # Each stops at its first report, a step on.
        with self.assertRaisesRegex(RuntimeError, "may read the simulation, not change it"):
            simulation.advance(5, progress=lambda step: simulation.reset(), every=1)
        with self.assertRaisesRegex(RuntimeError, "may read the simulation, not change it"):
            simulation.advance(5, progress=lambda step: simulation.advance(1), every=1)
        self.assertEqual(simulation.step, 22)

    def test_ctrl_c_stops_it_between_chunks(self):
        result = run_python("""
            import os, signal, threading, numpy as np, wave2d
            scene = {"grid": {"nx": 200, "ny": 150}, "time": {"steps": 5},
                     "receivers": [{"x": 3, "y": 3}]}
            simulation = wave2d.Simulation(scene, backend="reference")
            threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
            try:
                simulation.advance(10**8)
            except KeyboardInterrupt:
                step = simulation.step
                alone = wave2d.Simulation(scene, backend="reference")
                alone.advance(step)
                assert 0 < step < 10**8
                assert np.array_equal(simulation.current, alone.current)
                assert np.array_equal(simulation.receivers, alone.receivers)
                print("interrupted")
        """, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "interrupted")


@unittest.skipIf(SANITIZED, "AddressSanitizer reserves terabytes of address space: nothing "
                 "runs under an address-space limit")
class MemoryLimits(unittest.TestCase):
    def test_grids_and_traces_beyond_an_address_space_limit(self):
        result = run_python("""
            import resource, wave2d
            host = [space for space in wave2d.spaces() if space != "cuda"][0]
            small = {"grid": {"nx": 40, "ny": 30}, "time": {"steps": 5},
                     "receivers": [{"x": 3, "y": 3}]}
            simulation = wave2d.Simulation(small, space=host)  # Kokkos starts first
            with open("/proc/self/status") as status:
                used = next(int(line.split()[1]) * 1024 for line in status
                            if line.startswith("VmSize:"))
            limit = used + (3 << 29)
            resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
            grid = {"grid": {"nx": 8000, "ny": 8000}, "time": {"steps": 5}}
            for make in (wave2d.Scene, wave2d.Simulation):
                try:
                    make(grid)
                except MemoryError as e:
                    print(e)
            try:
                simulation.advance(800_000_000)
            except MemoryError as e:
                print(e, simulation.step)
        """)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 3, result.stdout)
        for line in lines[:2]:
            self.assertRegex(line, r"^scene dict: grid.nx: the 8000 x 8000 grid needs about 3\.\d GiB "
                             r"of memory, "
                             r"more than the 1\.\d GiB available to the host$")
        self.assertRegex(lines[2], r"^the receivers' trace \(800000001 steps x 1 receiver\) needs "
                         r"about 3\.0 GiB of memory, more than the 1\.\d GiB available to "
                         r"(OpenMP|Serial) 0$")


if __name__ == "__main__":
    unittest.main()
