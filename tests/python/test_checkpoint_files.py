"""Simulation.resume reads checkpoints as the program does: their sizes before their fields,
and never a state that is not finite.

Run by CTest with the other tests of tests/python.
"""

import pathlib
import tempfile
import time
import unittest

import numpy as np

import wave2d

TINY = {
    "grid": {"nx": 40, "ny": 30},
    "time": {"steps": 60},
    "sources": [{"x": 10, "y": 10, "frequency": 15.0}],
}


@unittest.skipUnless(wave2d.has_checkpoints, "this build has no checkpoints (no xxHash or no HDF5)")
@unittest.skipUnless(wave2d.has_scene_files, "this build reads no scene dicts (toml++ not found)")
class CheckpointFiles(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.path = pathlib.Path(self.directory.name) / "tiny.ck"
        self.scene = wave2d.Scene(TINY)

    def tearDown(self):
        self.directory.cleanup()

    def test_a_checkpoint_of_a_50000_by_50000_grid_is_refused_before_it_is_read(self):
        try:
            import h5py
        except ImportError:
            self.skipTest("no h5py to make the checkpoint with (install python3-h5py)")
        simulation = wave2d.Simulation(self.scene, backend="reference")
        simulation.advance(5)
        simulation.save_checkpoint(self.path)
        # The same header, saying a 50000 x 50000 grid, and fields of that size with no chunk
        # written: 20 GB to read, in a file of a few kB.
        large = self.path.with_name("large.ck")
        with h5py.File(self.path, "r") as small, h5py.File(large, "w", libver="latest") as copy:
            for key, value in small.attrs.items():
                copy.attrs[key] = value
            copy.attrs["nx"] = np.int64(50000)
            copy.attrs["ny"] = np.int64(50000)
            for name in ("field/previous", "field/current"):
                copy.create_dataset(name, (50000, 50000), "f4", chunks=(512, 512), fletcher32=True)
        start = time.monotonic()
        with self.assertRaisesRegex(ValueError, "is of another scene: its grid is 50000 x 50000"):
            wave2d.Simulation(self.scene, backend="reference").resume(large)
        self.assertLess(time.monotonic() - start, 0.5)

    def test_a_state_that_is_not_finite_is_not_saved(self):
        # An unstable run makes one; the earlier checkpoint stays as it was. (The reader's
        # refusal of such a file: tests/test_hdf5_checkpoint.cpp, whose writer skips the check.)
        unstable = dict(TINY, time={"steps": 60, "dt": 0.05})
        simulation = wave2d.Simulation(unstable, backend="reference", allow_unstable=True)
        simulation.advance(1)
        simulation.save_checkpoint(self.path)
        earlier = self.path.read_bytes()
        while np.isfinite(simulation.current).all():
            simulation.advance(1)
        with self.assertRaisesRegex(wave2d.CheckpointError,
                                    r"cannot write checkpoint '.*tiny.ck': u at step \d+ is "
                                    r"(-?inf|-?nan) at cell \(\d+, \d+\): no run could go on"):
            simulation.save_checkpoint(self.path)
        self.assertEqual(self.path.read_bytes(), earlier)
        self.assertEqual(sorted(p.name for p in self.path.parent.iterdir()), ["tiny.ck"])


if __name__ == "__main__":
    unittest.main()
