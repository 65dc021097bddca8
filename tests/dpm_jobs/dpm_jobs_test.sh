#!/bin/bash
# Two separate mpiexec jobs meeting through a name service (docs/dpm.md "Separate jobs").
# Usage: dpm_jobs_test.sh CASE MPIEXEC PROGRAM. Exits 0 on PASS. Every job's command line carries a unique
# token (the name service directory); afterwards no process may carry it, and the directory is removed.
set -u
CASE=$1
MPIEXEC=$2
PROG=$3
TMP=$(mktemp -d /tmp/ftmpi-dpm-jobs.XXXXXX)
NS=$TMP/ns
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in $(pgrep -f -- "$TMP"); do kill -KILL "$p" 2>/dev/null; done
  [ -n "${KEEP:-}" ] && cp -r "$TMP" /tmp/s11/last; rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
  echo "FAIL [$CASE]: $*"
  for f in "$TMP"/*.out "$TMP"/*.err; do [ -s "$f" ] && { echo "--- $f:"; cat "$f"; }; done
  exit 1
}
# job NAME NP [mpiexec options...] -- ROLE ARGS...: starts a job in the background; its pid in JOBPID.
job() {
  local name=$1 np=$2
  shift 2
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  "$MPIEXEC" -n "$np" --name-service "$NS" --timeout 80 "${opts[@]}" "$PROG" "$@" \
    </dev/null >"$TMP/$name.out" 2>"$TMP/$name.err" &
  JOBPID=$!
  PIDS+=("$JOBPID")
}
# wait_job PID SECONDS: waits for the job to end; RC = its exit status (or fails after SECONDS).
wait_job() {
  local pid=$1 limit=$2 t=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.1
    t=$((t + 1))
    [ $t -ge $((limit * 10)) ] && fail "job $pid still running after $limit s"
  done
  wait "$pid"
  RC=$?
}
wait_for() {  # wait_for FILE PATTERN SECONDS
  local t=0
  until grep -q -- "$2" "$1" 2>/dev/null; do
    sleep 0.1
    t=$((t + 1))
    [ $t -ge $(($3 * 10)) ] && fail "no '$2' in $1 after $3 s"
  done
}
# The rank processes of the job whose mpiexec is PID.
ranks_of() { pgrep -P "$1"; }
expect_no_leftovers() {
  sleep 0.2
  if pgrep -f -- "$TMP" >/dev/null; then ps -ef | grep -- "$TMP" | grep -v grep; fail "processes left over"; fi
  local left
  left=$(ls "$NS/jobs" "$NS/cards" "$NS/names" "$NS/failed" 2>/dev/null | grep -v '^$' | grep -v ':$')
  [ -z "$left" ] || fail "name service entries left over: $left"
}

# client_server SERVER_NP CLIENT_NP PORTFILE NAME [mpiexec options]
client_server() {
  local snp=$1 cnp=$2 file=$3 name=$4
  shift 4
  job server "$snp" "$@" -- server "$file" "$name"
  local spid=$JOBPID
  job client "$cnp" "$@" -- client "$file" "$name"
  local cpid=$JOBPID
  wait_job "$cpid" 60
  [ "$RC" = 0 ] || fail "client job exit status $RC"
  wait_job "$spid" 30
  [ "$RC" = 0 ] || fail "server job exit status $RC"
  grep -q "PASS server" "$TMP/server.out" || fail "server did not pass"
  grep -q "PASS client" "$TMP/client.out" || fail "client did not pass"
}

case "$CASE" in
file_port)  # the port name passed in a file, as Open MPI and MPICH users do; p2p, intercomm collectives, merge
  client_server 2 3 "$TMP/port" -
  expect_no_leftovers ;;
file_port_tcp)
  client_server 3 2 "$TMP/port" - --transport tcp
  expect_no_leftovers ;;
published)  # MPI_Publish_name in one job, MPI_Lookup_name in the other
  client_server 2 2 - "svc-$$"
  expect_no_leftovers ;;
ft_published)
  client_server 2 2 - "svc-$$" --with-ft ulfm
  expect_no_leftovers ;;
missing_name)  # nobody published it: MPI_ERR_NAME
  job one 2 -- missing "nobody-$$"
  wait_job "$JOBPID" 30
  [ "$RC" = 0 ] || fail "exit status $RC"
  grep -q "PASS missing" "$TMP/one.out" || fail "no PASS"
  expect_no_leftovers ;;
server_killed|server_killed_ft)  # every server rank SIGKILLed while the clients wait on them
  opts=()
  [ "$CASE" = server_killed_ft ] && opts=(--with-ft ulfm)
  job server 2 "${opts[@]}" -- hold "$TMP/port"
  spid=$JOBPID
  job client 2 "${opts[@]}" -- victim "$TMP/port"
  cpid=$JOBPID
  wait_for "$TMP/client.out" CONNECTED 40
  sleep 0.3
  t0=$(date +%s.%N)
  for p in $(ranks_of "$spid"); do kill -KILL "$p"; done
  wait_job "$cpid" 30
  t1=$(date +%s.%N)
  wait_job "$spid" 30
  if [ "$CASE" = server_killed_ft ]; then
    # FT mode: each client rank's receive fails with MPI_ERR_PROC_FAILED; the client job goes on and ends well.
    [ "$(grep -c "ERROR-CLASS 59 " "$TMP/client.out")" = 2 ] || fail "expected MPI_ERR_PROC_FAILED at both client ranks"
  else
    # Otherwise a connected job's failure ends this job too, with an error (never a hang).
    [ "$RC" != 0 ] || true
    grep -q "another job" "$TMP/client.err" || fail "the client job does not say a connected job failed"
  fi
  echo "client saw the failure after $(echo "$t1 - $t0" | bc) s"
  expect_no_leftovers ;;
dead_port)  # the port's owner is gone: MPI_ERR_PORT at once
  job server 1 -- hold "$TMP/port"
  spid=$JOBPID
  wait_for "$TMP/port" ftmpi-port 40
  for p in $(ranks_of "$spid"); do kill -KILL "$p"; done
  wait_job "$spid" 30
  job client 2 -- dead "$TMP/port"
  wait_job "$JOBPID" 30
  [ "$RC" = 0 ] || fail "client exit status $RC"
  grep -q "PASS dead" "$TMP/client.out" || fail "no PASS"
  expect_no_leftovers ;;
closed_port)  # a closed port: MPI_ERR_PORT
  job server 1 -- closed "$TMP/port"
  spid=$JOBPID
  wait_for "$TMP/port" ftmpi-port 40
  job client 1 -- dead "$TMP/port"
  wait_job "$JOBPID" 30
  [ "$RC" = 0 ] || fail "client exit status $RC"
  rm -f "$TMP/port"
  wait_job "$spid" 30
  [ "$RC" = 0 ] || fail "server exit status $RC"
  grep -q "PASS dead" "$TMP/client.out" || fail "no PASS"
  expect_no_leftovers ;;
server_killed_connecting)  # the client waits in MPI_Comm_connect (no accept yet) when the server dies
  job server 1 -- noaccept "$TMP/port"
  spid=$JOBPID
  wait_for "$TMP/port" ftmpi-port 40
  job client 1 -- dead "$TMP/port"
  cpid=$JOBPID
  sleep 1
  for p in $(ranks_of "$spid"); do kill -KILL "$p"; done
  wait_job "$cpid" 30
  [ "$RC" = 0 ] || fail "client exit status $RC"
  grep -q "PASS dead" "$TMP/client.out" || fail "no PASS"
  wait_job "$spid" 30
  expect_no_leftovers ;;
relay_ft)  # FT: a server rank SIGKILLed; every other rank of both jobs (most client ranks never dialed it)
  # must return from an intercommunicator barrier and get MPI_ERR_PROC_FAILED from an agreement, then shrink
  job server 3 --with-ft ulfm -- relay_server "$TMP/port"
  spid=$JOBPID
  job client 3 --with-ft ulfm -- relay_client "$TMP/port"
  cpid=$JOBPID
  wait_for "$TMP/server.out" "READY server 2 " 40
  t=0
  until [ "$(cat "$TMP"/server.out "$TMP"/client.out 2>/dev/null | grep -c '^READY')" = 6 ]; do
    sleep 0.1; t=$((t + 1)); [ $t -ge 400 ] && fail "not every rank got ready"
  done
  sleep 0.3
  victim=$(sed -n 's/^READY server 2 pid=\([0-9]*\).*/\1/p' "$TMP/server.out")
  t0=$(date +%s.%N)
  kill -KILL "$victim"
  wait_job "$cpid" 40
  t1=$(date +%s.%N)
  [ "$RC" = 0 ] || fail "client job exit status $RC"
  wait_job "$spid" 40
  [ "$(grep -c "^RECV 59 " "$TMP/client.out")" = 3 ] || fail "not every client rank got MPI_ERR_PROC_FAILED from its receive"
  [ "$(grep -c "^BARRIER" "$TMP/client.out")" = 3 ] || fail "not every client rank returned from the barrier"
  [ "$(grep -c "^BARRIER" "$TMP/server.out")" = 2 ] || fail "not every surviving server rank returned from the barrier"
  [ "$(grep -c "^AGREE 59 " "$TMP/client.out")" = 3 ] || fail "not every client rank got MPI_ERR_PROC_FAILED from agree"
  [ "$(grep -c "^AGREE 59 " "$TMP/server.out")" = 2 ] || fail "not every surviving server rank got MPI_ERR_PROC_FAILED from agree"
  [ "$(grep -c "^SHRUNK 5 " "$TMP/client.out")" = 3 ] || fail "not every client rank shrank to 5"
  [ "$(grep -c "^SHRUNK 5 " "$TMP/server.out")" = 2 ] || fail "not every surviving server rank shrank to 5"
  grep -q "PASS relay_client" "$TMP/client.out" || fail "client did not pass"
  echo "client job done $(echo "$t1 - $t0" | bc) s after the kill"
  expect_no_leftovers ;;
board_ft)  # FT: like relay_ft without merge or traffic; the server survivors sleep outside MPI for 8 s, so
  # the clients (none ever talked to the victim) can learn the failure in time only from the failure board
  job server 3 --with-ft ulfm -- board_server "$TMP/port"
  spid=$JOBPID
  job client 3 --with-ft ulfm -- board_client "$TMP/port"
  cpid=$JOBPID
  t=0
  until [ "$(cat "$TMP"/server.out "$TMP"/client.out 2>/dev/null | grep -c '^READY')" = 6 ]; do
    sleep 0.1; t=$((t + 1)); [ $t -ge 400 ] && fail "not every rank got ready"
  done
  sleep 0.3
  victim=$(sed -n 's/^READY server 2 pid=\([0-9]*\).*/\1/p' "$TMP/server.out")
  kill -KILL "$victim"
  wait_job "$cpid" 40
  [ "$RC" = 0 ] || fail "client job exit status $RC"
  wait_job "$spid" 40
  [ "$(grep -c "^RECV 59 " "$TMP/client.out")" = 3 ] || fail "not every client rank got MPI_ERR_PROC_FAILED"
  # Well before the server survivors come back to MPI (8 s after READY).
  slow=$(awk '/^RECV/ && $4 > 5.0' "$TMP/client.out")
  [ -z "$slow" ] || fail "a client rank learned the failure only after 5 s: $slow"
  grep "^RECV" "$TMP/client.out"
  expect_no_leftovers ;;
reinit_refused)  # --name-service with --with-ft reinit: refused at once with the reason (docs/dpm.md "Limits")
  job one 2 --with-ft reinit -- missing "nobody-$$"
  wait_job "$JOBPID" 30
  [ "$RC" != 0 ] || fail "mpiexec accepted --name-service with --with-ft reinit"
  grep -q "cannot be used with --with-ft reinit (a rollback restarts" "$TMP/one.err" || fail "no reason given"
  [ ! -s "$TMP/one.out" ] || fail "the program ran"
  expect_no_leftovers ;;
*) fail "unknown case" ;;
esac
echo "PASS [$CASE]"
exit 0
