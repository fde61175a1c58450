#!/bin/sh
# `wave2d run` refuses, with its usage status 2 and a line naming what is too large, a
# run that cannot fit in memory: a receivers' trace of more steps than memory holds (with
# its copy for the files), a grid beyond an address-space or data limit (ulimit -v, -d), a
# grid that fits but not with its pictures; and a step count at int64's limit.
#   cli_memory_limits.sh CLI WORK CASE SCENE_FILES(ON|OFF) PNG(ON|OFF) [sanitized]
set -u
cli=$1
work=$2
case=$3
if [ "$4" != ON ]; then
  echo "skipped: this build reads no scene files (toml++ not found), which every case uses"
  exit 77
fi
if [ "$5" != ON ] && [ "$case" = pictures ]; then
  echo "skipped: this build draws no pictures (libpng not found)"
  exit 77
fi
if [ "${6:-}" = sanitized ] && [ "$case" != steps ]; then
  echo "skipped: AddressSanitizer reserves terabytes of address space, so no program built" \
       "with it starts under ulimit -v or -d"
  exit 77
fi
mkdir -p "$work"
cd "$work" || exit 1
cat > receiver.toml << 'SCENE'
[grid]
nx = 40
ny = 30
[time]
steps = 5
[[sources]]
x = 10
y = 10
frequency = 20.0
[[receivers]]
x = 30
y = 20
SCENE
{
  printf '[grid]\nnx = 40\nny = 30\n[time]\nsteps = 5\n'
  for i in $(seq 0 255); do
    printf '[[receivers]]\nx = %d\ny = %d\n' $((i % 40)) $((i / 40))
  done
} > receivers.toml
cat > large.toml << 'SCENE'
[grid]
nx = 8000
ny = 8000
[time]
steps = 5
[[sources]]
x = 10
y = 10
frequency = 20.0
SCENE
cat > pictured.toml << 'SCENE'
[grid]
nx = 4096
ny = 4096
[time]
steps = 2
SCENE

failed=0
# expect STATUS TEXT COMMAND...: the command exits with STATUS, its one line of error has TEXT.
expect() {
  status=$1
  text=$2
  shift 2
  timeout 120 "$@" --output out > stdout.txt 2> stderr.txt
  got=$?
  errors=$(grep -c '^wave2d: error: ' stderr.txt)
  if [ "$got" -ne "$status" ] || [ "$errors" -ne 1 ] || ! grep -qF -- "$text" stderr.txt; then
    echo "FAILED: $* exited with $got, expected $status and one error line with: $text"
    cat stderr.txt
    failed=1
  fi
  if [ -e out ]; then
    echo "FAILED: $* left its output directory"
    failed=1
  fi
}

case $case in
  steps)
    # Refused at once (steps + 1 once wrapped, and the run went on until killed): t's spacing
    # there is checked before any memory is taken.
    expect 2 "time.steps: a step of dt = 0.00641026 does not change t" \
      "$cli" run --scene receiver.toml --backend reference --steps 9223372036854775807
    ;;
  trace)
    # About 1 GiB of address space: the 40 x 30 grid fits, 4e6 steps of 256 receivers not.
    expect 2 "the receivers' trace (4000000 steps x 256 receivers) needs about 7.6 GiB" \
      sh -c 'ulimit -v 1048576 && exec "$@"' sh "$cli" run --scene receivers.toml \
      --backend reference --steps 4000000
    ;;
  trace-copy)
    # A trace that fits once (0.67 GiB) but not beside its copy for the files: refused
    # before the steps, not failed after them.
    expect 2 "the receivers' trace (700000 steps x 256 receivers) needs about 1.3 GiB" \
      sh -c 'ulimit -v 1048576 && exec "$@"' sh "$cli" run --scene receivers.toml \
      --backend reference --steps 700000
    ;;
  address-space)
    # About 1 GiB of address space: the grid needs more than 3 GiB.
    expect 2 "the 8000 x 8000 grid needs about" \
      sh -c 'ulimit -v 1048576 && exec "$@"' sh "$cli" run --scene large.toml --backend reference
    ;;
  data)
    expect 2 "the 8000 x 8000 grid needs about" \
      sh -c 'ulimit -d 1048576 && exec "$@"' sh "$cli" run --scene large.toml --backend reference
    ;;
  pictures)
    # 960 MiB of address space: the grid's 640 MiB fit, not with the 313 MiB of its picture
    # (once refused only when drawn, after the steps).
    expect 2 "the 4096 x 4096 grid with its pictures needs about 952.5 MiB" \
      sh -c 'ulimit -v 983040 && exec "$@"' sh "$cli" run --scene pictured.toml --backend reference
    ;;
  *)
    echo "unknown case $case"
    exit 1
    ;;
esac
exit $failed
