#!/bin/bash
# Dynamic processes from a singleton (docs/dpm.md "From a singleton"): the wall time of whole program runs of
# open-mpi/ompi-tests-public's singleton/ programs — as singletons (mpiexec started on demand), under
# `mpiexec -n 1`, and Open MPI's singleton when mpicc.openmpi is installed.
#   bench/singleton_spawn.sh [BUILD_DIR [SINGLETON_SRC_DIR [RUNS]]]
# Defaults: build/release, /work/ext_ompitp/singleton, 11. Run it under `flock /tmp/rt.lock chrt -f 5`.
set -e
B=$(cd "${1:-build/release}" && pwd)/bin
SRC=${2:-/work/ext_ompitp/singleton}
N=${3:-11}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for p in hello_c simple_spawn simple_spawn_multiple; do "$B/mpicc" -O2 -o "$W/$p" "$SRC/$p.c"; done
if command -v mpicc.openmpi >/dev/null; then mkdir "$W/o" && mpicc.openmpi -O2 -o "$W/o/simple_spawn" "$SRC/simple_spawn.c"; fi
set +e
t() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
med() { sort -n | awk '{a[NR]=$1} END{print "median " a[int((NR+1)/2)] " ms, min " a[1] " ms, max " a[NR] " ms (n=" NR ")"}'; }
cd "$W"
echo "ftmpi singleton simple_spawn: $(for i in $(seq "$N"); do t ./simple_spawn ./simple_spawn; done | med)"
echo "ftmpi mpiexec -n 1 simple_spawn: $(for i in $(seq "$N"); do t "$B/mpiexec" -n 1 ./simple_spawn ./simple_spawn; done | med)"
echo "ftmpi singleton hello_c: $(for i in $(seq "$N"); do t ./hello_c; done | med)"
echo "ftmpi singleton simple_spawn_multiple: $(for i in $(seq "$N"); do t ./simple_spawn_multiple ./simple_spawn_multiple; done | med)"
if [ -x o/simple_spawn ]; then
  echo "Open MPI singleton simple_spawn: $(cd o && for i in $(seq 5); do t ./simple_spawn ./simple_spawn; done | med)"
fi
