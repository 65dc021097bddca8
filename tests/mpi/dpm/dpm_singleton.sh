#!/bin/bash
# Dynamic processes from a singleton (docs/dpm.md "From a singleton"): runs tests/mpi/dpm/dpm_singleton.c
# WITHOUT mpiexec; its first dynamic-process call starts ftmpi's mpiexec on demand.
#   dpm_singleton.sh PROGRAM CASE      CASE: spawn multiple kill abort names nompiexec
# Every process of a case carries a unique token in its command line (the singleton, the on-demand mpiexec,
# the children); after each case none may be left, nor a /dev/shm segment of its job.
PROG=$1
CASE=$2
TOKEN="dpmsingleton$$x$RANDOM"
TMP=$(mktemp -d)
# On the way out, whatever this case started and left (found by its unique token) goes.
trap 'for p in $(pgrep -f -- "$TOKEN"); do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
fail() { echo "FAIL ($CASE): $*"; echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"; exit 1; }

# No process of the case within `secs` seconds (the on-demand mpiexec ends its job after the singleton).
expect_gone() {
  local secs=$1
  for _ in $(seq $((secs * 10))); do
    pgrep -f -- "$TOKEN" >/dev/null || return 0
    sleep 0.1
  done
  ps -ef | grep -- "$TOKEN" | grep -v grep
  fail "processes left over after ${secs} s"
}
# No /dev/shm entry of the singleton (pid $1) or of the on-demand mpiexec's job (pid $2).
expect_no_segments() {
  local left
  left=$(ls /dev/shm 2>/dev/null | grep -E -- "singleton-$1([^0-9]|$)|ftmpi-$2-" || true)
  [ -z "$left" ] || fail "segments left in /dev/shm: $left"
}

case "$CASE" in
spawn|multiple|names)
  timeout 60 "$PROG" "$CASE" "$TOKEN" >"$TMP/out" 2>"$TMP/err" </dev/null
  rc=$?
  [ $rc = 0 ] || fail "exit status $rc"
  grep -q "^singleton $CASE ok$" "$TMP/out" || fail "no 'singleton $CASE ok' line"
  # the on-demand mpiexec ends quietly (it crashed once when the singleton was reaped under it)
  expect_gone 10
  if grep -E "^mpiexec:|terminate called|Aborted" "$TMP/err"; then fail "mpiexec complained"; fi
  if [ "$CASE" = spawn ]; then
    # the children's output goes through the on-demand mpiexec to the singleton's stdout
    grep -q "^child 0 of 2 (appnum 0, child) got 7$" "$TMP/out" || fail "child 0's line missing"
    grep -q "^child 1 of 2 (appnum 0, child) got 17$" "$TMP/out" || fail "child 1's line missing"
    grep -q "^child 0 of 2 on stderr$" "$TMP/err" || fail "child 0's stderr line missing"
    grep -q "^child 1 of 2 on stderr$" "$TMP/err" || fail "child 1's stderr line missing"
  elif [ "$CASE" = multiple ]; then
    grep -q "^child 0 of 3 (appnum 0, childA) got 7$" "$TMP/out" || fail "child 0's line missing"
    grep -q "^child 1 of 3 (appnum 1, childB) got 17$" "$TMP/out" || fail "child 1's line missing"
    grep -q "^child 2 of 3 (appnum 1, childB) got 27$" "$TMP/out" || fail "child 2's line missing"
  fi
  expect_gone 10 ;;
nompiexec)
  FTMPI_MPIEXEC=/nonexistent/mpiexec timeout 30 "$PROG" "$CASE" "$TOKEN" >"$TMP/out" 2>"$TMP/err" </dev/null
  rc=$?
  [ $rc != 0 ] || fail "exit status 0 after a fatal error"
  grep -q "^singleton nompiexec returned$" "$TMP/out" || fail "no 'singleton nompiexec returned' line"
  grep -q "FTMPI_MPIEXEC=/nonexistent/mpiexec is not an executable file" "$TMP/err" || fail "no reason on stderr"
  expect_gone 5 ;;
kill|abort)
  "$PROG" "$CASE" "$TOKEN" >"$TMP/out" 2>"$TMP/err" </dev/null &
  pid=$!
  for _ in $(seq 300); do grep -q "^spawned" "$TMP/out" && break; sleep 0.1; done
  grep -q "^spawned" "$TMP/out" || { kill -9 $pid; fail "the spawn did not complete in 30 s"; }
  mpx=$(pgrep -f -- "mpiexec --singleton $pid:.*$TOKEN")
  [ -n "$mpx" ] || { kill -9 $pid; fail "no on-demand mpiexec for pid $pid"; }
  n=$(pgrep -fc -- "waiter $TOKEN")
  [ "$n" = 2 ] || { kill -9 $pid; fail "$n waiting children, expected 2"; }
  if [ "$CASE" = kill ]; then
    kill -9 $pid
    wait $pid
    rc=$?
    [ $rc = 137 ] || fail "exit status $rc, expected 137 (SIGKILL)"
  else
    timeout 30 tail --pid=$pid -f /dev/null
    wait $pid
    rc=$?
    [ $rc = 3 ] || fail "exit status $rc, expected 3 (MPI_Abort's code)"
  fi
  expect_gone 15
  expect_no_segments $pid $mpx ;;
*)
  echo "FAIL: unknown case $CASE"; exit 1 ;;
esac
echo "dpm_singleton $CASE: ok"
