#!/bin/sh
# A signal to one rank of `mpirun -n 2 wave2d run` stops the run on every rank, and every
# rank ends by that signal, as the run on one process does (the other rank learns of it
# from the first).
#   cli_distributed_signals.sh MPIEXEC CLI WORK
set -u
mpiexec=$1 cli=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAILED: $*"; cat log 2> /dev/null; exit 1; }

# SIGTERM and SIGHUP: a shell starts its background jobs ignoring SIGINT.
for signal in TERM:15 HUP:1; do
  number=${signal#*:} signal=${signal%:*}
  rm -f pid.* status.* log
  # Each rank records its wave2d's pid and exit status.
  "$mpiexec" -n 2 --oversubscribe --bind-to none sh -c '
    r=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}; "$@" & echo $! > pid.$r; wait $!; echo $? > status.$r
  ' sh "$cli" run --scene double-slit --steps 50000 --backend kokkos-mdrange --output o \
    --progress lines --progress-every 0.2 > log 2>&1 &
  job=$!
  waited=0
  until grep -q "wave2d: step" log 2> /dev/null && [ -s pid.1 ]; do
    kill -0 $job 2> /dev/null || fail "the run ended before it was signalled"
    sleep 0.2
    waited=$((waited + 1))
    [ $waited -lt 600 ] || fail "the run never stepped"
  done
  kill -$signal "$(cat pid.1)"
  wait $job
  expected=$((128 + number))
  for rank in 0 1; do
    [ -s status.$rank ] || fail "rank $rank recorded no status (SIG$signal)"
    [ "$(cat status.$rank)" = $expected ] ||
      fail "rank $rank ended with status $(cat status.$rank), not $expected (SIG$signal to rank 1)"
  done
  grep -q "wave2d: interrupted after step" log || fail "no line says where the run stopped"
  echo "SIG$signal to rank 1: both ranks ended by it (status $expected)"
done
