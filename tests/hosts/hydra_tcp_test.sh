#!/usr/bin/env bash
# hydra_tcp_test.sh PROG — TCP between hosts under MPICH's Hydra on 3 netns.sh hosts (issue 8 item 1):
#  1. `mpiexec.mpich -launcher ssh -launcher-exec AGENT -hosts a,b,c -n 6 PROG` runs (ring, 8 MiB
#     exchanges, collectives); Hydra places ranks round-robin, and the router must put exactly the two
#     ranks of each host on shared memory (host identity from PMI_process_mapping) and the others on TCP.
#  2. --tcp-if via FTMPI_TCP_IF=eth0 (a name) and FTMPI_TCP_IF=198.18.0.0/15 (a CIDR) work the same.
#  3. An unreachable peer: every rank publishes loopback only (FTMPI_TCP_IF=lo), so ranks on other hosts
#     cannot reach it; the job ends within the bounded connect time with a message naming both ranks and
#     the address, instead of retrying forever.
set -euo pipefail
prog=${1:?program}
here="$(cd "$(dirname "$0")" && pwd)"
"$here/netns.sh" check || exit $?
command -v mpiexec.mpich >/dev/null || { echo "SKIP: mpiexec.mpich not installed"; exit 77; }
eval "$("$here/netns.sh" up 3)"
trap '"$here/netns.sh" down "$NETNS_SLOT"' EXIT
S=$NETNS_SLOT
hydra=(mpiexec.mpich -launcher ssh -launcher-exec "$NETNS_AGENT" -iface "$NETNS_BRIDGE" -hosts "$NETNS_HOSTS")
out=$(mktemp); trap 'rm -f "$out"; "$here/netns.sh" down "$NETNS_SLOT"' EXIT

run() {  # run NAME ENV... -- expects PASS
  local name=$1; shift
  local rc=0
  env "$@" timeout 60 "${hydra[@]}" -n 6 "$prog" 2 >"$out" 2>&1 || rc=$?
  if [ $rc != 0 ] || ! grep -q "^PASS hosts_ring" "$out"; then
    echo "FAIL: $name (rc $rc)"; cat "$out"; exit 1
  fi
  [ "$(grep -c "rank(s) on this host" "$out")" = 6 ] || { echo "FAIL: $name: not 6 ranks"; cat "$out"; exit 1; }
  grep "rank(s) on this host" "$out" | grep -v ": 2 rank(s)" >/dev/null && { echo "FAIL: $name: SHARED split"; cat "$out"; exit 1; }
  echo "ok: $name"
}

# 1. Default interfaces; the router's debug line says which peers are on shm and which on tcp.
rc=0
FTMPI_DEBUG=1 timeout 60 "${hydra[@]}" -n 6 "$prog" 1 >"$out" 2>&1 || rc=$?
if [ $rc != 0 ] || ! grep -q "^PASS hosts_ring" "$out"; then echo "FAIL: default run (rc $rc)"; tail -50 "$out"; exit 1; fi
for r in 0 1 2 3 4 5; do
  line=$(grep -E "ftmpi\[$r\] debug: router: .*shm with" "$out" || true)
  # Round-robin on 3 hosts: rank r shares its host with (r+3)%6 only.
  want_shm=$(( (r + 3) % 6 ))
  grep -qE "shm with \[$want_shm\], tcp with \[[0-9,]+\]" <<<"$line" || { echo "FAIL: rank $r routes: '$line'"; exit 1; }
  grep -oE "tcp with \[[0-9,]+\]" <<<"$line" | grep -E "\b$want_shm\b" >/dev/null && { echo "FAIL: rank $r: same-host peer on tcp"; exit 1; }
done
grep -E "ftmpi\[[01]\] debug: router:" "$out" | sed 's/^.*router:/router:/' || true
echo "ok: hydra 3 hosts x 2 ranks, shm within a host, tcp between hosts"

# 2. Interface selection by name and by CIDR.
run "FTMPI_TCP_IF=eth0" FTMPI_TCP_IF=eth0
run "FTMPI_TCP_IF=198.18.0.0/15" FTMPI_TCP_IF=198.18.0.0/15

# 3. Unreachable peers: bounded, named, and the job ends.
rc=0
start=$(date +%s.%N)
FTMPI_TCP_IF=lo FTMPI_TCP_CONNECT_TIMEOUT=2 timeout 60 "${hydra[@]}" -n 6 "$prog" 1 >"$out" 2>&1 || rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
[ $rc != 0 ] || { echo "FAIL: job with unreachable peers exited 0"; cat "$out"; exit 1; }
[ $rc != 124 ] || { echo "FAIL: job with unreachable peers hung"; cat "$out"; exit 1; }
# Either side may give up first: the dialing rank ("rank A cannot reach rank B at ADDR") or the listening one
# ("rank A (at ADDR,...) never reached rank B"); both name the two ranks and the address.
grep -qE "rank [0-9] cannot reach rank [0-9] at 127\.0\.0\.1:[0-9]+|rank [0-9] \(at 127\.0\.0\.1:[0-9]+[^)]*\) never reached rank [0-9]" "$out" ||
  { echo "FAIL: no message naming both ranks and the address"; cat "$out"; exit 1; }
grep -E "cannot reach rank|never reached rank" "$out" | head -1 | cut -c1-220 || true  # a diagnostic line: head may cut grep short (SIGPIPE under pipefail)
echo "ok: unreachable peers end the job in ${took}s with a message (rc $rc)"
echo "PASS hydra_tcp"
