#!/usr/bin/env bash
# Fuzzes the scene-file loader, the mask readers, the checkpoint reader and the Python module's
# scene dicts with libFuzzer for a bounded time:
#   tools/fuzz.sh [SECONDS_EACH] [BUILD_DIR]         (defaults: 60, build-fuzz)
# Needs Clang with libFuzzer (Debian: clang), and for the scene dicts python3-dev and
# pybind11-dev. A finding stops its test, which fails and leaves the input as
# crash-*/leak-*/timeout-* in the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-fuzz}
clang=${CXX_FUZZ:-$(command -v clang++ || command -v clang++-14)}

cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$clang" \
      -DWAVE2D_FUZZ_SECONDS="$seconds"
cmake --build "$build" -j2
ctest --test-dir "$build" --output-on-failure
