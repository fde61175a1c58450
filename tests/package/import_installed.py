"""Imports wave2d as the running Python finds it (PYTHONPATH, or its own site folders) and runs
a scene: the module must come from the folder argv[1], where cmake --install put it."""
import os
import sys

import wave2d

folder = os.path.realpath(sys.argv[1])
assert os.path.realpath(wave2d.__file__).startswith(folder + os.sep), wave2d.__file__
simulation = wave2d.Simulation(wave2d.Scene("double-slit-small"), backend="reference")
simulation.advance(50)
u = simulation.current
assert u.shape[0] > 0 and float((u * u).sum()) > 0.0, "no wave after 50 steps"
print(f"wave2d {wave2d.__file__}: {simulation.step} steps, sum of u^2 "
      f"{float((u * u).sum()):.6g}")
