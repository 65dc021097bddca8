#!/usr/bin/env bash
# Reinit recovery on 2 network-namespace hosts (tests/hosts/netns.sh; root), with and without warm spares
# (--spares 1: one per host, kept by each host's daemon), side by side in every repetition.
#   bench/hosts/reinit_spares.sh BUILD_DIR [REPS]
# 1. rank kill: 2 hosts x 2 ranks, bench/reinit/recovery.c; the last rank (on host 2) kills itself at step
#    20 (after RECOVERY_WAIT_MS=1500 so that the spares wait in MPI_Init): kill -> every rank back in its
#    resilient function with its checkpoint read (max over ranks), with --spares 1 (host 2's spare takes
#    it over) and without (host 2's daemon forks+execs a new process).
# 2. host kill: 3 hosts (ranks on hosts 1-2, none on host 3), tests/hosts/reinit_host.c; host 2 killed whole
#    (netns.sh kill): mpiexec's "epoch N committed: ... ms after the failure was seen", with --spares 1
#    (ranks 2-3 taken over by the spares of hosts 3 and 1) and without (both forked on host 3).
# Prints medians (min, max) and the last rollback timeline of each kind. Both measures end after the
# commit, so the replenishing spare's start-up (exec, loading: it starts at the commit) competes with the
# ranks' resumption on a machine with few cores; "committed" excludes it.
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd); REPS=${2:-10}
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
NETNS="$root/tests/hosts/netns.sh"
MPIEXEC=$BUILD/bin/mpiexec
HOSTPROG=$BUILD/tests/hosts/reinit_host
tmp=$(mktemp -d /tmp/ftmpi-bench-spares.XXXXXX)
chmod 755 "$tmp"
trap 's=$(cat "$tmp/slot" 2>/dev/null || true); [ -n "$s" ] && "$NETNS" down "$s"; rm -rf "$tmp"' EXIT
"$BUILD/bin/mpicc" -O2 -o "$tmp/recovery" "$root/bench/reinit/recovery.c"
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "n=0"; exit} printf "median %.1f ms (min %.1f, max %.1f, n=%d)\n", a[int((NR+1)/2)], a[1], a[NR], NR}'; }

eval "$("$NETNS" up 3)"
echo "$NETNS_SLOT" >"$tmp/slot"
H1=ft${NETNS_SLOT}h1 H2=ft${NETNS_SLOT}h2 H3=ft${NETNS_SLOT}h3
: >"$tmp/rank.0"; : >"$tmp/rank.1"; : >"$tmp/rankc.0"; : >"$tmp/rankc.1"; : >"$tmp/host.0"; : >"$tmp/host.1"
for _ in $(seq "$REPS"); do
  for sp in 0 1; do
    args=(); [ "$sp" = 1 ] && args=(--spares 1)
    rm -rf "$tmp/d"; mkdir -p "$tmp/d"
    "$MPIEXEC" --rsh-agent "$NETNS_AGENT" --with-ft reinit "${args[@]}" --host "$H1:2,$H2:2" -n 4 --timeout 60 \
      -x RECOVERY_WAIT_MS=1500 "$tmp/recovery" reinit "$tmp/d" >"$tmp/out" 2>"$tmp/err" || true
    sed -n 's/^RECOVERY n=[0-9]* ms=//p' "$tmp/out" >>"$tmp/rank.$sp"
    sed -n 's/.*epoch [0-9]* committed: every rank rolled back (\([0-9.]*\) ms after.*/\1/p' "$tmp/err" | head -n 1 >>"$tmp/rankc.$sp"
    grep -E "taken over|started as pid|rollback timeline" "$tmp/err" >"$tmp/tl.rank.$sp" || true
  done
  for sp in 0 1; do
    args=(); [ "$sp" = 1 ] && args=(--spares 1)
    rm -rf "$tmp/ck"; mkdir -p "$tmp/ck"
    "$MPIEXEC" --rsh-agent "$NETNS_AGENT" --with-ft reinit "${args[@]}" --host "$H1:2,$H2:2,$H3:2" -n 4 --timeout 60 \
      "$HOSTPROG" "$tmp/ck" wait </dev/null >"$tmp/out" 2>"$tmp/err" &
    mp=$!
    for _ in $(seq 1 600); do [ -e "$tmp/ck/started" ] && break; kill -0 $mp 2>/dev/null || break; sleep 0.05; done
    sleep 0.5  # the spares reach MPI_Init
    "$NETNS" kill "$H2"
    wait $mp || true
    sed -n 's/.*epoch [0-9]* committed: every rank rolled back (\([0-9.]*\) ms after.*/\1/p' "$tmp/err" | head -n 1 >>"$tmp/host.$sp"
    grep -E "taken over|started as pid|rollback timeline" "$tmp/err" >"$tmp/tl.host.$sp" || true
    # The lost host comes back for the next run (netns.sh kill leaves the namespace).
  done
done
echo "rank kill on host 2 of 2 (2 ranks per host), kill -> every rank back in its resilient function:"
printf "  no spare (fork+exec by the daemon): "; median <"$tmp/rank.0"
printf "  --spares 1 (its host's spare):      "; median <"$tmp/rank.1"
echo "  the same runs, failure seen -> epoch committed (mpiexec's timeline):"
printf "  no spare:                           "; median <"$tmp/rankc.0"
printf "  --spares 1:                         "; median <"$tmp/rankc.1"
echo "  last timelines:"; sed 's/^/    no spare: /' "$tmp/tl.rank.0"; sed 's/^/    spare:    /' "$tmp/tl.rank.1"
echo "host 2 of 3 killed (ranks 2-3), failure seen -> epoch committed (mpiexec's timeline):"
printf "  no spare (both forked on host 3):   "; median <"$tmp/host.0"
printf "  --spares 1 (spares of hosts 3, 1):  "; median <"$tmp/host.1"
echo "  last timelines:"; sed 's/^/    no spare: /' "$tmp/tl.host.0"; sed 's/^/    spare:    /' "$tmp/tl.host.1"
