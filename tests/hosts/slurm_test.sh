#!/usr/bin/env bash
# slurm_test.sh PROG — `srun --mpi=pmi2 -N3 -n6 PROG` on a Slurm cluster of 3 netns.sh hosts (one slurmd in each,
# slurmctld on the origin; slurm_netns.sh): ftmpi's PMI-2 client is chosen from Slurm's environment, host
# identity comes from Slurm's PMI_process_mapping (2 ranks per host share memory, the others use TCP),
# and the job (ring, 8 MiB exchanges, collectives) passes. Daemons and namespaces are always removed.
set -euo pipefail
prog=${1:?program}
here="$(cd "$(dirname "$0")" && pwd)"
"$here/netns.sh" check || exit $?
"$here/slurm_netns.sh" check || exit $?
eval "$("$here/netns.sh" up 3)"
out=$(mktemp)
trap 'rm -f "$out"; "$here/slurm_netns.sh" down "$NETNS_SLOT"; "$here/netns.sh" down "$NETNS_SLOT"' EXIT
eval "$("$here/slurm_netns.sh" up "$NETNS_SLOT")"
export SLURM_CONF
rc=0
FTMPI_DEBUG=1 timeout 90 srun --mpi=pmi2 -N3 -n6 "$prog" 1 >"$out" 2>&1 || rc=$?
if [ $rc != 0 ] || ! grep -q "^PASS hosts_ring" "$out"; then echo "FAIL: srun (rc $rc)"; grep -v "debug:" "$out" | tail -40; exit 1; fi
grep -q "PMI-2: rank 0 of 6" "$out" || { echo "FAIL: the PMI-2 client was not used"; exit 1; }
[ "$(grep -c ": 2 rank(s) on this host" "$out")" = 6 ] || { echo "FAIL: SHARED split"; grep "on this host" "$out"; exit 1; }
# Block placement: ranks 2k and 2k+1 share a host.
for r in 0 1 2 3 4 5; do
  want=$(( r ^ 1 ))
  grep -E "ftmpi\[$r\] debug: router: .*shm with \[$want\], tcp with \[[0-9,]+\]" "$out" >/dev/null ||
    { echo "FAIL: rank $r routes"; grep "router:" "$out"; exit 1; }
done
grep "rank(s) on this host" "$out" | sort | head -6 || true  # a diagnostic listing (head may cut sort short)
echo "PASS slurm (srun --mpi=pmi2 -N3 -n6 on 3 netns hosts)"
