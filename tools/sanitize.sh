#!/usr/bin/env bash
# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer, for CI:
#   tools/sanitize.sh [BUILD_DIR] [KOKKOS_ROOT]      (defaults: build-sanitize, /usr/local)
# Any sanitizer report fails the test that triggered it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-sanitize}
kokkos=${2:-/usr/local}

cmake -S . -B "$build" -G Ninja -DKokkos_ROOT="$kokkos" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DWAVE2D_SANITIZE=ON -DWAVE2D_BUILD_BENCHMARKS=OFF
cmake --build "$build" -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure -j2
