#!/usr/bin/env bash
# bench/hosts_tcp.sh — TCP between two hosts (issue 8): 1-byte latency and 1 MiB bandwidth of ftmpi, Open MPI
# (--mca btl tcp,self) and MPICH between two network-namespace hosts (tests/hosts/netns.sh; root only), one
# rank per host, the same bench/pingpong.c and bench/bandwidth.c compiled with each MPI. ftmpi and MPICH
# are started by MPICH's Hydra (the same launcher for both), Open MPI by its mpirun, all through the same
# rsh agent. Not a test: prints a table of medians.
# The namespace hosts share one machine's 2 cores, its SysV IPC and its processes, which each peer can take
# for "the same node" in its own way; so that every MPI really moves the bytes over TCP between the hosts:
#  - Open MPI: --bind-to none. Its default for 2 ranks binds each rank to core 0 of its "node", and both
#    nodes' core 0 is the same CPU: the two busy-polling ranks then share one core and every round trip
#    waits for a scheduler time slice (the 4 ms "latency" measured before). ftmpi and MPICH under Hydra
#    do not bind either.
#  - MPICH (ch4:ucx in Debian): UCX_TLS=tcp,self. Without it UCX finds the peer on the same machine and
#    uses its shared-memory transports (SysV shm / CMA cross network namespaces); MPIR_CVAR_CH4_NETMOD has
#    no effect in a ch4:ucx build (and MPIR_CVAR_NOLOCAL=1 made this MPICH 4.0.2 hang here).
# Usage: [ROUNDS=5] bench/hosts_tcp.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build=${1:-$here/../build/release}
netns="$here/../tests/hosts/netns.sh"
"$netns" check
tmp=$(mktemp -d /tmp/ftmpi-hostsbench-XXXXXX)
eval "$("$netns" up 2)"
trap '"$netns" down "$NETNS_SLOT"; rm -rf "$tmp"' EXIT
IFS=, read -r a b <<<"$NETNS_HOSTS"
net=198.18.$NETNS_SLOT.0/24
declare -A cc=([ftmpi]="$build/bin/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
for impl in ftmpi openmpi mpich; do
  for p in pingpong bandwidth; do "${cc[$impl]}" -O2 -o "$tmp/$p.$impl" "$here/$p.c"; done
done
hydra=(mpiexec.mpich -launcher ssh -launcher-exec "$NETNS_AGENT" -iface "$NETNS_BRIDGE" -hosts "$a,$b" -n 2)
ompi=(mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -n 2 --host "$a,$b" --mca plm_rsh_agent "$NETNS_AGENT"
      --mca btl tcp,self --mca btl_tcp_if_include "$net" --mca oob_tcp_if_include "$NETNS_BRIDGE,$net")
run() {  # run IMPL PROG ARGS...
  local impl=$1 prog=$2; shift 2
  case $impl in
    ftmpi) FTMPI_TCP_IF=$net timeout 120 "${hydra[@]}" "$tmp/$prog.ftmpi" "$@" ;;
    mpich) timeout 120 "${hydra[@]}" -genv UCX_TLS tcp,self "$tmp/$prog.mpich" "$@" ;;
    openmpi) timeout 120 "${ompi[@]}" "$tmp/$prog.openmpi" "$@" ;;
  esac
}
# Each MPI must really use TCP between the hosts: while a pingpong runs, its rank on host a must hold an
# established TCP connection to host b's address (ss in a's namespace).
ipa=$("$netns" ip "$a") ipb=$("$netns" ip "$b")
for impl in ftmpi openmpi mpich; do
  run $impl pingpong -m 1 -M 1 -T 3 >/dev/null 2>&1 &
  job=$! seen=no
  for _ in $(seq 40); do
    sleep 0.1
    conns=$(ip netns exec "$a" ss -tn state established 2>/dev/null || true)
    if grep -qE "$ipa:[0-9]+ +$ipb:[0-9]+" <<<"$conns"; then seen=yes; break; fi
  done
  wait $job || true
  printf '%-8s TCP connection between %s and %s: %s\n' "$impl" "$ipa" "$ipb" "$seen"
done
# Medians of ROUNDS rounds (default 5; env ROUNDS), the implementations interleaved in each round so that
# a machine's load drifts over all of them alike.
rounds=${ROUNDS:-5}
declare -A lats bws
for _ in $(seq 1 "$rounds"); do
  for impl in ftmpi openmpi mpich; do
    # A run that fails or hangs (timeout) counts as no sample ("n/a" if no round has one).
    lat=$(run $impl pingpong -m 1 -M 1 -T 2 2>/dev/null | awk '$1 == 1 {print $2}' | tail -1 || true)
    bw=$(run $impl bandwidth -m 1M -M 1M -T 2 2>/dev/null | awk '$1 == 1048576 {print $2}' | tail -1 || true)
    [ -n "$lat" ] && [ -n "$bw" ] || echo "$impl: a run gave no figure (failed or timed out)" >&2
    lats[$impl]+="${lat:-} "
    bws[$impl]+="${bw:-} "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {if (NR) print (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2); else print "n/a"}'; }
printf 'medians of %s rounds, 2 netns hosts, one rank each\n' "$rounds"
printf '%-10s %18s %22s\n' impl "latency 1 B (us)" "bandwidth 1 MiB (MB/s)"
for impl in ftmpi openmpi mpich; do
  printf '%-10s %18s %22s\n' "$impl" "$(median <<<"${lats[$impl]}")" "$(median <<<"${bws[$impl]}")"
done
