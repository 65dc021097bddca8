#!/usr/bin/env bash
# bench/imb.sh — build the Intel MPI Benchmarks (IMB-RMA, IMB-IO, IMB-NBC, IMB-MPI1), unmodified, with ftmpi's,
# Open MPI's and MPICH's compilers, run the chosen benchmarks with each MPI alternately (same options, same rank
# count) and print every row side by side with the ratios ftmpi/Open MPI and ftmpi/MPICH.
#
# usage: bench/imb.sh [options] IMB_DIR
#   IMB_DIR       an unpacked Intel MPI Benchmarks tree that you obtained (github.com/intel/mpi-benchmarks, a
#                 release tarball or a checkout). Both layouts: IMB 2017/2018 (src/ with make_mpich and
#                 Makefile.base: IMB-RMA with -DRMA, IMB-IO with -DMPIIO, all plain C) and IMB 2019+ (top-level
#                 Makefile, `make IMB-RMA CC=mpicc CXX=mpicxx`). The tree is only read: it is copied, once per MPI.
#   -b DIR        ftmpi build (or install) directory with bin/mpicc, bin/mpicxx, bin/mpiexec (default build/release)
#   -s SUITES     comma list of rma, io, nbc, mpi1                                        (default: rma,io)
#   -n RANKS      rank count of every run                                                  (default: 4)
#   -r ROUNDS     rounds; in each round every MPI runs once, in turn; the median is kept   (default: 1)
#   -m MPIS       comma list among ftmpi, openmpi, mpich                                   (default: all three)
#   -w DIR        work directory (copies, binaries, logs); kept                            (default: a mktemp -d)
#   -t SECONDS    timeout of one run                                                       (default: 900)
#   -T TRANSPORT  ftmpi's mpiexec --transport (shm, tcp)                                   (default: its own choice)
#   -h            this help
# Environment: IMB_ARGS (IMB options of every run, default "-msglog 0:16 -iter 100 -time 1"), and the benchmark
# lists IMB_RMA_BENCH, IMB_IO_BENCH, IMB_NBC_BENCH, IMB_MPI1_BENCH (default: empty = the suite's default list).
# IMB_IO_ARGS is appended for IMB-IO (e.g. "-npmin 4" to run the parallel IO benchmarks at the full count only).
# IMB_CPPFLAGS is added to the preprocessor flags of every build (2017/2018 layout), e.g. "-DCHECK": IMB then
# checks the data every transfer delivers and prints a "defects" column (0.00 when every byte was right) and an
# "Error ..." line per bad sample; a run passes only if every defects value is 0 (use its own -w directory:
# binaries already in the work directory are reused).
#
# Output: one line per run (MPI, suite, round, exit status, wall time), then for every (suite, benchmark, mode,
# #processes, #bytes) row: the time of each MPI in usec (t[usec], else t_max, else t_pure for
# Truly_passive_put/overlap rows: the column IMB reports as the time of the slowest rank) and the ratios
# ftmpi/Open MPI and ftmpi/MPICH (above 1: ftmpi slower). Rows flagged ">2x" are where ftmpi is more than twice as
# slow as the best peer. A run passes when it exits 0 and its log holds none of "unsuccessful", "FAILED", "Abort",
# "error" (IMB's own failure words); a time-out row ("time-out.; Time limit ...") is IMB's per-sample time budget
# (-time), not a failure.
#
# Build notes, not edits of IMB: with the 2017/2018 layout the script runs `make -f make_mpich MPI_HOME=<dir>
# IMB-xxx` in each copy, MPI_HOME being ftmpi's build directory or, for the peers, a directory holding only
# bin/mpicc (a one-line script calling mpicc.openmpi or mpicc.mpich). Open MPI 4.x's mpi.h refuses MPI_LB/MPI_UB/
# MPI_Type_struct (removed in MPI-3.0, used by IMB-IO 2018's IMB_init_transfer.c) unless the library was configured
# with --enable-mpi1-compatibility; its library still exports them, so the Open MPI build gets
# CPPFLAGS=-DOMPI_BUILDING=1, which makes its mpi.h declare them. Not part of CTest or CI; figures only mean
# something on a quiet machine (docs/performance.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)

build="$repo/build/release"
suites=rma,io
ranks=4
rounds=1
mpis=ftmpi,openmpi,mpich
work=""
run_limit=900
transport=""
IMB_ARGS=${IMB_ARGS:-"-msglog 0:16 -iter 100 -time 1"}
IMB_IO_ARGS=${IMB_IO_ARGS:-""}

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
say() { printf '%s\n' "$*" >&2; }
die() { say "imb.sh: $*"; exit 2; }

while getopts "b:s:n:r:m:w:t:T:h" opt; do
  case $opt in
    b) build=$OPTARG ;;
    s) suites=$OPTARG ;;
    n) ranks=$OPTARG ;;
    r) rounds=$OPTARG ;;
    m) mpis=$OPTARG ;;
    w) work=$OPTARG ;;
    t) run_limit=$OPTARG ;;
    T) transport=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { usage >&2; exit 2; }
imb=$(cd "$1" && pwd -P) || die "no directory $1"
build=$(cd "$build" && pwd -P) || die "no ftmpi build directory $build"
[ -x "$build/bin/mpicc" ] && [ -x "$build/bin/mpiexec" ] || die "$build/bin has no mpicc/mpiexec"
[ -n "$work" ] || work=$(mktemp -d /tmp/ftmpi-imb.XXXXXX)
mkdir -p "$work"
work=$(cd "$work" && pwd -P)

if [ -f "$imb/src/make_mpich" ] && [ -f "$imb/src/Makefile.base" ]; then
  layout=old
elif [ -f "$imb/Makefile" ] && [ -d "$imb/src_cpp" ]; then
  layout=new
else
  die "$imb is neither an IMB 2017/2018 tree (src/make_mpich) nor an IMB 2019+ tree (Makefile, src_cpp/)"
fi

target_of() {  # suite -> IMB binary name
  case $1 in rma) echo IMB-RMA ;; io) echo IMB-IO ;; nbc) echo IMB-NBC ;; mpi1) echo IMB-MPI1 ;;
    *) die "unknown suite $1 (rma, io, nbc, mpi1)" ;; esac
}
bench_of() {
  case $1 in rma) echo "${IMB_RMA_BENCH:-}" ;; io) echo "${IMB_IO_BENCH:-}" ;; nbc) echo "${IMB_NBC_BENCH:-}" ;;
    mpi1) echo "${IMB_MPI1_BENCH:-}" ;; esac
}
cc_of() { case $1 in ftmpi) echo "$build/bin/mpicc" ;; openmpi) echo mpicc.openmpi ;; mpich) echo mpicc.mpich ;; esac; }
cxx_of() { case $1 in ftmpi) echo "$build/bin/mpicxx" ;; openmpi) echo mpicxx.openmpi ;; mpich) echo mpicxx.mpich ;; esac; }
launcher_of() {  # mpi -> command prefix for N ranks
  case $1 in
    ftmpi) echo "$build/bin/mpiexec -n $ranks${transport:+ --transport $transport}" ;;
    openmpi) echo "mpirun.openmpi --oversubscribe --allow-run-as-root -n $ranks" ;;
    mpich) echo "mpiexec.mpich -n $ranks" ;;
    *) die "unknown MPI $1 (ftmpi, openmpi, mpich)" ;;
  esac
}

IFS=, read -r -a suite_list <<<"$suites"
IFS=, read -r -a mpi_list <<<"$mpis"

# ---- build: one copy of the tree per MPI, the suite's own makefiles ----
for m in "${mpi_list[@]}"; do
  cc=$(cc_of "$m"); command -v "$cc" >/dev/null || die "$m: no compiler $cc"
  dst="$work/$m"
  if [ ! -d "$dst/tree" ]; then
    mkdir -p "$dst"
    cp -r "$imb" "$dst/tree"
  fi
  for s in "${suite_list[@]}"; do
    t=$(target_of "$s")
    [ -x "$dst/$t" ] && continue
    log="$dst/build-$t.log"
    if [ $layout = old ]; then
      home="$build"
      cppflags=""
      if [ "$m" != ftmpi ]; then
        home="$dst/mpihome"; mkdir -p "$home/bin"
        printf '#!/bin/sh\nexec %s "$@"\n' "$cc" >"$home/bin/mpicc"; chmod +x "$home/bin/mpicc"
      fi
      [ "$m" = openmpi ] && cppflags="-DOMPI_BUILDING=1"
      cppflags="$cppflags ${IMB_CPPFLAGS:-}"
      if ! (cd "$dst/tree/src" && make -f make_mpich MPI_HOME="$home" CPPFLAGS="$cppflags" "$t") >"$log" 2>&1; then
        say "build of $t with $m FAILED (log $log):"; tail -20 "$log" >&2; exit 1
      fi
      cp "$dst/tree/src/$t" "$dst/$t"
    else
      if ! (cd "$dst/tree" && make CC="$cc" CXX="$(cxx_of "$m")" "$t") >"$log" 2>&1; then
        say "build of $t with $m FAILED (log $log):"; tail -20 "$log" >&2; exit 1
      fi
      cp "$dst/tree/$t" "$dst/$t"
    fi
    say "built $t with $m"
  done
done

# True when every "defects" value of an IMB log built with -DCHECK is 0 (and for logs without that column).
defects_zero() {
  python3 - "$1" <<'PY'
import re, sys
cols, bad = None, 0
for ln in open(sys.argv[1], errors='replace'):
    if re.match(r'\s*#(bytes|repetitions)', ln):
        cols = ln.split()
    elif cols and 'defects' in cols and re.match(r'\s*\d', ln):
        v = ln.split()
        if len(v) == len(cols) and float(v[cols.index('defects')]) != 0.0:
            bad += 1
            print('imb.sh: defects in', sys.argv[1] + ':', ln.rstrip(), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# ---- runs: every round runs each MPI once per suite, in turn ----
status=0
for s in "${suite_list[@]}"; do
  t=$(target_of "$s")
  args="$IMB_ARGS"
  [ "$s" = io ] && args="$args $IMB_IO_ARGS"
  # shellcheck disable=SC2046
  for ((r = 1; r <= rounds; r++)); do
    for m in "${mpi_list[@]}"; do
      rundir="$work/$m/run-$t-$r"; mkdir -p "$rundir"   # IMB-IO writes its files (IMB_out*) in the cwd
      log="$work/$m/$t-n$ranks-r$r.log"
      start=$(date +%s.%N)
      set +e
      (cd "$rundir" && timeout "$run_limit" $(launcher_of "$m") "$work/$m/$t" $args $(bench_of "$s")) >"$log" 2>&1
      rc=$?
      set -e
      wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
      verdict=pass
      if [ $rc -ne 0 ] || grep -qiE 'unsuccessful|FAILED|Abort|error' "$log" || ! defects_zero "$log"; then
        verdict=FAIL; status=1
      fi
      rm -rf "$rundir"
      printf '%-8s %-9s round %d  %s  rc=%d  %6ss  %s\n' "$m" "$t" "$r" "$verdict" "$rc" "$wall" "$log"
    done
  done
done

# ---- table ----
python3 - "$work" "$ranks" "$rounds" "$mpis" "$suites" <<'PY'
import re, statistics, sys
work, ranks, rounds, mpis, suites = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(','), sys.argv[5].split(',')
target = {'rma': 'IMB-RMA', 'io': 'IMB-IO', 'nbc': 'IMB-NBC', 'mpi1': 'IMB-MPI1'}

def parse(path):
    """IMB log -> {(bench, mode, nprocs, bytes): usec}: the column IMB reports as the slowest rank's time."""
    rows, bench, mode, nprocs, cols = {}, None, '', '', None
    try:
        lines = open(path, errors='replace').read().splitlines()
    except OSError:
        return rows
    for ln in lines:
        m = re.match(r'# Benchmarking (\S+)', ln)
        if m:
            bench, mode, cols = m.group(1), '', None
            continue
        m = re.match(r'#\s+MODE: (\S+)', ln)
        if m:
            mode = 'aggr' if m.group(1) == 'AGGREGATE' else 'non-aggr'
            continue
        m = re.match(r'# #processes = (\d+)', ln)
        if m:
            nprocs = m.group(1)
            continue
        if bench and re.match(r'\s*#(bytes|repetitions)', ln):
            cols = ln.split()
            continue
        if bench and cols and re.match(r'\s*\d', ln) and 'time-out' not in ln:
            v = ln.split()
            if len(v) != len(cols):
                continue
            d = dict(zip(cols, v))
            for key in ('t[usec]', 't_max[usec]', 't_pure[usec]', 't_ovrl[usec]'):
                if key in d:
                    rows[(bench, mode, nprocs, d.get('#bytes', '-'))] = float(d[key])
                    break
    return rows

for s in suites:
    t = target[s]
    per = {m: [parse(f'{work}/{m}/{t}-n{ranks}-r{r}.log') for r in range(1, rounds + 1)] for m in mpis}
    keys = []
    for m in mpis:
        for rr in per[m]:
            for k in rr:
                if k not in keys:
                    keys.append(k)
    if not keys:
        continue
    print(f'\n{t} at {ranks} ranks: time in usec (median of {rounds} round(s)); ratio = ftmpi / peer (>1: ftmpi slower)')
    hdr = f"{'benchmark':<20}{'mode':<9}{'np':>3}{'bytes':>9}" + ''.join(f'{m:>11}' for m in mpis)
    peers = [m for m in mpis if m != 'ftmpi']
    if 'ftmpi' in mpis:
        hdr += ''.join(f'{"ft/" + p[:4]:>10}' for p in peers)
    print(hdr)
    for k in keys:
        med = {}
        for m in mpis:
            vals = [rr[k] for rr in per[m] if k in rr]
            med[m] = statistics.median(vals) if vals else None
        line = f'{k[0]:<20}{k[1]:<9}{k[2]:>3}{k[3]:>9}' + ''.join(
            f'{med[m]:>11.2f}' if med[m] is not None else f'{"-":>11}' for m in mpis)
        flag = ''
        if 'ftmpi' in mpis and med['ftmpi'] is not None:
            ratios = []
            for p in peers:
                if med[p]:
                    ratios.append(med['ftmpi'] / med[p])
                    line += f'{ratios[-1]:>10.2f}'
                else:
                    line += f'{"-":>10}'
            if ratios and min(ratios) > 2 and med['ftmpi'] > 1.0:
                flag = '  >2x'
        print(line + flag)
PY
exit $status
