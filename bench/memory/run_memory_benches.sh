#!/usr/bin/env bash
# Runs the memory-hierarchy microbenchmarks, one after the other, and collects their output.
#
#   bench/memory/run_memory_benches.sh [--quick] [--build-dir DIR] [--device N] OUT_DIR
#
# For each program P it writes OUT_DIR/P.json (results) and OUT_DIR/P.txt (the printed tables and
# any error). A program that fails does not stop the others; the exit status is the number of
# programs that failed (0: all ran and validated). The binaries are taken from
# DIR/bench/memory, DIR defaulting to $WAVE2D_BUILD_DIR or else <repo>/build; build them with
#   cmake --build DIR --target wave2d_memory_benches
set -u

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit "$1"
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_dir=${WAVE2D_BUILD_DIR:-$script_dir/../../build}
mode=()
device=()
out_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=(--quick) ;;
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
    --device) device=(--device "${2:?--device needs a number}"); shift ;;
    -h|--help) usage 0 ;;
    -*) echo "run_memory_benches.sh: unknown option $1" >&2; usage 2 ;;
    *) out_dir=$1 ;;
  esac
  shift
done
[ -n "$out_dir" ] || { echo "run_memory_benches.sh: no output folder given" >&2; usage 2; }

bin_dir=$build_dir/bench/memory
programs=(wave2d_mem_latency wave2d_mem_bandwidth wave2d_mem_coalescing wave2d_mem_bank_conflicts)
for p in "${programs[@]}"; do
  if [ ! -x "$bin_dir/$p" ]; then
    echo "run_memory_benches.sh: $bin_dir/$p not found. Build with" >&2
    echo "  cmake --build $build_dir --target wave2d_memory_benches" >&2
    echo "(needs WAVE2D_CUDA_KERNELS, i.e. nvcc found at configure time), or pass --build-dir." >&2
    exit 2
  fi
done
mkdir -p "$out_dir" || exit 2

command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv > "$out_dir/nvidia-smi.csv" 2>&1

failed=0
for p in "${programs[@]}"; do
  echo "=== $p ${mode[*]}"
  start_ns=$(date +%s%N)
  "$bin_dir/$p" "${mode[@]}" "${device[@]}" --json "$out_dir/$p.json" 2>&1 | tee "$out_dir/$p.txt"
  status=${PIPESTATUS[0]}
  elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
  echo "=== $p: exit $status after $((elapsed_ms / 1000)).$(printf '%03d' $((elapsed_ms % 1000))) s"
  echo
  [ "$status" -eq 0 ] || failed=$((failed + 1))
done

if [ "$failed" -eq 0 ]; then
  echo "all ${#programs[@]} memory benchmarks ran and validated; JSON in $out_dir"
else
  echo "$failed of ${#programs[@]} memory benchmarks failed; see $out_dir/*.txt" >&2
fi
exit "$failed"
