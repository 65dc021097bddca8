#!/usr/bin/env bash
# bw_rounds.sh — streaming bandwidth 32 KiB .. 1 MiB of ftmpi, Open MPI and MPICH (bench/bandwidth.c) next to
# the copy experiment bench/cma_split.c (one process_vm_readv vs the split readv+writev vs a shared-memory
# ring), every run bracketed by the core-to-core probe (issue 13 target 3; docs/performance.md).
#
# usage: bench/bw_rounds.sh [-r ROUNDS] [-i IMPLS] [-x NAME=BUILD_DIR]... [-E NAME=VAR=VALUE]... [-T SECONDS] [-p PRIO] [BUILD_DIR]
#   -r  rounds (default 6); every round runs the experiment and each implementation once, rotating the order
#   -i  comma list of ftmpi,openmpi,mpich,split (default all four; split = bench/cma_split.c, ways a b d c,
#       then again with the receiver reading its data, -t); ftmpi-WAY (cma, ring, split): ftmpi with
#       FTMPI_RNDV_PATH=WAY; ftmpi-nosplit: ftmpi with FTMPI_RNDV_SPLIT=0 (the automatic choice without the
#       split way: the default before 2026-11-27 07:00)
#   -x  one more ftmpi variant NAME, run like ftmpi from another build directory (e.g. base=build/base)
#   -E  NAME=VAR=VALUE: run variant NAME (ftmpi, ftmpi-WAY or one of -x) with that environment variable
#       (repeatable)
#   -T  seconds of each bandwidth size (default 0.1)
#   -p  SCHED_FIFO priority (`chrt -f`, default 5; 0: none)
#   -R  the receiver reads every message it received (bandwidth.c with BW_READ=1)
# A run counts as "fast" placement when the probes before and after it both read < 100 ns, "slow" when both
# read > 150 ns, else "mixed" (dropped). Raw lines go to the log named at the end:
#   <impl> <placement> <probe before> <probe after> <size> <MB/s>      (impl: ftmpi, openmpi, mpich, or
#   split-a, split-b, ... and split-t-a, ... for the experiment's ways)
# Printed: the median per implementation, placement and size, and ftmpi / best peer.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)
rounds=6
impls=ftmpi,openmpi,mpich,split
seconds=0.1
prio=5
readx=()
extra=()
envs=()
while getopts "r:i:x:E:T:p:Rh" opt; do
  case $opt in
    x) extra+=("$OPTARG") ;;
    E) envs+=("$OPTARG") ;;
    r) rounds=$OPTARG ;;
    i) impls=$OPTARG ;;
    T) seconds=$OPTARG ;;
    p) prio=$OPTARG ;;
    R) export BW_READ=1; readx=(-x BW_READ) ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-$repo/build/release}" && pwd -P)
say() { echo "bw_rounds.sh: $*" >&2; }
may_install=0
. "$here/peers.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-bw.XXXXXX")
trap 'rm -rf "$work"' EXIT
raw=${RAW_LOG:-/tmp/bw_rounds.$$.log}
: >"$raw"
cc -O2 -o "$work/probe" "$here/c2c_probe.c"
cc -O2 -o "$work/split" "$here/cma_split.c"
rt=()
[ "$prio" != 0 ] && rt=(chrt -f "$prio")

IFS=, read -r -a want <<<"$impls"
declare -A bdir=() venv=()
for x in "${extra[@]}"; do
  name=${x%%=*}
  bdir[$name]=$(cd "${x#*=}" && pwd -P)
  cc[$name]=${bdir[$name]}/bin/mpicc
  want+=("$name")
done
for e in "${envs[@]}"; do venv[${e%%=*}]="${venv[${e%%=*}]:-} ${e#*=}"; done
active=()
for v in "${want[@]}"; do
  if [ "$v" = split ]; then active+=(split); continue; fi
  case $v in ftmpi-*) cp "$work/bandwidth.ftmpi" "$work/bandwidth.$v" 2>/dev/null || "${cc[ftmpi]}" -O2 -o "$work/bandwidth.$v" "$here/bandwidth.c"; active+=("$v"); continue ;; esac
  "${cc[$v]}" -O2 -o "$work/bandwidth.$v" "$here/bandwidth.c" >"$work/build.log" 2>&1 &&
    active+=("$v") || { say "$v: building bandwidth.c failed"; cat "$work/build.log" >&2; }
done

launcher() {
  case $1 in
    openmpi) cmd=(mpiexec.openmpi --allow-run-as-root --bind-to core "${readx[@]}" -n 2) ;;
    mpich) cmd=(mpiexec.mpich -bind-to core -n 2) ;;
    ftmpi-nosplit) cmd=(env FTMPI_RNDV_SPLIT=0 "$build/bin/mpiexec" -n 2 --bind-to core) ;;
    ftmpi-*) cmd=(env "FTMPI_RNDV_PATH=${1#ftmpi-}" "$build/bin/mpiexec" -n 2 --bind-to core) ;;
    *) cmd=("${bdir[$1]:-$build}/bin/mpiexec" -n 2 --bind-to core) ;;
  esac
  if [ -n "${venv[$1]:-}" ]; then cmd=(env ${venv[$1]} "${cmd[@]}"); fi
}
probe() { "${rt[@]}" "$work/probe" -n 20000 -k 5; }
place() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a < 100 && b < 100) print "fast"; else if (a > 150 && b > 150) print "slow"; else print "mixed" }'
}
# run_one <impl>: one run, its lines "<impl> <size> <MB/s>" into $work/out
run_one() {
  : >"$work/out"
  if [ "$1" = split ]; then
    "${rt[@]}" "$work/split" -w abdc -r 3 | awk '!/^#/ { split("a b d c", w, " "); for (i = 2; i <= NF; i++) { v = $i; sub(/\(.*/, "", v); print "split-" w[i - 1], $1, v } }' >>"$work/out"
    "${rt[@]}" "$work/split" -w abc -r 3 -t | awk '!/^#/ { split("a b c", w, " "); for (i = 2; i <= NF; i++) { v = $i; sub(/\(.*/, "", v); print "split-t-" w[i - 1], $1, v } }' >>"$work/out"
  else
    launcher "$1"
    timeout -k 5 120 "${rt[@]}" "${cmd[@]}" "$work/bandwidth.$1" -m 32k -M 1m -T "$seconds" 2>>"$work/err" |
      awk -v impl="$1" '!/^#/ && NF >= 2 { print impl, $1, $2 }' >>"$work/out" || true
  fi
}

n=${#active[@]}
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    v=${active[$(((k + r) % n))]}
    say "round $((r + 1))/$rounds $v"
    p0=$(probe)
    run_one "$v"
    p1=$(probe)
    pl=$(place "$p0" "$p1")
    awk -v pl="$pl" -v a="$p0" -v b="$p1" '{ print $1, pl, a, b, $2, $3 }' "$work/out" >>"$raw"
    sleep 1
  done
done

awk '
  function median(key,   m, i, j, v, t) {
    m = cnt[key]; for (i = 1; i <= m; i++) v[i] = val[key, i]
    for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
  }
  $2 != "mixed" { key = $1 SUBSEP $2 SUBSEP $5; val[key, ++cnt[key]] = $6; impl[$1] = 1; size[$5] = 1; runs[$1 SUBSEP $2] = cnt[key] }
  END {
    ni = 0; for (i in impl) names[++ni] = i
    for (i = 2; i <= ni; i++) { t = names[i]; for (j = i - 1; j >= 1 && names[j] > t; j--) names[j + 1] = names[j]; names[j + 1] = t }
    ns = 0; for (s in size) sz[++ns] = s + 0
    for (i = 2; i <= ns; i++) { t = sz[i]; for (j = i - 1; j >= 1 && sz[j] > t; j--) sz[j + 1] = sz[j]; sz[j + 1] = t }
    split("fast slow", pl, " ")
    for (p = 1; p <= 2; p++) {
      printf "== %s placement: MB/s, median (runs) ==\n%-8s", pl[p], "size"
      for (i = 1; i <= ni; i++) printf " %12s", names[i]
      printf "  ftmpi/best-peer\n"
      for (s = 1; s <= ns; s++) {
        printf "%-8d", sz[s]; best = 0; f = 0
        for (i = 1; i <= ni; i++) {
          key = names[i] SUBSEP pl[p] SUBSEP sz[s]
          if (!(key in cnt)) { printf " %12s", "-"; continue }
          m = median(key); printf " %7.0f (%2d)", m, cnt[key]
          if ((names[i] == "openmpi" || names[i] == "mpich") && m > best) best = m
          if (names[i] == "ftmpi") f = m
        }
        if (best > 0 && f > 0) printf "  %.2f", f / best
        printf "\n"
      }
    }
  }' "$raw"
mixed=$(awk '$2 == "mixed"' "$raw" | wc -l)
echo "(lines dropped for disagreeing probes: $mixed; raw lines: $raw)"
