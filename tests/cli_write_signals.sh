#!/bin/sh
# Writes that the system ends with a signal by default: past a file-size limit (ulimit -f,
# SIGXFSZ) each output fails with one line of error and status 1, leaving the earlier file and
# no temporary, and so does the last checkpoint of a run stopped by SIGTERM, which then ends
# by the signal; with the program's stdout a pipe whose reader is gone (SIGPIPE) the run
# still writes every output and exits 0.
#   cli_write_signals.sh CLI WORK HDF5 CHECKPOINTS   (ON where the build writes them)
set -u
cli=$1
work=$2
hdf5=${3:-OFF}
checkpoints=${4:-OFF}
rm -rf "$work"
mkdir -p "$work/out"
cd "$work" || exit 1
failed=0
fail() {
  echo "FAILED: $*"
  failed=1
}
# past_the_limit WHAT STATUS: the run exited with STATUS, its stderr one error line (besides
# progress lines and the notes of a build without libpng or libplot) that names out/a.* as
# too large, no temporary left, the earlier files kept.
past_the_limit() {
  status=$?
  if [ "$status" -ne "$2" ] ||
    [ "$(grep -v -c -e '^wave2d: step ' -e '^wave2d: note: built without' stderr.txt)" -ne 1 ] ||
    ! grep -q "^wave2d: error: cannot write 'out/a\.[a-z0-9]*': .*too large" stderr.txt; then
    fail "$1 past the file-size limit: status $status, stderr:"
    cat stderr.txt
  fi
  leftover=$(ls -A out | grep -v -x -e a.npy -e a.h5 -e a.ck -e double-slit-small.png)
  [ -z "$leftover" ] || fail "$1 past the file-size limit left: $leftover"
  for kept in a.npy a.h5 a.ck; do
    cmp -s out/$kept earlier || fail "$1 past the file-size limit changed out/$kept"
  done
}

echo earlier > out/a.npy
echo earlier > out/a.h5
echo earlier > out/a.ck
cp out/a.npy earlier
outputs="--save-npy out/a.npy"
[ "$hdf5" = ON ] && outputs="$outputs|--save-h5 out/a.h5"
[ "$hdf5" = ON ] || echo "not run: --save-h5 past the limit (this build has no HDF5)"
[ "$checkpoints" = ON ] && outputs="$outputs|--checkpoint-every 4 out/a.ck"
[ "$checkpoints" = ON ] || echo "not run: checkpoints past the limit (this build has none)"
# 64 KiB (ulimit -f counts 512-byte blocks): less than any of the outputs (323 KiB of fields).
IFS='|'
for output in $outputs; do
  unset IFS
  # shellcheck disable=SC2086
  sh -c 'ulimit -f 128 && exec "$@"' sh "$cli" run --scene double-slit-small --steps 4 \
    --backend reference --output out $output > stdout.txt 2> stderr.txt
  past_the_limit "$output" 1
done

unset IFS

# SIGTERM while stepping (a background job ignores SIGINT): the last checkpoint is past the
# limit. Sent once the progress shows the run stepping (before, it ends the process at once);
# unsent, the run ends in about two minutes.
if [ "$checkpoints" = ON ]; then
sh -c 'ulimit -f 128 && exec "$@"' sh "$cli" run --scene double-slit-small --steps 200000 \
  --backend reference --output out --checkpoint-every 10000000 out/a.ck --progress lines \
  --progress-every 0.05 > stdout.txt 2> stderr.txt &
pid=$!
for _ in $(seq 100); do
  grep -q "step" stderr.txt && break
  sleep 0.1
done
kill -TERM $pid
wait $pid
past_the_limit "the last checkpoint of a run stopped by SIGTERM" 143
else
  echo "not run: a stopped run's last checkpoint past the limit (this build has no checkpoints)"
fi

# The reader of stdout is gone before the first line.
rm -rf out
status=$( { "$cli" run --scene double-slit-small --steps 4 --backend reference --output out \
  --save-npy out/b.npy 2> stderr.txt; echo $? > status.txt; } | true; cat status.txt)
if [ "$status" -ne 0 ] || [ ! -s out/b.npy ] ||
  grep -q -v '^wave2d: note: built without' stderr.txt; then
  fail "stdout a closed pipe: status $status, out: $(ls -A out 2>&1), stderr: $(cat stderr.txt)"
fi
leftover=$(ls -A out | grep -v -x -e b.npy -e double-slit-small.png)
[ -z "$leftover" ] || fail "stdout a closed pipe left: $leftover"
exit $failed
