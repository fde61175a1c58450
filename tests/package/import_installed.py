"""Imports wave2d from an install prefix alone (python -I: no PYTHONPATH, no user site) and
runs a scene: the module that cmake --install puts under <prefix>/<platlib>."""
import os
import sys

site = os.path.abspath(sys.argv[1])
sys.path.insert(0, site)
import wave2d  # noqa: E402

assert os.path.abspath(wave2d.__file__).startswith(site + os.sep), wave2d.__file__
simulation = wave2d.Simulation(wave2d.Scene("double-slit-small"), backend="reference")
simulation.advance(50)
u = simulation.current
assert u.shape[0] > 0 and float((u * u).sum()) > 0.0, "no wave after 50 steps"
print(f"wave2d {wave2d.__file__}: {simulation.step} steps, sum of u^2 "
      f"{float((u * u).sum()):.6g}")
