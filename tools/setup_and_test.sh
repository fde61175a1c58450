#!/usr/bin/env bash
# Sets up a Debian (or Ubuntu) machine for wave2d and runs the whole test suite:
# installs what is missing from the distribution's packages (compiler, CMake, Ninja,
# libraries, and the distribution's Kokkos when CMake finds no other), then configures,
# builds and tests in BUILD_DIR (default: build). .ci/run runs this.
#
#   tools/setup_and_test.sh [--program-only] [BUILD_DIR [CMAKE_ARGUMENT...]]
#
# --program-only builds only the wave2d program and runs no tests (tools/simulate.sh).
# Not root: apt-get runs through sudo.
set -euo pipefail

if [[ "${1-}" == -h || "${1-}" == --help ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
program_only=false
if [[ "${1-}" == --program-only ]]; then
  program_only=true
  shift
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
shift || true
cmake_arguments=("$@")
jobs="$(nproc)"

as_root() {
  if [[ "$(id -u)" == 0 ]]; then
    "$@"
  elif command -v sudo > /dev/null; then
    sudo "$@"
  else
    echo "setup: installing packages needs root: run this as root or install sudo" >&2
    exit 1
  fi
}

apt_updated=false
install_missing() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2> /dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}"
  if ! $apt_updated; then
    as_root apt-get update -qq
    apt_updated=true
  fi
  as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_missing g++ cmake ninja-build libgtest-dev libbenchmark-dev libcli11-dev libpng-dev \
  libtomlplusplus-dev libopenmpi-dev openmpi-bin libxxhash-dev libhdf5-openmpi-dev python3-h5py \
  python3-dev pybind11-dev python3-numpy libplot-dev

cd "$root"
configure() { cmake -S . -B "$build" -G Ninja "${cmake_arguments[@]}"; }
# The Kokkos CMake finds (a 4.x wins, wherever it is); the distribution's only when none.
if ! configure > /dev/null 2>&1 &&
  grep -qs '^Kokkos_DIR:PATH=Kokkos_DIR-NOTFOUND' "$build/CMakeCache.txt"; then
  echo "setup: no Kokkos found: installing the distribution's (Serial backend only)"
  install_missing libtrilinos-kokkos-dev
fi
configure

if $program_only; then
  cmake --build "$build" -j"$jobs" --target wave2d_cli
  exit 0
fi
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" --output-on-failure -j"$jobs"
