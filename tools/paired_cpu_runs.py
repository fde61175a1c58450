#!/usr/bin/env python3
"""Host kernels against the plain loop, as whole processes run in turns.

On a shared or noisy machine one process's timing says little; the ratio of two processes
run one after the other, round after round, says more. Each round runs, for each build
given, wave2d_bench on double-slit for plain-openmp and each KERNEL (Google Benchmark:
3 repetitions, median); the report gives each median time [min, max] over the rounds and
each kernel's speedup over the plain loop of its build and of the fastest build's plain
loop, round by round.

  tools/paired_cpu_runs.py [--space OpenMP|Serial] [--rounds N] [--steps S]
                           [--kernel K ...] NAME=BUILD_DIR [NAME=BUILD_DIR ...]

  e.g. tools/paired_cpu_runs.py --space OpenMP default=build native=build-native
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--space", default="OpenMP", choices=["OpenMP", "Serial"])
    parser.add_argument("--rounds", type=positive, default=7)
    parser.add_argument("--steps", type=positive, default=48)
    parser.add_argument("--kernel", action="append",
                        help="kokkos-tiled and kokkos-mdrange unless given")
    parser.add_argument("builds", nargs="+", metavar="NAME=BUILD_DIR")
    args = parser.parse_args()
    kernels = args.kernel or ["kokkos-tiled", "kokkos-mdrange"]
    builds = {}
    for given in args.builds:
        name, _, build = given.partition("=")
        bench = os.path.join(build, "bench", "wave2d_bench")
        if not name or not build:
            parser.error(f"'{given}': expected NAME=BUILD_DIR")
        if not os.access(bench, os.X_OK):
            parser.error(f"'{given}': no {bench}")
        builds[name] = build
    threads = os.environ.get("OMP_NUM_THREADS", "2") if args.space == "OpenMP" else "1"
    env = dict(os.environ, OMP_NUM_THREADS=threads, OMP_PROC_BIND="false")

    steps_run = set()

    def run(build, kernel):
        # No host cap: --wave2d_steps alone sets the steps (the cap would round them down to
        # whole passes of the deepest fusion).
        command = [os.path.join(builds[build], "bench", "wave2d_bench"),
                   f"--benchmark_filter=^scene/{args.space}/{kernel}/double-slit/",
                   f"--wave2d_steps={args.steps}", "--wave2d_host_cell_steps=0",
                   "--wave2d_copy_mib=16", "--benchmark_repetitions=3",
                   "--benchmark_min_time=0.01", "--benchmark_format=json"]
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        medians = [b for b in json.loads(done.stdout or "{}").get("benchmarks", [])
                   if b.get("aggregate_name") == "median"] if done.returncode == 0 else []
        if not medians:
            sys.exit(f"paired_cpu_runs.py: {' '.join(command)}: status {done.returncode}, "
                     f"no median: {done.stderr.strip()[-300:]}")
        steps_run.add(int(medians[0].get("steps", 0)))
        return medians[0]["real_time"]

    keys = [(b, k) for b in builds for k in ["plain-openmp"] + kernels]
    for key in keys:  # warm-up round
        run(*key)
    times = {key: [] for key in keys}
    for _ in range(args.rounds):
        for key in keys:
            times[key].append(run(*key))

    def spread(values, digits=0):
        return (f"{statistics.median(values):.{digits}f} "
                f"[{min(values):.{digits}f}, {max(values):.{digits}f}]")

    print(f"{args.space}, {threads} thread(s), double-slit, "
          f"{', '.join(map(str, sorted(steps_run)))} steps, "
          f"{args.rounds} rounds; ms: median [min, max]")
    for key in keys:
        print(f"  {key[0]:>10} {key[1]:<16} {spread(times[key])}")
    best = min(builds, key=lambda b: statistics.median(times[(b, "plain-openmp")]))
    print(f"speedup over plain-openmp, round by round (fastest plain loop: {best}):")
    for build in builds:
        for kernel in kernels:
            own = [p / k for p, k in zip(times[(build, "plain-openmp")], times[(build, kernel)])]
            fastest = [p / k for p, k in zip(times[(best, "plain-openmp")], times[(build, kernel)])]
            print(f"  {build:>10} {kernel:<16} vs its build's {spread(own, 2)}, "
                  f"vs {best}'s {spread(fastest, 2)}")


if __name__ == "__main__":
    main()
