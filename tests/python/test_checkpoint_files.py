"""Simulation.resume reads checkpoints as the program does: their sizes before their fields,
and never a state that is not finite.

Run by CTest with the other tests of tests/python.
"""

import os
import pathlib
import struct
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


@unittest.skipUnless(wave2d.has_checkpoints, "this build has no checkpoints (no xxHash)")
class CheckpointFiles(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.path = pathlib.Path(self.directory.name) / "tiny.ck"
        self.scene = wave2d.Scene(TINY)

    def tearDown(self):
        self.directory.cleanup()

    def test_a_20_gb_checkpoint_is_refused_before_it_is_read(self):
        simulation = wave2d.Simulation(self.scene, backend="reference")
        simulation.advance(5)
        simulation.save_checkpoint(self.path)
        # The header made to say a 50000 x 50000 grid (nx, ny after the magic and version),
        # the file as long as such a checkpoint: 20 GB, sparse.
        data = bytearray(self.path.read_bytes())
        struct.pack_into("<ii", data, 12, 50000, 50000)
        self.path.write_bytes(bytes(data))
        try:
            os.truncate(self.path, len(data) + 8 * (50000 * 50000 - 40 * 30))
        except OSError as error:
            self.skipTest(f"this file system holds no 20 GB sparse file: {error}")
        start = time.monotonic()
        with self.assertRaisesRegex(ValueError, "is of another scene: its grid is 50000 x 50000"):
            wave2d.Simulation(self.scene, backend="reference").resume(self.path)
        self.assertLess(time.monotonic() - start, 0.5)

    def test_a_state_that_is_not_finite_is_refused(self):
        # set_state takes finite states only: an unstable run makes one that is not.
        unstable = dict(TINY, time={"steps": 60, "dt": 0.05})
        simulation = wave2d.Simulation(unstable, backend="reference", allow_unstable=True)
        while np.isfinite(simulation.current).all():
            simulation.advance(1)
        try:
            simulation.save_checkpoint(self.path)
        except ValueError as error:
            self.skipTest(f"save_checkpoint refuses to write the state: {error}")
        resumed = wave2d.Simulation(unstable, backend="reference", allow_unstable=True)
        with self.assertRaisesRegex(ValueError, r"holds (-?inf|-?nan) in u at step \d+, cell "
                                                r"\(\d+, \d+\): no run can go on"):
            resumed.resume(self.path)
        self.assertEqual(resumed.step, 0)

if __name__ == "__main__":
    unittest.main()
