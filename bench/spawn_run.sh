#!/usr/bin/env bash
# bench/spawn_run.sh — MPI_Comm_spawn of 4 processes (bench/spawn.c) with ftmpi, Open MPI and MPICH, same
# source: median and best of 5 spawns, ms (call → a message from every child). Not part of CTest.
# usage: bench/spawn_run.sh [FTMPI_BUILD_DIR] [N] [REPS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/release}
n=${2:-4}
reps=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/mpicc" -O2 -o "$work/spawn_ftmpi" "$here/spawn.c"
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/spawn_ompi" "$here/spawn.c"
command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$work/spawn_mpich" "$here/spawn.c"
printf "%-8s %12s %10s\n" mpi median_ms best_ms
r=$(timeout 120 "$build/bin/mpiexec" -n 1 "$work/spawn_ftmpi" "$n" "$reps" 2>&1 | awk '/^spawn/{print $3, $4}')
printf "%-8s %12s %10s\n" ftmpi ${r:-failed -}
r=$(timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n 1 "$work/spawn_ompi" "$n" "$reps" 2>&1 | awk '/^spawn/{print $3, $4}')
printf "%-8s %12s %10s\n" openmpi ${r:-failed -}
# MPICH 4.0 as packaged here (ch4:ucx) has no dynamic processes ("not supported with ucx netmod").
r=$(timeout 120 mpiexec.mpich -n 1 "$work/spawn_mpich" "$n" "$reps" 2>&1 | awk '/^spawn/{print $3, $4}')
printf "%-8s %12s %10s\n" mpich ${r:-unsupported -}
