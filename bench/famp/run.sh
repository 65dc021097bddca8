#!/bin/sh
# bench/famp/run.sh [build dir] [iters] [rounds] — FA-MPI TryBlock cost at 2, 4, 8 and 16 ranks (ftmpi only).
set -e
B=${1:-build/release}
IT=${2:-4000}
ROUNDS=${3:-20}
D=$(dirname "$0")
"$B/bin/mpicc" -O2 -o "$B/tryblock_bench" "$D/tryblock_bench.c"
for n in ${RANKS:-1 2 4 8 16}; do
  "$B/bin/mpiexec" -n "$n" --with-ft ulfm "$B/tryblock_bench" "$IT" "$ROUNDS"
done
