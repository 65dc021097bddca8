#!/usr/bin/env bash
# bench/rma_run.sh — one-sided figures of ftmpi next to Open MPI and MPICH, same source (bench/rma.c).
# usage: bench/rma_run.sh [FTMPI_BUILD_DIR]   (default: <repo>/build/release). 2 ranks, shm then tcp.
# tcp: ftmpi --transport tcp; Open MPI --mca btl tcp,self; MPICH MPIR_CVAR_NOLOCAL=1 (no shared memory).
# Prints one table per transport: metric, size, ftmpi, openmpi, mpich (us for *_lat, MB/s for put_bw,
# operations/s for acc_rate). Not part of CTest.
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
    ftmpi/tcp) timeout 120 "$build/bin/mpiexec" -n 2 --transport tcp "$work/rma_ftmpi" ;;
    ompi/shm) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 "$work/rma_ompi" ;;
    ompi/tcp) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe --mca btl tcp,self -n 2 "$work/rma_ompi" ;;
    mpich/shm) timeout 120 mpiexec.mpich -n 2 "$work/rma_mpich" ;;
    mpich/tcp) MPIR_CVAR_NOLOCAL=1 timeout 120 mpiexec.mpich -n 2 "$work/rma_mpich" ;;
  esac 2>/dev/null | grep -E '^(put|get|acc|fadd)'
}
for tr in shm tcp; do
  for impl in ftmpi ompi mpich; do run $impl $tr > "$work/$impl.$tr" || true; done
  echo "== $tr (2 ranks) =="
  printf "%-9s %8s %10s %10s %10s\n" metric size ftmpi openmpi mpich
  while read -r m s v; do
    o=$(awk -v m="$m" -v s="$s" '$1==m && $2==s {print $3}' "$work/ompi.$tr"); o=${o:--}
    c=$(awk -v m="$m" -v s="$s" '$1==m && $2==s {print $3}' "$work/mpich.$tr"); c=${c:--}
    printf "%-9s %8s %10s %10s %10s\n" "$m" "$s" "$v" "$o" "$c"
  done < "$work/ftmpi.$tr"
done
