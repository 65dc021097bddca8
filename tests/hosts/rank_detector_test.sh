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
# Prints the detection time of the stop case (SIGSTOP → first survivor's suspicion line, output forwarding
# included). Detector: period 100 ms, timeout 1000 ms.
set -euo pipefail
launcher=${1:?hydra|slurm} case=${2:?stop|samehost|cut} prog=${3:?program}
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
secs=6
if [ "$launcher" = hydra ]; then
  # -disable-auto-cleanup: Hydra does not kill the survivors when a rank ends.
  timeout 90 mpiexec.mpich -launcher ssh -launcher-exec "$NETNS_AGENT" -iface "$NETNS_BRIDGE" -disable-auto-cleanup \
    -genvlist FTMPI_FT,FTMPI_DETECTOR_PERIOD_MS,FTMPI_DETECTOR_TIMEOUT_MS,HOSTS_MPI_EXIT \
    -hosts "$h1:2,$h2:2,$h3:2" -n 6 "$prog" ft $secs >"$out" 2>&1 &
else
  eval "$("$here/slurm_netns.sh" up "$NETNS_SLOT")"
  export SLURM_CONF
  # --kill-on-bad-exit=0 / --no-kill: a rank's end does not end the step or the job.
  timeout 90 srun --mpi=pmi2 -N3 -n6 --kill-on-bad-exit=0 --no-kill "$prog" ft $secs >"$out" 2>&1 &
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

# Wait until every rank runs on its host (2 each).
for _ in $(seq 1 600); do
  [ "$(ranks_on "$h1" | wc -l)" = 2 ] && [ "$(ranks_on "$h2" | wc -l)" = 2 ] && [ "$(ranks_on "$h3" | wc -l)" = 2 ] && break
  sleep 0.05
done
sleep 1.5  # MPI_Init done, the loop running
victim=$(ranks_on "$h2" | head -1 || true)
[ -n "$victim" ] || { echo "FAIL: no rank found on $h2"; kill $job 2>/dev/null; wait $job; cat "$out"; exit 1; }
rc=0
case $case in
stop)
  t0=$(now_ms)
  kill -STOP "$victim"
  wait_for "suspected by the rank-level detector" 1 10 || { echo "FAIL: no suspicion within 10 s"; kill -CONT "$victim"; }
  t1=$(now_ms)
  echo "detection: $((t1 - t0)) ms after SIGSTOP (detector timeout 1000 ms, period 100 ms)"
  wait_for "survivor: 5 of 6" 5 30 || true
  # Its same-host peer, finalizing, continued it (SIGCONT through its pidfd): it read the fence notice and ended itself,
  # so the launcher (which waits for every rank) is not left waiting for a stopped process.
  for _ in $(seq 1 100); do [ "$(ranks_on "$h2" | grep -cx "$victim" || true)" = 0 ] && break; sleep 0.1; done
  if [ "$(ranks_on "$h2" | grep -cx "$victim" || true)" != 0 ]; then
    kill -CONT "$victim" 2>/dev/null || true
    echo "FAIL: the stopped rank still exists 10 s after the survivors finished (not continued by its host-mate)"
    wait $job || true; cat "$out"; exit 1
  fi
  grep -qE "continued rank [0-9]+ \(same host, fenced\) so that it ends itself" "$out" || { echo "FAIL: its host-mate did not continue it"; cat "$out"; exit 1; }
  wait $job || rc=$?
  [ "$(grep -c "survivor: 5 of 6 ranks left" "$out")" = 5 ] || { echo "FAIL: not 5 survivors (rc $rc)"; cat "$out"; exit 1; }
  grep -qE "declared this rank failed|no majority of the job" "$out" || { echo "FAIL: the stopped rank was not fenced"; cat "$out"; exit 1; }
  ;;
samehost)
  wait $job || rc=$?
  [ "$(grep -c "survivor: 5 of 6 ranks left" "$out")" = 5 ] || { echo "FAIL: not 5 survivors (rc $rc)"; cat "$out"; exit 1; }
  grep -m1 -E "same host\) ended without MPI_Finalize" "$out" || echo "note: the same-host peer learned it from the others first"
  ;;
cut)
  t0=$(now_ms)
  "$here/netns.sh" cut "$h3"
  wait_for "survivor: 4 of 6" 4 40 || { echo "FAIL: the majority did not finish"; "$here/netns.sh" heal "$h3"; kill $job 2>/dev/null; wait $job; cat "$out"; exit 1; }
  t1=$(now_ms)
  # The minority has ended itself (no majority) while still cut off.
  for _ in $(seq 1 100); do [ -z "$(ranks_on "$h3")" ] && break; sleep 0.05; done
  left=$(ranks_on "$h3" | wc -l)
  "$here/netns.sh" heal "$h3"
  wait $job || rc=$?
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
