#!/usr/bin/env bash
# bench/overlap_run.sh — overlap of non-blocking operations with computation (bench/overlap.c, IMB-NBC's
# formula), ftmpi without and with its progress thread side by side with Open MPI and MPICH.
#
# usage: bench/overlap_run.sh [-r ROUNDS] [-n RANKS] [-m MIN] [-M MAX] [-i ITERS] [-o OPS] [-I IMPLS] [BUILD_DIR]
#   -r ROUNDS   rounds; each runs every implementation once, in rotating order (default 3)
#   -n RANKS    ranks (default 2)
#   -m/-M       sizes in bytes per rank, powers of 4 from MIN to MAX (default 4m/4m; suffixes k, m)
#   -i ITERS    timed iterations per quantity and run (default 20)
#   -o OPS      comma list of iallreduce,ibcast,ialltoall,isendrecv (default: all)
#   -I IMPLS    comma list of ftmpi,ftmpi-async,openmpi,mpich,mpich-async (default: all)
#   BUILD_DIR   ftmpi build directory (default <repo>/build/release)
# Runs, 2 ranks bound to cores:
#   ftmpi        mpiexec -n N --bind-to core                      (no progress thread: the default)
#   ftmpi-async  mpiexec -n N --bind-to core --async-progress     (FTMPI_ASYNC_PROGRESS=1)
#   openmpi      mpiexec.openmpi --allow-run-as-root --oversubscribe --bind-to core -n N
#   mpich        mpiexec.mpich -bind-to core -n N
#   mpich-async  the same with MPIR_CVAR_ASYNC_PROGRESS=1 (MPICH's own progress thread)
# Prints per operation and size the median over rounds of each implementation's overlap (%) and of its
# t_comm (us). Figures only mean something on a quiet machine; on a loaded one (other programs taking the
# cores) they move by tens of percent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)
rounds=3 ranks=2 min=4m max=4m iters=20 ops=iallreduce,ibcast,ialltoall,isendrecv
impls=ftmpi,ftmpi-async,openmpi,mpich,mpich-async
while getopts "r:n:m:M:i:o:I:h" opt; do
  case $opt in
    r) rounds=$OPTARG ;; n) ranks=$OPTARG ;; m) min=$OPTARG ;; M) max=$OPTARG ;; i) iters=$OPTARG ;;
    o) ops=$OPTARG ;; I) impls=$OPTARG ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-$repo/build/release}" && pwd -P)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say() { echo "overlap_run: $*" >&2; }

declare -A cc=([ftmpi]="$build/bin/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
IFS=, read -r -a want <<<"$impls"
avail=()
for i in "${want[@]}"; do
  base=${i%-async}
  command -v "${cc[$base]}" >/dev/null 2>&1 || { say "no ${cc[$base]}: $i left out"; continue; }
  [ -x "$work/overlap.$base" ] || "${cc[$base]}" -O2 -Wno-stringop-overflow -o "$work/overlap.$base" "$here/overlap.c"
  avail+=("$i")
done
args=(-m "$min" -M "$max" -i "$iters" -o "$ops")
run_one() {  # impl round
  local impl=$1 out="$work/$1.$2.txt"
  case $impl in
    ftmpi) timeout 300 "$build/bin/mpiexec" -n "$ranks" --bind-to core "$work/overlap.ftmpi" "${args[@]}" ;;
    ftmpi-async) timeout 300 "$build/bin/mpiexec" -n "$ranks" --bind-to core --async-progress "$work/overlap.ftmpi" "${args[@]}" ;;
    openmpi) timeout 300 mpiexec.openmpi --allow-run-as-root --oversubscribe --bind-to core -n "$ranks" "$work/overlap.openmpi" "${args[@]}" ;;
    mpich) timeout 300 mpiexec.mpich -bind-to core -n "$ranks" "$work/overlap.mpich" "${args[@]}" ;;
    mpich-async) MPIR_CVAR_ASYNC_PROGRESS=1 timeout 300 mpiexec.mpich -bind-to core -n "$ranks" "$work/overlap.mpich" "${args[@]}" ;;
  esac >"$out" 2>&1 || { say "$impl round $2 failed:"; cat "$out" >&2; }
}
n=${#avail[@]}
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    impl=${avail[$(((k + r) % n))]}
    say "round $((r + 1))/$rounds: $impl"
    run_one "$impl" "$r"
  done
done
python3 - "$work" "$rounds" "${avail[@]}" <<'PY'
import sys, statistics, glob, os
work, rounds, impls = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
data = {}  # (op, bytes) -> impl -> [(comm, ovl%)]
for impl in impls:
    for r in range(rounds):
        p = os.path.join(work, f"{impl}.{r}.txt")
        if not os.path.exists(p): continue
        for line in open(p):
            f = line.split()
            if len(f) == 6 and not line.startswith("#"):
                try: data.setdefault((f[0], int(f[1])), {}).setdefault(impl, []).append((float(f[2]), float(f[5])))
                except ValueError: pass
print("# overlap %% (median over %d rounds; t_comm in us in brackets); IMB-NBC formula, see bench/overlap.c" % rounds)
print("%-11s %9s " % ("op", "bytes") + " ".join("%20s" % i for i in impls))
for key in sorted(data):
    row = "%-11s %9d " % key
    for i in impls:
        v = data[key].get(i)
        row += " %20s" % ("-" if not v else "%5.1f (%8.0f)" % (statistics.median(x[1] for x in v), statistics.median(x[0] for x in v)))
    print(row)
PY
