#!/usr/bin/env bash
# Several-hosts launcher figures (issue 8) on network-namespace hosts (tests/hosts/netns.sh; root).
#   bench/hosts/run.sh BUILD_DIR [REPS]
# 1. host kill -> every survivor notified: 3 hosts x 2 ranks (FT), SIGKILL every process of host 2 at
#    once; latency = the last survivor's receipt of the last notice - the kill (median, min, max of REPS).
# 2. partition -> notified: `ip link set down` of host 3; same measure (goal <= timeout + one period).
# 3. start-up: a 3-host job of `true` (6 ranks) with our mpiexec vs MPICH's Hydra (same agent), median.
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd); REPS=${2:-10}
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
NETNS="$root/tests/hosts/netns.sh"
MPIEXEC=$BUILD/bin/mpiexec
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/notice_clock" "$here/notice_clock.c"
median() { sort -g | awk '{a[NR]=$1} END {printf "median %.1f ms (min %.1f, max %.1f, n=%d)\n", a[int((NR+1)/2)], a[1], a[NR], NR}'; }

measure() {  # measure kill|cut -> prints one latency in ms
  local how=$1 victim out t
  eval "$("$NETNS" up 3)"
  victim=ft${NETNS_SLOT}h$([ "$how" = kill ] && echo 2 || echo 3)
  out=$tmp/out
  "$MPIEXEC" --with-ft ulfm --detector-period 100 --detector-timeout 1000 --rsh-agent "$NETNS_AGENT" \
    --host "$NETNS_HOSTS" -n 6 "$tmp/notice_clock" 2 >"$out" 2>"$tmp/err" &
  local mp=$!
  sleep 1.5
  if [ "$how" = kill ]; then
    local pids; pids=$(ip netns pids "$victim")
    t=$EPOCHREALTIME; kill -9 $pids
  else
    t=$EPOCHREALTIME; ip link set "${victim}v" down
  fi
  wait $mp || true
  "$NETNS" down "$NETNS_SLOT"
  awk -v t="$t" '/notice-at/ {if ($4 > m) m = $4} END {printf "%.3f\n", (m - t) * 1000}' "$out"
}

echo "host kill -> every survivor notified (3 hosts, 6 ranks):"
for _ in $(seq "$REPS"); do measure kill; done | median
echo "partition -> every survivor notified (detector period 100 ms, timeout 1000 ms):"
for _ in $(seq "$REPS"); do measure cut; done | median

echo "start-up + teardown of a 3-host job of /bin/true, 6 ranks:"
eval "$("$NETNS" up 3)"; trap '"$NETNS" down "$NETNS_SLOT"; rm -rf "$tmp"' EXIT
run_time() { local t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; echo "($EPOCHREALTIME - $t0) * 1000" | bc -l; }
printf "  ftmpi mpiexec: "
for _ in $(seq "$REPS"); do run_time "$MPIEXEC" --rsh-agent "$NETNS_AGENT" --host "$NETNS_HOSTS" -n 6 /bin/true; done | median
if command -v mpiexec.mpich >/dev/null; then
  printf "  MPICH Hydra:   "
  for _ in $(seq "$REPS"); do
    run_time mpiexec.mpich -localhost "$NETNS_ORIGIN_IP" -launcher ssh -launcher-exec "$NETNS_AGENT" -hosts "$NETNS_HOSTS" -n 6 /bin/true
  done | median
fi
