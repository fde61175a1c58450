#!/usr/bin/env python3
"""Nsight Compute's raw CSV of a backend's stepping kernels (tools/gpu_suite.sh, stage ncu),
one file per backend named ncu-BACKEND.csv, as one markdown table: instructions per cell-step
summed over every launch of the run; scheduler slots used, occupancy and throughputs weighted by
each launch's duration."""
import argparse
import csv
import io
import os


def number(text):
    return float(text.replace(",", "")) if text not in ("", "n/a") else float("nan")


def launches(path):
    text = open(path).read()
    start = text.find('"ID"')
    if start < 0:
        return []
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    return rows[1:]  # the second row holds the units


def summary(rows, cell_steps):
    time = [number(r["gpu__time_duration.sum"]) for r in rows]
    total = sum(time)

    # A metric this ncu does not collect is missing from its CSV: nan.
    def weighted(key):
        return sum(number(r.get(key, "")) * t for r, t in zip(rows, time)) / total

    def summed(key):
        return sum(number(r.get(key, "")) for r in rows)

    return {
        "launches": len(rows),
        "thread instr / cell-step": summed("smsp__thread_inst_executed.sum") / cell_steps,
        "warp instr / 1k cell-steps": 1e3 * summed("smsp__inst_executed.sum") / cell_steps,
        "shared wavefronts / cell-step": summed("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
        / cell_steps,
        "scheduler slots used %": weighted("sm__inst_issued.avg.pct_of_peak_sustained_active"),
        "registers": max(number(r["launch__registers_per_thread"]) for r in rows),
        "occupancy % (achieved / theoretical)": "%.0f / %.0f" % (
            weighted("sm__warps_active.avg.pct_of_peak_sustained_active"),
            weighted("sm__maximum_warps_per_active_cycle_pct")),
        "DRAM %": weighted("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
        "DRAM bytes / cell-step": summed("dram__bytes.sum") / cell_steps,
        "L2 %": weighted("lts__t_sectors.avg.pct_of_peak_sustained_elapsed"),
        "kernel time (ms)": total / 1e6,
        "GCells/s": cell_steps / total,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cells", type=int, required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("csv", nargs="+")
    args = parser.parse_args()
    table = {}
    for path in args.csv:
        backend = os.path.basename(path)[len("ncu-"):-len(".csv")]
        rows = launches(path)
        if rows:
            table[backend] = summary(rows, args.cells * args.steps)
    if not table:
        raise SystemExit("ncu_table: no launches in " + " ".join(args.csv))
    keys = list(next(iter(table.values())))
    print("| | " + " | ".join(table) + " |")
    print("|---" * (len(table) + 1) + "|")
    for key in keys:
        cells = [v[key] if isinstance(v[key], str) else
                 ("%d" % v[key] if key in ("launches", "registers") else "%.3g" % v[key])
                 for v in table.values()]
        print("| " + key + " | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
