#!/usr/bin/env bash
# bench/ft/run.sh — fault-tolerance benchmarks of ftmpi (ULFM model), printed as plain-text tables.
#
# usage: bench/ft/run.sh [options] [FTMPI_BUILD_DIR]     (default build dir: <repo>/build/release)
#   -p PARTS    comma list of the parts below (default: overhead,agree,revoke,shrink,kill,hang,load,detect)
#     overhead  pingpong.c / bandwidth.c (bench/) with FT off and on (--with-ft ulfm), alternating, medians
#     agree     MPIX_Comm_agree and MPIX_Comm_iagree vs MPI_Allreduce(1 int, MPI_BAND) at each rank count
#     revoke    revoke propagation: rank 0 revokes, the others are blocked in MPI_Recv on that communicator
#     shrink    MPIX_Comm_shrink(MPI_COMM_WORLD) without a failure
#     kill      MPIX_Comm_shrink while the last rank dies by raise(SIGKILL), then shrink with the failure known
#     hang      time to declare a SIGSTOPped rank (self-stopped, and by mpiexec --inject ...,signal=STOP)
#     load      false positives of the detector during a loaded run (2 busy loops + ranks doing allreduces)
#     detect    crash-detection latency: bench/ft_detect (another component's driver, built with cc) at each
#               rank count, 4 x ROUNDS kills each; uses bench/ft_detect/run.sh instead if that exists
#   -n LIST     rank counts for agree, revoke, shrink and kill (default: 2,4,8,16)
#   -r ROUNDS   rounds of the agree part; runs of the kill and hang parts (default: 5)
#   -O ROUNDS   rounds of the overhead part, each running FT off and on in alternating order (default: 9)
#   -L SECONDS  length of the loaded run (default: 10; the issue's acceptance figure is 60)
#   -P MS       detector period for hang/load (default: 100)
#   -D MS       detector timeout for hang/load (default: 1000)
#   -t SECONDS  time limit of one mpiexec run (default: 120; the load run gets -L + 60)
#   -q          quick: 2 rounds, ranks 2,4, a 5-second load run
#   -h          this help
#
# Every mpiexec run is under `timeout` and mpiexec's own --timeout; a run that fails or times out shows as
# "-" and the end of its output is printed on stderr. The busy loops of the load part are ended by their
# process ids when the part ends (and on exit). Progress goes to stderr, tables to stdout.
# Fault-tolerant runs pass `--with-ft ulfm` (mpiexec then gives every rank its control channel, heartbeats
# and failure notices). Numbers are only comparable within one table: the
# machine has 2 cores and is usually shared; every figure is a median of repeated runs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)

parts=overhead,agree,revoke,shrink,kill,hang,load,detect
rank_list=2,4,8,16
rounds=5
ov_rounds=9
load_seconds=10
period=100
det_timeout=1000
run_limit=120

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

while getopts "p:n:r:O:L:P:D:t:qh" opt; do
  case $opt in
    p) parts=$OPTARG ;;
    n) rank_list=$OPTARG ;;
    r) rounds=$OPTARG ;;
    O) ov_rounds=$OPTARG ;;
    L) load_seconds=$OPTARG ;;
    P) period=$OPTARG ;;
    D) det_timeout=$OPTARG ;;
    t) run_limit=$OPTARG ;;
    q) rounds=2; ov_rounds=3; rank_list=2,4; load_seconds=5 ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=${1:-$repo/build/release}
build=$(cd "$build" && pwd -P) || { echo "run.sh: no build directory $1" >&2; exit 2; }
for v in "$rounds" "$ov_rounds" "$load_seconds" "$period" "$det_timeout" "$run_limit"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -r/-O/-L/-P/-D/-t want positive integers" >&2; exit 2; }
done
IFS=, read -r -a ranks <<<"$rank_list"
IFS=, read -r -a want <<<"$parts"
for p in "${want[@]}"; do
  case $p in overhead | agree | revoke | shrink | kill | hang | load | detect) ;;
    *) echo "run.sh: unknown part '$p'" >&2; exit 2 ;;
  esac
done
has_part() { [[ ",$parts," == *",$1,"* ]]; }

say() { echo "ft/run.sh: $*" >&2; }
mpiexec=$build/bin/mpiexec
mpicc=$build/bin/mpicc
[ -x "$mpiexec" ] && [ -x "$mpicc" ] || { say "no $mpiexec or $mpicc (build the mpi and mpiexec targets)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-ftbench.XXXXXX")
busy_pids=()
stop_busy() {
  local p
  for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${busy_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  busy_pids=()
}
trap 'stop_busy; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# ---- build ----
build_prog() { # build_prog <name> <source>
  if ! "$mpicc" -O2 -I"$here" -o "$work/$1" "$2" >"$work/build.$1.log" 2>&1; then
    say "building $1 failed:"; cat "$work/build.$1.log" >&2; return 1
  fi
}
progs=()
has_part overhead && progs+=(pingpong:"$repo/bench/pingpong.c" bandwidth:"$repo/bench/bandwidth.c")
has_part agree && progs+=(agree_latency:"$here/agree_latency.c")
has_part revoke && progs+=(revoke_time:"$here/revoke_time.c")
{ has_part shrink || has_part kill; } && progs+=(shrink_time:"$here/shrink_time.c")
{ has_part hang || has_part load; } && progs+=(hang_detect:"$here/hang_detect.c")
for entry in "${progs[@]}"; do build_prog "${entry%%:*}" "${entry#*:}" || exit 1; done

# run <out file> <limit s> <ft: on|off> <np> [mpiexec options ...] -- <program> [args ...]
# Runs one job under timeout; returns its status. Output in <out>, stderr in <out>.err.
run() {
  local out=$1 limit=$2 ft=$3 np=$4
  shift 4
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  [ "$ft" = on ] && opts=(--with-ft ulfm "${opts[@]}")
  local rc=0
  timeout -k 5 "$((limit + 10))" "$mpiexec" -n "$np" --timeout "$limit" "${opts[@]}" "$@" \
    >"$out" 2>"$out.err" || rc=$?
  if [ $rc != 0 ]; then
    say "run failed (status $rc): mpiexec -n $np ${opts[*]} $(basename "$1") ${*:2}"
    tail -n 8 "$out" "$out.err" >&2 || true
  fi
  return $rc
}

# median of the numbers on stdin ("-" when none)
median() { sort -g | awk '{ v[++n] = $1 } END { if (!n) print "-"; else if (n % 2) print v[(n + 1) / 2];
                                                   else print (v[n / 2] + v[n / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
# field <file> <key> <n>: field n of the data line whose field 2 is key
field() { awk -v k="$2" -v n="$3" '!/^#/ && $2 == k { print $n; exit }' "$1" 2>/dev/null; }

load_note() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"; }

echo "ftmpi fault-tolerance benchmarks — $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "build: $build; $(load_note) at the start"

# ---- 1. fault-free overhead: FT off vs on, alternating, medians (and bests) over rounds ----
if has_part overhead; then
  for ((r = 0; r < ov_rounds; r++)); do
    for k in 0 1; do
      ft=$([ $(((k + r) % 2)) = 0 ] && echo off || echo on)
      say "overhead round $((r + 1))/$ov_rounds FT $ft"
      run "$work/pp.$ft.$r" "$run_limit" "$ft" 2 -- "$work/pingpong" -m 1 -M 8 -T 0.2 || : >"$work/pp.$ft.$r"
      run "$work/bw.$ft.$r" "$run_limit" "$ft" 2 -- "$work/bandwidth" -m 1 -M 1m -T 0.05 || : >"$work/bw.$ft.$r"
    done
  done
  vals() { # vals <prefix> <ft> <size>: one value per round
    for ((r = 0; r < ov_rounds; r++)); do awk -v s="$3" '!/^#/ && $1 == s { print $2 }' "$work/$1.$2.$r"; done
  }
  best() { if [ "$1" = low ]; then sort -g | head -n 1; else sort -g | tail -n 1; fi; }
  echo
  echo "== 1. Fault-free overhead: FT off vs --with-ft ulfm, 2 ranks bound to cores, $ov_rounds alternating rounds =="
  echo "(latency: one-way us, target on/off <= 1.03; bandwidth: MB/s, on/off >= 1 is as fast; median and best round)"
  printf "%-18s %10s %10s %8s   %10s %10s %8s\n" measure "off med" "on med" "on/off" "off best" "on best" "on/off"
  for s in 1 8; do
    om=$(vals pp off $s | median); nm=$(vals pp on $s | median)
    ob=$(vals pp off $s | best low); nb=$(vals pp on $s | best low)
    printf "%-18s %10s %10s %8s   %10s %10s %8s\n" "latency ${s} B" "$om" "$nm" "$(ratio "$nm" "$om")" \
      "${ob:--}" "${nb:--}" "$(ratio "${nb:--}" "${ob:--}")"
  done
  for s in 1 1024 65536 1048576; do
    om=$(vals bw off $s | median); nm=$(vals bw on $s | median)
    ob=$(vals bw off $s | best high); nb=$(vals bw on $s | best high)
    label=$(awk -v s=$s 'BEGIN { if (s >= 1048576) print s / 1048576 " MiB"; else if (s >= 1024) print s / 1024 " KiB"; else print s " B" }')
    printf "%-18s %10s %10s %8s   %10s %10s %8s\n" "bandwidth $label" "$om" "$nm" "$(ratio "$nm" "$om")" \
      "${ob:--}" "${nb:--}" "$(ratio "${nb:--}" "${ob:--}")"
  done
  echo "($(load_note) after this part)"
fi

# ---- 2. agree vs allreduce ----
if has_part agree; then
  echo
  echo "== 2a. MPIX_Comm_agree / iagree vs MPI_Allreduce(1 int, MPI_BAND), FT on, us per call (median of $rounds rounds) =="
  echo "(target: agree <= 2.5 x allreduce; more ranks than the 2 cores are oversubscribed)"
  printf "%-6s %12s %12s %12s %12s %12s\n" ranks allreduce agree agree/allr iagree iagree/allr
  for n in "${ranks[@]}"; do
    iters=$((800 / n)); [ $iters -lt 20 ] && iters=20
    say "agree: $n ranks, $iters calls x $rounds rounds"
    f=$work/agree.$n
    run "$f" "$run_limit" on "$n" -- "$work/agree_latency" -i "$iters" -w 10 -r "$rounds" || : >"$f"
    a=$(field "$f" allreduce 3); g=$(field "$f" agree 3); i=$(field "$f" iagree 3)
    printf "%-6s %12s %12s %12s %12s %12s\n" "$n" "${a:--}" "${g:--}" "$(ratio "${g:--}" "${a:--}")" "${i:--}" \
      "$(ratio "${i:--}" "${a:--}")"
  done
  echo "($(load_note) after this part)"
fi

# ---- 3. revoke propagation ----
if has_part revoke; then
  echo
  echo "== 2b. Revoke propagation, FT on: rank 0 revokes, the others blocked in MPI_Recv; us after the revoke =="
  echo "(median over 20 trials of the first and the last rank's return with MPI_ERR_REVOKED; range of the last)"
  printf "%-6s %12s %12s %12s %12s %14s\n" ranks first last "last min" "last max" "revoke call"
  for n in "${ranks[@]}"; do
    say "revoke: $n ranks"
    f=$work/revoke.$n
    run "$f" "$run_limit" on "$n" -- "$work/revoke_time" -t 20 -d 2000 || : >"$f"
    printf "%-6s %12s %12s %12s %12s %14s\n" "$n" "$(field "$f" revoke_first 3)" "$(field "$f" revoke_last 3)" \
      "$(field "$f" revoke_last 4)" "$(field "$f" revoke_last 5)" "$(field "$f" revoke_call 3)"
  done
fi

# ---- 4. shrink ----
if has_part shrink || has_part kill; then
  echo
  echo "== 2c. MPIX_Comm_shrink(MPI_COMM_WORLD), FT on, us (slowest rank) =="
  echo "(no failure: median of 20; kill: the last rank raise(SIGKILL)s while the others are in shrink, time from"
  echo " the kill to the last survivor's return (includes detection), median of $rounds runs; known: shrink again"
  echo " once the failure is known everywhere, median of 10 per run, median over runs)"
  printf "%-6s %14s %16s %16s %14s\n" ranks "no failure" "kill->first" "kill->last" "failure known"
  for n in "${ranks[@]}"; do
    nofail=- kf=- kl=- known=-
    if has_part shrink; then
      say "shrink: $n ranks, no failure"
      f=$work/shrink.$n
      run "$f" "$run_limit" on "$n" -- "$work/shrink_time" -t 20 || : >"$f"
      nofail=$(field "$f" shrink_nofail 3); nofail=${nofail:--}
    fi
    if has_part kill && [ "$n" -ge 2 ]; then
      for ((r = 0; r < rounds; r++)); do
        say "shrink: $n ranks, kill run $((r + 1))/$rounds"
        f=$work/kill.$n.$r
        run "$f" "$run_limit" on "$n" -- "$work/shrink_time" -k -t 10 || : >"$f"
      done
      kf=$(for ((r = 0; r < rounds; r++)); do field "$work/kill.$n.$r" shrink_kill_first 3; done | median)
      kl=$(for ((r = 0; r < rounds; r++)); do field "$work/kill.$n.$r" shrink_kill_last 3; done | median)
      known=$(for ((r = 0; r < rounds; r++)); do field "$work/kill.$n.$r" shrink_known 3; done | median)
    fi
    printf "%-6s %14s %16s %16s %14s\n" "$n" "$nofail" "$kf" "$kl" "$known"
  done
fi

# ---- 5. hang detection ----
if has_part hang; then
  echo
  echo "== 3a. Hang detection: a SIGSTOPped rank, 4 ranks, --detector-period $period --detector-timeout $det_timeout =="
  echo "(ms from SIGSTOP until the first / last survivor sees the failure in MPIX_Comm_get_failed; $rounds runs;"
  echo " the stop falls at a random point between two heartbeats, so expect timeout - period .. timeout + a little)"
  printf "%-30s %10s %10s %12s\n" run first last "timeout"
  det=(--detector-period "$period" --detector-timeout "$det_timeout")
  for ((r = 0; r < rounds; r++)); do
    say "hang: self-stop run $((r + 1))/$rounds"
    f=$work/hang.$r
    run "$f" "$run_limit" on 4 "${det[@]}" -- "$work/hang_detect" -s -j "$period" -T "$det_timeout" || : >"$f"
    printf "%-30s %10s %10s %12s\n" "raise(SIGSTOP), run $((r + 1))" "$(field "$f" hang_first 3)" \
      "$(field "$f" hang_last 3)" "$det_timeout"
  done
  hf=$(for ((r = 0; r < rounds; r++)); do field "$work/hang.$r" hang_first 3; done | median)
  hl=$(for ((r = 0; r < rounds; r++)); do field "$work/hang.$r" hang_last 3; done | median)
  printf "%-30s %10s %10s %12s\n" "median" "$hf" "$hl" "$det_timeout"
  hmin=$(for ((r = 0; r < rounds; r++)); do field "$work/hang.$r" hang_first 3; done | sort -g | head -n 1)
  hmax=$(for ((r = 0; r < rounds; r++)); do field "$work/hang.$r" hang_last 3; done | sort -g | tail -n 1)
  printf "%-30s %10s %10s %12s\n" "range (first min, last max)" "${hmin:--}" "${hmax:--}" "$det_timeout"
  say "hang: mpiexec --inject rank=3,after=1,signal=STOP"
  f=$work/hang.inject
  run "$f" "$run_limit" on 4 "${det[@]}" --inject rank=3,after=1,signal=STOP -- \
    "$work/hang_detect" -e 1 -v 3 -T "$det_timeout" || : >"$f"
  printf "%-30s %10s %10s %12s\n" "--inject ...,signal=STOP (*)" "$(field "$f" hang_inject_first 3)" \
    "$(field "$f" hang_inject_last 3)" "$det_timeout"
  # mpiexec's summary line: "rank 3 (hung, killed) at 1.909 s" on its own clock, which also started the timer
  declared=$(sed -n 's/.*rank 3 (hung[^)]*) at \([0-9.]*\) s.*/\1/p' "$f.err" | head -n 1)
  printf "%-30s %21s %12s\n" "--inject, mpiexec's view (**)" \
    "$(awk -v d="$declared" 'BEGIN { if (d == "") print "-"; else printf "%.1f", (d - 1) * 1000 }')" "$det_timeout"
  echo "(*) measured from MPI_Init + 1 s, so too small by the launch time (mpiexec's clock starts before spawning)"
  echo "(**) mpiexec's summary line: when it declared rank 3 hung, minus the 1 s of --inject, both on its clock"
fi

# ---- 6. false positives under load ----
if has_part load; then
  echo
  echo "== 3b. False positives: 4 ranks doing MPI_Allreduce back to back for $load_seconds s, 2 busy loops alongside, =="
  echo "==     --detector-period $period --detector-timeout $det_timeout (target: 0 failures) =="
  for _ in 1 2; do
    bash -c 'while :; do :; done' &
    busy_pids+=($!)
  done
  say "load: $load_seconds s with busy loops ${busy_pids[*]}"
  f=$work/load
  st=0
  run "$f" "$((load_seconds + 60))" on 4 --detector-period "$period" --detector-timeout "$det_timeout" -- \
    "$work/hang_detect" -l "$load_seconds" || st=$?
  loadavg=$(cut -d' ' -f1 /proc/loadavg)
  stop_busy
  failed=$(awk '!/^#/ && $2 == "load" { if ($5 > m) m = $5 } END { print m + 0 }' "$f")
  errors=$(awk '!/^#/ && $2 == "load" { if ($6 > m) m = $6 } END { print m + 0 }' "$f")
  calls=$(field "$f" load 4)
  # mpiexec's summary line ("N rank(s) failed during the job: ...") counts ranks it declared failed
  declared=$(sed -n 's/.*: \([0-9][0-9]*\) ranks\{0,1\} failed during the job.*/\1/p' "$f.err" | head -n 1)
  printf "%-8s %10s %14s %16s %18s %7s %13s\n" seconds allreduces "failures seen" "errors returned" \
    "mpiexec declared" status "load average"
  printf "%-8s %10s %14s %16s %18s %7s %13s\n" "$load_seconds" "${calls:--}" "$failed" "$errors" "${declared:-0}" \
    "$st" "$loadavg"
  grep -i "fail\|hung" "$f.err" >&2 || true
fi

# ---- 7. crash detection (another component's benchmark) ----
if has_part detect; then
  echo
  if [ -x "$repo/bench/ft_detect/run.sh" ]; then
    say "detect: bench/ft_detect/run.sh $build"
    echo "== crash detection (bench/ft_detect/run.sh) =="
    timeout -k 5 600 "$repo/bench/ft_detect/run.sh" "$build" || echo "(bench/ft_detect/run.sh failed: status $?)"
  elif [ -f "$repo/bench/ft_detect/ft_detect.c" ] &&
    cc -O2 -o "$work/ft_detect" "$repo/bench/ft_detect/ft_detect.c" >"$work/build.ft_detect.log" 2>&1; then
    echo "== Crash detection (bench/ft_detect): raise(SIGKILL) -> every survivor read the notice, $((4 * rounds)) kills =="
    for n in "${ranks[@]}"; do
      [ "$n" -ge 2 ] || continue
      say "detect: $n ranks"
      timeout -k 5 "$run_limit" "$work/ft_detect" --mpiexec "$mpiexec" --np "$n" --runs "$((4 * rounds))" \
        >"$work/detect.$n" 2>&1 || { say "ft_detect failed at $n ranks:"; tail -n 5 "$work/detect.$n" >&2; }
      grep '^ft_detect:' "$work/detect.$n" || echo "ft_detect: $n ranks: -"
    done
  else
    echo "== crash detection: bench/ft_detect is not there (or does not build) yet (skipped) =="
  fi
fi
echo
echo "($(load_note) at the end)"
