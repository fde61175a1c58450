#!/usr/bin/env bash
# Runs a simulation and writes its picture, out/<scene>.png: the scene double-slit-small
# unless one is named (a built-in scene or a scene file), with `wave2d run`'s other options
# after it. Uses the program in build/, building it (and setting the machine up, as
# tools/setup_and_test.sh does) when it is not there yet.
#
#   tools/simulate.sh [SCENE [WAVE2D_RUN_OPTION...]]
set -euo pipefail

if [[ "${1-}" == -h || "${1-}" == --help ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ -f "$root/build/CMakeCache.txt" ]]; then
  cmake --build "$root/build" --target wave2d_cli
else
  "$root/tools/setup_and_test.sh" --program-only build
fi
"$root/build/src/cli/wave2d" run --scene "${1:-double-slit-small}" "${@:2}"
