#!/usr/bin/env bash
# bench/coll_run.sh — collective latency of ftmpi against Open MPI and MPICH, same source (bench/coll.c).
#
# usage: bench/coll_run.sh [options] [FTMPI_BUILD_DIR]   (default build dir: <repo>/build/release)
#   -n RANKS      comma list of rank counts                (default: 2,4,8)
#   -c COLLS      comma list of allreduce,bcast,alltoall,barrier,reduce (default: the first four)
#   -i IMPLS      comma list of ftmpi,openmpi,mpich        (default: all three); ftmpi-p2p adds a column:
#                 ftmpi with FTMPI_COLL_SHM=0 (point-to-point algorithms only: the shared-memory collective
#                 area off), for before/after in one run; it is not a peer in the ratio
#   -r ROUNDS     rounds; each round runs every implementation once, in rotating order (default: 3)
#   -m MIN -M MAX message sizes in bytes, suffix k/m allowed (default: 8 / 1m)
#   -x F -X F     size step factor at bound / oversubscribed rank counts (default: 2 / 4; the largest size
#                 always runs)
#   -T SECONDS    time of the timed loop of one size in one run (default: 0.04)
#   -t SECONDS    time limit of one whole run (default: 60)
#   -q            quick: 1 round, sizes up to 64k
#   -N            never apt-get install missing peers (they are just left out)
#   -h            this help
#
# Method (as bench/run.sh): builds bench/coll.c with ftmpi's mpicc (from the build dir), mpicc.openmpi and
# mpicc.mpich; runs them alternately (round 1: A B C, round 2: B C A, ...) and prints, per collective and rank
# count, the median over rounds of each size (microseconds per call, slowest rank) and ftmpi / lowest peer
# (<= 1: as fast or faster). At 2 ranks every rank is bound to a core:
#   ftmpi    mpiexec -n 2 --bind-to core
#   Open MPI mpiexec.openmpi --allow-run-as-root --bind-to core -n 2
#   MPICH    mpiexec.mpich -bind-to core -n 2
# At more ranks than cores nothing is bound and Open MPI gets --oversubscribe (it then yields when idle);
# those figures measure the scheduler as much as the algorithms. Under `chrt -f` (real-time priority) leave
# MPICH out above 2 ranks (-i ftmpi,openmpi): its oversubscribed ranks spin without yielding, and SCHED_FIFO
# ranks that spin keep the others (and `timeout`) off the cores for good (docs/performance.md, small13g).
# The defaults take about 3-4 minutes on 2 cores. Every run is under `timeout`; a failed run shows as "-"
# and its log is printed. Tables go to stdout, progress to stderr. Not part of CTest or .ci/run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)

rank_counts=2,4,8
colls=allreduce,bcast,alltoall,barrier
impls=ftmpi,openmpi,mpich
rounds=3
min_size=""
max_size=""
run_limit=60
size_seconds=0.04
step_bound=2
step_over=4
may_install=1

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

while getopts "n:c:i:r:m:M:x:X:T:t:qNh" opt; do
  case $opt in
    n) rank_counts=$OPTARG ;;
    c) colls=$OPTARG ;;
    i) impls=$OPTARG ;;
    r) rounds=$OPTARG ;;
    m) min_size=$OPTARG ;;
    M) max_size=$OPTARG ;;
    x) step_bound=$OPTARG ;;
    X) step_over=$OPTARG ;;
    T) size_seconds=$OPTARG ;;
    t) run_limit=$OPTARG ;;
    q) rounds=1; max_size=64k ;;
    N) may_install=0 ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=${1:-$repo/build/release}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "coll_run.sh: -r wants a positive number" >&2; exit 2; }

say() { echo "coll_run.sh: $*" >&2; }

# ---- peers: install when missing (root only), then keep the implementations that are really available ----
. "$(dirname "$0")/peers.sh"
ensure_peers
title[ftmpi-p2p]="ftmpi (FTMPI_COLL_SHM=0)"

work=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-coll.XXXXXX")
trap 'rm -rf "$work"' EXIT

cores=$(nproc)
launch() { # launch <impl> <ranks> <program> [args...]: sets the array $cmd
  local impl=$1 n=$2 bind=1
  shift 2
  [ "$n" -gt "$cores" ] && bind=0
  case $impl in
    ftmpi | ftmpi-p2p)
      cmd=("$build/bin/mpiexec" -n "$n")
      [ "$impl" = ftmpi-p2p ] && cmd=(env FTMPI_COLL_SHM=0 "${cmd[@]}")
      [ $bind = 1 ] && cmd+=(--bind-to core)
      ;;
    openmpi)
      cmd=(mpiexec.openmpi --allow-run-as-root -n "$n")
      if [ $bind = 1 ]; then cmd+=(--bind-to core); else cmd+=(--oversubscribe); fi
      ;;
    mpich)
      cmd=(mpiexec.mpich -n "$n")
      [ $bind = 1 ] && cmd+=(-bind-to core)
      ;;
  esac
  cmd+=("$@")
}

IFS=, read -r -a want_impls <<<"$impls"
IFS=, read -r -a want_ranks <<<"$rank_counts"
for n in "${want_ranks[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { say "-n wants positive rank counts, not '$n'"; exit 2; }
done
IFS=, read -r -a want_colls <<<"$colls"
for c in "${want_colls[@]}"; do
  case $c in allreduce | bcast | alltoall | barrier | reduce) ;; *) say "unknown collective '$c'"; exit 2 ;; esac
done
active=()
for impl in "${want_impls[@]}"; do
  case $impl in ftmpi | ftmpi-p2p | openmpi | mpich) ;; *) say "unknown implementation '$impl'"; exit 2 ;; esac
  if [ "$impl" = ftmpi-p2p ]; then
    [ -x "$work/coll.ftmpi" ] || "${cc[ftmpi]}" -O2 -o "$work/coll.ftmpi" "$here/coll.c" || continue
    cp "$work/coll.ftmpi" "$work/coll.ftmpi-p2p" && active+=("$impl")
    continue
  fi
  compiler=${cc[$impl]}
  if ! command -v "$compiler" >/dev/null; then
    say "${title[$impl]}: no compiler $compiler, column left empty"
    continue
  fi
  if "$compiler" -O2 -o "$work/coll.$impl" "$here/coll.c" >"$work/build.$impl.log" 2>&1; then
    active+=("$impl")
  else
    say "${title[$impl]}: building coll.c failed:"; cat "$work/build.$impl.log" >&2
  fi
done
[ ${#active[@]} -gt 0 ] || { say "nothing to run"; exit 1; }

args=(-c "$colls" -T "$size_seconds")
[ -n "$min_size" ] && args+=(-m "$min_size")
[ -n "$max_size" ] && args+=(-M "$max_size")

# ---- run: rounds outermost, implementations rotated per round, so drifts in machine load hit all alike ----
for ((r = 0; r < rounds; r++)); do
  for n in "${want_ranks[@]}"; do
    k_max=${#active[@]}
    for ((k = 0; k < k_max; k++)); do
      impl=${active[$(((k + r) % k_max))]}
      out=$work/$n.$impl.$r
      step=$step_bound
      [ "$n" -gt "$cores" ] && step=$step_over
      launch "$impl" "$n" "$work/coll.$impl" "${args[@]}" -x "$step"
      say "round $((r + 1))/$rounds, $n ranks, ${title[$impl]}"
      if ! timeout -k 5 "$run_limit" "${cmd[@]}" >"$out" 2>"$out.err"; then
        say "${title[$impl]} at $n ranks failed or timed out (${cmd[*]}):"
        tail -n 20 "$out" "$out.err" >&2 || true
        # a run cut short keeps the lines it completed; a size it never reached shows as "-"
      fi
    done
  done
done

# ---- report ----
# table <ranks> <collective>: medians per size and implementation from $work/<ranks>.<impl>.<round>
table() {
  local n=$1 c=$2 what
  case $c in
    allreduce) what="MPI_SUM on doubles, size = vector bytes" ;;
    bcast) what="bytes from rank 0" ;;
    alltoall) what="size = bytes per block" ;;
    barrier) what="" ;;
    reduce) what="MPI_SUM on doubles to rank 0, size = vector bytes" ;;
  esac
  echo
  echo "== $c, $n ranks$([ "$n" -le "$cores" ] && echo ", bound" || echo ", oversubscribed")${what:+ ($what)}: us per call, median of $rounds =="
  for impl in "${active[@]}"; do
    for ((r = 0; r < rounds; r++)); do
      grep -v '^#' "$work/$n.$impl.$r" 2>/dev/null | awk -v impl="$impl" -v c="$c" '$1 == c && NF >= 3 { print impl, $2, $3 }'
    done
  done | awk -v impls="${active[*]}" -v n="$n" -v c="$c" -v slow="$work/slow" '
    function human(x) {
      if (x >= 1048576 && x % 1048576 == 0) return (x / 1048576) "M"
      if (x >= 1024 && x % 1024 == 0) return (x / 1024) "K"
      return x
    }
    function median(key,   m, i, j, v, t) {
      m = cnt[key]
      for (i = 1; i <= m; i++) v[i] = val[key, i]
      for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
      return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    { key = $1 SUBSEP $2; val[key, ++cnt[key]] = $3; if (!($2 in seen)) { seen[$2] = 1; sizes[++ns] = $2 } }
    END {
      no = split("ftmpi ftmpi-p2p openmpi mpich", order, " ")
      name["ftmpi"] = "ftmpi"; name["ftmpi-p2p"] = "ftmpi p2p"; name["openmpi"] = "Open MPI"; name["mpich"] = "MPICH"
      k = split(impls, act, " "); for (i = 1; i <= k; i++) on[act[i]] = 1
      printf "%-8s", "size"; for (i = 1; i <= no; i++) if (on[order[i]] || i != 2) printf " %12s", name[order[i]]; printf " %11s\n", "ftmpi/best"
      for (x = 2; x <= ns; x++) { t = sizes[x]; for (y = x - 1; y >= 1 && sizes[y] + 0 > t + 0; y--) sizes[y + 1] = sizes[y]; sizes[y + 1] = t }
      for (k = 1; k <= ns; k++) {
        sz = sizes[k]; printf "%-8s", human(sz); best = ""; mine = ""
        for (i = 1; i <= no; i++) {
          im = order[i]; key = im SUBSEP sz
          if (i == 2 && !on[im]) continue
          if (!on[im] || !(key in cnt)) { printf " %12s", "-"; continue }
          m = median(key); printf " %12.2f", m
          if (im == "ftmpi") mine = m
          else if (im != "ftmpi-p2p" && (best == "" || m < best)) best = m
        }
        if (mine != "" && best != "" && best > 0) {
          printf " %11.2f\n", mine / best
          if (mine / best > 1.5) printf "%s %d ranks %s: %.2fx\n", c, n, human(sz), mine / best >> slow
        } else printf " %11s\n", "-"
      }
    }'
}

echo "ftmpi collective comparison — $(date -u '+%Y-%m-%d %H:%M UTC'), $cores cores, ranks: ${rank_counts}"
echo "ftmpi build: $build"
: >"$work/slow"
for n in "${want_ranks[@]}"; do
  for c in "${want_colls[@]}"; do
    table "$n" "$c"
  done
done
echo
echo "ratio: ftmpi / lowest peer (<= 1 is as fast or faster)."
if [ -s "$work/slow" ]; then
  echo "more than 1.5x slower than the best peer:"
  sed 's/^/  /' "$work/slow"
else
  echo "no size where ftmpi is more than 1.5x slower than the best peer."
fi
