# %% [markdown]
# # wave2d from Python
#
# A notebook in script form (`# %%` cells: Jupyter, VS Code and Spyder run them one by
# one): run a scene, plot the signal a receiver recorded and the field, write them as
# files, and compare two backends.
# Needs the module (`PYTHONPATH=<build>/python`), NumPy and matplotlib
# (`python3-matplotlib`). As a script it saves the figures and files:
#
#     PYTHONPATH=build/python python3 docs/python-example.py [OUTPUT_DIR]

# %%
import pathlib
import sys

import matplotlib

if __name__ == "__main__" and "ipykernel" not in sys.modules:
    matplotlib.use("Agg")  # as a script: files, no window
import matplotlib.pyplot as plt
import numpy as np

import wave2d

output = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 and "ipykernel" not in sys.modules
                      else "out")
output.mkdir(parents=True, exist_ok=True)
print("wave2d", wave2d.__version__, "on", wave2d.execution_space(), "- backends:",
      ", ".join(wave2d.backends()))

# %% [markdown]
# ## A scene and a run
# A built-in scene with a receiver behind the slits: `wave2d.Scene({...})` takes the keys
# of a scene file as a dict (`base` starts from a built-in scene),
# `wave2d.Scene("double-slit-small")` is the built-in scene alone and
# `wave2d.Scene("box.toml")` reads a scene file.

# %%
scene = wave2d.Scene({"base": "double-slit-small", "name": "double-slit-small",
                      "receivers": [{"x": 150, "y": 100, "name": "behind-the-slits"}]})
simulation = wave2d.Simulation(scene, backend="kokkos-mdrange")
print(scene, "-", simulation.configuration)

# The kernels record u at the receivers after every step: a row per step from step 0.
simulation.advance(scene.steps)
probe = scene.receivers[0]  # (x, y)
trace = simulation.receivers[:, 0]
times = scene.t0 + scene.dt * np.arange(len(trace))

# %% [markdown]
# ## The trace and the field

# %%
figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
left.plot(times, trace)
left.set_xlabel("t")
left.set_ylabel(f"u at x = {probe[0]}, y = {probe[1]}")
left.set_title(f"trace of {scene.receiver_names[0]}")
field = np.ma.masked_where(scene.walls, simulation.current)  # a view: no copy on the host
colours = plt.get_cmap("RdBu_r").copy()
colours.set_bad("black")  # the walls
image = right.imshow(field, cmap=colours, vmin=-1, vmax=1, origin="upper")
right.plot(*probe, "k+", markersize=12)
right.set_title(f"u after {simulation.step} steps (t = {simulation.time:.3g})")
figure.colorbar(image, ax=right)
figure.tight_layout()
figure.savefig(output / "python-example-run.png", dpi=100)

# %% [markdown]
# ## Files
# `wave2d.run` runs a scene as the program's `wave2d run` does and writes the files asked
# for: here the final fields as NPY and the receiver's trace as NPY and CSV.

# %%
result = wave2d.run(scene, backend="kokkos-mdrange",
                    outputs=[wave2d.NpyFile(output / "double-slit-small.npy"),
                             wave2d.ReceiverFiles(output)])
assert np.array_equal(result.current, simulation.current)
for written in result.written:
    print("wrote", written.text)

# %% [markdown]
# ## Two backends
# The portable tiled kernel against the sequential reference, after the same steps. On
# CPUs they agree bit for bit; a GPU's compiler contracts to FMA, so there they differ in
# the last bits.

# %%
reference = wave2d.Simulation(scene, backend="reference")
tiled = wave2d.Simulation(scene, backend="kokkos-tiled")
reference.advance(scene.steps)
tiled.advance(scene.steps)
difference = tiled.current - reference.current
print(f"kokkos-tiled vs reference after {scene.steps} steps: max |difference| = "
      f"{np.abs(difference).max():.3g}, max |u| = {np.abs(reference.current).max():.3g}")
assert np.allclose(tiled.current, reference.current, rtol=0, atol=1e-4)

figure, axes = plt.subplots(1, 3, figsize=(14, 4.2))
for axis, (title, values) in zip(axes, [("reference", reference.current),
                                        ("kokkos-tiled", tiled.current),
                                        ("kokkos-tiled − reference", difference)]):
    image = axis.imshow(values, cmap="RdBu_r", origin="upper",
                        vmin=-1 if axis is not axes[2] else None,
                        vmax=1 if axis is not axes[2] else None)
    axis.set_title(title)
    figure.colorbar(image, ax=axis)
figure.tight_layout()
figure.savefig(output / "python-example-backends.png", dpi=100)
print("wrote", output / "python-example-run.png", "and", output / "python-example-backends.png")
