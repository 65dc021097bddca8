#!/usr/bin/env bash
# Reinit across hosts (issue 9 item 3): host loss with a spare host. Three netns.sh hosts, 4 ranks in 2
# slots each: h1 holds ranks 0-1, h2 ranks 2-3, h3 none (the spare host). h2 is lost — its whole host
# killed (netns.sh kill: a power loss), or rank 2's kill(getppid(), SIGTERM) as Reinit++ programs do
# (its parent is h2's daemon) — and ranks 2-3 must come back RESTARTED on h3 while 0-1 roll back
# (REINITED) on h1; the job finishes with the right result (reinit_host.c) and leaves nothing behind.
# Usage: reinit_hosts_test.sh CASE MPIEXEC PROGRAM; CASE hostkill | getppid. Exit 0 PASS, 1 FAIL, 77 SKIP.
set -u
CASE=$1 MPIEXEC=$2 PROG=$3
here="$(cd "$(dirname "$0")" && pwd)"
NETNS="$here/netns.sh"
"$NETNS" check || exit $?
TMP=$(mktemp -d /tmp/ftmpi-reinit-hosts.XXXXXX)
chmod 755 "$TMP"
eval "$("$NETNS" up 3)" || exit 1
trap '"$NETNS" down "$NETNS_SLOT"; rm -rf "$TMP"' EXIT
S=$NETNS_SLOT H1=ft${S}h1 H2=ft${S}h2 H3=ft${S}h3

fail() { echo "FAIL [$CASE]: $*"; echo "--- stdout:"; cat "$TMP/out"; echo "--- stderr:"; cat "$TMP/err"; exit 1; }
MX=("$MPIEXEC" --rsh-agent "$NETNS_AGENT" --with-ft reinit --host "$H1:2,$H2:2,$H3:2" -n 4 --timeout 60)
case "$CASE" in
hostkill)
  "${MX[@]}" "$PROG" "$TMP/ck" wait </dev/null >"$TMP/out" 2>"$TMP/err" &
  MPID=$!
  for _ in $(seq 1 600); do [ -e "$TMP/ck/started" ] && break; kill -0 $MPID 2>/dev/null || break; sleep 0.05; done
  [ -e "$TMP/ck/started" ] || { wait $MPID; fail "the job did not reach step 5"; }
  "$NETNS" kill "$H2"
  wait $MPID; RC=$? ;;
getppid)
  "${MX[@]}" "$PROG" "$TMP/ck" getppid 2 </dev/null >"$TMP/out" 2>"$TMP/err"; RC=$? ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac

[ "$RC" = 0 ] || fail "exit status $RC, expected 0"
grep -q "^PASS reinit_host" "$TMP/out" || fail "no PASS line"
grep -q "^FAIL" "$TMP/out" && fail "a rank failed"
grep -qE "host $H2 lost" "$TMP/err" || fail "stderr does not report $H2 lost"
grep -qE "ranks of lost host $H2 move to host $H3" "$TMP/err" || fail "the ranks did not move to the spare host $H3"
grep -qE "epoch [0-9]+ committed" "$TMP/err" || fail "no committed rollback in the timeline"
# 2 = OMPI_REINIT_REINITED, 3 = OMPI_REINIT_RESTARTED (mpi-ext.h)
for r in 2 3; do grep -q "^rank $r state 3 host $H3 " "$TMP/out" || fail "rank $r did not come back RESTARTED on $H3"; done
for r in 0 1; do grep -q "^rank $r state 2 host $H1 " "$TMP/out" || fail "rank $r did not roll back (REINITED) on $H1"; done
sleep 0.2
for h in $H1 $H3; do [ -z "$(ip netns pids "$h" 2>/dev/null)" ] || { ps -ef | grep -v grep | grep -E "ftmpid|reinit_host"; fail "processes left on $h"; }; done
pgrep -f -- "$TMP/ck" >/dev/null && fail "processes left over"
echo "PASS [$CASE]"
