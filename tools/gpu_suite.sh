#!/usr/bin/env bash
# Builds wave2d against a Kokkos install with CUDA and runs, on the GPU machine, the
# stages asked for, in this order: build, test (the whole ctest suite), tune (cuda-shmem
# shapes on double-slit), cli (end-to-end runs of the program, checked with numpy),
# memory (the memory-hierarchy microbenchmarks), bench (tools/run_benchmarks.sh, which
# runs the memory ones too; WAVE2D_BENCH_ARGS adds to it, e.g. --quick), compare (the
# tuning program of this tree and of the tree WAVE2D_COMPARE_SRC, e.g. an older commit's
# `git archive`, in turns on double-slit: ratios from one run), scenes (the benchmark
# suite's scene family on CUDA), distributed (the MPI bench on 1, 2 and 4 ranks sharing the
# GPUs, double-slit, each GPU backend), ncu (Nsight Compute figures of each fused backend's
# stepping kernel on double-slit, per cell-step: tools/ncu_table.py), ladder (the
# portability study's rungs on double-slit in one call: kokkos-tiled, kokkos-stream with
# each lane exchange and register cap, cuda-shmem, cuda-stream; then ncu of each rung's
# stepping kernel over its first 48 steps), sanitize (compute-sanitizer memcheck and
# racecheck on the CUDA tests). Logs go to OUT.
#   tools/gpu_suite.sh SOURCE_DIR KOKKOS_ROOT OUT [stage...]
# Extra prefixes for find_package/find_path (e.g. a copy of toml++): WAVE2D_PREFIX_PATH.
set -uo pipefail
all_stages="build test tune cli memory bench sanitize compare scenes distributed ncu ladder"
if [[ $# -lt 3 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  echo "stages: $all_stages" >&2
  [[ $# -ge 1 && ( "$1" == -h || "$1" == --help ) ]] && exit 0
  exit 2
fi
src=$(cd "$1" && pwd) && kokkos=$(cd "$2" && pwd) || exit 2
out=$3
shift 3
stages=${*:-build test sanitize tune bench}
for s in $stages; do
  [[ " $all_stages " == *" $s "* ]] || { echo "gpu_suite.sh: unknown stage '$s' (stages: $all_stages)" >&2; exit 2; }
done
# toml++ and others: WAVE2D_PREFIX_PATH, space-separated; relative paths are taken from here.
prefix_path=""
for p in ${WAVE2D_PREFIX_PATH:-}; do prefix_path+="${prefix_path:+;}$(cd "$p" && pwd)"; done
build=${WAVE2D_BUILD_DIR:-/tmp/wave2d-build}
mkdir -p "$out"
# The machine's cores, before OMP_NUM_THREADS below: nproc honours it.
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
export PATH=/usr/local/cuda/bin:$PATH OMP_PROC_BIND=false OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
status=0
# What the ncu and ladder stages collect of each stepping kernel (tools/ncu_table.py reads them).
ncu_metrics=smsp__thread_inst_executed.sum,smsp__inst_executed.sum,sm__inst_issued.avg.pct_of_peak_sustained_active
ncu_metrics+=,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
ncu_metrics+=,sm__maximum_warps_per_active_cycle_pct,dram__throughput.avg.pct_of_peak_sustained_elapsed
ncu_metrics+=,dram__bytes.sum,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
ncu_metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
stage() { echo "== $1 ($(date -u +%H:%M:%S))"; }
has() { [[ " $stages " == *" $1 "* ]]; }

if has build; then
  stage build
  { nvidia-smi; nvcc --version; g++ --version | head -1; cmake --version | head -1; } \
    > "$out/machine.txt" 2>&1
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKokkos_ROOT="$kokkos" -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" \
    -DCMAKE_PREFIX_PATH="$prefix_path" -DCMAKE_EXECUTABLE_FORMAT=ELF \
    -DWAVE2D_FAULT_SWEEP_PARTS=$(( cores >= 8 ? 4 : 1 )) ${WAVE2D_CMAKE_ARGS:-} \
    > "$out/configure.log" 2>&1 &&
    cmake --build "$build" -j "$cores" > "$out/build.log" 2>&1 || {
      echo "build failed"; tail -n 40 "$out/build.log" "$out/configure.log"; exit 1; }
  grep -E "wave2d:" "$out/configure.log"
fi
if has test; then
  stage test
  # The write-fault sweeps' parts take about 3 minutes each on 16 cores.
  (cd "$build" && ctest -j "$(( cores > 1 ? cores - 1 : 1 ))" --output-on-failure --timeout 600 \
    > "$out/ctest.log" 2>&1) || status=1
  tail -5 "$out/ctest.log"
fi
if has tune; then
  stage tune
  "$build/bench/tuning/wave2d_cuda_tuning" --scene double-slit --repetitions 3 \
    --csv "$out/cuda-tuning.csv" 2>&1 | tee "$out/cuda-tuning.log" || status=1
fi
if has cli; then
  stage cli
  cli="$build/src/cli/wave2d"
  for backend in $("$cli" backends | cut -f1); do
    "$cli" run --scene double-slit-small --backend "$backend" --output "$out/cli" \
      --save-npy "$out/cli/$backend.npy" > "$out/cli-$backend.log" 2>&1 || status=1
    grep -E "backend|space|throughput" "$out/cli-$backend.log" | paste -sd' '
  done
  python3 - "$out/cli" <<'PY' || status=1
import sys, numpy as np
d = sys.argv[1]
ref = np.load(f"{d}/reference.npy").astype(np.float64)
import glob, os
for path in sorted(glob.glob(f"{d}/*.npy")):
    b = os.path.basename(path)[:-4]
    if b == "reference":
        continue
    u = np.load(path).astype(np.float64)
    e = [np.sqrt(np.mean((ref[i] - u[i])**2)) / np.sqrt(np.mean(ref[i]**2)) for i in (0, 1)]
    print(f"{b}: relative RMSE vs reference {e[0]:.2e} {e[1]:.2e}", "ok" if max(e) < 1e-5 else "FAIL")
    assert max(e) < 1e-5
PY
fi
if has memory; then
  stage memory
  "$src/bench/memory/run_memory_benches.sh" --build-dir "$build" "$out/memory" \
    > "$out/memory.log" 2>&1 || status=1
  tail -5 "$out/memory.log"
fi
if has bench; then
  stage bench
  # Every core for the OpenMP rows (the test stage limits them for parallel ctest).
  OMP_NUM_THREADS=$cores OMP_PROC_BIND=spread OMP_PLACES=threads \
    "$src/tools/run_benchmarks.sh" "$build" "$out/bench" ${WAVE2D_BENCH_ARGS:-} \
    > "$out/bench.log" 2>&1 || status=1
  tail -30 "$out/bench.log"
fi
if has compare; then
  stage compare
  # The shipped variants of both trees' tuning programs (older trees name it
  # wave2d_shmem_tuning), in turns: ratios from one run.
  other=$(cd "${WAVE2D_COMPARE_SRC:?compare needs WAVE2D_COMPARE_SRC}" && pwd)
  other_tuning=wave2d_cuda_tuning
  [[ -f $other/bench/tuning/wave2d_cuda_tuning.cu ]] || other_tuning=wave2d_shmem_tuning
  shipped='tile 112x48, 1x16 cells/thread, T=8, unpadded$|tile 32x32, 2x2 cells/thread, T=8, unpadded$|^stream warp strips (80|72) of 96 columns x segments of [0-9]+ rows?( merged by cost, 1 per warp)?, T=(8, 4|12, 3) blocks/SM, 3 columns a lane$'
  cmake -S "$other" -B "$build-compare" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKokkos_ROOT="$kokkos" -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" \
    -DCMAKE_PREFIX_PATH="$prefix_path" -DWAVE2D_BUILD_TESTS=OFF -DWAVE2D_BUILD_CLI=OFF \
    -DCMAKE_EXECUTABLE_FORMAT=ELF > "$out/compare-configure.log" 2>&1 &&
    cmake --build "$build-compare" --target $other_tuning -j "$cores" \
      > "$out/compare-build.log" 2>&1 || { echo "compare: build of $other failed"; status=1; }
  for round in 1 2 3; do
    "$build/bench/tuning/wave2d_cuda_tuning" --scene double-slit --repetitions 5 --only "$shipped" \
      > "$out/compare-this-$round.txt" 2>&1 || status=1
    "$build-compare/bench/tuning/$other_tuning" --scene double-slit --repetitions 5 --only "$shipped" \
      > "$out/compare-other-$round.txt" 2>&1 || status=1
  done
  grep -H -E "unpadded|stream|cuda-" "$out"/compare-*.txt
fi
if has scenes; then
  stage scenes
  # Every backend on the built-in scenes, against the copy bandwidth: the suite's scene
  # family alone (the whole suite is the bench stage).
  "$build/bench/wave2d_bench" --benchmark_filter='^(copy|scene)/Cuda/' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/scenes.json" --benchmark_out_format=json > "$out/scenes.txt" 2>&1 ||
    status=1
  grep -E "_median" "$out/scenes.txt" | sed -E 's/ +/ /g' | cut -d' ' -f1,2,6-8
fi
if has distributed; then
  stage distributed
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  for backend in $("$build/src/cli/wave2d" backends | cut -f1 | grep -v reference); do
    for ranks in 1 2 4; do
      mpiexec -n $ranks --oversubscribe --bind-to none "$build/bench/wave2d_distributed_bench" \
        --scene double-slit --steps 1600 --backend "$backend" --repetitions 3 \
        >> "$out/distributed.txt" 2>&1 || status=1
    done
  done
  grep -E "^ranks|^median|error" "$out/distributed.txt"
fi
if has ncu; then
  stage ncu
  # 48 steps (a multiple of every fused depth), every stepping launch profiled. The
  # kernels are told apart by their demangled names.
  cli="$build/src/cli/wave2d"
  for pair in ${WAVE2D_NCU_KERNELS:-cuda-stream:stream_steps cuda-shmem:shmem_steps kokkos-tiled:TiledSteps}; do
    backend=${pair%%:*} kernel=${pair#*:}
    ncu --clock-control none --csv --page raw --print-units base --metrics "$ncu_metrics" --kernel-name-base demangled \
      --kernel-name "regex:$kernel" "$cli" run --scene double-slit --steps 48 --backend "$backend" \
      --no-receivers --output "$out/ncu-out" > "$out/ncu-$backend.csv" 2> "$out/ncu-$backend.log" ||
      status=1
  done
  python3 "$src/tools/ncu_table.py" --cells $((3201 * 3201)) --steps 48 "$out"/ncu-*.csv |
    tee "$out/ncu-table.md" || status=1
fi
if has ladder; then
  stage ladder
  bench="$build/bench/wave2d_bench"
  "$bench" --benchmark_filter='^(copy/Cuda|scene/Cuda/(cuda-stream|cuda-shmem|kokkos-tiled)/double-slit/|stream_tuning/Cuda/)' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/ladder.json" --benchmark_out_format=json > "$out/ladder.txt" 2>&1 ||
    status=1
  grep -E "_median" "$out/ladder.txt" | sed -E 's/ +/ /g' | cut -d' ' -f1,2,6-8
  # name, benchmark, kernel, launches in 48 steps
  # (benchmark names end in /manual_time)
  for rung in "kokkos-stream stream_tuning/Cuda/shuffle/segments0/manual_time$ StreamSteps 8" \
    "kokkos-stream-scratch stream_tuning/Cuda/scratch/segments0/manual_time$ StreamSteps 8" \
    "cuda-stream scene/Cuda/cuda-stream/double-slit/ stream_steps 6" \
    "cuda-shmem scene/Cuda/cuda-shmem/double-slit/ shmem_steps 6" \
    "kokkos-tiled scene/Cuda/kokkos-tiled/double-slit/ TiledSteps 8"; do
    read -r name filter kernel launches <<< "$rung"
    ncu --clock-control none --csv --page raw --print-units base --metrics "$ncu_metrics" \
      --kernel-name-base demangled --kernel-name "regex:$kernel" --launch-count "$launches" \
      "$bench" --benchmark_filter="^$filter" --benchmark_min_time=0.001 \
      > "$out/ncu-$name.csv" 2> "$out/ncu-$name.log" || status=1
  done
  python3 "$src/tools/ncu_table.py" --cells $((3201 * 3201)) --steps 48 "$out"/ncu-*.csv |
    tee "$out/ncu-table.md" || status=1
fi
if has sanitize; then
  stage sanitize
  # memcheck on every CUDA test; racecheck (slow) on the shared-memory kernels, in both
  # of cuda-shmem's tile shapes.
  compute-sanitizer --tool memcheck --error-exitcode 3 "$build/tests/wave2d_cuda_tests" \
    > "$out/sanitize-memcheck-raw.log" 2>&1 || status=1
  compute-sanitizer --tool memcheck --error-exitcode 3 "$build/tests/wave2d_tests" \
    --gtest_filter='*Cuda_cuda*:*Cuda_kokkos*:*StreamTest*' > "$out/sanitize-memcheck-kokkos.log" 2>&1 || status=1
  compute-sanitizer --tool racecheck --error-exitcode 3 "$build/tests/wave2d_cuda_tests" \
    --gtest_filter='*RandomFields*/shmem*:*ManyTiles*/shmem*:*DoubleSlitSmall*/shmem*' \
    > "$out/sanitize-racecheck-raw.log" 2>&1 || status=1
  compute-sanitizer --tool racecheck --error-exitcode 3 "$build/tests/wave2d_tests" \
    --gtest_filter='*SmallFromRandomFields/Cuda_kokkos_tiled:*ManyTiles/Cuda_kokkos_tiled:*TiledTest*:*StreamTest*' \
    > "$out/sanitize-racecheck-kokkos-tiled.log" 2>&1 || status=1
  tail -n 3 "$out"/sanitize-*.log
fi
stage done
exit $status
