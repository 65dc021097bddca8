#!/bin/sh
# Reinit recovery vs relaunch from a checkpoint, side by side (issue 9). Usage: bench/reinit/run.sh BUILD_DIR [REPS]
# For each size (4, 8, 16 ranks) and REPS repetitions (default 10): one Reinit job whose last rank is killed
# (SIGKILL) at step 20 -> time from the kill until every rank is back in its resilient function with its
# checkpoint read; and one relaunch of the same program from the same checkpoint -> time from starting
# mpiexec until every rank has finished MPI_Init and read its checkpoint. Prints medians and mpiexec's
# breakdown of the last Reinit run (restart, endpoints published, connected).
set -eu
B=${1:?build dir}
REPS=${2:-10}
SIZES=${SIZES:-4 8 16}
# REINIT_ARGS: extra mpiexec options of the Reinit runs (e.g. "--spares 1")
REINIT_ARGS=${REINIT_ARGS:-}
MPIEXEC=$B/bin/mpiexec
TMP=$(mktemp -d /tmp/ftmpi-reinit-bench.XXXXXX)
# CKPT_ROOT=dir: the checkpoints (both the Reinit and the relaunch side) live in a directory under dir
# instead of under /tmp, e.g. CKPT_ROOT=/dev/shm (tmpfs: no rank blocked in ext4 I/O at the kill)
CKPT_ROOT=${CKPT_ROOT:-}
if [ -n "$CKPT_ROOT" ]; then D=$(mktemp -d "$CKPT_ROOT/ftmpi-reinit-ck.XXXXXX"); else D=$TMP/d; fi
trap 'rm -rf "$TMP" "$D"' EXIT
EXE=$TMP/recovery
"$B/bin/mpicc" -O2 -o "$EXE" "$(dirname "$0")/recovery.c"
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# SPARES_TOO=1: each repetition also runs the Reinit job with --spares 1 (a third column, same run)
SPARES_TOO=${SPARES_TOO:-0}
# BASE_ENV="VAR=value ...": each repetition also runs the Reinit job (no spare) with that environment, for a
# before/after column in the same run (e.g. BASE_ENV=FTMPI_REINIT_BOARD=0: fence 1 through mpiexec)
BASE_ENV=${BASE_ENV:-}
# BASE_MPIEXEC=path: the base column runs that mpiexec instead (with BASE_ENV, e.g. LD_LIBRARY_PATH=<its lib dir>):
# another build's before/after in the same run
BASE_MPIEXEC=${BASE_MPIEXEC:-$MPIEXEC}
printf "%6s %14s %14s %14s %8s %8s %14s %14s\n" ranks "reinit(ms)" "spare(ms)" "relaunch(ms)" speedup "spare-x" "base(ms)" "base-spare(ms)"
for n in $SIZES; do
  : > "$TMP/re.$n"; : > "$TMP/sp.$n"; : > "$TMP/bs.$n"; : > "$TMP/bsp.$n"; : > "$TMP/rl.$n"; : > "$TMP/breakdown.$n"; : > "$TMP/breakdown_sp.$n"; : > "$TMP/breakdown_bs.$n"
  for i in $(seq "$REPS"); do
    rm -rf "$D"; mkdir -p "$D"
    "$MPIEXEC" -n "$n" --with-ft reinit $REINIT_ARGS --timeout 60 "$EXE" reinit "$D" > "$TMP/out" 2> "$TMP/err" || true
    sed -n 's/^RECOVERY n=[0-9]* ms=//p' "$TMP/out" >> "$TMP/re.$n"
    grep 'epoch 1 ' "$TMP/err" >> "$TMP/breakdown.$n" || true
    if [ "$SPARES_TOO" = 1 ]; then
      rm -rf "$D"; mkdir -p "$D"
      "$MPIEXEC" -n "$n" --with-ft reinit --spares 1 $REINIT_ARGS --timeout 60 "$EXE" reinit "$D" > "$TMP/out" 2> "$TMP/err" || true
      sed -n 's/^RECOVERY n=[0-9]* ms=//p' "$TMP/out" >> "$TMP/sp.$n"
      grep 'epoch 1 ' "$TMP/err" >> "$TMP/breakdown_sp.$n" || true
    fi
    if [ -n "$BASE_ENV" ] || [ "$BASE_MPIEXEC" != "$MPIEXEC" ]; then
      rm -rf "$D"; mkdir -p "$D"
      env $BASE_ENV "$BASE_MPIEXEC" -n "$n" --with-ft reinit $REINIT_ARGS --timeout 60 "$EXE" reinit "$D" > "$TMP/out" 2> "$TMP/err" || true
      sed -n 's/^RECOVERY n=[0-9]* ms=//p' "$TMP/out" >> "$TMP/bs.$n"
      grep 'epoch 1 ' "$TMP/err" >> "$TMP/breakdown_bs.$n" || true
      if [ "$SPARES_TOO" = 1 ]; then
        rm -rf "$D"; mkdir -p "$D"
        env $BASE_ENV "$BASE_MPIEXEC" -n "$n" --with-ft reinit --spares 1 $REINIT_ARGS --timeout 60 "$EXE" reinit "$D" > "$TMP/out" 2> "$TMP/err" || true
        sed -n 's/^RECOVERY n=[0-9]* ms=//p' "$TMP/out" >> "$TMP/bsp.$n"
      fi
    fi
    rm -rf "$D"; mkdir -p "$D"
    "$MPIEXEC" -n "$n" "$EXE" prepare "$D" > /dev/null
    t0=$(date +%s.%N)
    "$MPIEXEC" -n "$n" --timeout 60 "$EXE" relaunch "$D" "$t0" > "$TMP/out" 2>&1 || true
    sed -n 's/^RELAUNCH n=[0-9]* ms=//p' "$TMP/out" >> "$TMP/rl.$n"
  done
  re=$(median < "$TMP/re.$n"); rl=$(median < "$TMP/rl.$n"); sp=$(median < "$TMP/sp.$n"); bs=$(median < "$TMP/bs.$n"); bsp=$(median < "$TMP/bsp.$n")
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0>0) printf "%.1fx", b/a; else print "-" }'; }
  printf "%6d %14s %14s %14s %8s %8s %14s %14s\n" "$n" "$re" "$sp" "$rl" "$(ratio "$re" "$rl")" "$(ratio "$sp" "$rl")" "$bs" "$bsp"
done
for n in $SIZES; do
  echo "breakdown n=$n (mpiexec, every run):"; sed 's/^/  /' "$TMP/breakdown.$n"
  if [ "$SPARES_TOO" = 1 ]; then echo "breakdown n=$n --spares 1:"; sed 's/^/  /' "$TMP/breakdown_sp.$n"; fi
  if [ -s "$TMP/breakdown_bs.$n" ]; then echo "breakdown n=$n base:"; sed 's/^/  /' "$TMP/breakdown_bs.$n"; fi
done
