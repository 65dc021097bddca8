#!/usr/bin/env bash
# msgrate_rounds.sh — 1-byte latency and 8-byte message rate, ftmpi next to Open MPI and MPICH, each run
# bracketed by the core-to-core placement probe (issue 13 targets 1 and 2).
#
# usage: bench/msgrate_rounds.sh [-r ROUNDS] [-i IMPLS] [-x NAME=BUILD_DIR]... [-T SECONDS] [-p PRIO] [BUILD_DIR]
#   -r  rounds (default 8); every round runs each implementation once, in rotating order
#   -i  comma list of ftmpi,openmpi,mpich (default all three)
#   -x  one more ftmpi variant: NAME=BUILD_DIR (e.g. base=/tmp/base/build/release), run like ftmpi, its
#       programs built with that build's mpicc and run with its mpiexec (a before/after in the same rounds);
#       or NAME=LIB_DIR (a directory holding a copy of another libmpi.so.0): the ftmpi programs and mpiexec,
#       run with LD_LIBRARY_PATH=LIB_DIR (which takes precedence over the programs' RUNPATH)
#   -E  NAME=VAR=VALUE: run variant NAME (ftmpi or one of -x; given before) with that environment variable
#       (repeatable; -x NAME=DIR -E NAME=FTMPI_X=1 compares a setting in the same rounds)
#   -T  seconds of each timed loop (default 0.3)
#   -p  SCHED_FIFO priority of the runs (`chrt -f`, default 1; 0: no chrt). Real-time priority keeps the two
#       ranks on their cores for the ~1 s of a run on a machine other jobs share
#
# Why: the VM's two vCPUs are moved by the host every few tens of seconds between a placement where they
# share a cache (a cache line goes core to core in ~50 ns) and one where it crosses (~200-250 ns); every
# shared-memory latency and rate moves with it (Open MPI's 1-byte latency 0.27 us in one run, 0.54 in the
# next). So each run — pingpong 1 B (`bench/pingpong.c -m 1 -M 1`) and msgrate 8 B (`bench/msgrate.c`) —
# is bracketed by bench/c2c_probe.c (probe, pingpong, probe, msgrate, probe); a run whose two probes agree
# counts as "fast" (< 100 ns) or "slow" (> 150 ns) placement, any other is dropped. Printed per placement: the
# median of each implementation, the number of runs counted, and ftmpi / best peer (latency: lower is better;
# rate: higher is better). Raw lines (impl bench placement probe_before probe_after value) go to stderr's log
# file named at the end. Ranks bound to cores 0 and 1 as in bench/run.sh.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)
rounds=8
impls=ftmpi,openmpi,mpich
seconds=0.3
prio=1
extra=()
envs=()
while getopts "r:i:x:E:T:p:h" opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    i) impls=$OPTARG ;;
    x) extra+=("$OPTARG") ;;
    E) envs+=("$OPTARG") ;;
    T) seconds=$OPTARG ;;
    p) prio=$OPTARG ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-$repo/build/release}" && pwd -P)
say() { echo "msgrate_rounds.sh: $*" >&2; }
may_install=0
. "$here/peers.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-rounds.XXXXXX")
trap 'rm -rf "$work"' EXIT
raw=${RAW_LOG:-/tmp/msgrate_rounds.$$.log}
: >"$raw"
cc -O2 -o "$work/probe" "$here/c2c_probe.c"
rt=()
[ "$prio" != 0 ] && rt=(chrt -f "$prio")

declare -A bdir=([ftmpi]=$build) libdir=() venv=()
variants=()
IFS=, read -r -a want <<<"$impls"
for impl in "${want[@]}"; do variants+=("$impl"); done
for x in "${extra[@]}"; do
  name=${x%%=*}
  d=$(cd "${x#*=}" && pwd -P)
  if [ -x "$d/bin/mpicc" ]; then bdir[$name]=$d; else bdir[$name]=$build libdir[$name]=$d; fi
  cc[$name]=${bdir[$name]}/bin/mpicc
  variants+=("$name")
done
for e in "${envs[@]}"; do venv[${e%%=*}]="${venv[${e%%=*}]:-} ${e#*=}"; done
active=()
for v in "${variants[@]}"; do
  ok=1
  for b in pingpong msgrate; do
    "${cc[$v]}" -O2 -o "$work/$b.$v" "$here/$b.c" >"$work/build.log" 2>&1 || { say "$v: building $b failed"; cat "$work/build.log" >&2; ok=0; }
  done
  [ $ok = 1 ] && active+=("$v")
done

launcher() { # launcher <variant>: the launch command into $cmd
  case $1 in
    openmpi) cmd=(mpiexec.openmpi --allow-run-as-root --bind-to core -n 2) ;;
    mpich) cmd=(mpiexec.mpich -bind-to core -n 2) ;;
    *) cmd=("${bdir[$1]}/bin/mpiexec" -n 2 --bind-to core)
       if [ -n "${libdir[$1]:-}" ]; then cmd=(env "LD_LIBRARY_PATH=${libdir[$1]}" "${cmd[@]}"); fi
       if [ -n "${venv[$1]:-}" ]; then cmd=(env ${venv[$1]} "${cmd[@]}"); fi ;;
  esac
}
probe() { "${rt[@]}" "$work/probe" -n 20000 -k 5; }
place() { # place <ns before> <ns after>
  awk -v a="$1" -v b="$2" 'BEGIN { if (a < 100 && b < 100) print "fast"; else if (a > 150 && b > 150) print "slow"; else print "mixed" }'
}

n=${#active[@]}
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    v=${active[$(((k + r) % n))]}
    launcher "$v"
    say "round $((r + 1))/$rounds $v"
    p0=$(probe)
    lat=$(timeout -k 5 60 "${rt[@]}" "${cmd[@]}" "$work/pingpong.$v" -m 1 -M 1 -T "$seconds" 2>>"$work/err" | awk '!/^#/ && NF >= 2 { print $2; exit }') || lat=""
    p1=$(probe)
    rate=$(timeout -k 5 60 "${rt[@]}" "${cmd[@]}" "$work/msgrate.$v" -m 8 -T "$seconds" 2>>"$work/err" | awk '!/^#/ && NF >= 2 { print $2; exit }') || rate=""
    p2=$(probe)
    [ -n "$lat" ] && echo "$v pingpong $(place "$p0" "$p1") $p0 $p1 $lat" >>"$raw"
    [ -n "$rate" ] && echo "$v msgrate $(place "$p1" "$p2") $p1 $p2 $rate" >>"$raw"
    sleep 1
  done
done

report() { # report <bench> <better: low|high>: medians per placement, then each ftmpi variant / best peer
  awk -v bench="$1" -v better="$2" -v impls="${active[*]}" '
    function median(key,   m, i, j, v, t) {
      m = cnt[key]; for (i = 1; i <= m; i++) v[i] = val[key, i]
      for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
      return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    $2 == bench && $3 != "mixed" { key = $1 SUBSEP $3; val[key, ++cnt[key]] = $6 }
    END {
      n = split(impls, im, " ")
      split("fast slow", pl, " ")
      for (p = 1; p <= 2; p++) {
        printf "%-6s", pl[p]
        best = ""; delete med
        for (i = 1; i <= n; i++) {
          key = im[i] SUBSEP pl[p]
          if (!(key in cnt)) { printf " %16s", "-"; continue }
          m = median(key); med[im[i]] = m
          printf (better == "low" ? " %10.3f (%3d)" : " %10.0f (%3d)"), m, cnt[key]
          if (im[i] == "openmpi" || im[i] == "mpich")
            if (best == "" || (better == "low" && m < best) || (better == "high" && m > best)) best = m
        }
        sep = "  "
        for (i = 1; i <= n; i++)
          if (im[i] != "openmpi" && im[i] != "mpich" && (im[i] in med) && best != "" && best > 0) {
            printf "%s%s/best %.2f", sep, im[i], med[im[i]] / best; sep = ", "
          }
        printf "\n"
      }
    }' "$raw"
}
header() { printf "%-6s" placement; for v in "${active[@]}"; do printf " %16s" "$v (runs)"; done; printf "  ratios\n"; }
echo "== 1-byte latency, us (pingpong, median per placement; $rounds rounds) =="
header; report pingpong low
echo "== 8-byte message rate, msgs/s (windows of 64, median per placement) =="
header; report msgrate high
mixed=$(awk '$3 == "mixed"' "$raw" | wc -l)
echo "(runs dropped for disagreeing probes: $mixed; raw lines: $raw)"
