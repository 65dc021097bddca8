#!/usr/bin/env bash
# Several-hosts launcher figures (issue 8) on network-namespace hosts (tests/hosts/netns.sh; root).
#   bench/hosts/run.sh BUILD_DIR [REPS]
# 1. host kill -> every survivor notified: 3 hosts x 2 ranks (FT), SIGKILL every process of host 2 at
#    once; latency = the last survivor's receipt of the last notice - the kill (median, min, max of REPS).
# 2. partition -> notified: `ip link set down` of host 3; same measure (goal <= timeout + one period).
# 2b. inner-daemon kill: 7 hosts x 2 ranks in a tree of fan-out 2; host 2 (with hosts 5 and 6 below it) is
#    killed; hosts 5 and 6 re-attach; latency as in 1 over the 12 survivors.
# 3. start-up: a 3-host job of `true` (6 ranks) and a 7-host one (14 ranks) with our mpiexec (flat and
#    --tree-fanout 2) vs MPICH's Hydra (same agent), median; the three run in turn in every repetition so
#    that a machine's load drifts over all alike. BEFORE=OTHER_BUILD_DIR adds that build's mpiexec (flat)
#    as a fourth, for before/after tables. ONLY=startup skips parts 1-2b, ONLY=notify part 3.
# Parts 1-2b also count the verdict on the victim host: a kill must be judged by its closed connection
# ("lost"), a cut by silence ("cut off").
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd); REPS=${2:-10}
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
NETNS="$root/tests/hosts/netns.sh"
MPIEXEC=$BUILD/bin/mpiexec
tmp=$(mktemp -d)
# The slot of the namespaces up now (a file: measure runs in pipeline subshells), removed on any exit.
trap 's=$(cat "$tmp/slot" 2>/dev/null); [ -n "$s" ] && "$NETNS" down "$s"; rm -rf "$tmp"' EXIT
touch "$tmp/verdict.kill" "$tmp/verdict.cut" "$tmp/verdict.tree"
cc -O2 -o "$tmp/notice_clock" "$here/notice_clock.c"
median() { sort -g | awk '{a[NR]=$1} END {printf "median %.1f ms (min %.1f, max %.1f, n=%d)\n", a[int((NR+1)/2)], a[1], a[NR], NR}'; }

measure() {  # measure kill|cut|tree -> prints one latency in ms
  local how=$1 victim out t
  if [ "$how" = tree ]; then eval "$("$NETNS" up 7)"; else eval "$("$NETNS" up 3)"; fi
  echo "$NETNS_SLOT" >"$tmp/slot"
  victim=ft${NETNS_SLOT}h$([ "$how" = cut ] && echo 3 || echo 2)
  out=$tmp/out
  local shape=(--host "$NETNS_HOSTS" -n 6)
  [ "$how" = tree ] && shape=(--tree-fanout 2 --host "${NETNS_HOSTS//,/:2,}:2")
  "$MPIEXEC" --with-ft ulfm --detector-period 100 --detector-timeout 1000 --rsh-agent "$NETNS_AGENT" \
    "${shape[@]}" "$tmp/notice_clock" 2 >"$out" 2>"$tmp/err" &
  local mp=$!
  sleep 1.5
  if [ "$how" != cut ]; then
    local pids; pids=$(ip netns pids "$victim")
    t=$EPOCHREALTIME; kill -9 $pids
  else
    t=$EPOCHREALTIME; ip link set "${victim}v" down
  fi
  wait $mp || true
  "$NETNS" down "$NETNS_SLOT"; : >"$tmp/slot"
  # The verdict on the victim: a kill must read "lost" (closed connection), a cut "cut off" (silence).
  grep -q "host $victim lost at .*(its daemon's connection closed)" "$tmp/err" && echo closed >>"$tmp/verdict.$how"
  grep -q "host $victim lost at .*fell silent" "$tmp/err" && echo silent >>"$tmp/verdict.$how"
  awk -v t="$t" '/notice-at/ {if ($4 > m) m = $4} END {printf "%.3f\n", (m - t) * 1000}' "$out"
}

if [ "${ONLY:-}" != startup ]; then
verdicts() { printf "  verdicts: %s by a closed connection, %s by silence\n" "$(grep -c closed "$tmp/verdict.$1")" "$(grep -c silent "$tmp/verdict.$1")"; }
echo "host kill -> every survivor notified (3 hosts, 6 ranks):"
for _ in $(seq "$REPS"); do measure kill; done | median; verdicts kill
echo "partition -> every survivor notified (detector period 100 ms, timeout 1000 ms):"
for _ in $(seq "$REPS"); do measure cut; done | median; verdicts cut

echo "inner daemon killed -> every survivor notified (7 hosts x 2 ranks, fan-out 2, host 2 with 2 hosts below):"
for _ in $(seq "$REPS"); do measure tree; done | median; verdicts tree
fi

[ "${ONLY:-}" = notify ] && exit 0
run_time() { local t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; echo "($EPOCHREALTIME - $t0) * 1000" | bc -l; }
for nh in 3 7; do
  np=$((2 * nh))
  echo "start-up + teardown of a $nh-host job of /bin/true, $np ranks:"
  eval "$("$NETNS" up $nh)"; echo "$NETNS_SLOT" >"$tmp/slot"
  : >"$tmp/flat"; : >"$tmp/tree"; : >"$tmp/hydra"; : >"$tmp/before"
  for _ in $(seq "$REPS"); do
    run_time "$MPIEXEC" --rsh-agent "$NETNS_AGENT" --host "$NETNS_HOSTS" -n $np /bin/true >>"$tmp/flat"
    run_time "$MPIEXEC" --tree-fanout 2 --rsh-agent "$NETNS_AGENT" --host "$NETNS_HOSTS" -n $np /bin/true >>"$tmp/tree"
    if command -v mpiexec.mpich >/dev/null; then
      run_time mpiexec.mpich -localhost "$NETNS_ORIGIN_IP" -launcher ssh -launcher-exec "$NETNS_AGENT" \
        -hosts "$NETNS_HOSTS" -n $np /bin/true >>"$tmp/hydra"
    fi
    if [ -n "${BEFORE:-}" ]; then
      run_time "$BEFORE/bin/mpiexec" --rsh-agent "$NETNS_AGENT" --host "$NETNS_HOSTS" -n $np /bin/true >>"$tmp/before"
    fi
  done
  printf "  ftmpi mpiexec (flat):      "; median <"$tmp/flat"
  printf "  ftmpi mpiexec (fan-out 2): "; median <"$tmp/tree"
  [ -s "$tmp/hydra" ] && { printf "  MPICH Hydra:               "; median <"$tmp/hydra"; }
  [ -s "$tmp/before" ] && { printf "  ftmpi BEFORE (flat):       "; median <"$tmp/before"; }
  "$NETNS" down "$NETNS_SLOT"; : >"$tmp/slot"
done
