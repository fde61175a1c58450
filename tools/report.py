#!/usr/bin/env python3
"""Turns the benchmark JSON of tools/run_benchmarks.sh into OUT_DIR/report.md and PNG plots.

    report.py OUT_DIR                    reads OUT_DIR/stencil.json and OUT_DIR/memory/*.json
    report.py --stencil F.json OUT_DIR   a stencil JSON from elsewhere

The stencil JSON is Google Benchmark's own, written by wave2d_bench; names are
FAMILY/SPACE/... (docs/benchmarks.md). The memory JSON ("schema": "wave2d-membench/1") is
written by bench/memory; any array of rows in its "results" with a size or stride column
and numeric columns is plotted, so new microbenchmarks need no change here.
"""

import argparse
import glob
import json
import math
import os
import re
import statistics
import sys

SCENE_ORDER = ["double-slit", "double-slit-small", "point-source", "slit"]
SPACE_ORDER = ["Cuda", "OpenMP", "Serial"]
# The hand-written host loop (bench/wave2d_PlainLoop.hpp): in the scene family beside the
# registry's backends on host spaces, the baseline the portable ones are held against.
PLAIN = "plain-openmp"


# ---------------------------------------------------------------------------------------
# Reading Google Benchmark's JSON


def parse_label(label):
    """'key=value; key=value' -> dict (the labels wave2d_bench writes)."""
    fields = {}
    for part in label.split("; "):
        key, sep, value = part.partition("=")
        if sep:
            fields[key.strip()] = value.strip()
    return fields


class Result:
    """One benchmark (all its repetitions): median time and counters."""

    def __init__(self, run_name):
        self.run_name = run_name
        parts = run_name.split("/")
        if parts and parts[-1] == "manual_time":
            parts = parts[:-1]
        self.family = parts[0]
        self.space = parts[1] if len(parts) > 1 else ""
        self.parts = parts
        self.iterations = []
        self.aggregates = {}
        self.error = None

    def add(self, entry):
        if entry.get("error_occurred"):
            self.error = entry.get("error_message", "error")
        elif entry.get("skipped"):
            self.error = entry.get("skip_message", "skipped")
        elif entry.get("run_type") == "aggregate":
            self.aggregates[entry.get("aggregate_name")] = entry
        else:
            self.iterations.append(entry)

    @property
    def ok(self):
        return self.error is None and (self.iterations or "median" in self.aggregates)

    def value(self, key):
        """The median over repetitions of a counter or of real_time (ms)."""
        median = self.aggregates.get("median")
        if median is not None and key in median:
            return float(median[key])
        values = [float(e[key]) for e in self.iterations if key in e]
        return statistics.median(values) if values else None

    def cv(self, key="real_time"):
        cv = self.aggregates.get("cv")
        if cv is not None and key in cv:
            return float(cv[key])
        values = [float(e[key]) for e in self.iterations if key in e]
        if len(values) < 2 or statistics.mean(values) == 0:
            return None
        return statistics.stdev(values) / statistics.mean(values)

    def repetitions(self):
        return len(self.iterations) or int(self.aggregates.get("median", {}).get("repetitions", 0))

    def time_ms(self):
        entry = self.aggregates.get("median") or (self.iterations[0] if self.iterations else {})
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(entry.get("time_unit", "ms"), 1.0)
        t = self.value("real_time")
        return None if t is None else t * scale

    def label(self):
        for entry in list(self.aggregates.values()) + self.iterations:
            if entry.get("label"):
                return parse_label(entry["label"])
        return {}


def load_stencil(path):
    with open(path) as f:
        data = json.load(f)
    if "benchmarks" not in data or "context" not in data:
        raise ValueError(f"{path}: not the JSON of Google Benchmark (no 'benchmarks'/'context')")
    results = {}
    for entry in data["benchmarks"]:
        name = entry.get("run_name") or re.sub(r"_(mean|median|stddev|cv)$", "", entry["name"])
        results.setdefault(name, Result(name)).add(entry)
    return data["context"], list(results.values())


# ---------------------------------------------------------------------------------------
# Formatting


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if x == 0:
        return "0"
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    magnitude = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - magnitude)
    return f"{x:,.{decimals}f}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def order_key(value, order):
    return (order.index(value), value) if value in order else (len(order), value)


def mib(nbytes):
    return nbytes / 2**20


# ---------------------------------------------------------------------------------------
# The report's sections


def machine_section(context, stencil_path):
    spaces = [s for s in context.get("wave2d_kokkos_spaces", "").split(",") if s]
    rows = [
        ("Date", context.get("date", "?")),
        ("Host", f"{context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs "
                 f"at {context.get('mhz_per_cpu', '?')} MHz"),
    ]
    caches = context.get("caches", [])
    if caches:
        rows.append(("CPU caches", ", ".join(
            f"L{c['level']} {c['type']} {fmt(c['size'] / 1024)} KiB"
            + (f" (shared by {c['num_sharing']})" if c.get("num_sharing", 1) > 1 else "")
            for c in caches)))
    for space in spaces:
        device = context.get(f"wave2d_device:{space}", "?")
        extra = []
        for key, label in [("compute_capability", "cc"), ("sms", "SMs"), ("l2_MiB", "MiB L2"),
                           ("memory_GiB", "GiB")]:
            value = context.get(f"wave2d_{key}:{space}")
            if value:
                extra.append(f"{label} {fmt(float(value))}" if label == "cc" else f"{fmt(float(value))} {label}")
        rows.append((f"Device ({space})", device + (f" ({', '.join(extra)})" if extra else "")))
        bw = float(context.get(f"wave2d_copy_bandwidth_GBps:{space}", 0) or 0)
        nbytes = int(context.get(f"wave2d_copy_bytes:{space}", 0) or 0)
        rows.append((f"Copy bandwidth ({space})",
                     f"{fmt(bw)} GB/s (y[i] = x[i] in 16-byte elements, 2 × {fmt(mib(nbytes))} MiB, median of 11)"
                     if bw > 0 else context.get(f"wave2d_copy_bandwidth_error:{space}", "not measured")))
    for space in spaces:
        for key, label in [("cuda_runtime", "CUDA runtime"), ("cuda_driver", "CUDA driver")]:
            if f"wave2d_{key}:{space}" in context:
                rows.append((label, context[f"wave2d_{key}:{space}"]))
    rows += [
        ("Kokkos", f"{context.get('wave2d_kokkos_version', context.get('Kokkos Version', '?'))}, "
                   f"spaces {', '.join(spaces) or '?'}"),
        ("Compiler", context.get("wave2d_compiler", "?")),
        ("wave2d", f"{context.get('wave2d_version', '?')} (git {context.get('wave2d_git', '?')})"),
        ("Google Benchmark library build", context.get("library_build_type", "?")),
        ("Load average at start", ", ".join(fmt(x) for x in context.get("load_avg", [])) or "?"),
        ("Command line", f"`{context.get('wave2d_command_line', context.get('executable', '?'))}`"),
        ("Data", f"`{stencil_path}`"),
    ]
    return "## Machine\n\n" + table(["", ""], rows)


def copy_section(results, context):
    copies = [r for r in results if r.family == "copy"]
    if not copies:
        return ""
    rows = []
    for r in sorted(copies, key=lambda r: order_key(r.space, SPACE_ORDER)):
        at_start = float(context.get(f"wave2d_copy_bandwidth_GBps:{r.space}", 0) or 0)
        if not r.ok:
            rows.append([r.space, "skipped: " + (r.error or "?"), "", "", ""])
            continue
        cv = r.cv()
        rows.append([r.space, fmt(mib(r.value("bytes") / 2)), fmt(r.value("GB/s")),
                     f"{100 * cv:.2g}%" if cv else "–", fmt(at_start) if at_start > 0 else "–"])
    return "\n\n".join([
        "## Copy bandwidth",
        "y[i] = x[i] over two arrays of 16-byte elements far larger than the last-level cache, "
        "as Google Benchmark repeats it (the `copy/SPACE` entries), beside the measurement at "
        "start-up that the other sections divide by.",
        table(["space", "each array (MiB)", "GB/s", "cv", "GB/s at start-up (median of 11)"],
              rows)])


def backend_order(results):
    """Backends as the benchmark registered them: the registry's order."""
    order = []
    for r in results:
        if r.family in ("scene", "sweep") and len(r.parts) > 2 and r.parts[2] not in order:
            order.append(r.parts[2])
    return order


def baseline_backend(context, space):
    """The space's one-pass baseline, as the registry marks it (wave2d_bench's context)."""
    return context.get(f"wave2d_baseline_backend:{space}")


def backend_name(backend):
    return f"{PLAIN} (hand-written baseline)" if backend == PLAIN else backend


def scene_sections(results, context):
    scene_results = [r for r in results if r.family == "scene" and len(r.parts) == 4]
    if not scene_results:
        return ""
    by_key = {(r.space, r.parts[2], r.parts[3]): r for r in scene_results}
    spaces = sorted({r.space for r in scene_results}, key=lambda s: order_key(s, SPACE_ORDER))
    scenes = sorted({r.parts[3] for r in scene_results}, key=lambda s: order_key(s, SCENE_ORDER))
    baselines = {s: baseline_backend(context, s) for s in spaces}
    order = backend_order(results)
    plain_spaces = [s for s in spaces if any(r.space == s and r.parts[2] == PLAIN
                                             for r in scene_results)]

    def ratio(r, baseline=None):
        base = by_key.get((r.space, baseline or baselines[r.space], r.parts[3]))
        if base is None or not base.ok or not r.ok:
            return None
        return r.value("GCells/s") / base.value("GCells/s")

    out = ["## Scenes: backend × scene",
           "GCells/s (cell updates per second), median of the repetitions; in parentheses the "
           "ratio to the space's baseline ("
           + ", ".join(f"{baselines[s]} on {s}" for s in spaces if baselines[s]) + "). "
           "Device spaces run every scene to its end; host spaces cap the steps (see the tables "
           "below)."]
    rows = []
    for space in spaces:
        backends = sorted({r.parts[2] for r in scene_results if r.space == space},
                          key=lambda b: order_key(b, order))
        for backend in backends:
            cells = []
            for scene in scenes:
                r = by_key.get((space, backend, scene))
                if r is None:
                    cells.append("")
                elif not r.ok:
                    cells.append("skipped")
                else:
                    q = ratio(r)
                    cells.append(fmt(r.value("GCells/s")) + (f" ({fmt(q)}×)" if q is not None else ""))
            rows.append([space, backend_name(backend)] + cells)
    out.append(table(["space", "backend"] + scenes, rows))

    if plain_spaces:
        rows = []
        for space in plain_spaces:
            backends = sorted({r.parts[2] for r in scene_results if r.space == space},
                              key=lambda b: order_key(b, order))
            for backend in [PLAIN] + [b for b in backends if b != PLAIN]:
                cells = []
                for scene in scenes:
                    r = by_key.get((space, backend, scene))
                    q = ratio(r, PLAIN) if r is not None else None
                    if backend == PLAIN:
                        cells.append(fmt(r.value("GCells/s")) if r is not None and r.ok else "")
                    else:
                        cells.append(fmt(q) + "×" if q is not None else "")
                rows.append([space, backend_name(backend) + (", GCells/s" if backend == PLAIN
                                                              else "")] + cells)
        out += ["### Host spaces against the hand-written loop",
                f"`{PLAIN}` is the loop a C++ programmer writes by hand for one CPU "
                "(bench/wave2d_PlainLoop.hpp: per-cell coefficients, `omp simd` rows, on as many "
                "threads as the space has). Its GCells/s, then each backend's GCells/s over "
                f"{PLAIN}'s on the same space and scene (above 1×: faster than the hand-written "
                "loop).",
                table(["space", "backend"] + scenes, rows)]

    for scene in scenes:
        rows = []
        first = next((r for r in scene_results if r.parts[3] == scene and r.ok), None)
        title = f"### {scene}"
        if first is not None:
            title += (f" ({int(first.value('nx'))} × {int(first.value('ny'))}, "
                      f"{int(first.value('scene_steps'))} steps)")
        for space in spaces:
            for r in sorted((r for r in scene_results if r.space == space and r.parts[3] == scene),
                            key=lambda r: order_key(r.parts[2], order)):
                label = r.label()
                name = backend_name(r.parts[2])
                if not r.ok:
                    rows.append([space, name, "skipped: " + (r.error or "?")]
                                + [""] * (8 if plain_spaces else 7))
                    continue
                q = ratio(r)
                plain = []
                if plain_spaces:
                    qp = ratio(r, PLAIN) if space in plain_spaces else None
                    plain = [fmt(qp) + "×" if qp is not None else "–"]
                cv = r.cv()
                rows.append([space, name, fmt(r.time_ms()) + (f" ± {100 * cv:.2g}%" if cv else ""),
                             f"{int(r.value('steps'))}", fmt(r.value("GCells/s")),
                             fmt(r.value("GB/s")), fmt(r.value("copy_fraction")),
                             fmt(q) + "×" if q is not None else "–"] + plain
                            + [label.get("config", ""), str(r.repetitions())])
        out += [title, table(["space", "backend", "time per run (ms)", "steps", "GCells/s",
                              "eff. GB/s", "of copy BW", "vs baseline"]
                             + ([f"vs {PLAIN}"] if plain_spaces else [])
                             + ["configuration", "reps"], rows)]
    return "\n\n".join(out)


def tuning_section(results):
    tuning = [r for r in results if r.family == "mdrange_tuning" and len(r.parts) == 4]
    if not tuning:
        return ""
    out = ["## kokkos-mdrange: iteration order and tile shape",
           "The portable backend with each order of the policy's dimensions and several tiles. "
           "(x, y) puts x in dimension 0, which Kokkos maps to threadIdx.x on CUDA (a warp reads "
           "along a row) and to the outer loop on host spaces; (y, x) is the reverse."]
    for space in sorted({r.space for r in tuning}, key=lambda s: order_key(s, SPACE_ORDER)):
        rs = [r for r in tuning if r.space == space]
        default = next((r for r in rs if r.ok and r.value("default_config") == 1), None)
        ok = sorted((r for r in rs if r.ok), key=lambda r: -r.value("GCells/s"))
        rows = []
        for r in ok + [r for r in rs if not r.ok]:
            if not r.ok:
                rows.append([r.parts[2], r.parts[3], "skipped: " + (r.error or "?"), "", "", "", ""])
                continue
            order = "(x, y)" if r.value("order_xy") == 1 else "(y, x)"
            rows.append([order + (" **default**" if r is default else ""),
                         f"{int(r.value('tile_x'))} × {int(r.value('tile_y'))}",
                         fmt(r.value("GCells/s")), fmt(r.value("GB/s")), fmt(r.value("copy_fraction")),
                         fmt(r.value("GCells/s") / default.value("GCells/s")) + "×" if default else "–",
                         fmt(r.time_ms())])
        first = next((r for r in rs if r.ok), None)
        what = ""
        if first is not None:
            label = first.label()
            what = f" — {label.get('scene', '?')}, {label.get('steps', '?')}"
        summary = ""
        by_order = {}
        for r in ok:
            by_order.setdefault(r.value("order_xy"), r)
        if len(by_order) == 2:
            xy, yx = by_order[1], by_order[0]
            fast, slow = (xy, yx) if xy.value("GCells/s") >= yx.value("GCells/s") else (yx, xy)
            summary = (f"\n\nBest (x, y): {fmt(xy.value('GCells/s'))} GCells/s; best (y, x): "
                       f"{fmt(yx.value('GCells/s'))} GCells/s: the order costs "
                       f"{fmt(fast.value('GCells/s') / slow.value('GCells/s'))}× on {space}.")
        out.append(f"### {space}{what}\n\n" + table(
            ["order", "tile (x × y cells)", "GCells/s", "eff. GB/s", "of copy BW", "vs default",
             "time per run (ms)"], rows) + summary)
    return "\n\n".join(out)


def tiled_shape(r):
    """'256x128/T16/codes' for tiled_tuning/SPACE/256x128/T16/codes: the name past the space."""
    return "/".join(r.parts[2:])


def tiled_kappa(r):
    return "per cell" if "speed" in r.parts[2:] else "uniform"


def tiled_tuning_section(results):
    tuning = [r for r in results if r.family == "tiled_tuning" and len(r.parts) >= 4]
    if not tuning:
        return ""
    out = ["## kokkos-tiled: tile, fused steps and coefficients",
           "The fused-step backend with each shape on the tuning scene: a tile of x × y cells, T "
           "steps per pass over its window, the coefficients folded or as codes, and on devices "
           "the team size (in the name where it is not the default, `/speed` where the scene's "
           "speed is given per cell). Each shape against the default of its κ kind."]
    for space in sorted({r.space for r in tuning}, key=lambda s: order_key(s, SPACE_ORDER)):
        rs = [r for r in tuning if r.space == space]
        ok = sorted((r for r in rs if r.ok),
                    key=lambda r: (tiled_kappa(r) != "uniform", -r.value("GCells/s")))
        defaults = {tiled_kappa(r): r for r in ok if r.value("default_config") == 1}
        rows = []
        for r in ok + [r for r in rs if not r.ok]:
            if not r.ok:
                rows.append([tiled_shape(r), tiled_kappa(r), "skipped: " + (r.error or "?")]
                            + [""] * 7)
                continue
            default = defaults.get(tiled_kappa(r))
            rows.append([tiled_shape(r) + (" **default**" if r is default else ""),
                         tiled_kappa(r),
                         f"{int(r.value('tile_x'))} × {int(r.value('tile_y'))}",
                         str(int(r.value("fused_steps"))),
                         "folded" if r.value("folded") == 1 else "codes",
                         fmt(r.value("GCells/s")), fmt(r.value("GB/s")),
                         fmt(r.value("copy_fraction")),
                         fmt(r.value("GCells/s") / default.value("GCells/s")) + "×" if default else "–",
                         fmt(r.time_ms())])
        first = next((r for r in rs if r.ok), None)
        what = ""
        if first is not None:
            label = first.label()
            what = f" — {label.get('scene', '?')}, {label.get('steps', '?')}"
        summary = []
        for kappa, default in defaults.items():
            best = next(r for r in ok if tiled_kappa(r) == kappa)
            summary.append(f"κ {kappa}: the fastest, {tiled_shape(best)}, "
                           f"{fmt(best.value('GCells/s'))} GCells/s, "
                           f"{fmt(best.value('GCells/s') / default.value('GCells/s'))}× the default")
        out.append(f"### {space}{what}\n\n" + table(
            ["shape", "κ", "tile (x × y cells)", "fused steps", "coefficients", "GCells/s",
             "eff. GB/s", "of copy BW", "vs default", "time per run (ms)"], rows)
            + ("\n\n" + "; ".join(summary) + "." if summary else ""))
    return "\n\n".join(out)


def receivers_section(results):
    rs = [r for r in results if r.family == "receivers" and len(r.parts) == 5]
    if not rs:
        return ""
    by_key = {(r.space, r.parts[2], r.parts[3], int(r.parts[4])): r for r in rs}
    counts = sorted({int(r.parts[4]) for r in rs})
    order = backend_order(results)
    cases = sorted({(r.space, r.parts[2], r.parts[3]) for r in rs},
                   key=lambda c: (order_key(c[0], SPACE_ORDER), order_key(c[1], order),
                                  order_key(c[2], SCENE_ORDER)))
    rows = []
    for space, backend, scene in cases:
        row = [space, backend, scene, ""]
        for n in counts:
            r = by_key.get((space, backend, scene, n))
            if r is None:
                row.append("")
            elif not r.ok:
                row.append("skipped")
            else:
                row[3] = row[3] or str(int(r.value("steps")))
                row.append(fmt(r.value("GCells/s")))
        none = by_key.get((space, backend, scene, 0))
        for n in counts[1:] if counts[0] == 0 else []:
            r = by_key.get((space, backend, scene, n))
            if r is None or none is None or not (r.ok and none.ok):
                row.append("–")
            else:
                row.append(fmt(r.value("GCells/s") / none.value("GCells/s")) + "×")
        rows.append(row)
    header = (["space", "backend", "scene", "steps"] + [f"{n} receivers" for n in counts]
              + ([f"{n} / 0" for n in counts[1:]] if counts[0] == 0 else []))
    return "\n\n".join([
        "## Receivers: the cost of recording",
        "GCells/s of each backend with no receivers and with receivers on a square lattice over "
        "the grid, recorded at every step (the trace is reserved outside the timed region), and "
        "the throughput with them over the throughput without (1×: recording is free).",
        table(header, rows)])


def cache_bytes(context, space):
    """The last-level cache the fields leave: the GPU's L2, the CPU's largest cache."""
    l2 = context.get(f"wave2d_l2_MiB:{space}")
    if l2:
        return float(l2) * 2**20, "L2"
    caches = [c for c in context.get("caches", []) if c.get("type") in ("Unified", "Data")]
    if caches:
        last = max(caches, key=lambda c: c["level"])
        return float(last["size"]), f"L{last['level']}"
    return None, None


def sweep_results(results):
    rs = [r for r in results if r.family == "sweep" and len(r.parts) == 4]
    series = {}
    for r in rs:
        series.setdefault((r.space, r.parts[2]), []).append(r)
    for key in series:
        series[key].sort(key=lambda r: int(r.parts[3]))
    order = backend_order(results)
    return dict(sorted(series.items(), key=lambda kv: (order_key(kv[0][0], SPACE_ORDER),
                                                       order_key(kv[0][1], order))))


def sweep_section(results, context, plot_name):
    series = sweep_results(results)
    if not series:
        return ""
    sizes = sorted({int(r.parts[3]) for rs in series.values() for r in rs})
    header = ["N", "fields + code (MiB)", "steps"] + [f"{s}/{b}" for s, b in series]
    rows = []
    for n in sizes:
        row = [f"{n}²", fmt(3 * 4 * n * n / 2**20), ""]
        for rs in series.values():
            r = next((r for r in rs if int(r.parts[3]) == n), None)
            if r is None:
                row.append("")
            elif not r.ok:
                row.append("skipped")
            else:
                row[2] = row[2] or str(int(r.value("steps")))
                row.append(f"{fmt(r.value('GCells/s'))} ({fmt(r.value('copy_fraction'), 2)})")
        rows.append(row)
    caches = {}
    for space in sorted({s for s, _ in series}, key=lambda s: order_key(s, SPACE_ORDER)):
        nbytes, name = cache_bytes(context, space)
        if nbytes:
            caches.setdefault((nbytes, name), []).append(space)
    notes = [f"two fields and the cell codes (12 bytes per cell) fill the {fmt(mib(nbytes))} "
             f"MiB {name} ({', '.join(where)}) at N ≈ {fmt(math.sqrt(nbytes / 12))}"
             for (nbytes, name), where in caches.items()]
    return ("## Size sweep\n\npoint-source's geometry on N × N grids, the same number of cell "
            "updates per run at every size (steps vary; a run of a size that did not fit is "
            "skipped). GCells/s, and in parentheses the fraction of the space's copy bandwidth "
            "(the effective GB/s of the byte model over it). "
            + ("The " + "; the ".join(notes) + "." if notes else "")
            + (f" {PLAIN} runs on the scenes only (see above)."
               if any(r.family == "scene" and r.parts[2:3] == [PLAIN] for r in results)
               and not any(b == PLAIN for _, b in series) else "")
            + f"\n\n![GCells/s versus grid size]({plot_name})\n\n" + table(header, rows))


# ---------------------------------------------------------------------------------------
# Plots


def plot_sweep(results, context, path, plt):
    series = sweep_results(results)
    if not series:
        return False
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 5.2))
    # Colour: the backend, in the registry's order; marker and line: the execution space.
    palette = ["tab:grey", "tab:blue", "tab:green", "tab:red", "tab:orange", "tab:purple",
               "tab:brown", "tab:pink", "tab:olive", "tab:cyan"]
    colors = {b: palette[i % len(palette)] for i, b in enumerate(backend_order(results))}
    markers = {"Cuda": "o", "OpenMP": "s", "Serial": "^"}
    lines = {"Cuda": "-", "OpenMP": "--", "Serial": ":"}
    all_y = []
    for (space, backend), rs in series.items():
        rs = [r for r in rs if r.ok]
        if not rs:
            continue
        xs = [int(r.parts[3]) for r in rs]
        ys = [r.value("GCells/s") for r in rs]
        fr = [r.value("copy_fraction") for r in rs]
        all_y += ys
        kw = dict(marker=markers.get(space, "D"), linestyle=lines.get(space, "-."),
                  color=colors.get(backend), linewidth=1.8, markersize=6,
                  label=f"{backend} ({space})")
        ax.plot(xs, ys, **kw)
        if all(f is not None for f in fr):
            ax2.plot(xs, fr, **kw)
    spaces = sorted({s for s, _ in series}, key=lambda s: order_key(s, SPACE_ORDER))
    caches = {}
    for space in spaces:
        nbytes, name = cache_bytes(context, space)
        if nbytes:
            caches.setdefault((nbytes, name), []).append(space)
    for i, ((nbytes, name), where) in enumerate(sorted(caches.items())):
        n = math.sqrt(nbytes / 12)
        for a in (ax, ax2):
            a.axvline(n, color="grey", linestyle=":", linewidth=1)
        ax.annotate(f"{name} {fmt(mib(nbytes))} MiB full\n({', '.join(where)})", xy=(n, 0.98 - 0.1 * i),
                    xycoords=("data", "axes fraction"), xytext=(4, 0), textcoords="offset points",
                    va="top", fontsize=8, color="dimgrey")
    for a in (ax, ax2):
        a.set_xscale("log", base=2)
        a.set_xlabel("grid side N (N × N cells)")
        a.grid(True, which="major", alpha=0.3)
        sizes = sorted({int(r.parts[3]) for rs in series.values() for r in rs})
        a.set_xticks(sizes)
        a.set_xticklabels([str(s) for s in sizes])
    if all_y and max(all_y) / max(min(all_y), 1e-12) > 20:
        ax.set_yscale("log")
    ax.set_ylabel("GCells/s (cell updates per second / 1e9)")
    ax.set_title("Throughput versus grid size")
    ax2.axhline(1.0, color="black", linewidth=0.8)
    ax2.set_ylabel("effective GB/s ÷ copy bandwidth")
    ax2.set_title("Fraction of the copy bandwidth (16 B per cell-step)")
    ax.legend(fontsize=8, loc="best")
    fig.suptitle("wave2d size sweep: point-source geometry, fixed work per point", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def plot_tuning(results, path, plt):
    tuning = [r for r in results if r.family == "mdrange_tuning" and r.ok]
    spaces = sorted({r.space for r in tuning}, key=lambda s: order_key(s, SPACE_ORDER))
    if not spaces:
        return False
    fig, axes = plt.subplots(1, len(spaces), figsize=(5.5 * len(spaces), 4.6), squeeze=False)
    for ax, space in zip(axes[0], spaces):
        rs = sorted((r for r in tuning if r.space == space),
                    key=lambda r: (-r.value("order_xy"), -r.value("GCells/s")))
        names = [("(x,y) " if r.value("order_xy") == 1 else "(y,x) ")
                 + f"{int(r.value('tile_x'))}×{int(r.value('tile_y'))}" for r in rs]
        colors = ["tab:blue" if r.value("order_xy") == 1 else "tab:orange" for r in rs]
        bars = ax.barh(range(len(rs)), [r.value("GCells/s") for r in rs], color=colors)
        for bar, r in zip(bars, rs):
            if r.value("default_config") == 1:
                bar.set_edgecolor("black")
                bar.set_linewidth(2)
        ax.set_yticks(range(len(rs)))
        ax.set_yticklabels(names, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("GCells/s")
        ax.set_title(f"{space}: order (x, y) blue, (y, x) orange;\nbox = default", fontsize=10)
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle("kokkos-mdrange: iteration order and tile (x × y cells)", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def plot_tiled_tuning(results, path, plt):
    tuning = [r for r in results if r.family == "tiled_tuning" and r.ok]
    spaces = sorted({r.space for r in tuning}, key=lambda s: order_key(s, SPACE_ORDER))
    if not spaces:
        return False
    most = max(sum(1 for r in tuning if r.space == s) for s in spaces)
    fig, axes = plt.subplots(1, len(spaces), figsize=(5.5 * len(spaces), 0.3 * most + 1.8),
                             squeeze=False)
    for ax, space in zip(axes[0], spaces):
        rs = sorted((r for r in tuning if r.space == space),
                    key=lambda r: (tiled_kappa(r) != "uniform", -r.value("GCells/s")))
        colors = ["tab:blue" if tiled_kappa(r) == "uniform" else "tab:orange" for r in rs]
        bars = ax.barh(range(len(rs)), [r.value("GCells/s") for r in rs], color=colors)
        for bar, r in zip(bars, rs):
            if r.value("default_config") == 1:
                bar.set_edgecolor("black")
                bar.set_linewidth(2)
        ax.set_yticks(range(len(rs)))
        ax.set_yticklabels([tiled_shape(r) for r in rs], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("GCells/s")
        ax.set_title(f"{space}: κ uniform blue, per cell orange;\nbox = default", fontsize=10)
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle("kokkos-tiled: tile (x × y cells), fused steps T, coefficients", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------------------
# Memory microbenchmarks (bench/memory): the curves we know by name, and a tolerant fallback
# that plots (or tabulates) any other table of rows in their "results".


# Curves: path in "results", x column, y columns (with legend names), axis labels.
MEMORY_CURVES = [
    dict(path="pointer_chase.sweep", x="working_set_bytes",
         ys={"ca.ns": "ld.global.ca (L1 and L2)", "cg.ns": "ld.global.cg (L2 only)"},
         xlabel="working set", ylabel="load latency (ns)",
         title="Load latency versus working set (pointer chase, one thread)"),
    dict(path="strided_loads.points", x="stride_bytes", ys={"gbs": "useful bytes"},
         xlabel="stride between the threads of a warp (bytes)", ylabel="GB/s",
         title="Global-load bandwidth versus stride (coalescing)"),
    dict(path="strided_shared_loads.points", x="stride_words",
         ys={"cycles_per_warp_load": "cycles per warp load"},
         y2=("conflict_ways", "conflict ways (right axis)"), scale="linear",
         xlabel="stride between the threads of a warp (4-byte words)",
         ylabel="SM cycles per warp-wide shared load",
         title="Shared-memory bank conflicts versus stride"),
]
# Bar charts: path in "results", the name and value columns.
MEMORY_BARS = [
    dict(path="bandwidth.measurements", name="name", value="gbs", xlabel="GB/s",
         title="Bandwidth of each memory level (median)"),
]

X_KEYS = ["working_set_bytes", "stride_bytes", "stride_words", "stride_elements", "stride",
          "bytes", "size_bytes", "threads", "n"]


def get_path(node, path):
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def numeric_leaves(row, prefix=""):
    """{'ca': {'cycles': 3}} -> {'ca.cycles': 3}: every number in a row, by path."""
    out = {}
    for key, value in row.items():
        path = f"{prefix}{key}"
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            out[path] = float(value)
        elif isinstance(value, dict):
            out.update(numeric_leaves(value, path + "."))
    return out


def find_tables(node, path=""):
    """Every list of row objects in `node`: (path, rows)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            found += find_tables(value, f"{path}.{key}" if path else key)
    elif isinstance(node, list) and node and all(isinstance(r, dict) for r in node):
        found.append((path, node))
    return found


def x_column(rows):
    common = set.intersection(*(set(r) for r in rows))
    x = next((k for k in X_KEYS if k in common and len({r[k] for r in rows}) > 1), None)
    if x is None:
        x = next((k for k in sorted(common) if ("stride" in k or k.endswith("_bytes"))
                  and len({r[k] for r in rows}) > 1), None)
    return x


Y_PREFERENCE = ["ns", "cycles", "gbs", "bandwidth", "conflict", "ratio"]


def y_columns(x, rows):
    common = sorted(set.intersection(*(set(r) for r in rows)) - {x})
    varying = [k for k in common if len({r[k] for r in rows}) > 1
               and not any(w in k for w in ("min_", "max_", "reps", "steps", "nodes", "valid",
                                            "timing."))]
    for word in Y_PREFERENCE:
        chosen = [k for k in varying if word in k.split(".")[-1]]
        if chosen:
            return chosen[:4]
    return varying[:4]


def human_x(x, v):
    return human_bytes(v) if x.endswith("bytes") else fmt(v)


def log_axes(ax, xs, ys_all):
    """Log axes for data spanning orders of magnitude: sizes and strides in powers of two."""
    if min(xs) > 0 and max(xs) / min(xs) >= 16:
        ax.set_xscale("log", base=2)
    if ys_all and min(ys_all) > 0 and max(ys_all) / min(ys_all) >= 30:
        ax.set_yscale("log")


def plot_curve(plt, path, rows, x, ys, xlabel, ylabel, title, y2=None, scale="auto"):
    rows = sorted(rows, key=lambda r: r[x])
    xs = [r[x] for r in rows]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for key, name in ys.items():
        ax.plot(xs, [r.get(key, float("nan")) for r in rows], marker="o", markersize=4, label=name)
    if scale == "auto":
        log_axes(ax, xs, [r[k] for r in rows for k in ys if k in r])
    if x.endswith("bytes"):
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: human_bytes(v)))
    elif ax.get_xscale() == "log":
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    handles, labels = ax.get_legend_handles_labels()
    if y2 and all(y2[0] in r for r in rows):
        ax2 = ax.twinx()
        ax2.plot(xs, [r[y2[0]] for r in rows], color="grey", linestyle="--", marker="x",
                 markersize=4, label=y2[1])
        ax2.set_ylabel(y2[1].replace(" (right axis)", ""))
        h2, l2 = ax2.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11)
    ax.grid(True, alpha=0.3)
    ax.legend(handles, labels, fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_bars(plt, path, names, values, xlabel, title):
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(names) + 1.4))
    ax.barh(range(len(names)), values, color="tab:blue")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    for i, v in enumerate(values):
        ax.annotate(fmt(v), (v, i), xytext=(3, 0), textcoords="offset points", va="center",
                    fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=11)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def generic_table(path, raw, rows):
    names = [k for k, v in raw[0].items() if isinstance(v, str)]
    numbers = [k for k in rows[0] if all(k in r for r in rows)
               and not any(w in k for w in ("timing.", "reps", "valid"))][:7]
    return f"`{path}`:\n\n" + table(
        names + numbers,
        [[str(o.get(k, "")) for k in names] + [human_x(k, r[k]) for k in numbers]
         for o, r in zip(raw, rows)])


def memory_program(data, stem, out_dir, plt):
    program = data.get("program", stem)
    results = data.get("results", {})
    device = data.get("device", {})
    out = [f"### {program}\n\nstatus **{data.get('status', '?')}**, mode {data.get('mode', '?')}, "
           f"device {device.get('name', '?')}" + (f": {data['error']}" if data.get("error") else "")]
    failures = data.get("validation_failures") or []
    if failures:
        out.append("Validation failures:\n" + "\n".join(f"- {x}" for x in failures))
    plots = []
    done = set()

    def save(name):
        plots.append(name)
        return os.path.join(out_dir, name)

    for spec in MEMORY_CURVES:
        raw = get_path(results, spec["path"])
        if not isinstance(raw, list) or len(raw) < 2 or not all(isinstance(r, dict) for r in raw):
            continue
        rows = [numeric_leaves(r) for r in raw]
        if not all(spec["x"] in r for r in rows) or not any(k in rows[0] for k in spec["ys"]):
            continue
        name = f"memory_{stem}_{spec['path'].replace('.', '_')}.png"
        plot_curve(plt, save(name), rows, spec["x"], spec["ys"], spec["xlabel"], spec["ylabel"],
                   spec["title"], spec.get("y2"), spec.get("scale", "auto"))
        out.append(f"![{spec['title']}]({name})")
        done.add(spec["path"])
    for spec in MEMORY_BARS:
        raw = get_path(results, spec["path"])
        if not isinstance(raw, list) or not all(isinstance(r, dict) and spec["value"] in r
                                                for r in raw):
            continue
        names = [str(r.get(spec["name"], "?")) for r in raw]
        values = [float(r[spec["value"]]) for r in raw]
        name = f"memory_{stem}_{spec['path'].replace('.', '_')}.png"
        plot_bars(plt, save(name), names, values, spec["xlabel"], spec["title"])
        out.append(f"![{spec['title']}]({name})\n\n" + table(
            ["measurement", "working set", "GB/s"],
            [[n, human_bytes(r["working_set_bytes"]) if "working_set_bytes" in r else "", fmt(v)]
             for n, r, v in zip(names, raw, values)]))
        done.add(spec["path"])
    for path, raw in find_tables(results):
        if path in done:
            continue
        rows = [numeric_leaves(r) for r in raw]
        x = x_column(rows) if len(rows) >= 4 else None
        ys = y_columns(x, rows) if x else []
        if not ys:
            out.append(generic_table(path, raw, rows))
            continue
        name = re.sub(r"[^A-Za-z0-9]+", "_", f"memory_{stem}_{path}").strip("_") + ".png"
        plot_curve(plt, save(name), rows, x, {y: y for y in ys}, x.replace("_", " "),
                   ", ".join(sorted({unit_of(y) for y in ys})), f"{program}: {path}")
        out.append(f"![{program} {path}]({name})")
    return "\n\n".join(out), plots


def unit_of(key):
    last = key.split(".")[-1]
    for word, unit in [("ns", "ns"), ("cycles", "cycles"), ("gbs", "GB/s"), ("bytes", "bytes")]:
        if last == word or last.endswith("_" + word) or last.startswith(word):
            return unit
    return last


def memory_section(memory_files, out_dir, plt):
    if not memory_files:
        return "", []
    out = ["## Memory-hierarchy microbenchmarks",
           "From bench/memory (their JSON, schema wave2d-membench; docs/memory-hierarchy.md "
           "explains the methods). Any other table of rows in their results is plotted against "
           "its size or stride column, or shown as a table."]
    plots = []
    smi = os.path.join(os.path.dirname(memory_files[0]), "nvidia-smi.csv")
    if os.path.exists(smi):
        with open(smi) as f:
            lines = [l.strip() for l in f if l.strip()]
        if len(lines) >= 2:
            out.append("GPU state before the runs (nvidia-smi):\n\n" + table(
                [c.strip() for c in lines[0].split(",")],
                [[c.strip() for c in l.split(",")] for l in lines[1:]]))
    for path in memory_files:
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            out.append(f"### {stem}\n\nunreadable: {e}")
            continue
        text, names = memory_program(data, stem, out_dir, plt)
        out.append(text)
        plots += names
    return "\n\n".join(out), plots


def human_bytes(v):
    for unit, size in [("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)]:
        if v >= size:
            return f"{v / size:g} {unit}"
    return f"{v:g} B"


# ---------------------------------------------------------------------------------------


METHOD = """## How these numbers were taken

- Each benchmark builds its Simulation (or stepper) outside the timed region and warms up
  with one untimed run. Every timed run resets the fields on the execution space instance,
  fences the instance, starts a timer, advances all its steps, fences the instance and stops
  (Google Benchmark's manual time). Medians over the repetitions; "± x%" is the coefficient of
  variation of the run time.
- **GCells/s** = nx · ny · steps / time / 1e9.
- **eff. GB/s** by the byte model: 16 bytes per cell-step (read u(t−dt), u(t) and the cell
  code, write u(t+dt); 20 with a per-cell speed) — the least a kernel making one pass over the
  grid per step moves. Kernels that fuse several steps per pass move less and may exceed the
  copy bandwidth.
- **of copy BW**: that effective bandwidth over the space's copy bandwidth (y[i] = x[i] in 16-byte
  elements over two arrays far larger than the last-level cache, measured by the suite at start-up).
- docs/benchmarks.md has the details."""


def auto_section(results):
    """auto against the best fixed backend of the same run, per scene and sweep size."""
    rows = []
    for family, case_index in (("scene", 3), ("sweep", 3)):
        cases = {}
        for r in results:
            if r.family == family and len(r.parts) == 4 and r.ok:
                cases.setdefault((r.space, r.parts[case_index]), {})[r.parts[2]] = r
        for (space, case), by_backend in sorted(
                cases.items(), key=lambda kv: (order_key(kv[0][0], SPACE_ORDER), kv[0][1])):
            auto = by_backend.pop("auto", None)
            # The registry's backends auto chooses among (not the plain loop, not the oracle,
            # not a twin: the A/A control).
            fixed = {b: r for b, r in by_backend.items()
                     if b not in ("reference", "plain-openmp") and not b.endswith("-twin")}
            if auto is None or not fixed:
                continue
            best_name, best = max(fixed.items(), key=lambda kv: kv[1].value("GCells/s"))
            chose = re.search(r"auto chose ([\w-]+)", auto.label().get("config", ""))
            rows.append([family, space, case, fmt(auto.value("GCells/s")),
                         chose.group(1) if chose else "?", best_name,
                         fmt(best.value("GCells/s")),
                         fmt(auto.value("GCells/s") / best.value("GCells/s")) + "×"])
    if not rows:
        return ""
    return "\n\n".join([
        "## auto against the best fixed backend",
        "GCells/s of `auto` (planned at setup: from the plan cache, else by a trial that is "
        "then kept; outside the timed runs) and of the fastest fixed backend of the same run.",
        table(["family", "space", "case", "auto", "auto chose", "best fixed", "its GCells/s",
               "auto / best"], rows)])


def write_report(out_dir, stencil_path, memory_files):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sections = ["# wave2d benchmark report"]
    plots = []
    if stencil_path and os.path.exists(stencil_path):
        context, results = load_stencil(stencil_path)
        sections.append(machine_section(context, os.path.relpath(stencil_path, out_dir)))
        sections.append(copy_section(results, context))
        sections.append(scene_sections(results, context))
        sections.append(auto_section(results))
        sections.append(receivers_section(results))
        if plot_sweep(results, context, os.path.join(out_dir, "sweep.png"), plt):
            plots.append("sweep.png")
        sections.append(sweep_section(results, context, "sweep.png"))
        if plot_tuning(results, os.path.join(out_dir, "mdrange_tuning.png"), plt):
            plots.append("mdrange_tuning.png")
            sections.append(tuning_section(results) + "\n\n![kokkos-mdrange tuning](mdrange_tuning.png)")
        if plot_tiled_tuning(results, os.path.join(out_dir, "tiled_tuning.png"), plt):
            plots.append("tiled_tuning.png")
            sections.append(tiled_tuning_section(results)
                            + "\n\n![kokkos-tiled tuning](tiled_tuning.png)")
        failed = [r for r in results if r.error]
        if failed:
            sections.append("## Skipped or failed\n\n" + "\n".join(
                f"- `{r.run_name}`: {r.error}" for r in failed))
        sections.append(METHOD)
    else:
        sections.append("No stencil results (expected " + str(stencil_path) + ").")
    text, memory_plots = memory_section(memory_files, out_dir, plt)
    plots += memory_plots
    if text:
        sections.append(text)
    report = os.path.join(out_dir, "report.md")
    with open(report, "w") as f:
        f.write("\n\n".join(s for s in sections if s) + "\n")
    return report, plots


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", help="where report.md and the PNGs go")
    parser.add_argument("--stencil", help="wave2d_bench JSON (default OUT_DIR/stencil.json)")
    parser.add_argument("--memory-dir", help="memory JSON folder (default OUT_DIR/memory)")
    args = parser.parse_args()
    stencil = args.stencil or os.path.join(args.out_dir, "stencil.json")
    memory_dir = args.memory_dir or os.path.join(args.out_dir, "memory")
    memory_files = sorted(glob.glob(os.path.join(memory_dir, "*.json")))
    if not os.path.isdir(args.out_dir):
        print(f"report.py: {args.out_dir}: no such folder", file=sys.stderr)
        return 2
    if not os.path.isfile(stencil) and not memory_files:
        print(f"report.py: no results: neither {stencil} nor {memory_dir}/*.json", file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"report.py: {sys.executable} has no matplotlib (Debian: apt install "
              "python3-matplotlib; or pip install matplotlib)", file=sys.stderr)
        return 1
    try:
        report, plots = write_report(args.out_dir, stencil, memory_files)
    except (ValueError, KeyError) as e:  # JSONDecodeError and UnicodeDecodeError too
        print(f"report.py: not wave2d_bench's JSON ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    print(f"wrote {report}" + (f" and {', '.join(plots)}" if plots else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
