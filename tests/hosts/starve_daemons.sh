#!/usr/bin/env bash
# Manual stress run, not in ctest (it starves CPU 0 for HOG seconds with a SCHED_FIFO loop). Starve mpiexec and both hosts' ftmpid together (pinned to CPU 0 next to a SCHED_FIFO busy loop for HOG s),
# during a 2-host job of `sleep 5` ranks (no FT: a lost host fails the job). Usage: starve_daemons.sh BINDIR HOG (e.g. build/release/bin 1.6). Prints rc=0 and "2 done" when the job survived.
set -u
BIN=$1 HOG=$2
NETNS="$(cd "$(dirname "$0")" && pwd)/netns.sh"
eval "$("$NETNS" up 2)" || exit 77
TMP=$(mktemp -d /tmp/s16-starve.XXXXXX)
trap '"$NETNS" down "$NETNS_SLOT"; rm -rf "$TMP"' EXIT
S=$NETNS_SLOT
"$BIN/mpiexec" --rsh-agent "$NETNS_AGENT" --host "ft${S}h1,ft${S}h2" -n 2 sh -c 'sleep 5; echo done' >"$TMP/out" 2>"$TMP/err" &
MP=$!
sleep 1.5
D=$(for h in ft${S}h1 ft${S}h2; do ip netns pids "$h" | while read p; do [ "$(cat /proc/$p/comm)" = ftmpid ] && echo $p; done; done | tr '\n' ' ')
[ -n "$D" ] || { echo "no daemon"; kill $MP; exit 2; }
for p in $MP $D; do taskset -p -c 0 $p >/dev/null; done
chrt -f 50 taskset -c 0 sh -c 'while :; do :; done' &
H=$!
sleep $HOG
kill $H; wait $H 2>/dev/null
for p in $MP $D; do taskset -p -c 0,1 $p >/dev/null 2>&1; done
wait $MP; RC=$?
echo "rc=$RC $(grep -c done "$TMP/out") done; $(grep -E 'silent|lost' "$TMP/err" | head -2 | tr '\n' ' ')"
