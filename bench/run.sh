#!/usr/bin/env bash
# bench/run.sh — compare ftmpi with Open MPI and MPICH on this machine, same benchmark sources for all three.
#
# usage: bench/run.sh [options] [FTMPI_BUILD_DIR]        (default build dir: <repo>/build/release)
#   -s SECTIONS   comma list of shm,tcp                  (default: shm,tcp)
#   -b BENCHES    comma list of pingpong,bandwidth,msgrate (default: pingpong,bandwidth; msgrate: windows of 64
#                 8-byte Isend/Irecv acknowledged per window, messages/s, issue 13 target 2;
#                 env MSGRATE_SIZE=N for another size)
#   -i IMPLS      comma list of ftmpi,openmpi,mpich      (default: all three)
#   -r ROUNDS     rounds; each round runs every implementation once, in rotating order (default: 3)
#   -m MIN -M MAX message sizes in bytes, suffix k/m allowed (default: 0 / 4m; bandwidth starts at 1)
#   -B BUDGET     bytes moved per size and run (smaller = faster, noisier; default: the programs' own)
#   -T SECONDS    time limit of the timed loop of one size in one run (default: 0.1)
#   -t SECONDS    time limit of one whole run (default: 60)
#   -q            quick: 1 round, sizes up to 64k
#   -n            never apt-get install missing peers (they are just left out)
#   -h            this help
#
# What it does: installs openmpi-bin libopenmpi-dev mpich libmpich-dev with apt-get when they are missing and
# we are root; builds bench/pingpong.c and bench/bandwidth.c with ftmpi's mpicc (from the build dir), Open
# MPI's mpicc.openmpi and MPICH's mpicc.mpich; runs them alternately (round 1: A B C, round 2: B C A, ...)
# with 2 ranks bound to cores:
#   ftmpi    mpiexec -n 2 --bind-to core                                  (tcp: --transport tcp)
#   Open MPI mpiexec.openmpi --allow-run-as-root --bind-to core -n 2       (tcp: --mca btl tcp,self)
#   MPICH    mpiexec.mpich -bind-to core -n 2                             (tcp section: its default, reference)
# and prints, per section and benchmark, the median over rounds of each size and the ratio of ftmpi to the
# best peer (latency: ftmpi / lowest peer, lower is better; bandwidth: ftmpi / highest peer, higher is better;
# in the tcp section the ratio is against Open MPI's TCP only, since MPICH's default may not use TCP).
# Every run is under `timeout`; a run that fails or times out shows as "-" and its log is printed.
# Output is a plain-text table on stdout; progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)

sections=shm,tcp
benches=pingpong,bandwidth
impls=ftmpi,openmpi,mpich
rounds=3
min_size=""
max_size=""
budget=""
run_limit=60
size_seconds=0.1
may_install=1

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

while getopts "s:b:i:r:m:M:B:T:t:qnh" opt; do
  case $opt in
    s) sections=$OPTARG ;;
    b) benches=$OPTARG ;;
    i) impls=$OPTARG ;;
    r) rounds=$OPTARG ;;
    m) min_size=$OPTARG ;;
    M) max_size=$OPTARG ;;
    B) budget=$OPTARG ;;
    T) size_seconds=$OPTARG ;;
    t) run_limit=$OPTARG ;;
    q) rounds=1; max_size=64k ;;
    n) may_install=0 ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=${1:-$repo/build/release}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -r wants a positive number" >&2; exit 2; }

say() { echo "run.sh: $*" >&2; }

# ---- peers: install when missing (root only), then keep the implementations that are really available ----
. "$(dirname "$0")/peers.sh"
ensure_peers

work=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# compiler and launcher per implementation
launch() { # launch <impl> <section> <program> [args...]: prints the command as an array into $cmd
  local impl=$1 section=$2
  shift 2
  case $impl in
    ftmpi)
      cmd=("$build/bin/mpiexec" -n 2 --bind-to core)
      [ "$section" = tcp ] && cmd=(env FTMPI_TRANSPORT=tcp "${cmd[@]}" --transport tcp)
      ;;
    openmpi)
      cmd=(mpiexec.openmpi --allow-run-as-root --bind-to core -n 2)
      [ "$section" = tcp ] && cmd+=(--mca btl tcp,self)
      ;;
    mpich) cmd=(mpiexec.mpich -bind-to core -n 2) ;;
  esac
  cmd+=("$@")
}

IFS=, read -r -a want_impls <<<"$impls"
IFS=, read -r -a want_sections <<<"$sections"
IFS=, read -r -a want_benches <<<"$benches"
active=()
for impl in "${want_impls[@]}"; do
  case $impl in ftmpi | openmpi | mpich) ;; *) say "unknown implementation '$impl'"; exit 2 ;; esac
  compiler=${cc[$impl]}
  if ! command -v "$compiler" >/dev/null; then
    say "${title[$impl]}: no compiler $compiler, column left empty"
    continue
  fi
  ok=1
  for b in "${want_benches[@]}"; do
    case $b in pingpong | bandwidth | msgrate) ;; *) say "unknown benchmark '$b'"; exit 2 ;; esac
    if ! "$compiler" -O2 -o "$work/$b.$impl" "$here/$b.c" >"$work/build.$impl.log" 2>&1; then
      say "${title[$impl]}: building $b failed:"; cat "$work/build.$impl.log" >&2; ok=0
    fi
  done
  [ $ok = 1 ] && active+=("$impl")
done
for s in "${want_sections[@]}"; do
  case $s in shm | tcp) ;; *) say "unknown section '$s'"; exit 2 ;; esac
done
[ ${#active[@]} -gt 0 ] || { say "nothing to run"; exit 1; }

args=()
[ -n "$min_size" ] && args+=(-m "$min_size")
[ -n "$max_size" ] && args+=(-M "$max_size")
[ -n "$budget" ] && args+=(-b "$budget")
[ -n "$size_seconds" ] && args+=(-T "$size_seconds")

# ---- run: rounds outermost, implementations rotated per round, so drifts in machine load hit all alike ----
for ((r = 0; r < rounds; r++)); do
  for s in "${want_sections[@]}"; do
    for b in "${want_benches[@]}"; do
      n=${#active[@]}
      for ((k = 0; k < n; k++)); do
        impl=${active[$(((k + r) % n))]}
        out=$work/$s.$b.$impl.$r
        if [ "$b" = msgrate ]; then  # one size (env MSGRATE_SIZE, default 8 B), timed loop of -T seconds
          launch "$impl" "$s" "$work/$b.$impl" -m "${MSGRATE_SIZE:-8}" -T "$size_seconds"
        else
          launch "$impl" "$s" "$work/$b.$impl" "${args[@]}"
        fi
        say "round $((r + 1))/$rounds $s $b ${title[$impl]}"
        if ! timeout -k 5 "$run_limit" "${cmd[@]}" >"$out" 2>"$out.err"; then
          say "${title[$impl]} $s $b failed or timed out (${cmd[*]}):"
          tail -n 20 "$out" "$out.err" >&2 || true
          : >"$out"  # a failed run contributes no numbers
        fi
      done
    done
  done
done

# ---- report ----
# table <section> <bench>: medians per size and implementation from $work/<section>.<bench>.<impl>.<round>
table() {
  local s=$1 b=$2 unit better ref
  if [ "$b" = pingpong ]; then unit="one-way latency, us"; better=low
  elif [ "$b" = msgrate ]; then unit="message rate, messages/s, windows of 64"; better=high
  else unit="bandwidth, MB/s"; better=high; fi
  if [ "$s" = tcp ]; then ref=openmpi; else ref=peers; fi
  echo
  echo "== $([ "$s" = shm ] && echo "shared memory" || echo "TCP"): $b ($unit; median of $rounds round(s)) =="
  for impl in "${active[@]}"; do
    for ((r = 0; r < rounds; r++)); do
      grep -v '^#' "$work/$s.$b.$impl.$r" 2>/dev/null | awk -v impl="$impl" 'NF >= 2 { print impl, $1, $2 }'
    done
  done | awk -v better="$better" -v ref="$ref" -v impls="${active[*]}" -v tcp="$([ "$s" = tcp ] && echo 1 || echo 0)" '
    function human(n) {
      if (n >= 1048576 && n % 1048576 == 0) return (n / 1048576) "M"
      if (n >= 1024 && n % 1024 == 0) return (n / 1024) "K"
      return n
    }
    function median(key,   n, i, j, v, t) {
      n = cnt[key]
      for (i = 1; i <= n; i++) v[i] = val[key, i]
      for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
      return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    { key = $1 SUBSEP $2; val[key, ++cnt[key]] = $3; if (!($2 in seen)) { seen[$2] = 1; sizes[++ns] = $2 } }
    END {
      split("ftmpi openmpi mpich", order, " ")
      name["ftmpi"] = "ftmpi"; name["openmpi"] = (tcp ? "OpenMPI/tcp" : "Open MPI"); name["mpich"] = (tcp ? "MPICH(ref)" : "MPICH")
      n = split(impls, act, " "); for (i = 1; i <= n; i++) on[act[i]] = 1
      vs = (ref == "openmpi") ? "ftmpi/OpenMPI" : "ftmpi/best"
      printf "%-8s", "size"; for (i = 1; i <= 3; i++) printf " %12s", name[order[i]]; printf " %14s\n", vs
      for (x = 2; x <= ns; x++) { t = sizes[x]; for (y = x - 1; y >= 1 && sizes[y] + 0 > t + 0; y--) sizes[y + 1] = sizes[y]; sizes[y + 1] = t }
      for (k = 1; k <= ns; k++) {
        sz = sizes[k]; printf "%-8s", human(sz); best = ""; mine = ""
        for (i = 1; i <= 3; i++) {
          im = order[i]; key = im SUBSEP sz
          if (!on[im] || !(key in cnt)) { printf " %12s", "-"; continue }
          m = median(key); printf (better == "low" ? " %12.3f" : " %12.1f"), m
          if (im == "ftmpi") mine = m
          else if (ref == "peers" || ref == im) {
            if (best == "" || (better == "low" && m < best) || (better == "high" && m > best)) best = m
          }
        }
        if (mine != "" && best != "" && best > 0) printf " %14.2f\n", mine / best; else printf " %14s\n", "-"
      }
    }'
}

echo "ftmpi benchmark comparison — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, 2 ranks bound to cores"
echo "ftmpi build: $build"
for s in "${want_sections[@]}"; do
  for b in "${want_benches[@]}"; do
    table "$s" "$b"
  done
done
echo
echo "ratio: latency ftmpi/lowest (<= 1 is as fast or faster); bandwidth and message rate ftmpi/highest (>= 1 is as fast or faster)"
