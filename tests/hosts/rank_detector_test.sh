#!/usr/bin/env bash
# rank_detector_test.sh LAUNCHER CASE PROG — FT mode with no ftmpi daemon (issue 8 items 1 and 6): the ranks
# watch each other (src/ft/ring_detector.h, src/ft/peer_watch.h). LAUNCHER is `hydra` (mpiexec.mpich on 3
# netns.sh hosts) or `slurm` (srun --mpi=pmi2 on slurm_netns.sh); 6 ranks, 2 per host (ranks 2k, 2k+1 share
# host k+1); PROG is tests/hosts/hosts_mpi (`ft SECS`: a loop of ring exchanges and Allreduces; on a
# failure revoke, agree, shrink, go on; survivors print "rank R survivor: N of 6 ranks left").
#   stop      SIGSTOP one rank of host 2: the survivors see it failed within the detector timeout (no
#             connection breaks), shrink to 5 and finish; its host-mate, in MPI_Finalize, continues it (SIGCONT), so it finds
#             itself declared failed and ends (fenced), and the job ends without outside help — it never
#             prints a survivor line.
#   samehost  rank 2 (host 2) ends without MPI_Finalize (exit 3; under Hydra a death by a signal would take
#             its host-mate along, Hydra's doing): its same-host peer (shared memory, no TCP to it) sees it
#             too (pidfd); 5 survivors finish.
#   cut       host 3 loses its link (silence, no EOF): ranks 0-3 (the majority) go on and finish with 4;
#             ranks 4 and 5 find they have no majority and end themselves before the link comes back.
#   alone     5 ranks (2 + 2 + 1): the rank alone on host 3 is SIGSTOPped; the survivors see it failed within
#             the detector timeout, shrink to 4 and finish; its guardian (ft/rank_guardian.h) kills it once
#             fenced (no host-mate to continue it), so the job ends with no outside help and nothing is left.
# Prints the detection time of the stop case (SIGSTOP → first survivor's suspicion line, output forwarding
# included). Detector: period 100 ms, timeout 1000 ms.
set -euo pipefail
launcher=${1:?hydra|slurm} case=${2:?stop|alone|samehost|cut} prog=${3:?program}
here="$(cd "$(dirname "$0")" && pwd)"
"$here/netns.sh" check || exit $?
if [ "$launcher" = hydra ]; then
  command -v mpiexec.mpich >/dev/null || { echo "SKIP: mpiexec.mpich not installed"; exit 77; }
else
  "$here/slurm_netns.sh" check || exit $?
fi
eval "$("$here/netns.sh" up 3)"
out=$(mktemp)
cleanup() {
  rm -f "$out"
  [ "$launcher" = slurm ] && "$here/slurm_netns.sh" down "$NETNS_SLOT"
  "$here/netns.sh" down "$NETNS_SLOT"
}
trap cleanup EXIT
IFS=, read -r h1 h2 h3 <<<"$NETNS_HOSTS"
export FTMPI_FT=ulfm FTMPI_DETECTOR_PERIOD_MS=100 FTMPI_DETECTOR_TIMEOUT_MS=1000 HOSTS_MPI_EXIT=
[ "$case" = samehost ] && HOSTS_MPI_EXIT=2:1.5
secs=10 np=6 last=2
# alone: 5 ranks, 2 + 2 + 1: rank 4 is alone on host 3.
[ "$case" = alone ] && np=5 last=1
if [ "$launcher" = hydra ]; then
  # -disable-auto-cleanup: Hydra does not kill the survivors when a rank ends.
  timeout 60 mpiexec.mpich -launcher ssh -launcher-exec "$NETNS_AGENT" -iface "$NETNS_BRIDGE" -disable-auto-cleanup \
    -genvlist FTMPI_FT,FTMPI_DETECTOR_PERIOD_MS,FTMPI_DETECTOR_TIMEOUT_MS,HOSTS_MPI_EXIT \
    -hosts "$h1:2,$h2:2,$h3:$last" -n $np "$prog" ft $secs >"$out" 2>&1 &
else
  eval "$("$here/slurm_netns.sh" up "$NETNS_SLOT")"
  export SLURM_CONF
  # --kill-on-bad-exit=0 / --no-kill: a rank's end does not end the step or the job.
  timeout 60 srun --mpi=pmi2 -N3 -n$np --kill-on-bad-exit=0 --no-kill "$prog" ft $secs >"$out" 2>&1 &
fi
job=$!

ranks_on() {  # pids of PROG's processes on host $1
  local p
  for p in $(ip netns pids "$1" 2>/dev/null); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = "$(basename "$prog" | cut -c1-15)" ] && echo "$p"
  done
  return 0
}
wait_for() {  # wait_for REGEX COUNT SECONDS: until COUNT lines of the output match
  local end=$(( $(date +%s) + $3 ))
  while [ "$(grep -cE "$1" "$out" || true)" -lt "$2" ]; do
    [ "$(date +%s)" -lt $end ] || return 1
    sleep 0.01
  done
}
now_ms() { date +%s%3N; }
# What every process of the hosts is doing (state, wait channel), for a failure report.
diag() {
  local h p
  echo "--- processes of the hosts at $(date +%T.%3N):"
  for h in "$h1" "$h2" "$h3"; do
    for p in $(ip netns pids "$h" 2>/dev/null); do
      echo "$h $(ps -o pid=,stat=,wchan:20=,etime=,args= -p "$p" 2>/dev/null | cut -c1-150)"
    done
  done
}
# finish: the launcher's end (rc in $rc); after 30 s the processes are reported and the launcher is killed
# (a hang is reported with its log, inside ctest's timeout).
finish() {
  local end=$(( $(date +%s) + 30 ))
  while kill -0 $job 2>/dev/null && [ "$(date +%s)" -lt $end ]; do sleep 0.1; done
  if kill -0 $job 2>/dev/null; then
    echo "FAIL: the launcher still runs 30 s later"; diag; kill $job 2>/dev/null || true
    wait $job || true; rc=124; return
  fi
  wait $job || rc=$?
}
fail() { echo "FAIL: $*"; diag; kill $job 2>/dev/null || true; wait $job || true; cat "$out"; exit 1; }

# Act only once every rank is past MPI_Init and in its loop (hosts_mpi prints "rank R looping" after a
# Barrier). The samehost victim ends on its own (HOSTS_MPI_EXIT).
if [ "$case" != samehost ]; then
  wait_for "^rank [0-9]+ looping" $np 40 || fail "the $np ranks did not reach their loop within 40 s"
fi
rc=0
case $case in
stop)
  victim=$(ranks_on "$h2" | head -1 || true)
  [ -n "$victim" ] || fail "no rank found on $h2"
  t0=$(now_ms)
  kill -STOP "$victim" || fail "the rank to stop ($victim) is gone already"
  wait_for "suspected by the rank-level detector" 1 10 || { echo "FAIL: no suspicion within 10 s"; kill -CONT "$victim"; }
  t1=$(now_ms)
  echo "detection: $((t1 - t0)) ms after SIGSTOP (detector timeout 1000 ms, period 100 ms)"
  wait_for "survivor: 5 of 6" 5 30 || true
  # Its same-host peer, finalizing, continued it (SIGCONT through its pidfd): it read the fence notice and ended itself,
  # so the launcher (which waits for every rank) is not left waiting for a stopped process.
  gone_by=$(( $(date +%s) + 10 ))
  while [ -d "/proc/$victim" ] && [ "$(date +%s)" -lt $gone_by ]; do sleep 0.1; done
  if [ -d "/proc/$victim" ]; then
    diag
    kill -CONT "$victim" 2>/dev/null || true
    fail "the stopped rank still exists 10 s after the survivors finished (not continued by its host-mate)"
  fi
  grep -qE "continued rank [0-9]+ \(same host, fenced\) so that it ends itself" "$out" || { echo "FAIL: its host-mate did not continue it"; cat "$out"; exit 1; }
  finish
  [ "$(grep -c "survivor: 5 of 6 ranks left" "$out")" = 5 ] || { echo "FAIL: not 5 survivors (rc $rc)"; cat "$out"; exit 1; }
  grep -qE "declared this rank failed|no majority of the job" "$out" || { echo "FAIL: the stopped rank was not fenced"; cat "$out"; exit 1; }
  ;;
alone)
  # The rank alone on host 3, SIGSTOPped: no host-mate can continue it; its guardian (ft/rank_guardian.h)
  # kills it once a live rank fences it, so the launcher is not left waiting.
  victim=$(ranks_on "$h3" | head -1 || true)
  [ -n "$victim" ] || fail "no rank found on $h3"
  [ "$(ranks_on "$h3" | wc -l)" = 1 ] || fail "expected one rank on $h3"
  guard_on_h3() { local p; for p in $(ip netns pids "$h3" 2>/dev/null); do [ "$(cat /proc/$p/comm 2>/dev/null)" = ftmpi-guard ] && echo "$p"; done; return 0; }
  [ -n "$(guard_on_h3)" ] || fail "no guardian process next to the rank alone on $h3"
  t0=$(now_ms)
  kill -STOP "$victim" || fail "the rank to stop ($victim) is gone already"
  wait_for "suspected by the rank-level detector" 1 10 || fail "no suspicion within 10 s"
  t1=$(now_ms)
  echo "detection: $((t1 - t0)) ms after SIGSTOP (detector timeout 1000 ms, period 100 ms)"
  gone_by=$(( $(date +%s) + 10 ))
  while [ -d "/proc/$victim" ] && [ "$(date +%s)" -lt $gone_by ]; do sleep 0.05; done
  [ -d "/proc/$victim" ] && { diag; kill -CONT "$victim" 2>/dev/null || true; fail "the stopped rank still exists 10 s after its suspicion"; }
  t2=$(now_ms)
  echo "the stopped rank ended $((t2 - t0)) ms after SIGSTOP"
  finish
  grep -qE "^ftmpi: rank 4: declared failed by rank [0-9] while stopped; killed by its guardian" "$out" ||
    { echo "FAIL: no guardian line"; cat "$out"; exit 1; }
  [ "$(grep -c "survivor: 4 of 5 ranks left" "$out")" = 4 ] || { echo "FAIL: not 4 survivors (rc $rc)"; cat "$out"; exit 1; }
  [ -z "$(guard_on_h3)" ] || { diag; echo "FAIL: the guardian outlived its rank"; cat "$out"; exit 1; }
  ;;
samehost)
  finish
  [ "$(grep -c "survivor: 5 of 6 ranks left" "$out")" = 5 ] || { echo "FAIL: not 5 survivors (rc $rc)"; cat "$out"; exit 1; }
  grep -m1 -E "same host\) ended without MPI_Finalize" "$out" || echo "note: the same-host peer learned it from the others first"
  ;;
cut)
  t0=$(now_ms)
  "$here/netns.sh" cut "$h3"
  wait_for "survivor: 4 of 6" 4 40 || { "$here/netns.sh" heal "$h3"; fail "the majority did not finish"; }
  t1=$(now_ms)
  # The minority has ended itself (no majority) while still cut off.
  gone_by=$(( $(date +%s) + 5 ))
  while [ -n "$(ranks_on "$h3")" ] && [ "$(date +%s)" -lt $gone_by ]; do sleep 0.05; done
  left=$(ranks_on "$h3" | wc -l)
  "$here/netns.sh" heal "$h3"
  finish
  [ "$left" = 0 ] || { echo "FAIL: $left rank(s) of the cut host still running"; cat "$out"; exit 1; }
  [ "$(grep -c "survivor: 4 of 6 ranks left" "$out")" = 4 ] || { echo "FAIL: not 4 survivors (rc $rc)"; cat "$out"; exit 1; }
  grep -qE "^rank [45] survivor" "$out" && { echo "FAIL: a rank of the cut host went on"; cat "$out"; exit 1; }
  echo "majority finished $((t1 - t0)) ms after the cut"
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
[ $rc != 124 ] || { echo "FAIL: hung"; cat "$out"; exit 1; }
grep -E "FAIL|hosts_mpi:" "$out" && { echo "FAIL in output"; cat "$out"; exit 1; }
grep -E "survivor:|ending this rank" "$out" | sort | cut -c1-200
echo "PASS rank_detector $launcher $case (launcher rc $rc)"
