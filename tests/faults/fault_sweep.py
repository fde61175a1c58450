#!/usr/bin/env python3
"""Write faults, in the manner of SQLite's I/O-error tests: a run of the program (or of a
Python script) is made once to count the calls that write its files, then again for every
N, with the shim (wave2d_fault_shim.c) failing the Nth of them (and, with --persist, every
one after it, as a full disk does). Every run must end well:

- an exit status of 1 or 2 (0 only where the failure costs a note, the plan cache, or a
  warning, the video, where ffmpeg is on PATH), never a signal, never a hang; rank 0 alone
  says so, in one whole line naming the file;
- no file partial under a final name: each output is its earlier version (put there first)
  or this run's complete one, the earlier checkpoint included; "wrote X" only for complete X;
  an HDF5 file's XDMF sidecar, where there is one, the one of the file beside it;
- no temporary left, but for an earlier file that the error line says it keeps aside
  (whole, under the name it gives).

With --kill the Nth call kills the run instead (SIGKILL: a power cut, the OOM killer). Then
only the files are checked, as above, but for hidden temporaries, which a kill leaves.

    fault_sweep.py --case CASE --program WAVE2D --shim SHIM --work DIR --report FILE
                   [--ranks N --mpiexec MPIEXEC --failing-rank R] [--errno ENOSPC|EIO]
                   [--persist | --kill] [--python PYTHON --module-path PATH] [--jobs J]
                   [--part I/M]

CASE: outputs (every kind of output but the plan cache), plan (the plan cache), python
(wave2d.run and Simulation.save_checkpoint through the module; the interpreter and the
module must stay usable). The report lists every N: the call failed, its file, the outcome.
J runs at a time, each in a folder of its own (default: one a core, up to 4, on one process;
one on ranks, as mpiexec jobs side by side have left a job whose ranks never started, and for
CASE python, whose runs share a file outside their folders). With --part I/M only every Mth N
from the Ith runs, so that M tests (one a part) share a sweep among more cores.
"""

import argparse
import concurrent.futures
import copy
import filecmp
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import textwrap

SCENE = """\
name = "room"
[grid]
nx = 40
ny = 30
[time]
steps = {steps}
[[sources]]
x = 10
y = 10
frequency = 20.0
[[receivers]]
x = 20
y = 15
name = "mic"
"""

HDF5_FILES = ("f.h5", "ck")
RECEIVER_FILES = (".receivers.npy", ".receivers.csv", ".receivers.png")


def program_arguments(args, steps):
    command = [args.program, "run", "--scene", "../scene.toml", "--steps", str(steps)]
    if args.case == "plan":
        return command + ["--plan", "measure", "--output", "o"]
    command += ["--backend", "kokkos-mdrange", "--save-npy", "f.npy", "--output", "o",
                "--frames-every", "4"]
    if args.hdf5:
        command += ["--save-h5", "f.h5"]
    if args.checkpoints:
        command += ["--checkpoint-every", "6", "ck"]
    return command


PYTHON_SCRIPT = """\
import sys, wave2d
steps = int(sys.argv[1])
failed = False
try:
    result = wave2d.run("../scene.toml", steps=steps, backend="kokkos-mdrange",
                        outputs=[wave2d.NpyFile("f.npy"), wave2d.ReceiverFiles("o", plot=False)]
                        + ([wave2d.Hdf5File("f.h5", frames_every=4)] if wave2d.has_hdf5 else [])
                        + ([wave2d.Checkpoints("ck", every=6)] if wave2d.has_checkpoints else []))
    for written in result.written:
        print("wrote", written.text)
except OSError as error:
    print("OSError:", error, file=sys.stderr)
    failed = True
# The module stays usable: a checkpoint the same disk refuses is an OSError, one saved
# elsewhere resumes.
simulation = wave2d.Simulation(wave2d.Scene("../scene.toml"), backend="kokkos-mdrange")
simulation.advance(3)
if wave2d.has_checkpoints:
    try:
        simulation.save_checkpoint("ck2")
        import os
        os.remove("ck2")
    except OSError as error:
        print("OSError:", error, file=sys.stderr)
        failed = True
    simulation.save_checkpoint("../elsewhere.ck")
    simulation.resume("../elsewhere.ck")
    simulation.advance(2)
print("usable")
sys.exit(1 if failed else 0)
"""


class Sweep:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.run_dir = os.path.join(self.work, "run")
        self.call_log = os.path.join(self.work, "failed-call")
        self.statuses = os.path.join(self.work, "statuses")
        self.earlier = os.path.join(self.work, "earlier")
        self.reference = os.path.join(self.work, "reference")
        self.halfway = os.path.join(self.work, "halfway")
        self.failures = []
        self.lines = []

    # ---- running -------------------------------------------------------------------

    def environment(self, fault_at=None, count_file=None):
        env = dict(os.environ)
        env.update({"OMP_NUM_THREADS": "1", "OMP_PROC_BIND": "false",
                    "XDG_CACHE_HOME": os.path.join(self.run_dir, "cache"),
                    "WAVE2D_FAULT_DIR": self.run_dir,
                    "LD_PRELOAD": " ".join(filter(None, [self.args.preload, self.args.shim])),
                    "WAVE2D_FAULT_ERRNO": self.args.errno,
                    "WAVE2D_FAULT_PERSIST": "1" if self.args.persist else "0",
                    "WAVE2D_FAULT_KILL": "1" if self.args.kill else "0",
                    "WAVE2D_FAULT_RANK": str(self.args.failing_rank),
                    "WAVE2D_FAULT_LOG": self.call_log,
                    "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                    "PATH": "/usr/bin:/bin"})
        if self.args.module_path:
            env["PYTHONPATH"] = self.args.module_path
        env.pop("WAVE2D_FAULT_AT", None)
        env.pop("WAVE2D_FAULT_COUNT", None)
        if fault_at is not None:
            env["WAVE2D_FAULT_AT"] = str(fault_at)
        if count_file is not None:
            env["WAVE2D_FAULT_COUNT"] = count_file
        return env

    def command(self, steps):
        if self.args.case == "python":
            script = os.path.join(self.work, "script.py")
            return [self.args.python, script, str(steps)]
        command = program_arguments(self.args, steps)
        if self.args.ranks > 1:
            forwarded = []
            for name in ("OMP_NUM_THREADS", "OMP_PROC_BIND", "XDG_CACHE_HOME", "WAVE2D_FAULT_DIR",
                         "LD_PRELOAD", "WAVE2D_FAULT_ERRNO", "WAVE2D_FAULT_PERSIST",
                         "WAVE2D_FAULT_KILL", "WAVE2D_FAULT_RANK", "WAVE2D_FAULT_LOG",
                         "WAVE2D_FAULT_AT", "WAVE2D_FAULT_COUNT", "PATH", "ASAN_OPTIONS",
                         "LSAN_OPTIONS", "UBSAN_OPTIONS"):
                if name in os.environ or name.startswith(("WAVE2D", "OMP", "XDG", "LD", "PATH")):
                    forwarded += ["-x", name]
            # Every rank's own exit status, from a shell around it: mpiexec, told not to end
            # the job at the first failure, waits for every rank (so that one left waiting
            # in a collective call is a hang, not a kill).
            wrapper = f'"$0" "$@"; echo "$OMPI_COMM_WORLD_RANK $?" >> {self.statuses}'
            command = [self.args.mpiexec, "-n", str(self.args.ranks), "--oversubscribe",
                       "--bind-to", "none", "--mca", "orte_abort_on_non_zero_status", "0"] + \
                forwarded + ["sh", "-c", wrapper] + command
        return command

    def run(self, steps, fault_at=None, count_file=None, into=None):
        env = self.environment(fault_at, count_file)
        if into is not None:
            env["WAVE2D_FAULT_DIR"] = into
            env["XDG_CACHE_HOME"] = os.path.join(into, "cache")
        cwd = into or self.run_dir
        statuses = self.statuses
        if os.path.exists(statuses):
            os.remove(statuses)
        with subprocess.Popen(self.command(steps), cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True) as run:
            try:
                out, err = run.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(run.pid, signal.SIGKILL)  # the run and every rank of it
                out, err = run.communicate()
                return None, out, err
        status = run.returncode
        if self.args.ranks > 1:
            ranks = {}
            if os.path.exists(statuses):
                with open(statuses) as ended:
                    for line in ended:
                        rank, code = line.split()
                        ranks[int(rank)] = int(code)
            if len(ranks) != self.args.ranks:
                status = f"{len(ranks)} of {self.args.ranks} ranks ended"
            elif len(set(ranks.values())) != 1:
                status = f"ranks ended differently: {ranks}"
            else:
                status = next(iter(ranks.values()))
        return status, out, err

    # ---- files ---------------------------------------------------------------------

    def files(self, folder):
        found = set()
        for root, dirs, names in os.walk(folder):
            for name in names + [d for d in dirs if not os.listdir(os.path.join(root, d))]:
                found.add(os.path.relpath(os.path.join(root, name), folder))
        return found

    def same_hdf5(self, a, b):
        """Whether two HDF5 files hold the same datasets (their bytes differ by times)."""
        try:
            import h5py
            import numpy as np
            with h5py.File(a, "r") as x, h5py.File(b, "r") as y:
                names = []
                x.visit(names.append)
                other = []
                y.visit(other.append)
                if sorted(names) != sorted(other):
                    return False
                for name in names:
                    if isinstance(x[name], h5py.Dataset):
                        if not np.array_equal(x[name][()], y[name][()]):
                            return False
                return True
        except Exception:  # noqa: BLE001 -- unreadable is not the same
            return False

    def same(self, name, a, b):
        if os.path.basename(name) in HDF5_FILES or name.endswith(".h5"):
            return filecmp.cmp(a, b, shallow=False) or self.same_hdf5(a, b)
        return filecmp.cmp(a, b, shallow=False)

    def prepare(self):
        shutil.rmtree(self.run_dir, ignore_errors=True)
        shutil.copytree(self.earlier, self.run_dir, symlinks=True)

    # ---- the sweep -----------------------------------------------------------------

    def setup(self):
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        with open(os.path.join(self.work, "scene.toml"), "w") as scene:
            scene.write(SCENE.format(steps=12))
        os.makedirs(self.earlier)
        os.makedirs(self.reference)
        os.makedirs(self.halfway)
        if self.args.case == "python":
            with open(os.path.join(self.work, "script.py"), "w") as script:
                script.write(PYTHON_SCRIPT)
        # The earlier outputs (8 steps) and the reference ones (12, and the checkpoint of
        # step 6 a run of 12 writes on the way), without faults.
        for steps, folder in ((8, self.earlier), (12, self.reference), (6, self.halfway)):
            status, out, err = self.run(steps, into=folder)
            if status != 0:
                sys.exit(f"the run of {steps} steps without faults failed ({status}):\n{err}")
        self.final_names = self.files(self.reference)
        self.earlier_names = self.files(self.earlier)
        os.makedirs(self.run_dir)
        count_file = os.path.join(self.work, "count")
        self.prepare()
        status, out, err = self.run(12, count_file=count_file)
        if status != 0:
            sys.exit(f"the counting run failed ({status}):\n{err}")
        counts = {}
        with open(count_file) as counted:
            for line in counted:
                rank, calls = line.split()
                counts[int(rank)] = max(counts.get(int(rank), 0), int(calls))  # mpiexec too
        return counts.get(self.args.failing_rank, 0)

    def check(self, n, status, out, err):
        problems = []
        case = self.args.case
        if self.args.kill:
            if status != -signal.SIGKILL:
                problems.append(f"ended with status {status}, not killed")
            return problems + self.check_files(out)
        if status is None:
            problems.append("hung (no end in 120 s)")
        elif isinstance(status, str):
            last = [line for line in err.splitlines() if line.strip()][-1:]
            problems.append(status + (f" (stderr ends: {last[0][:160]})" if last else ""))
            status = None
        elif status < 0 or status > 2:
            problems.append(f"ended with status {status}")
        errors = [line for line in err.splitlines() if line.startswith("wave2d: error:")]
        python_errors = [line for line in err.splitlines() if line.startswith("OSError:")]
        if case == "python":
            if status == 0:
                problems.append("no OSError after a failed write")
            elif not python_errors:
                problems.append("no OSError said")
            if "usable" not in out or "Traceback" in err or "Segmentation" in err:
                problems.append("the module was not usable after it, or the interpreter "
                                "did not end cleanly")
        elif status in (1, 2):
            if len(errors) != 1:
                problems.append(f"{len(errors)} error lines")
            elif "cannot write '" not in errors[0] and "plan" not in errors[0]:
                problems.append("the error names no file")
        elif status == 0 and case != "plan":
            warnings = [line for line in err.splitlines() if line.startswith("wave2d: warning:")]
            if not (len(warnings) == 1 and warnings[0].startswith("wave2d: warning: no video: ")):
                problems.append("exit status 0 after a failed write")
        if case == "plan" and status == 0 and "not kept" not in err:
            problems.append("the plan was not kept, and no note says so")
        if self.args.ranks == 1:  # under mpirun, its banner follows
            for line in err.splitlines():
                if line and not line.startswith(("wave2d: ", "OSError:")):
                    problems.append(f"stray stderr line: {line[:100]}")
                    break
        for line in errors:
            if not re.fullmatch(r"wave2d: error: (rank \d+: )?cannot write '[^']+': \S.*", line):
                problems.append(f"an error line cut or unlike the others: {line[:120]}")
        kept = {os.path.normpath(aside): os.path.normpath(name)
                for line in errors + python_errors
                for name, aside in re.findall(r"the earlier '([^']+)' is kept as '([^']+)'", line)}
        return problems + self.check_files(out, kept)

    def check_files(self, out, kept={}):
        problems = []
        # Files: each the earlier one or this run's complete one; nothing else (after a
        # kill, hidden temporaries too).
        present = self.files(self.run_dir)
        allowed = self.final_names | self.earlier_names
        for name in sorted(present - allowed):
            if name in kept:  # an earlier file the error says is kept under this name
                earlier = os.path.join(self.earlier, kept[name])
                if not (os.path.exists(earlier)
                        and self.same(kept[name], os.path.join(self.run_dir, name), earlier)):
                    problems.append(f"{name} is not the earlier {kept[name]}")
                continue
            if self.args.kill and re.fullmatch(r"\..+\.\d+\.(tmp|new|old)",
                                               os.path.basename(name)):
                continue
            if not name.startswith("cache/"):
                problems.append(f"left {name}")
        cache_files = [name for name in present if name.startswith("cache/")]
        for name in cache_files:
            if ".tmp" in name or os.path.basename(name).startswith("."):
                problems.append(f"left {name}")
        for name in sorted(present & allowed):
            if name.startswith("cache/"):
                continue
            here = os.path.join(self.run_dir, name)
            old = os.path.join(self.earlier, name)
            new = os.path.join(self.reference, name)
            checkpoint = os.path.join(self.halfway, name) if name == "ck" else new
            if not any(os.path.exists(other) and self.same(name, here, other)
                       for other in (old, new, checkpoint)):
                problems.append(f"{name} is neither the earlier file nor this run's")
        # An XDMF sidecar describes the HDF5 file beside it: both earlier or both this run's.
        for sidecar in sorted(name for name in present if name.endswith(".h5.xmf")):
            h5 = sidecar[:-len(".xmf")]
            pairs = [(os.path.join(d, h5), os.path.join(d, sidecar))
                     for d in (self.earlier, self.reference)]
            here = (os.path.join(self.run_dir, h5), os.path.join(self.run_dir, sidecar))
            if not any(os.path.exists(a) and os.path.exists(b) and os.path.exists(here[0])
                       and self.same(h5, here[0], a) and self.same(sidecar, here[1], b)
                       for a, b in pairs):
                problems.append(f"{sidecar} does not describe the {h5} beside it")
        # The receivers' files are written as one set: all earlier or all this run's.
        for stem in sorted({name[:-len(ext)] for name in present for ext in RECEIVER_FILES
                            if name.endswith(ext)}):
            names = [stem + ext for ext in RECEIVER_FILES if stem + ext in present]
            if not any(all(os.path.exists(os.path.join(d, name))
                           and self.same(name, os.path.join(self.run_dir, name),
                                         os.path.join(d, name)) for name in names)
                       for d in (self.earlier, self.reference)):
                problems.append(f"{', '.join(names)} are not one run's files")
        for line in out.splitlines():
            if not line.startswith("wrote "):
                continue
            first = line[len("wrote "):].split(",")[0].split(" (")[0]
            words = first.split()
            if words and words[0].isdigit():  # "4 frames o/room.000000.png .. room.000012.png"
                first = words[2]
            here = os.path.join(self.run_dir, first)
            new = os.path.join(self.reference, first)
            if not os.path.exists(here) or not self.same(first, here, new):
                problems.append(f"said 'wrote {first}' of an incomplete file")
        return problems

    def worker(self, slot):
        """A copy that runs in folders of its own: run<slot>, its call log and statuses."""
        other = copy.copy(self)
        other.run_dir = os.path.join(self.work, f"run{slot}")
        other.call_log = os.path.join(self.work, f"failed-call{slot}")
        other.statuses = os.path.join(self.work, f"statuses{slot}")
        return other

    def attempt(self, n):
        """The run failing the Nth call: its report line and its problems."""
        self.prepare()
        if os.path.exists(self.call_log):
            os.remove(self.call_log)
        status, out, err = self.run(12, fault_at=n)
        problems = self.check(n, status, out, err)
        failed_call = ""
        if os.path.exists(self.call_log):
            with open(self.call_log) as log:
                failed_call = log.read().strip()
        said = next((line for line in err.splitlines()
                     if line.startswith(("wave2d: error:", "OSError:", "wave2d: note: the plan"))),
                    "")
        return f"{n:4d}  {failed_call:40s}  status {status}  {said}", failed_call, problems

    def sweep(self):
        calls = self.setup()
        idle = queue.Queue()
        for slot in range(self.args.jobs):
            idle.put(self.worker(slot))

        def attempt(n):
            worker = idle.get()
            try:
                return worker.attempt(n)
            finally:
                idle.put(worker)

        part, parts = self.args.part
        ns = range(part, calls + 1, parts)
        with concurrent.futures.ThreadPoolExecutor(self.args.jobs) as pool:
            for n, (line, failed_call, problems) in zip(ns, pool.map(attempt, ns)):
                self.lines.append(line)
                for problem in problems:
                    self.failures.append(f"N={n} ({failed_call}): {problem}")
                    self.lines.append(f"      PROBLEM: {problem}")
        with open(self.args.report, "w") as report:
            report.write(f"write faults: case {self.args.case}, {self.args.ranks} rank(s), "
                         f"rank {self.args.failing_rank} failing, {self.args.errno}"
                         f"{' persisting' if self.args.persist else ''}"
                         f"{' (killing instead)' if self.args.kill else ''}: {calls} calls"
                         f"{f', part {part} of {parts}' if parts > 1 else ''}\n")
            report.write("\n".join(self.lines) + "\n")
            report.write(f"{len(self.failures)} problems\n")
        print(f"{len(ns)} of {calls} calls failed one at a time: {len(self.failures)} problems "
              f"(report: {self.args.report})")
        for failure in self.failures[:40]:
            print("  " + failure)
        return 0 if self.failures == [] and len(ns) > 0 else 1


def part_of(text):
    """'I/M' as (I, M), 1 <= I <= M."""
    match = re.fullmatch(r"([0-9]+)/([0-9]+)", text)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise argparse.ArgumentTypeError(f"not a part I/M with 1 <= I <= M: {text!r}")
    return int(match[1]), int(match[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", choices=["outputs", "plan", "python"], required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--shim", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--mpiexec")
    parser.add_argument("--failing-rank", type=int, default=0)
    parser.add_argument("--errno", choices=["ENOSPC", "EIO"], default="ENOSPC")
    faults = parser.add_mutually_exclusive_group()
    faults.add_argument("--persist", action="store_true")
    faults.add_argument("--kill", action="store_true")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--module-path")
    parser.add_argument("--preload", default="",
                        help="libraries preloaded before the shim (a sanitizer's runtime)")
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--part", type=part_of, default=(1, 1), metavar="I/M")
    parser.add_argument("--hdf5", choices=["ON", "OFF"], default="ON")
    parser.add_argument("--checkpoints", choices=["ON", "OFF"], default="ON")
    args = parser.parse_args()
    args.hdf5 = args.hdf5 == "ON"
    args.checkpoints = args.checkpoints == "ON"
    if args.jobs is None:  # the runs wait on their start (a GPU's) more than they compute
        args.jobs = 1 if args.case == "python" or args.ranks > 1 else min(4, os.cpu_count() or 1)
    return Sweep(args).sweep()


if __name__ == "__main__":
    sys.exit(main())
