#!/usr/bin/env bash
# bench/rma_run.sh — one-sided figures of ftmpi next to Open MPI and MPICH, same source (bench/rma.c).
# usage: bench/rma_run.sh [FTMPI_BUILD_DIR]   (default: <repo>/build/release). 2 ranks, shm then tcp.
# tcp: ftmpi --transport tcp with FTMPI_RMA_DIRECT=0 (operations as messages over TCP: without it the two ranks,
# on one host, map each other's window and TCP carries only the synchronisation); Open MPI --mca btl tcp,self;
# MPICH MPIR_CVAR_NOLOCAL=1 (no shared memory).
# shm: ftmpi = same-host direct load/store (src/rma/direct.h); ftmpi-msg = FTMPI_RMA_DIRECT=0 (active messages
# over the shm transport, the path before direct access).
# Prints one table per transport: metric, size, ftmpi, ftmpi-msg (shm only), openmpi, mpich (us for *_lat,
# MB/s for put_bw, operations/s for acc_rate). Not part of CTest.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/mpicc" -O2 -o "$work/rma_ftmpi" "$here/rma.c"
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/rma_ompi" "$here/rma.c"
command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$work/rma_mpich" "$here/rma.c"
run() {  # impl transport
  case "$1/$2" in
    ftmpi/shm) timeout 120 "$build/bin/mpiexec" -n 2 "$work/rma_ftmpi" ;;
    ftmpi/tcp) FTMPI_RMA_DIRECT=0 timeout 120 "$build/bin/mpiexec" -n 2 --transport tcp "$work/rma_ftmpi" ;;
    ftmpimsg/shm) FTMPI_RMA_DIRECT=0 timeout 120 "$build/bin/mpiexec" -n 2 "$work/rma_ftmpi" ;;
    ftmpimsg/tcp) ;;
    ompi/shm) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 "$work/rma_ompi" ;;
    ompi/tcp) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe --mca btl tcp,self -n 2 "$work/rma_ompi" ;;
    mpich/shm) timeout 120 mpiexec.mpich -n 2 "$work/rma_mpich" ;;
    mpich/tcp) MPIR_CVAR_NOLOCAL=1 timeout 120 mpiexec.mpich -n 2 "$work/rma_mpich" ;;
  esac 2>/dev/null | grep -E '^(put|get|acc|fadd)'
}
for tr in shm tcp; do
  for impl in ftmpi ftmpimsg ompi mpich; do run $impl $tr > "$work/$impl.$tr" || true; done
  echo "== $tr (2 ranks) =="
  printf "%-9s %8s %10s %10s %10s %10s\n" metric size ftmpi ftmpi-msg openmpi mpich
  while read -r m s v; do
    g=$(awk -v m="$m" -v s="$s" '$1==m && $2==s {print $3}' "$work/ftmpimsg.$tr"); g=${g:--}
    o=$(awk -v m="$m" -v s="$s" '$1==m && $2==s {print $3}' "$work/ompi.$tr"); o=${o:--}
    c=$(awk -v m="$m" -v s="$s" '$1==m && $2==s {print $3}' "$work/mpich.$tr"); c=${c:--}
    printf "%-9s %8s %10s %10s %10s %10s\n" "$m" "$s" "$v" "$g" "$o" "$c"
  done < "$work/ftmpi.$tr"
done
