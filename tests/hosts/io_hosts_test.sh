#!/usr/bin/env bash
# MPI-IO across hosts (docs/io.md): the tests/mpi/io programs and the FT file test on network-namespace hosts
# (netns.sh) that share this machine's file system, as hosts share a parallel or network file system: ranks of
# one file on different hosts, TCP between hosts, shared memory within one. Usage:
#   io_hosts_test.sh CASE MPIEXEC BINDIR FT_IO   CASE: access | ft; BINDIR holds the mpitest_io_* programs,
#                                             FT_IO is tests/ft's mpitest_ft_io.
# access: io_basic, io_shapes, io_external32, io_datarep_wide, io_sieve, io_nbcoll, io_sync on 2 hosts x 2 ranks (and
# io_external32 on 3 hosts x 1); ft: ft_io kill / nbkill / revoke with --with-ft ulfm on 2 hosts x 2 ranks
# (an aggregator killed in a collective write, the survivors' sync and close agree, acknowledged bytes kept).
# Exit 0 PASS, 1 FAIL, 77 SKIP (no namespaces).
set -u
CASE=$1 MPIEXEC=$2 BIN=$3 FTIO=${4:-}
here="$(cd "$(dirname "$0")" && pwd)"
NETNS="$here/netns.sh"
"$NETNS" check || exit $?
TMP=$(mktemp -d /tmp/ftmpi-io-hosts.XXXXXX)
eval "$("$NETNS" up 3)" || exit 1
trap '"$NETNS" down "$NETNS_SLOT"; rm -rf "$TMP"' EXIT
S=$NETNS_SLOT H1=ft${S}h1 H2=ft${S}h2 H3=ft${S}h3
MX=("$MPIEXEC" --rsh-agent "$NETNS_AGENT")

fail() { echo "FAIL [$CASE]: $*"; echo "--- stdout:"; cat "$TMP/out"; echo "--- stderr:"; cat "$TMP/err"; exit 1; }
run() { timeout 90 "$@" </dev/null >"$TMP/out" 2>"$TMP/err"; RC=$?; }
expect_pass() {  # a tests/mpi program: exit 0, "PASS <name>", no FAIL
  [ "$RC" = 0 ] || fail "$1: exit status $RC"
  grep -q "FAIL" "$TMP/out" && fail "$1 reported a failure"
  grep -q "^PASS $1" "$TMP/out" || fail "$1: no PASS line"
  echo "ok $1 ($2)"
}
expect_no_leftovers() {
  sleep 0.2
  for h in $H1 $H2 $H3; do
    [ -z "$(ip netns pids "$h" 2>/dev/null)" ] || { ps -ef | grep -v grep | grep -E "ftmpid|mpitest_"; fail "processes left on $h"; }
  done
}

case "$CASE" in
access)
  for p in io_basic io_shapes io_external32 io_datarep_wide io_sieve io_nbcoll io_sync; do
    run "${MX[@]}" --host "$H1:2,$H2:2" -n 4 "$BIN/mpitest_$p"
    expect_pass "$p" "2 hosts x 2 ranks"
  done
  run "${MX[@]}" --host "$H1,$H2,$H3" -n 3 "$BIN/mpitest_io_external32"
  expect_pass io_external32 "3 hosts x 1 rank"
  expect_no_leftovers ;;
ft)
  for c in kill nbkill revoke; do
    run "${MX[@]}" --with-ft ulfm --host "$H1:2,$H2:2" -n 4 "$FTIO" "$c"
    [ "$RC" = 0 ] || fail "ft_io $c: exit status $RC"
    grep -q "FAIL" "$TMP/out" && fail "ft_io $c reported a failure"
    echo "ok ft_io $c (2 hosts x 2 ranks)"
  done
  expect_no_leftovers ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "PASS io_hosts $CASE"
