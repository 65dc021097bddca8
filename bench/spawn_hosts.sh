#!/usr/bin/env bash
# bench/spawn_hosts.sh — MPI_Comm_spawn of 4 processes (bench/spawn.c) onto ANOTHER host: the parent on
# network-namespace host h1, the 4 children placed on h2 (its 4 free slots), started by h2's ftmpid
# (tools/ftmpid/daemon_spawn.cpp). Root only (tests/hosts/netns.sh). Not part of CTest.
# usage: bench/spawn_hosts.sh [FTMPI_BUILD_DIR] [REPS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/release}
reps=${2:-5}
NETNS=$here/../tests/hosts/netns.sh
"$NETNS" check || exit $?
work=$(mktemp -d)
eval "$("$NETNS" up 2)" || exit 1
trap '"$NETNS" down "$NETNS_SLOT"; rm -rf "$work"' EXIT
"$build/bin/mpicc" -O2 -o "$work/spawn_ftmpi" "$here/spawn.c"
printf "%-16s %12s %10s\n" mpi median_ms best_ms
r=$(timeout 120 "$build/bin/mpiexec" --rsh-agent "$NETNS_AGENT" --host "ft${NETNS_SLOT}h1:1,ft${NETNS_SLOT}h2:4" -n 1 \
      "$work/spawn_ftmpi" 4 "$reps" 2>&1 | awk '/^spawn/{print $3, $4}')
printf "%-16s %12s %10s\n" ftmpi-2-hosts ${r:-failed -}
r=$(timeout 120 "$build/bin/mpiexec" -n 1 "$work/spawn_ftmpi" 4 "$reps" 2>&1 | awk '/^spawn/{print $3, $4}')
printf "%-16s %12s %10s\n" ftmpi-1-host ${r:-failed -}
