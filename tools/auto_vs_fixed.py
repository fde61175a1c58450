#!/usr/bin/env python3
"""auto against every fixed backend, case by case, with several fresh plans.

    auto_vs_fixed.py run --bench BUILD/bench/wave2d_bench [--space OpenMP] [--plans 5]
                         [--repetitions 9] [--filter REGEX] [--twin BACKEND] OUT_DIR
    auto_vs_fixed.py table [--goal 0.97] [--fastest] OUT_DIR

`run` gives each plan its own empty plan cache (XDG_CACHE_HOME), so each is one of auto's
plans, and runs each case of the scene and sweep families in its own wave2d_bench process:
every entry of the case (auto, each fixed backend, the plain loop) with Google Benchmark's
repetitions randomly interleaved. A round of the case's entries takes seconds, so a slow spell
of the machine falls on the entries of one round alike. Output: OUT_DIR/planP/FAMILY-CASE.json (and .log).

`table` reads them: for each case and plan, the backend auto chose (from its label), the best
fixed backend (the highest median rate), and auto over it round by round (repetition i of
each), their median; with --fastest instead auto's fastest repetition over the best backend's
fastest (noise only slows a run down, so the fastest of each is the least disturbed). The plain
OpenMP loop is no backend and is not counted.

The control: with --twin BACKEND each case also runs BACKEND a second time, as the entry
BACKEND-twin (wave2d_bench --wave2d_twin), and `table` sets the twin over BACKEND, by the same
statistic, beside auto's ratio: what two entries of one kernel differ by on this machine.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from report import load_stencil  # Google Benchmark's JSON, one Result per entry

NOT_BACKENDS = {"plain-openmp", "reference"}


def cases(bench, space, pattern):
    """(family, case) of every auto entry of the space, in the bench's order."""
    listed = subprocess.run(
        [bench, f"--benchmark_filter=^(scene|sweep)/{space}/auto/", "--benchmark_list_tests"],
        check=True, capture_output=True, text=True).stdout.split()
    found = []
    for name in listed:
        family, _, _, case = name.split("/")[:4]
        if re.search(pattern, f"{family}/{case}") and (family, case) not in found:
            found.append((family, case))
    return found


def run(args):
    out = Path(args.out)
    todo = cases(args.bench, args.space, args.filter)
    if not todo:
        sys.exit(f"no auto entries of {args.space} match '{args.filter}'")
    for plan in range(1, args.plans + 1):
        folder = out / f"plan{plan}"
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, XDG_CACHE_HOME=cache)
            for family, case in todo:
                print(f"plan {plan}: {family} {case}", flush=True)
                log_path = folder / f"{family}-{case}.log"
                with open(log_path, "w") as log:
                    done = subprocess.run(
                        [args.bench, f"--benchmark_filter=^{family}/{args.space}/[^/]+/{case}/",
                         *([f"--wave2d_twin={args.twin}"] if args.twin else []),
                         f"--benchmark_repetitions={args.repetitions}",
                         "--benchmark_enable_random_interleaving=true",
                         f"--benchmark_out={folder / f'{family}-{case}.json'}",
                         "--benchmark_out_format=json"],
                        env=env, stdout=log, stderr=subprocess.STDOUT)
                if done.returncode != 0:
                    lines = log_path.read_text().strip().splitlines() or [""]
                    why = next((l for l in lines if l.startswith("wave2d_bench:")), lines[-1])
                    sys.exit(f"auto_vs_fixed.py: wave2d_bench ended with status "
                             f"{done.returncode} ({log_path}): {why}")


def rounds(path):
    """{(family, case): {backend: {repetition: (GCells/s, label)}}} of one file."""
    found = {}
    for result in load_stencil(path)[1]:
        if result.error or len(result.parts) < 4 or result.family not in ("scene", "sweep"):
            continue
        backend, case = result.parts[2], result.parts[3]
        if backend in NOT_BACKENDS:
            continue
        found.setdefault((result.family, case), {})[backend] = {
            entry.get("repetition_index", i): (entry["GCells/s"], entry.get("label", ""))
            for i, entry in enumerate(result.iterations)}
    return found


def case_order(key):
    family, case = key
    return (family != "scene", int(case) if case.isdigit() else 0, case)


def short(backend):
    return backend.removeprefix("kokkos-")


def ratio_of(entries, a, b, fastest):
    """a over b: the median of the rounds' ratios, or the fastest repetitions' ratio."""
    if fastest:
        return max(r for r, _ in entries[a].values()) / max(r for r, _ in entries[b].values())
    return statistics.median(entries[a][i][0] / entries[b][i][0]
                             for i in entries[a] if i in entries[b])


def table(args):
    plans = sorted(Path(args.out).glob("plan*"), key=lambda p: int(p.name[4:]))
    runs = []
    for plan in plans:
        merged = {}
        for path in sorted(plan.glob("*.json")):
            merged.update(rounds(path))
        runs.append(merged)
    keys = sorted(set().union(*runs), key=case_order)
    if not keys:
        sys.exit(f"no results in {args.out}/plan*/")
    n = len(runs)
    # Each twin entry and the backend it repeats.
    twins = {b: b.removesuffix("-twin") for run in runs for entries in run.values()
             for b in entries if b.endswith("-twin")}
    print((f"{'case':22} {'auto chose, plans 1-' + str(n):32} "
           f"{'auto / best fixed, plans 1-' + str(n):40} {'best fixed':32}"
           + "".join(f" {short(t) + ' / ' + short(twins[t]):40}" for t in sorted(twins))).rstrip())
    chose_best = at_goal = total = 0
    twin_at_goal = {t: 0 for t in twins}
    twin_total = {t: 0 for t in twins}
    for key in keys:
        chose, ratios, best = [], [], []
        controls = {t: [] for t in twins}
        for run in runs:
            entries = run.get(key, {})
            for t, original in twins.items():
                if t in entries and original in entries:
                    ratio = ratio_of(entries, t, original, args.fastest)
                    controls[t].append(f"{ratio:.3f}x")
                    twin_total[t] += 1
                    twin_at_goal[t] += ratio >= args.goal
                else:
                    controls[t].append("-")
            fixed = {b: v for b, v in entries.items() if b != "auto" and b not in twins}
            if "auto" not in entries or not fixed:
                chose.append("-"), ratios.append("-"), best.append("-")
                continue
            winner = max(fixed, key=lambda b: statistics.median(r for r, _ in fixed[b].values()))
            choices = {m.group(1) for _, label in entries["auto"].values()
                       if (m := re.search(r"auto chose ([\w-]+)", label))}
            ratio = ratio_of(entries, "auto", winner, args.fastest)
            chose.append("/".join(sorted(map(short, choices))) or "?")
            ratios.append(f"{ratio:.3f}x")
            best.append(short(winner))
            total += 1
            chose_best += choices == {winner}
            at_goal += ratio >= args.goal
        family, case = key
        name = f"{family} {case}{'²' if case.isdigit() else ''}"
        print((f"{name:22} {' '.join(chose):32} {' '.join(ratios):40} {' '.join(best):32}"
               + "".join(f" {' '.join(controls[t]):40}" for t in sorted(twins))).rstrip())
    statistic = "fastest repetitions" if args.fastest else "median of the rounds' ratios"
    print(f"# auto chose the best fixed backend in {chose_best} of {total}; "
          f"auto/best ({statistic}) >= {args.goal} in {at_goal} of {total}")
    for t in sorted(twins):
        print(f"# control: {t} / {twins[t]} ({statistic}) >= {args.goal} "
              f"in {twin_at_goal[t]} of {twin_total[t]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--bench", required=True)
    r.add_argument("--space", default="OpenMP")
    r.add_argument("--plans", type=int, default=5)
    r.add_argument("--repetitions", type=int, default=9)
    r.add_argument("--filter", default=".", help="regex on FAMILY/CASE, e.g. 'scene/'")
    r.add_argument("--twin", help="run this backend twice per case, as the control")
    r.add_argument("out")
    t = sub.add_parser("table")
    t.add_argument("--goal", type=float, default=0.97)
    t.add_argument("--fastest", action="store_true",
                   help="compare the fastest repetitions, not the rounds' ratios")
    t.add_argument("out")
    args = parser.parse_args()
    run(args) if args.command == "run" else table(args)


if __name__ == "__main__":
    main()
