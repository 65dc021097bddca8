#!/usr/bin/env bash
# MPI_Comm_spawn across hosts (docs/dpm.md): the parents run on network-namespace hosts (netns.sh), the
# children are started by the daemon of the host they are placed on. Usage: dpm_hosts_test.sh CASE MPIEXEC
# HOSTS_SPAWN [ACCEPT_CONNECT]. Exit 0 PASS, 1 FAIL, 77 SKIP (no namespaces).
set -u
CASE=$1 MPIEXEC=$2 PROG=$3 ACCEPT=${4:-}
here="$(cd "$(dirname "$0")" && pwd)"
NETNS="$here/netns.sh"
"$NETNS" check || exit $?
TMP=$(mktemp -d /tmp/ftmpi-dpm-hosts.XXXXXX)
eval "$("$NETNS" up 3)" || exit 1
trap '"$NETNS" down "$NETNS_SLOT"; rm -rf "$TMP"' EXIT
S=$NETNS_SLOT H1=ft${S}h1 H2=ft${S}h2 H3=ft${S}h3
MX=("$MPIEXEC" --rsh-agent "$NETNS_AGENT")

fail() { echo "FAIL [$CASE]: $*"; echo "--- stdout:"; cat "$TMP/out"; echo "--- stderr:"; cat "$TMP/err"; exit 1; }
run() { timeout 60 "$@" </dev/null >"$TMP/out" 2>"$TMP/err"; RC=$?; }
expect_rc() { [ "$RC" = "$1" ] || fail "exit status $RC, expected $1"; }
expect_out() { grep -qE -- "$1" "$TMP/out" || fail "stdout lacks /$1/"; }
expect_err() { grep -qE -- "$1" "$TMP/err" || fail "stderr lacks /$1/"; }
count_out() { grep -cE -- "$1" "$TMP/out"; }
expect_no_leftovers() {
  sleep 0.2
  for h in $H1 $H2 $H3; do
    [ -z "$(ip netns pids "$h" 2>/dev/null)" ] || { ps -ef | grep -v grep | grep -E "ftmpid|hosts_spawn"; fail "processes left on $h"; }
  done
}

case "$CASE" in
host)
  # info "host": both children on the named host, which runs no parent; MPI_UNIVERSE_SIZE = the slots.
  run "${MX[@]}" --host "$H1,$H2,$H3" -n 1 "$PROG" place 2 "$H3"
  expect_rc 0
  expect_out "^child 0 on $H3$"; expect_out "^child 1 on $H3$"
  expect_out "^parent 0 universe 3 ok"
  # 2 parents on h1, children on h2, by name and then on the parents' own host.
  run "${MX[@]}" --host "$H1:2,$H2:2" -n 2 "$PROG" place 3 "$H2"
  expect_rc 0
  [ "$(count_out "^child [0-2] on $H2$")" = 3 ] || fail "3 children on $H2 expected"
  expect_out "^parent 1 universe 4 ok"
  expect_no_leftovers ;;
place)
  # Default placement: the free slots in host order (h1's one slot holds the parent).
  run "${MX[@]}" --host "$H1:1,$H2:2,$H3:1" -n 1 "$PROG" place 3
  expect_rc 0
  expect_out "^child 0 on $H2$"; expect_out "^child 1 on $H2$"; expect_out "^child 2 on $H3$"
  expect_out "^parent 0 universe 4 ok"
  # A hostfile's slots make MPI_UNIVERSE_SIZE; the children fill h2's free slots.
  printf '%s slots=1\n%s slots=2\n' "$H1" "$H2" >"$TMP/hostfile"
  run "${MX[@]}" --hostfile "$TMP/hostfile" -n 1 "$PROG" place 2
  expect_rc 0
  expect_out "^child 0 on $H2$"; expect_out "^child 1 on $H2$"
  expect_out "^parent 0 universe 3 ok"
  # More children than free slots: the rest is spread over the hosts (oversubscription), shared memory
  # among the children of one host, TCP between hosts.
  run "${MX[@]}" --host "$H1,$H2" -n 1 "$PROG" place 5
  expect_rc 0
  [ "$(count_out "^child [0-4] on ft${S}h[12]$")" = 5 ] || fail "5 children on h1/h2 expected"
  expect_out "^parent 0 universe 2 ok"
  expect_no_leftovers ;;
missing)
  run "${MX[@]}" --host "$H1,$H2" -n 2 "$PROG" missing "$H2"
  expect_rc 0
  expect_out "^parent 0 missing ok$"; expect_out "^parent 1 missing ok$"
  expect_err "cannot spawn on host $H2: .*no-such-program-ftmpi"
  expect_no_leftovers ;;
kill|die)
  # FT: a spawned child killed on another host (after connecting, or before MPI_Init): the parents get an
  # error, nothing hangs, and the failure is reported like a rank's.
  run "${MX[@]}" --with-ft ulfm --host "$H1,$H2" -n 2 "$PROG" "$CASE" "$H2"
  expect_rc 0
  expect_out "^parent 0 $CASE ok$"; expect_out "^parent 1 $CASE ok$"
  expect_no_leftovers ;;
ports)
  # Ports and names across hosts within one job: MPI_Open_port/Publish_name on h1's half, Lookup_name and
  # MPI_Comm_connect from h2's half (tests/mpi/dpm/dpm_accept_connect.c), then exchange and merge.
  run "${MX[@]}" --host "$H1:2,$H2:2" -n 4 "$ACCEPT"
  expect_rc 0
  grep -q FAIL "$TMP/out" && fail "the program reported a failure"
  expect_no_leftovers ;;
*) echo "unknown case $CASE"; exit 1 ;;
esac
echo "PASS [$CASE]"
