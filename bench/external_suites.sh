#!/usr/bin/env bash
# bench/external_suites.sh — build the Intel MPI Benchmarks (IMB-MPI1, IMB-NBC, IMB-P2P) and the OSU collective
# micro-benchmarks, unmodified, with ftmpi's wrappers, and run every benchmark of them with ftmpi's mpiexec.
#
# usage: bench/external_suites.sh [options] [--imb IMB_DIR]... [--osu OSU_DIR]
#   --imb DIR     an unpacked Intel MPI Benchmarks tree (github.com/intel/mpi-benchmarks or a release tarball);
#                 may be given more than once (e.g. an IMB 2018 tree for IMB-MPI1 and a newer one for IMB-P2P)
#   --osu DIR     an unpacked OSU micro-benchmarks tree (5.x: mpi/collective + util; 6.x/7.x: c/mpi/collective)
#   -b DIR        ftmpi build (or install) directory holding bin/mpicc, bin/mpicxx, bin/mpiexec
#                 (default: <repo>/build/release)
#   -n RANKS      comma list of rank counts                                      (default: 2,4)
#   -T TRANSPORT  passed to mpiexec --transport (shm, tcp); default: mpiexec's own choice
#   -w DIR        work directory: the trees are copied there and built there     (default: a new mktemp -d)
#   -t SECONDS    mpiexec --timeout of one run                                   (default: 600)
#   -k            keep the work directory (it is removed at the end otherwise, unless -w was given)
#   -h            this help
# Environment: IMB_ARGS (default "-msglog 0:16 -iter 50 -time 2"), IMB_P2P_ARGS (default "-msglog 0:16
# -iter 50 -pause 10000"), OSU_ARGS (default "-m 1:65536 -i 100 -x 10") are the benchmark options of every run.
# IMB_CPPFLAGS, when set, is passed to IMB's makefiles as CPPFLAGS: IMB_CPPFLAGS=-DCHECK builds IMB's own
# check mode, in which every received buffer is compared with the expected data ("defects" column).
#
# What it does, and nothing else (no source file is edited; the given trees are only read):
#   IMB  copies the tree, then runs the suite's own makefiles with CC=mpicc CXX=mpicxx on the command line:
#        `make IMB-MPI1 IMB-NBC IMB-P2P` at the top (IMB 2019 and later: src_cpp + src_c/P2P), or, for the
#        older layout, `make -f make_mpich MPI_HOME=<ftmpi> IMB-MPI1` (then IMB-NBC) in src/ (IMB 2017-2018,
#        no IMB-P2P there).
#        IMB-MPI1 runs twice per rank count: its default list (PingPong ... Barrier), then the benchmarks that
#        are not in it ($IMB_MPI1_EXTRA, default: PingPong/PingPing{Specific,Any}Source, Uniband, Biband).
#        IMB-NBC (non-blocking collectives, built too when the tree has it) and IMB-P2P run their whole default
#        lists in one job each (IMB-NBC with IMB_ARGS).
#   OSU  copies the tree; with a `configure` script: `./configure CC=mpicc CXX=mpicxx` and `make` in the
#        collective directory. Without one (a git checkout that was never bootstrapped), the equivalent of the
#        Automake compile lines: `mpicc -g -O2 -I<util> -c` for every C file of the util directory that the
#        MPI benchmarks link (osu_util*.c, not the PGAS/CUDA ones) and for each benchmark, then one link per
#        benchmark. Every osu_* program of the collective directories (blocking and non-blocking) then runs.
# Each run is `mpiexec -n N [--transport T] --timeout S <binary> <args>`. A run passes when it exits 0 and
# prints none of: "unsuccessful", "FAILED", "error", "Abort" (case-insensitive, IMB and OSU's own failure
# words). The script prints one line per (suite, benchmark, rank count): status and wall time, then the
# logs of failed runs, and exits non-zero when something failed to build or run.
# Not part of CTest or .ci/run; figures only mean something on a quiet machine (docs/performance.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)

build="$repo/build/release"
imb_srcs=()
osu_src=""
rank_counts=2,4
transport=""
work=""
keep=0
run_limit=600
IMB_ARGS=${IMB_ARGS:-"-msglog 0:16 -iter 50 -time 2"}
IMB_P2P_ARGS=${IMB_P2P_ARGS:-"-msglog 0:16 -iter 50 -pause 10000"}
OSU_ARGS=${OSU_ARGS:-"-m 1:65536 -i 100 -x 10"}
IMB_MPI1_EXTRA=${IMB_MPI1_EXTRA-"PingPongSpecificSource PingPongAnySource PingPingSpecificSource PingPingAnySource Uniband Biband"}

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
say() { printf '%s\n' "$*" >&2; }
die() { say "external_suites.sh: $*"; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --imb) imb_srcs+=("$2"); shift 2 ;;
    --osu) osu_src=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    -n) rank_counts=$2; shift 2 ;;
    -T) transport=$2; shift 2 ;;
    -w) work=$2; keep=1; shift 2 ;;
    -t) run_limit=$2; shift 2 ;;
    -k) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
[ "${#imb_srcs[@]}" -gt 0 ] || [ -n "$osu_src" ] || { usage >&2; die "give --imb and/or --osu"; }
build=$(cd "$build" && pwd -P) || die "no build directory $build"
mpicc="$build/bin/mpicc"; mpicxx="$build/bin/mpicxx"; mpiexec="$build/bin/mpiexec"
for t in "$mpicc" "$mpicxx" "$mpiexec"; do [ -x "$t" ] || die "$t missing (build ftmpi first)"; done
if [ -z "$work" ]; then work=$(mktemp -d /tmp/ftmpi-external.XXXXXX); fi
mkdir -p "$work"; work=$(cd "$work" && pwd -P)
cleanup() { [ "$keep" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT

failures=0
summary="$work/summary.txt"; : > "$summary"
failed_logs=()

# record SUITE BENCH RANKS STATUS SECONDS
record() { printf '%-8s %-24s %5s  %-5s %8s\n' "$@" | tee -a "$summary"; }

# run_one SUITE NAME RANKS LOG BINARY ARGS... : one mpiexec job, judged as described in the header.
run_one() {
  local suite=$1 name=$2 n=$3 log=$4; shift 4
  local t0 t1 rc=0 status=pass
  local -a launch=("$mpiexec" -n "$n" --timeout "$run_limit")
  [ -n "$transport" ] && launch+=(--transport "$transport")
  t0=$(date +%s.%N)
  "${launch[@]}" "$@" > "$log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if [ $rc -ne 0 ] || grep -qiE 'unsuccessful|FAILED|error|abort' "$log"; then
    status=FAIL; failures=$((failures + 1)); failed_logs+=("$log")
  fi
  record "$suite" "$name" "$n" "$status" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2fs", b-a}')"
}

# ---------------------------------------------------------------- IMB
# imb_build SRC DST : copy SRC to DST and build what the tree holds there.
imb_build() {
  local imb_src=$1 dst=$2 exe
  local -a extra=()
  [ -n "${IMB_CPPFLAGS:-}" ] && extra+=(CPPFLAGS="$IMB_CPPFLAGS")
  rm -rf "$dst"; cp -a "$imb_src" "$dst"
  if [ -d "$dst/src_cpp" ] || [ -d "$dst/src_c/P2P" ]; then
    local targets=()
    [ -d "$dst/src_cpp" ] && targets+=(IMB-MPI1 IMB-NBC)
    [ -d "$dst/src_c/P2P" ] && targets+=(IMB-P2P)
    say "IMB: make ${targets[*]} CC=$mpicc CXX=$mpicxx"
    make -C "$dst" "${targets[@]}" CC="$mpicc" CXX="$mpicxx" "${extra[@]+"${extra[@]}"}" > "$dst.build.log" 2>&1 ||
      { say "IMB build failed:"; tail -40 "$dst.build.log" >&2; failures=$((failures + 1)); }
  elif [ -f "$dst/src/make_mpich" ]; then
    say "IMB: make -f make_mpich MPI_HOME=$build IMB-MPI1 (src/)"
    make -C "$dst/src" -f make_mpich MPI_HOME="$build" "${extra[@]+"${extra[@]}"}" IMB-MPI1 > "$dst.build.log" 2>&1 ||
      { say "IMB build failed:"; tail -40 "$dst.build.log" >&2; failures=$((failures + 1)); }
    if [ -f "$dst/src/IMB_parse_name_nbc.c" ]; then
      say "IMB: make -f make_mpich MPI_HOME=$build IMB-NBC (src/)"
      make -C "$dst/src" -f make_mpich MPI_HOME="$build" "${extra[@]+"${extra[@]}"}" IMB-NBC >> "$dst.build.log" 2>&1 ||
        { say "IMB build failed:"; tail -40 "$dst.build.log" >&2; failures=$((failures + 1)); }
    fi
    for exe in IMB-MPI1 IMB-NBC; do [ -x "$dst/src/$exe" ] && cp "$dst/src/$exe" "$dst/"; done
  else
    die "$imb_src does not look like an IMB tree (no src_cpp, src_c/P2P or src/make_mpich)"
  fi
}

# imb_ran LOG : one line per benchmark IMB ran (a benchmark that needs other rank counts says so itself).
imb_ran() {
  sed -n -e 's/^# Benchmarking \([A-Za-z_0-9]*\).*/\1/p' -e 's/^# !! Benchmark \([A-Za-z_0-9]*\) is invalid.*/\1 (invalid here)/p' \
    "$1" | sort -u | tr '\n' ' ' | sed -e 's/^/         ran: /' -e 's/ $/\n/' >&2
}

# imb_run DST : run every IMB executable built in DST at every rank count.
imb_run() {
  local dst=$1 n exe args
  for exe in IMB-MPI1 IMB-NBC IMB-P2P; do
    [ -x "$dst/$exe" ] || continue
    if [ "$exe" = IMB-P2P ]; then args=$IMB_P2P_ARGS; else args=$IMB_ARGS; fi
    for n in ${rank_counts//,/ }; do
      local log="$dst-$exe-n$n.log"
      # shellcheck disable=SC2086
      run_one IMB "$exe (default list)" "$n" "$log" "$dst/$exe" $args
      imb_ran "$log"
      if [ "$exe" = IMB-MPI1 ] && [ -n "$IMB_MPI1_EXTRA" ]; then
        log="$dst-$exe-extra-n$n.log"
        # shellcheck disable=SC2086
        run_one IMB "$exe (the others)" "$n" "$log" "$dst/$exe" $args $IMB_MPI1_EXTRA
        imb_ran "$log"
      fi
    done
  done
}

# ---------------------------------------------------------------- OSU
osu_build() {
  local dst="$work/osu" util coll d f n
  rm -rf "$dst"; cp -a "$osu_src" "$dst"
  if [ -d "$dst/c/mpi/collective" ]; then util="$dst/c/util"; coll="$dst/c/mpi/collective"
  elif [ -d "$dst/mpi/collective" ]; then util="$dst/util"; coll="$dst/mpi/collective"
  else die "$osu_src does not look like an OSU tree (no mpi/collective or c/mpi/collective)"; fi
  if [ -x "$dst/configure" ]; then
    say "OSU: ./configure CC=$mpicc CXX=$mpicxx && make -C ${coll#"$dst"/}"
    ( cd "$dst" && ./configure CC="$mpicc" CXX="$mpicxx" && make -C "$coll" ) > "$work/osu-build.log" 2>&1 ||
      { say "OSU build failed:"; tail -40 "$work/osu-build.log" >&2; failures=$((failures + 1)); }
  else
    say "OSU: no configure script; Automake-equivalent compile lines with $mpicc"
    local objs=() log="$work/osu-build.log"; : > "$log"
    for f in "$util"/osu_util*.c; do
      case "$f" in *pgas*) continue ;; esac
      echo "$mpicc -g -O2 -I$util -c $f" >> "$log"
      "$mpicc" -g -O2 -I"$util" -c "$f" -o "${f%.c}.o" >> "$log" 2>&1 || { failures=$((failures + 1)); continue; }
      objs+=("${f%.c}.o")
    done
    for d in "$coll" "$coll/blocking" "$coll/non_blocking"; do
      [ -d "$d" ] || continue
      for f in "$d"/osu_*.c; do
        [ -e "$f" ] || continue
        n=${f%.c}
        echo "$mpicc -g -O2 -I$util -o $n $f ${objs[*]} -lm" >> "$log"
        "$mpicc" -g -O2 -I"$util" -c "$f" -o "$n.o" >> "$log" 2>&1 &&
          "$mpicc" -g -O2 -o "$n" "$n.o" "${objs[@]}" -lm >> "$log" 2>&1 ||
          { say "OSU: $(basename "$n") failed to build (see $log)"; failures=$((failures + 1)); }
      done
    done
  fi
}

osu_run() {
  local dst="$work/osu" d b n
  for d in "$dst/c/mpi/collective" "$dst/c/mpi/collective/blocking" "$dst/c/mpi/collective/non_blocking" \
           "$dst/mpi/collective"; do
    [ -d "$d" ] || continue
    for b in "$d"/osu_*; do
      [ -f "$b" ] && [ -x "$b" ] || continue
      case "$b" in *.c|*.o|*.in|*.am) continue ;; esac
      for n in ${rank_counts//,/ }; do
        # shellcheck disable=SC2086
        run_one OSU "$(basename "$b")" "$n" "$work/$(basename "$b")-n$n.log" "$b" $OSU_ARGS
      done
    done
  done
}

printf '%-8s %-24s %5s  %-5s %8s\n' suite benchmark ranks result wall | tee -a "$summary"
i=0
for src in "${imb_srcs[@]+"${imb_srcs[@]}"}"; do
  i=$((i + 1)); imb_build "$src" "$work/imb$i"; imb_run "$work/imb$i"
done
if [ -n "$osu_src" ]; then osu_build; osu_run; fi

for log in "${failed_logs[@]+"${failed_logs[@]}"}"; do
  say "---- $log"; tail -30 "$log" >&2
done
say "work directory: $work$([ "$keep" = 1 ] || echo ' (removed; -k keeps it)')"
if [ "$failures" -ne 0 ]; then say "$failures failure(s)"; exit 1; fi
say "all passed"
