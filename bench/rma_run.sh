#!/usr/bin/env bash
# bench/rma_run.sh — one-sided figures of ftmpi next to Open MPI and MPICH, same source (bench/rma.c).
# usage: bench/rma_run.sh [FTMPI_BUILD_DIR]   (default: <repo>/build/release). 2 ranks.
# FLAVORS="allocate create dynamic" (window kinds: bench/rma.c's argument) and TRANSPORTS="shm tcp" choose the runs.
# tcp: ftmpi --transport tcp with FTMPI_RMA_DIRECT=0 (operations as messages over TCP: without it the two ranks,
# on one host, reach each other's window directly and TCP carries only the synchronisation); Open MPI --mca btl
# tcp,self; MPICH MPIR_CVAR_NOLOCAL=1 (no shared memory).
# shm: ftmpi = same-host direct access (src/rma/direct.h: load/store and atomics on MPI_Win_allocate memory,
# process_vm_writev/readv on MPI_Win_create/dynamic memory); ftmpi-msg = FTMPI_RMA_DIRECT=0 (active messages
# over the shm transport).
# Prints one table per transport and flavor: metric, size, ftmpi, ftmpi-msg (shm only), openmpi, mpich (us for
# *_lat, MB/s for put_bw, operations/s for *_rate and acc_int). Not part of CTest.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/mpicc" -O2 -o "$work/rma_ftmpi" "$here/rma.c"
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/rma_ompi" "$here/rma.c"
command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$work/rma_mpich" "$here/rma.c"
run() {  # impl transport flavor
  local f=$3
  case "$1/$2" in
    ftmpi/shm) timeout 120 "$build/bin/mpiexec" -n 2 "$work/rma_ftmpi" "$f" ;;
    ftmpi/tcp) FTMPI_RMA_DIRECT=0 timeout 120 "$build/bin/mpiexec" -n 2 --transport tcp "$work/rma_ftmpi" "$f" ;;
    ftmpimsg/shm) FTMPI_RMA_DIRECT=0 timeout 120 "$build/bin/mpiexec" -n 2 "$work/rma_ftmpi" "$f" ;;
    ftmpimsg/tcp) ;;
    ompi/shm) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 "$work/rma_ompi" "$f" ;;
    ompi/tcp) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe --mca btl tcp,self -n 2 "$work/rma_ompi" "$f" ;;
    mpich/shm) timeout 120 mpiexec.mpich -n 2 "$work/rma_mpich" "$f" ;;
    mpich/tcp) MPIR_CVAR_NOLOCAL=1 timeout 120 mpiexec.mpich -n 2 "$work/rma_mpich" "$f" ;;
  esac 2>/dev/null | grep -E '^(put|get|acc|fadd|fop|cas)'
}
for tr in ${TRANSPORTS:-shm tcp}; do
  for fl in ${FLAVORS:-allocate create dynamic}; do
    for impl in ${IMPLS:-ftmpi ftmpimsg ompi mpich}; do run "$impl" "$tr" "$fl" > "$work/$impl.$tr" || true; done
    echo "== $tr, $fl (2 ranks) =="
    printf "%-9s %8s %10s %10s %10s %10s\n" metric size ftmpi ftmpi-msg openmpi mpich
    while read -r m s v; do
      g=$(awk -v m="$m" -v s="$s" '$1==m && $2==s {print $3}' "$work/ftmpimsg.$tr" 2>/dev/null); g=${g:--}
      o=$(awk -v m="$m" -v s="$s" '$1==m && $2==s {print $3}' "$work/ompi.$tr" 2>/dev/null); o=${o:--}
      c=$(awk -v m="$m" -v s="$s" '$1==m && $2==s {print $3}' "$work/mpich.$tr" 2>/dev/null); c=${c:--}
      printf "%-9s %8s %10s %10s %10s %10s\n" "$m" "$s" "$v" "$g" "$o" "$c"
    done < "$work/ftmpi.$tr"
  done
done
