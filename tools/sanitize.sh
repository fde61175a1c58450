#!/usr/bin/env bash
# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer, for CI:
#   tools/sanitize.sh [BUILD_DIR] [KOKKOS_ROOT]      (defaults: build-sanitize, /usr/local)
# Any sanitizer report fails the test that triggered it. Leaks are not checked in Python
# (the runtime preloaded) nor under mpiexec (tests/CMakeLists.txt says why), nor those
# tools/lsan.supp names, of libraries wave2d uses; the tests under ulimit -v or -d are
# skipped (no program built with AddressSanitizer starts there).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-sanitize}
kokkos=${2:-/usr/local}

launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -G Ninja -DKokkos_ROOT="$kokkos" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DWAVE2D_SANITIZE=ON -DWAVE2D_BUILD_BENCHMARKS=OFF "${launcher[@]}"
cmake --build "$build" -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
# print_suppressions=0: the table of suppressions used would follow a one-line error.
export LSAN_OPTIONS=suppressions=$PWD/tools/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure -j2
