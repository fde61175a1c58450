#!/usr/bin/env bash
# Runs the benchmarks of a build and writes their JSON, report.md and PNG plots.
#
#   tools/run_benchmarks.sh BUILD_DIR OUT_DIR [--quick] [-- WAVE2D_BENCH_ARGS...]
#
# BUILD_DIR/bench/wave2d_bench: the stencil suite, into OUT_DIR/stencil.json (its console
# output in OUT_DIR/stencil.log). The memory microbenchmarks, when BUILD_DIR/bench/memory
# holds them (CUDA builds): bench/memory/run_memory_benches.sh, into OUT_DIR/memory/.
# Then tools/report.py writes OUT_DIR/report.md and the plots.
# --quick: fewer repetitions, smaller sizes and step caps (a minute or two, not a report to
# quote). Arguments after -- go to wave2d_bench, e.g. -- --benchmark_filter=/Cuda/
# docs/benchmarks.md explains the options and the report.
set -euo pipefail

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[[ "${1-}" == -h || "${1-}" == --help ]] && { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
[[ $# -ge 2 ]] || usage
build_dir=$1
out_dir=$2
shift 2
quick=0
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run_benchmarks.sh: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done

tools_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(dirname "$tools_dir")
bench=$build_dir/bench/wave2d_bench
if [[ ! -x $bench ]]; then
  echo "run_benchmarks.sh: no $bench. Configure with -DWAVE2D_BUILD_BENCHMARKS=ON (it needs" \
       "Google Benchmark: apt install libbenchmark-dev) and build the wave2d_bench target." >&2
  exit 1
fi

# A Python with matplotlib for the report, found before the long runs.
python=
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c 'import matplotlib' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [[ -z $python ]]; then
  echo "run_benchmarks.sh: no Python with matplotlib (tried python3, /usr/bin/python3):" \
       "install python3-matplotlib or 'pip install matplotlib'. The benchmarks run anyway;" \
       "make the report later with: python3 tools/report.py $out_dir" >&2
fi

mkdir -p "$out_dir"
# Kokkos' advice for OpenMP; the caller's settings win.
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}

args=(--benchmark_out="$out_dir/stencil.json" --benchmark_out_format=json)
if [[ $quick == 1 ]]; then
  args+=(--benchmark_repetitions=3 --benchmark_min_time=0.05 --wave2d_max_size=1024
         --wave2d_host_cell_steps=2^26 --wave2d_tuning_steps=400)
fi
echo "== stencil suite: $bench ${args[*]} ${extra[*]}"
"$bench" "${args[@]}" "${extra[@]}" 2>&1 | tee "$out_dir/stencil.log"

memory_script=$source_dir/bench/memory/run_memory_benches.sh
memory_built=$(find "$build_dir/bench/memory" -maxdepth 1 -type f -executable -name 'wave2d_mem_*' 2>/dev/null | head -n 1 || true)
if [[ -n $memory_built && -x $memory_script ]]; then
  echo "== memory microbenchmarks: $memory_script"
  mkdir -p "$out_dir/memory"
  memory_args=(--build-dir "$build_dir")
  if [[ $quick == 1 ]]; then memory_args+=(--quick); fi
  if ! "$memory_script" "${memory_args[@]}" "$out_dir/memory" 2>&1 | tee "$out_dir/memory.log"; then
    echo "run_benchmarks.sh: the memory microbenchmarks failed (see $out_dir/memory.log);" \
         "the report shows what they wrote" >&2
  fi
else
  echo "== memory microbenchmarks: not built in $build_dir/bench/memory (CUDA builds only)"
fi

if [[ -n $python ]]; then
  echo "== report: $python tools/report.py $out_dir"
  "$python" "$tools_dir/report.py" "$out_dir"
fi
