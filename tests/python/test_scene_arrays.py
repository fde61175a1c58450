"""Scenes built in code: Scene.walls and Scene.speed as NumPy arrays, read and assigned.

Run by CTest with the other tests of tests/python.
"""

import pathlib
import tempfile
import unittest

import numpy as np

import wave2d

if not wave2d.has_scene_files:
    raise unittest.SkipTest("this build reads no scene files nor dicts (toml++ not found)")

SIZES = {
    "name": "built",
    "grid": {"nx": 40, "ny": 30},
    "time": {"steps": 40},
    "sources": [{"x": 10, "y": 10, "waveform": "ricker", "frequency": 15.0, "delay": 0.1}],
}

WALLED = dict(SIZES, walls=[{"rect": {"x0": 20, "y0": 0, "x1": 21, "y1": 12}}])


def advanced(scene, steps=40):
    simulation = wave2d.Simulation(scene, backend="reference")
    simulation.advance(steps)
    return simulation


class Walls(unittest.TestCase):
    def test_assigned_walls_are_the_scene_files_walls(self):
        from_file = wave2d.Scene(WALLED)
        built = wave2d.Scene(SIZES)
        self.assertFalse(built.walls.any())
        walls = np.zeros((30, 40), dtype=bool)
        walls[0:13, 20:22] = True
        np.testing.assert_array_equal(from_file.walls, walls)
        built.walls = walls
        np.testing.assert_array_equal(built.walls, walls)
        self.assertEqual(built.walls.dtype, np.bool_)
        np.testing.assert_array_equal(advanced(built).current, advanced(from_file).current)
        if wave2d.has_checkpoints:  # the same scene: a checkpoint of one resumes the other
            with tempfile.TemporaryDirectory() as directory:
                path = pathlib.Path(directory) / "walls.ck"
                advanced(from_file, 10).save_checkpoint(path)
                wave2d.Simulation(built, backend="reference").resume(path)

    def test_a_copy_read_only_and_none_clears(self):
        scene = wave2d.Scene(WALLED)
        walls = scene.walls
        self.assertFalse(walls.flags.writeable)
        with self.assertRaises(ValueError):
            walls[0, 0] = True
        scene.walls = None
        self.assertFalse(scene.walls.any())
        self.assertTrue(walls.any())  # the copy read before
        scene.walls = walls.tolist()  # anything NumPy makes a bool array of
        np.testing.assert_array_equal(scene.walls, walls)
        # No wall at all is no walls: the scene without any, checkpoints included.
        scene.walls = np.zeros((30, 40), dtype=bool)
        np.testing.assert_array_equal(advanced(scene).current, advanced(SIZES).current)

    def test_other_shapes_and_types_are_refused_and_change_nothing(self):
        scene = wave2d.Scene(WALLED)
        before = scene.walls
        for value, message in [
            (np.zeros((40, 30), dtype=bool),
             r"Scene.walls: the grid's shape \(ny, nx\) = \(30, 40\), not \(40, 30\)"),
            (np.zeros(1200, dtype=bool), r"the grid's shape .* not \(1200,\)"),
            (np.zeros((30, 40), dtype=np.uint8), "Scene.walls: a bool array, not of uint8"),
            (np.zeros((30, 40)), "Scene.walls: a bool array, not of float64"),
            (np.eye(30, 40, k=0, dtype=bool),
             r"Scene.walls: a wall on source 0 at \(10, 10\) would silence it"),
        ]:
            with self.subTest(message=message):
                with self.assertRaisesRegex(ValueError, message):
                    scene.walls = value
                np.testing.assert_array_equal(scene.walls, before)


class Speed(unittest.TestCase):
    def test_assigned_speed_is_the_scene_files_speed(self):
        uniform = wave2d.Scene(SIZES)
        self.assertIsNone(uniform.speed)
        built = wave2d.Scene(SIZES)
        built.speed = np.full((30, 40), uniform.c)  # float64, stored as float32
        speed = built.speed
        self.assertEqual((speed.shape, speed.dtype), ((30, 40), np.float32))
        self.assertFalse(speed.flags.writeable)
        np.testing.assert_array_equal(advanced(built).current, advanced(uniform).current)
        built.speed = None
        self.assertIsNone(built.speed)

    def test_a_slower_region_is_another_medium(self):
        scene = wave2d.Scene(SIZES)
        speed = np.ones((30, 40), dtype=np.float32)
        speed[:, 25:] = 0.5
        scene.speed = speed
        np.testing.assert_array_equal(scene.speed, speed)
        self.assertFalse(np.array_equal(advanced(scene, 60).current,
                                        advanced(SIZES, 60).current))
        scene.speed = np.full((30, 40), 2, dtype=np.int32)  # integers are speeds too
        self.assertEqual(scene.speed.dtype, np.float32)
        self.assertEqual(scene.speed[0, 0], 2.0)

    def test_shapes_and_types_when_assigned_values_when_run(self):
        scene = wave2d.Scene(SIZES)
        for value, message in [
            (np.ones((30, 41)), r"Scene.speed: the grid's shape \(ny, nx\) = \(30, 40\), not "
                                r"\(30, 41\)"),
            (np.ones((30, 40), dtype=bool), "Scene.speed: an array of real numbers, not of bool"),
            (np.ones((30, 40), dtype=complex), "an array of real numbers, not of complex128"),
        ]:
            with self.subTest(message=message):
                with self.assertRaisesRegex(ValueError, message):
                    scene.speed = value
                self.assertIsNone(scene.speed)
        speed = np.ones((30, 40))
        speed[3, 4] = -1.0
        scene.speed = speed  # taken; refused where it runs
        with self.assertRaisesRegex(wave2d.SceneError, "wave speed must be positive and finite"):
            wave2d.Simulation(scene)
        scene.speed = np.full((30, 40), 10.0)  # c dt / dx = 2.5
        with self.assertRaisesRegex(wave2d.SceneError, "unstable time step"):
            wave2d.Simulation(scene)


if __name__ == "__main__":
    unittest.main()
