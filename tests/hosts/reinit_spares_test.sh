#!/usr/bin/env bash
# Reinit warm spares on several hosts (issue 9 item 4; mpiexec --with-ft reinit --spares N: N per host, kept
# by each host's daemon). netns.sh hosts, the Reinit++ program reinit_host.c (OMPI_Reinit; every entry into
# its restart point prints "rank R state S host H pid P restarts N"; 2 = REINITED, 3 = RESTARTED). A spare
# is recognised by FTMPI_SPARE in its start-up environment (/proc/PID/environ); the pids of each host's
# waiting spares are taken just before a kill, and the process that comes back RESTARTED must be one of
# them (and mpiexec's timeline must say "taken over by warm spare pid P on host H").
#   rank    2 hosts x 2 ranks, --spares 1: rank 2 (on h2) is SIGKILLed; h2's spare takes it over, on h2
#   host    3 hosts, ranks on h1 and h2, none on h3, --spares 1: h2 is killed whole; rank 2 goes to h3's
#           spare (the least loaded host with a spare), rank 3 to h1's (spares first, one rank each)
#   twice   2 hosts x 2 ranks, --spares 1: rank 1 (on h1) is killed, h1's spare takes it; h1's daemon
#           starts a new spare after the commit (replenished); the replacement is killed: the new spare
#           takes it over too
#   cross   2 hosts x 2 ranks, --spares 1: ranks 0 and 1 (both of h1) are killed at once; one takes h1's
#           spare, the other h2's (its links are then TCP)
#   badinput --spares without --with-ft reinit, and a negative count, on several hosts: usage errors (exit 2)
#   template 2 hosts x 2 ranks, no spares: rank 2 (on h2) is SIGKILLed and restarted by h2's respawn template
#           (tools/launch/template_process.h; its parent is h2's daemon, the timeline says so); then h2's
#           template is SIGKILLed and rank 3 (on h2) is killed: restarted by fork+exec, the job goes on; once
#           that epoch change committed h2's daemon starts a new template, and rank 3 killed again is forked by it
# Every case: the job ends with status 0 and the right result (PASS line), no process left on any host,
# no /dev/shm segment of the job left.
# Usage: reinit_spares_test.sh CASE MPIEXEC PROGRAM. Exit 0 PASS, 1 FAIL, 77 SKIP.
set -u
CASE=$1 MPIEXEC=$2 PROG=$3
here="$(cd "$(dirname "$0")" && pwd)"
NETNS="$here/netns.sh"
"$NETNS" check || exit $?
TMP=$(mktemp -d /tmp/ftmpi-reinit-spares.XXXXXX)
chmod 755 "$TMP"
NHOSTS=2
[ "$CASE" = host ] && NHOSTS=3
eval "$("$NETNS" up $NHOSTS)" || exit 1
MPID=
cleanup() {
  [ -n "$MPID" ] && kill -9 "$MPID" 2>/dev/null
  "$NETNS" down "$NETNS_SLOT"
  [ -n "${KEEP:-}" ] && cp "$TMP/out" "$TMP/err" "$KEEP"/ 2>/dev/null; rm -rf "$TMP"
}
trap cleanup EXIT
S=$NETNS_SLOT H1=ft${S}h1 H2=ft${S}h2 H3=ft${S}h3
touch "$TMP/out" "$TMP/err"

fail() { echo "FAIL [$CASE]: $*"; echo "--- stdout:"; cat "$TMP/out"; echo "--- stderr:"; cat "$TMP/err"; exit 1; }

# The pids of the spares waiting on host $1: FTMPI_SPARE in their start-up environment, and not (yet) a rank
# (an adopted spare keeps its start-up environment; the ranks print their pids).
spares_on() {
  local p taken
  taken=$(sed -n 's/^rank [0-9]* state [0-9]* host [^ ]* pid \([0-9]*\) .*/\1/p' "$TMP/out")
  for p in $(ip netns pids "$1" 2>/dev/null); do
    tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -q '^FTMPI_SPARE=' || continue
    echo "$taken" | grep -qx "$p" && continue
    echo "$p"
  done
}
# Wait (up to 20 s) until host $1 holds $2 waiting spares; print their pids.
wait_spares() {
  local s
  for _ in $(seq 1 400); do
    s=$(spares_on "$1")
    [ "$(echo "$s" | grep -c .)" -ge "$2" ] && { echo "$s"; return 0; }
    kill -0 "$MPID" 2>/dev/null || break
    sleep 0.05
  done
  echo "$s"
  return 1
}
# The respawn template on host $1 (FTMPI_TEMPLATE_FD in its start-up environment, leader of its process
# group: its waiting child is in that group too); waits up to 20 s.
# (Pids in $2, space-separated, are not it: a rank the template forked starts with the template's environment.)
wait_template() {
  local p
  for _ in $(seq 1 400); do
    for p in $(ip netns pids "$1" 2>/dev/null); do
      case " ${2:-} " in *" $p "*) continue ;; esac
      tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -q '^FTMPI_TEMPLATE_FD=' || continue
      [ "$(ps -o pgid= -p "$p" | tr -d ' ')" = "$p" ] && { echo "$p"; return 0; }
    done
    kill -0 "$MPID" 2>/dev/null || break
    sleep 0.05
  done
  return 1
}
# Wait (up to 20 s) until template $2 on host $1 is ready: its waiting child (in its process group) exists.
wait_template_ready() {
  local p
  for _ in $(seq 1 400); do
    for p in $(ip netns pids "$1" 2>/dev/null); do
      [ "$p" != "$2" ] && [ "$(ps -o pgid= -p "$p" | tr -d ' ')" = "$2" ] && { sleep 0.1; return 0; }
    done
    sleep 0.05
  done
  return 1
}
# The pid of rank $1's latest process.
pid_of() { sed -n "s/^rank $1 state [0-9]* host [^ ]* pid \\([0-9]*\\) .*/\\1/p" "$TMP/out" | tail -n 1; }
# Wait (up to 30 s) until rank $1 has printed $2 entries into the restart point.
wait_entries() {
  for _ in $(seq 1 600); do
    [ "$(grep -c "^rank $1 state" "$TMP/out")" -ge "$2" ] && return 0
    kill -0 "$MPID" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
start_job() {  # HOSTS NP
  mkdir -p "$TMP/ck"
  "$MPIEXEC" --rsh-agent "$NETNS_AGENT" --with-ft reinit --spares "${SPARES:-1}" --host "$1" -n "$2" --timeout 80 ${DETECT:-} \
    -x REINIT_HOST_STEPS="${STEPS:-120}" "$PROG" "$TMP/ck" wait </dev/null >"$TMP/out" 2>"$TMP/err" &
  MPID=$!
  for _ in $(seq 1 800); do [ -e "$TMP/ck/started" ] && break; kill -0 $MPID 2>/dev/null || break; sleep 0.05; done
  [ -e "$TMP/ck/started" ] || { wait $MPID; MPID=; fail "the job did not reach step 5"; }
}
end_job() {
  wait "$MPID"; RC=$?; MPID=
  [ "$RC" = 0 ] || fail "exit status $RC, expected 0"
  grep -q "^PASS reinit_host" "$TMP/out" || fail "no PASS line"
  grep -q "^FAIL" "$TMP/out" && fail "a rank failed"
  grep -qE "epoch [0-9]+ committed" "$TMP/err" || fail "no committed rollback in the timeline"
}
# Rank $1 came back RESTARTED on host $2 as one of the pids $3 (a spare's), and the timeline says so.
check_spare() {
  local r=$1 h=$2 pids=$3 line pid
  line=$(grep "^rank $r state 3 " "$TMP/out" | tail -n 1)
  [ -n "$line" ] || fail "rank $r did not come back RESTARTED"
  echo "$line" | grep -q " host $h " || fail "rank $r came back on the wrong host ($line), expected $h"
  pid=$(echo "$line" | sed 's/.* pid \([0-9]*\) .*/\1/')
  echo "$pids" | grep -qx "$pid" || fail "rank $r's new process $pid was not one of $h's spares ($(echo $pids))"
  grep -q "rank $r taken over by warm spare pid $pid on host $h" "$TMP/err" || fail "no timeline line for rank $r's spare"
}
no_leftovers() {
  sleep 0.2
  for h in $(echo "$NETNS_HOSTS" | tr , ' '); do
    [ -z "$(ip netns pids "$h" 2>/dev/null)" ] || { ps -ef | grep -v grep | grep -E "ftmpid|reinit_host"; fail "processes left on $h"; }
  done
  pgrep -f -- "$TMP/ck" >/dev/null && fail "processes left over"
  ls /dev/shm | grep -q "^ftmpi-$MPIEXEC_PID-" && fail "/dev/shm segments left"
  return 0
}

case "$CASE" in
rank)
  start_job "$H1:2,$H2:2" 4
  MPIEXEC_PID=$MPID
  sp=$(wait_spares "$H2" 1) || fail "no spare waiting on $H2"
  kill -9 "$(pid_of 2)"
  end_job
  check_spare 2 "$H2" "$sp"
  for r in 0 1; do grep -q "^rank $r state 2 host $H1 " "$TMP/out" || fail "rank $r did not roll back (REINITED) on $H1"; done
  grep -q "^rank 3 state 2 host $H2 " "$TMP/out" || fail "rank 3 did not roll back (REINITED) on $H2"
  ;;
host)
  start_job "$H1:2,$H2:2,$H3:2" 4
  MPIEXEC_PID=$MPID
  sp1=$(wait_spares "$H1" 1) || fail "no spare waiting on $H1"
  sp3=$(wait_spares "$H3" 1) || fail "no spare waiting on $H3"
  "$NETNS" kill "$H2"
  end_job
  grep -qE "host $H2 lost" "$TMP/err" || fail "stderr does not report $H2 lost"
  check_spare 2 "$H3" "$sp3"
  check_spare 3 "$H1" "$sp1"
  for r in 0 1; do grep -q "^rank $r state 2 host $H1 " "$TMP/out" || fail "rank $r did not roll back (REINITED) on $H1"; done
  ;;
twice)
  start_job "$H1:2,$H2:2" 4
  MPIEXEC_PID=$MPID
  sp=$(wait_spares "$H1" 1) || fail "no spare waiting on $H1"
  kill -9 "$(pid_of 1)"
  wait_entries 1 2 || fail "rank 1 did not come back"
  check_spare 1 "$H1" "$sp"
  # Replenished after the commit: a new spare on h1 (the first one is rank 1 now).
  sp2=$(wait_spares "$H1" 1) || fail "h1's spare was not replenished after the first rollback"
  echo "$sp2" | grep -qx "$(pid_of 1)" && fail "the replenished spare is the adopted process"
  wait_entries 0 2 || fail "rank 0 did not roll back"
  kill -9 "$(pid_of 1)"
  end_job
  check_spare 1 "$H1" "$sp2"
  [ "$(grep -c "^rank 1 state 3 " "$TMP/out")" = 2 ] || fail "rank 1 should have been restarted twice"
  [ "$(grep -c "taken over by warm spare" "$TMP/err")" = 2 ] || fail "expected two spare take-overs in the timeline"
  ;;
cross)
  start_job "$H1:2,$H2:2" 4
  MPIEXEC_PID=$MPID
  sp1=$(wait_spares "$H1" 1) || fail "no spare waiting on $H1"
  sp2=$(wait_spares "$H2" 1) || fail "no spare waiting on $H2"
  kill -9 "$(pid_of 0)" "$(pid_of 1)"
  end_job
  # One of ranks 0-1 stays on h1 (h1's spare), the other moves to h2 (h2's spare).
  on1=$(grep -E "^rank [01] state 3 host $H1 " "$TMP/out" | tail -n 1 | cut -d' ' -f2)
  on2=$(grep -E "^rank [01] state 3 host $H2 " "$TMP/out" | tail -n 1 | cut -d' ' -f2)
  [ -n "$on1" ] && [ -n "$on2" ] && [ "$on1" != "$on2" ] || fail "expected one of ranks 0-1 on $H1 and the other on $H2"
  check_spare "$on1" "$H1" "$sp1"
  check_spare "$on2" "$H2" "$sp2"
  for r in 2 3; do grep -q "^rank $r state 2 host $H2 " "$TMP/out" || fail "rank $r did not roll back (REINITED) on $H2"; done
  ;;
template)
  # 400 steps (16 s at least): three kills, a template's replacement and its start-up must fit in the job on a
  # loaded machine (with 120 the job ended before the second kill in 1 run of 2 next to two busy loops); over
  # that long a job, a starved launcher's 1 s silence made the daemons give up on it (1 run of 10, load 13):
  # the detector timeout is 5 s here (the kills are seen by the daemons' pidfds, not by the detector).
  SPARES=0 STEPS=400 DETECT="--detector-period 250 --detector-timeout 5000" start_job "$H1:2,$H2:2" 4
  MPIEXEC_PID=$MPID
  t2=$(wait_template "$H2") || fail "no respawn template on $H2"
  n2=$(grep -c "^rank 2 state" "$TMP/out")
  kill -9 "$(pid_of 2)"
  wait_entries 2 $((n2 + 1)) || fail "rank 2 did not come back"
  p2=$(pid_of 2)
  [ "$(ps -o ppid= -p "$p2" | tr -d ' ')" = "$(ps -o ppid= -p "$t2" | tr -d ' ')" ] || fail "rank 2's new process $p2 is not a child of $H2's daemon"
  kill -9 "$t2"
  for _ in $(seq 1 100); do kill -0 "$t2" 2>/dev/null || break; sleep 0.02; done
  n3=$(grep -c "^rank 3 state" "$TMP/out")
  kill -9 "$(pid_of 3)"
  wait_entries 3 $((n3 + 1)) || fail "rank 3 did not come back"
  p3=$(pid_of 3)
  # ... and once that epoch change committed, the daemon starts a new template: the next restart is its
  t3=$(wait_template "$H2" "$t2 $p2") || fail "no new respawn template on $H2 after the rollback"
  wait_template_ready "$H2" "$t3" || fail "the new respawn template $t3 on $H2 never got ready"
  n3=$(grep -c "^rank 3 state" "$TMP/out")
  kill -9 "$p3"
  wait_entries 3 $((n3 + 1)) || fail "rank 3 did not come back a second time"
  p3b=$(pid_of 3)
  end_job
  grep -q "^rank 2 state 3 host $H2 pid $p2 " "$TMP/out" || fail "rank 2 did not come back RESTARTED on $H2"
  grep -q "^rank 3 state 3 host $H2 pid $p3 " "$TMP/out" || fail "rank 3 did not come back RESTARTED on $H2"
  grep -q "rank 2 started as pid $p2 on host $H2 (no spare there; forked by the respawn template)" "$TMP/err" || fail "the timeline does not say rank 2 was forked by $H2's template"
  grep -q "rank 3 started as pid $p3 on host $H2 (no spare there; fork+exec)" "$TMP/err" || fail "rank 3 was not restarted by fork+exec after the template was killed"
  grep -q "rank 3 started as pid $p3b on host $H2 (no spare there; forked by the respawn template)" "$TMP/err" || fail "rank 3's second restart was not forked by $H2's new template"
  ;;
badinput)
  MPIEXEC_PID=none
  "$MPIEXEC" --rsh-agent "$NETNS_AGENT" --spares 1 --host "$H1:2,$H2:2" -n 4 "$PROG" "$TMP/ck" wait \
    </dev/null >"$TMP/out" 2>"$TMP/err"; RC=$?
  [ "$RC" = 2 ] || fail "--spares without reinit: exit $RC, expected 2"
  grep -q "spares needs --with-ft reinit" "$TMP/err" || fail "--spares without reinit: no clear message"
  "$MPIEXEC" --rsh-agent "$NETNS_AGENT" --with-ft reinit --spares -1 --host "$H1:2,$H2:2" -n 4 "$PROG" "$TMP/ck" wait \
    </dev/null >"$TMP/out" 2>"$TMP/err"; RC=$?
  [ "$RC" = 2 ] || fail "--spares -1: exit $RC, expected 2"
  grep -q "spare processes >= 0" "$TMP/err" || fail "--spares -1: no clear message"
  ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
no_leftovers
echo "PASS [$CASE]"
