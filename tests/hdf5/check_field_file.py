"""Checks an HDF5 file of `wave2d run --save-h5` as h5py users read it.

    check_field_file.py FILE.h5 [--npy STATE.npy] [--frames N] [--same-frames OTHER.h5]
                        [--receivers TRACE.npy]

The field equals the NPY's pair bit for bit, the frames are an (N, ny, nx) array (equal to
OTHER's), the receivers' trace equals its NPY, and every dataset the XDMF sidecar FILE.xmf
names exists with the dimensions it gives. Exits non-zero with a message on any mismatch.
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ElementTree

import h5py
import numpy as np


def fail(message):
    sys.exit("check_field_file: " + message)


def same_bits(a, b):
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def check_sidecar(path):
    sidecar = path + ".xmf"
    if not os.path.exists(sidecar):
        fail(sidecar + " is missing")
    root = ElementTree.parse(sidecar).getroot()
    named = 0
    for item in root.iter("DataItem"):
        if item.get("Format") != "HDF":
            continue
        name, dataset = item.text.strip().split(":", 1)
        target = os.path.join(os.path.dirname(sidecar), name)
        with h5py.File(target, "r") as f:
            if dataset not in f:
                fail(sidecar + " names " + dataset + ", not in " + name)
            dims = tuple(int(d) for d in item.get("Dimensions").split())
            if f[dataset].shape != dims:
                fail(sidecar + ": " + dataset + " is " + str(f[dataset].shape) + ", not " + str(dims))
        named += 1
    if named == 0:
        fail(sidecar + " names no dataset")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--npy")
    parser.add_argument("--frames", type=int)
    parser.add_argument("--same-frames")
    parser.add_argument("--receivers")
    args = parser.parse_args()
    with h5py.File(args.file, "r") as f:
        ny, nx = int(f.attrs["ny"]), int(f.attrs["nx"])
        if args.npy:
            state = np.load(args.npy)
            field = np.stack([f["field/previous"][()], f["field/current"][()]])
            if field.shape != (2, ny, nx) or not same_bits(field, state):
                fail(args.file + ": the field differs from " + args.npy)
        if args.frames is not None:
            frames = f["frames/u"]
            if frames.shape != (args.frames, ny, nx) or frames.dtype != np.float32:
                fail(args.file + ": /frames/u is " + str(frames.shape) + " " + str(frames.dtype))
            if f["frames/step"].shape != (args.frames,) or f["frames/time"].shape != (args.frames,):
                fail(args.file + ": /frames/step or /frames/time is not one per frame")
            if args.same_frames:
                with h5py.File(args.same_frames, "r") as other:
                    if not same_bits(frames[()], other["frames/u"][()]):
                        fail(args.file + ": the frames differ from " + args.same_frames)
                    if not np.array_equal(f["frames/step"][()], other["frames/step"][()]):
                        fail(args.file + ": the frames' steps differ from " + args.same_frames)
        if args.receivers:
            expected = np.load(args.receivers)
            if not same_bits(f["receivers/trace"][()], expected):
                fail(args.file + ": the receivers' trace differs from " + args.receivers)
            if f["receivers/name"].shape != (expected.shape[1],):
                fail(args.file + ": /receivers/name is not one per receiver")
    check_sidecar(args.file)


if __name__ == "__main__":
    main()
