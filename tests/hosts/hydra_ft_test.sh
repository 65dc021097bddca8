#!/usr/bin/env bash
# hydra_ft_test.sh PROG — FT mode with no ftmpi daemon (issue 8 item 6): MPICH's Hydra starts PROG (tests/ft's
# ft_errh_shrink: 6 ranks, rank 3 dies by SIGKILL in its 5th Allreduce) on 3 netns.sh hosts with
# FTMPI_FT=ulfm. Hydra places ranks 0-2 on host a, 3 on b, 4-5 on c (-hosts a:3,b:1,c:2), so the dead rank's
# peers learn of its death from their lost TCP connections (the kernel closes a killed process's sockets),
# not from any launcher. Survivors see MPI_ERR_PROC_FAILED, revoke, shrink to 5, finish, print PASS.
# -disable-auto-cleanup keeps Hydra from killing the survivors when rank 3 dies.
set -euo pipefail
prog=${1:?program}
here="$(cd "$(dirname "$0")" && pwd)"
"$here/netns.sh" check || exit $?
command -v mpiexec.mpich >/dev/null || { echo "SKIP: mpiexec.mpich not installed"; exit 77; }
eval "$("$here/netns.sh" up 3)"
out=$(mktemp)
trap 'rm -f "$out"; "$here/netns.sh" down "$NETNS_SLOT"' EXIT
IFS=, read -r a b c <<<"$NETNS_HOSTS"
rc=0
FTMPI_FT=ulfm timeout 60 mpiexec.mpich -launcher ssh -launcher-exec "$NETNS_AGENT" -iface "$NETNS_BRIDGE" \
  -disable-auto-cleanup -hosts "$a:3,$b:1,$c:2" -n 6 "$prog" >"$out" 2>&1 || rc=$?
[ $rc != 124 ] || { echo "FAIL: hung"; cat "$out"; exit 1; }
grep -q "PASS ft_errh_shrink (5 survivors)" "$out" || { echo "FAIL: no PASS (rc $rc)"; cat "$out"; exit 1; }
if grep -q "FAIL" "$out"; then echo "FAIL in output"; cat "$out"; exit 1; fi
grep -m1 "counted as failed" "$out" || true
echo "PASS hydra_ft (Hydra rc $rc)"
