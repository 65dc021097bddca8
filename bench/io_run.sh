#!/usr/bin/env bash
# bench/io_run.sh — collective write bandwidth (bench/io.c) of ftmpi next to Open MPI and MPICH, 4 ranks, one file
# of SIZE MiB (default 1024) in DIR (default /tmp; needs that much free space; the file is deleted).
# usage: bench/io_run.sh [FTMPI_BUILD_DIR] [DIR] [SIZE_MIB]. Prints pattern, sync, MB/s per MPI. Not part of CTest.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/release}
dir=${2:-/tmp}
mib=${3:-1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/mpicc" -O2 -o "$work/io_ftmpi" "$here/io.c"
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/io_ompi" "$here/io.c"
command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$work/io_mpich" "$here/io.c"
timeout 300 "$build/bin/mpiexec" -n 4 "$work/io_ftmpi" "$dir" "$mib" > "$work/ftmpi" 2>/dev/null
[ -x "$work/io_ompi" ] && timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n 4 "$work/io_ompi" "$dir" "$mib" > "$work/ompi" 2>/dev/null
[ -x "$work/io_mpich" ] && timeout 300 mpiexec.mpich -n 4 "$work/io_mpich" "$dir" "$mib" > "$work/mpich" 2>/dev/null
echo "== collective write, 4 ranks, $mib MiB in $dir (MB/s) =="
printf "%-8s %-7s %8s %8s %8s\n" pattern sync ftmpi openmpi mpich
while read -r p s v; do
  o=$(awk -v p="$p" -v s="$s" '$1==p && $2==s {print $3}' "$work/ompi" 2>/dev/null); o=${o:--}
  m=$(awk -v p="$p" -v s="$s" '$1==p && $2==s {print $3}' "$work/mpich" 2>/dev/null); m=${m:--}
  printf "%-8s %-7s %8s %8s %8s\n" "$p" "$s" "$v" "$o" "$m"
done < "$work/ftmpi"
