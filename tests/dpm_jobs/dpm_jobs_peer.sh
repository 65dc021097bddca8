#!/bin/bash
# Run dpm_jobs.c's client/server across two separate jobs with a peer MPI, to check that ftmpi's semantics
# (dpm_jobs_test.sh) match theirs. Not part of CTest (the peers need their name servers).
#   tests/dpm_jobs/dpm_jobs_peer.sh openmpi|mpich
# Open MPI: an ompi-server, both mpiruns given --ompi-server file:URI. MPICH: a hydra_nameserver, both
# mpiexecs given -nameserver localhost.
set -u
peer=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/ftmpi-dpm-peer-XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
case "$peer" in
  openmpi)
    cc=mpicc.openmpi
    ompi-server --no-daemonize --report-uri "$tmp/uri" &
    pids+=($!)
    for _ in $(seq 50); do [ -s "$tmp/uri" ] && break; sleep 0.1; done
    run=(mpirun.openmpi --allow-run-as-root --oversubscribe --ompi-server "file:$tmp/uri") ;;
  mpich)
    cc=mpicc.mpich
    hydra_nameserver &
    pids+=($!)
    sleep 0.5
    run=(mpiexec.mpich -nameserver localhost) ;;
  *) echo "usage: $0 openmpi|mpich" >&2; exit 2 ;;
esac
$cc -O1 -o "$tmp/dpm_jobs" "$here/dpm_jobs.c" || exit 1
status=0
one() {  # one LABEL: server and client as in dpm_jobs_test.sh
  local label=$1
  shift
  timeout 60 "${run[@]}" -n 2 "$tmp/dpm_jobs" server "$@" >"$tmp/s.out" 2>&1 &
  local s=$!
  timeout 60 "${run[@]}" -n 3 "$tmp/dpm_jobs" client "$@" >"$tmp/c.out" 2>&1
  local rc=$?
  wait $s
  local src=$?
  if [ $rc = 0 ] && [ $src = 0 ] && grep -q "PASS client" "$tmp/c.out" && grep -q "PASS server" "$tmp/s.out"; then
    echo "PASS $peer $label"
  else
    echo "FAIL $peer $label (server $src, client $rc)"; cat "$tmp/s.out" "$tmp/c.out"; status=1
  fi
}
one file_port "$tmp/port" -
one published - "svc-$$"
timeout 30 "${run[@]}" -n 1 "$tmp/dpm_jobs" missing "nobody-$$" >"$tmp/m.out" 2>&1
if grep -q "PASS missing" "$tmp/m.out"; then echo "PASS $peer missing_name"; else echo "FAIL $peer missing_name"; cat "$tmp/m.out"; status=1; fi
exit $status
