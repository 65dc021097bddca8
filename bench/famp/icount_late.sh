#!/bin/sh
# bench/famp/icount_late.sh [build dir] — instructions per call of Allreduce 8 B, agree and the empty commit at
# 2 ranks, at the rank that arrives last (its calls never wait: no polling in the figure), under callgrind.
# Prints, per operation, the per-call inclusive instructions of the cheaper rank (the late one). Under load use
# chrt (the sleeping rank must get a core back within the 50 ms): the script already runs it under chrt -f 5.
# The sleeping rank's peer is asleep when the late rank arrives, so each figure includes one futex wake.
set -e
B=${1:-build/release}
D=$(cd "$(dirname "$0")" && pwd -P)
W=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-late.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$B/bin/mpicc" -O2 -g -o "$W/late" "$D/icount_late.c"
for op in 0 1 2; do
  LATE_OP=$op timeout 900 chrt -f 5 "$B/bin/mpiexec" -n 2 --with-ft ulfm --detector-timeout 60000 -x LATE_OP \
    valgrind --tool=callgrind --toggle-collect='*_timed' --callgrind-out-file="$W/cg.$op.%p" "$W/late" 60 50000 >"$W/log.$op" 2>&1
  best=
  for f in "$W"/cg.$op.*; do
    t=$(callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  case $op in 0) name=allreduce8 ;; 1) name=agree ;; 2) name=commit ;; esac
  echo "$name $(awk -v t="$best" 'BEGIN { printf "%.0f", t / 60 }') instructions per call (late rank)"
done
