#!/usr/bin/env bash
# One-sided communication across hosts (docs/api.md, issue 11 item 2): the tests/mpi/rma programs and the FT
# window test on network-namespace hosts (netns.sh): 2 hosts x 2 ranks, so every window has targets on the
# same host (direct load/store, shared memory) and on the other one (TCP). Usage:
#   rma_hosts_test.sh CASE MPIEXEC BINDIR FT_RMA   CASE: access | ft; BINDIR holds the mpitest_rma_* programs,
#                                               FT_RMA is tests/ft's mpitest_ft_rma.
# access: rma_basic, rma_direct (allocate, create, dynamic windows), rma_zero, rma_acc_contention, rma_errors;
# ft: ft_rma fence / lock / acclock / fence alloc / lock dynamic with --with-ft ulfm (a target killed inside a
# fence or a lock epoch: the survivors' synchronization ends in error, their own epochs go on).
# Exit 0 PASS, 1 FAIL, 77 SKIP (no namespaces).
set -u
CASE=$1 MPIEXEC=$2 BIN=$3 FTRMA=${4:-}
here="$(cd "$(dirname "$0")" && pwd)"
NETNS="$here/netns.sh"
"$NETNS" check || exit $?
TMP=$(mktemp -d /tmp/ftmpi-rma-hosts.XXXXXX)
eval "$("$NETNS" up 2)" || exit 1
trap '"$NETNS" down "$NETNS_SLOT"; rm -rf "$TMP"' EXIT
S=$NETNS_SLOT H1=ft${S}h1 H2=ft${S}h2
MX=("$MPIEXEC" --rsh-agent "$NETNS_AGENT" --host "$H1:2,$H2:2" -n 4)

fail() { echo "FAIL [$CASE]: $*"; echo "--- stdout:"; cat "$TMP/out"; echo "--- stderr:"; cat "$TMP/err"; exit 1; }
run() { timeout 90 "$@" </dev/null >"$TMP/out" 2>"$TMP/err"; RC=$?; }

case "$CASE" in
access)
  for p in "rma_basic" "rma_direct" "rma_direct create" "rma_direct dynamic" "rma_zero" "rma_acc_contention" "rma_errors"; do
    set -- $p
    run "${MX[@]}" "$BIN/mpitest_$1" ${2:-}
    [ "$RC" = 0 ] || fail "$p: exit status $RC"
    grep -q "FAIL" "$TMP/out" && fail "$p reported a failure"
    grep -q "^PASS $1" "$TMP/out" || fail "$p: no PASS line"
    echo "ok $p (2 hosts x 2 ranks)"
  done ;;
ft)
  for c in "fence" "lock" "acclock" "fence alloc" "lock dynamic"; do
    run "${MX[@]}" --with-ft ulfm "$FTRMA" $c
    [ "$RC" = 0 ] || fail "ft_rma $c: exit status $RC"
    grep -q "FAIL" "$TMP/out" "$TMP/err" && fail "ft_rma $c reported a failure"
    grep -q "1 rank failed during the job: .*survivors completed" "$TMP/err" "$TMP/out" || fail "ft_rma $c: no killed rank with survivors"
    echo "ok ft_rma $c (2 hosts x 2 ranks)"
  done ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
sleep 0.2
for h in $H1 $H2; do
  [ -z "$(ip netns pids "$h" 2>/dev/null)" ] || fail "processes left on $h"
done
echo "PASS rma_hosts $CASE"
