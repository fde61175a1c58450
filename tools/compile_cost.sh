#!/usr/bin/env bash
# What an application pays to compile against an installed wave2d: the README's example
# (its "Embed the library" CMakeLists.txt and main.cpp) and, for scale, a TU that includes
# only Kokkos_Core.hpp and runs one parallel_for, each compiled REPEAT times (default 3) with
# the build's own command (CMake Release: -O3); prints the median seconds and the largest
# resident memory of each.
#   tools/compile_cost.sh PREFIX KOKKOS_DIR [CXX_COMPILER] [REPEAT]
# PREFIX: where wave2d is installed; KOKKOS_DIR: the folder of KokkosConfig.cmake; CXX_COMPILER:
# g++ (default) or Kokkos' nvcc_wrapper.
set -euo pipefail
if [[ $# -lt 2 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  [[ $# -ge 1 && ( "$1" == -h || "$1" == --help ) ]] && exit 0
  exit 2
fi
prefix=$(cd "$1" && pwd) kokkos_dir=$2 cxx=${3:-g++} repeat=${4:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The README's blocks, as the package test takes them (tests/package/run_downstream.cmake).
# The first block of LANGUAGE in that section.
readme_block() {
  awk -v fence="\`\`\`$1" '/^## Embed the library/ {on = 1} on && $0 == fence && !c {c = 1; next}
    on && c == 1 && /^```$/ {c = 2; next} on && c == 1 {print}' "$root/README.md"
}
mkdir -p "$work/source"
readme_block cmake > "$work/source/CMakeLists.txt"
readme_block cpp > "$work/source/main.cpp"
cat > "$work/source/kokkos_only.cpp" << 'EOF'
#include <Kokkos_Core.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  Kokkos::View<float*> x("x", 1000);
  Kokkos::parallel_for("fill", x.extent(0), KOKKOS_LAMBDA(int i) { x(i) = 2.0f * i; });
  Kokkos::fence();
}
EOF
echo 'add_executable(kokkos_only kokkos_only.cpp)
target_link_libraries(kokkos_only PRIVATE Kokkos::kokkos)' >> "$work/source/CMakeLists.txt"

cmake -S "$work/source" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DKokkos_DIR="$kokkos_dir" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
echo "compiler: $("$cxx" --version 2>&1 | head -1); wave2d: $prefix; Kokkos: $kokkos_dir"
for tu in main.cpp kokkos_only.cpp; do
  command=$(python3 -c "import json, sys
for entry in json.load(open(sys.argv[1])):
    if entry['file'].endswith('/' + sys.argv[2]): print(entry['directory'] + '\n' + entry['command'])" \
    "$work/build/compile_commands.json" "$tu")
  directory=$(head -1 <<< "$command") command=$(tail -1 <<< "$command")
  times=() memory=0
  for ((i = 0; i < repeat; ++i)); do
    (cd "$directory" && /usr/bin/time -f '%e %M' -o "$work/time" bash -c "$command")
    read -r seconds kilobytes < "$work/time"
    times+=("$seconds")
    ((kilobytes > memory)) && memory=$kilobytes
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((repeat + 1) / 2))p")
  printf '%-16s median %6.2f s of %s (%s), max %d MB\n' "$tu" "$median" "$repeat" \
    "${times[*]}" $((memory / 1024))
done
