#!/usr/bin/env bash
# bench/ft/soak.sh — fault-tolerance soak: many ULFM jobs (bench/ft/soak.c) with random kills, then the tally.
# Not part of the test suite (run on demand). Issue 12, "Figures to report".
#
# usage: bench/ft/soak.sh [options] [FTMPI_BUILD_DIR]        (default build dir: <repo>/build/release)
#   -j JOBS     jobs to run (default 100)
#   -n MIN-MAX  ranks per job, drawn uniformly (default 3-6)
#   -r ROUNDS   rounds per job (default 20)             -a AGREES  agreements per round (default 20)
#   -k PM       per-mille chance that a rank kills itself (raise(SIGKILL)) before each agreement (default 1)
#   -x PCT      chance (%) that a job gets a kill -9 from outside, at a random moment (default 40)
#   -s PCT      chance (%) that a job gets a SIGSTOP from outside, at a random moment (default 30); the rank
#               stays stopped until the launcher's detector declares it hung and kills it
#   -d MIN-MAX  delay of the outside kill / stop after the launch, in ms (default 50-800); a stop that lands on
#               a rank after its MPI_Finalize's goodbye is counted apart ("stopped in/after MPI_Finalize")
#   -I          the outside kill / stop may land during MPI_Init (0-40 ms after the launch). The survivors' MPI_Init
#               completes with that rank failed (issue 12 item 9), so these jobs are judged like the others; the
#               tally says how many there were ("kills/stops during start-up")
#   -t SECONDS  time limit of one job (default 60): a job still running then is a hang
#   -S SEED     first seed (default: the time)
#   -K DIR      keep the logs of every job that hung or had no survivor at the end in DIR/job<j>-seed<s>: the ranks'
#               logs, mpiexec's output (with FTMPI_DEBUG=1 in the environment: its debug trace, which says when
#               each rank was declared failed), the outside action (victim rank and pid, delay, phase) and, for a
#               hang, a snapshot of the job's processes (states, wchan, threads) taken 3 s before its time limit
#   -R CYCLES   also run tests/ft/ft_comm_rss (CYCLES dup/agree/revoke/shrink/free cycles, 20 agreements each)
#               and print its RSS / descriptor figures (default 1000; 0 = skip)
# Tally: jobs, agreement decisions, self-kills, outside kills and stops, hangs, disagreements (two survivors
# logging different values for the same agreement), wrong error classes, jobs with no survivor reaching the
# end, leftovers (processes of the job alive after mpiexec returned, its /dev/shm segments).
# Exit status 0 when hangs, disagreements, wrong classes and leftovers are all 0.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
jobs=100 nmin=3 nmax=6 rounds=20 agrees=20 kill_pm=1 ext_pct=40 stop_pct=30 init=0 tlimit=60 seed=$(date +%s)
rss_cycles=1000 keep= dmin=50 dmax=800
while getopts "j:n:r:a:k:x:s:d:It:S:R:K:h" o; do
  case $o in
    j) jobs=$OPTARG ;; n) nmin=${OPTARG%-*}; nmax=${OPTARG#*-} ;; r) rounds=$OPTARG ;; a) agrees=$OPTARG ;;
    k) kill_pm=$OPTARG ;; x) ext_pct=$OPTARG ;; s) stop_pct=$OPTARG ;; d) dmin=${OPTARG%-*}; dmax=${OPTARG#*-} ;; I) init=1 ;; t) tlimit=$OPTARG ;;
    S) seed=$OPTARG ;; R) rss_cycles=$OPTARG ;; K) keep=$OPTARG ;; *) sed -n '2,/^# Exit status/p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-$repo/build/release}" && pwd -P)
mpiexec=$build/bin/mpiexec
work=$(mktemp -d /tmp/ftmpi-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT
[[ -n $keep ]] && mkdir -p "$keep"

# The job's processes as the kernel sees them (process and thread states, where they sleep).
snapshot() {
  local mp=$1 p t
  echo "# $(date +%T.%N) mpiexec $mp: $(cat /proc/$mp/stat 2>/dev/null | cut -d' ' -f3)"
  for p in $(pgrep -P "$mp" 2>/dev/null); do
    echo "pid $p: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | cut -c1-80)"
    for t in /proc/$p/task/*; do
      echo "  tid ${t##*/} $(cat $t/comm 2>/dev/null) state $(cut -d' ' -f3 $t/stat 2>/dev/null) wchan $(cat $t/wchan 2>/dev/null)"
    done
  done
}
keep_job() {  # keep_job J WHY
  [[ -z $keep ]] && return
  local dst=$keep/job$1-seed$((seed + $1))
  rm -rf "$dst"; cp -r "$logs" "$dst" 2>/dev/null; echo "$2" >"$dst/why"
}
"$build/bin/mpicc" -O2 -o "$work/soak" "$here/soak.c" || exit 2

RANDOM=$seed
hangs=0 disagree=0 wrong=0 leftovers=0 nodone=0 decisions=0 instances=0 selfkills=0 extkills=0 stops=0
initkills=0 jobs_ok=0 hung=0 late=0 t_start=$(date +%s)
for ((j = 0; j < jobs; j++)); do
  n=$((nmin + RANDOM % (nmax - nmin + 1)))
  logs=$work/job$j
  mkdir -p "$logs"
  # the job: detector period 100 ms, timeout 1 s (a SIGSTOPped rank is declared hung and killed)
  ( exec "$mpiexec" -n "$n" --with-ft ulfm --detector-period 100 --detector-timeout 1000 --timeout "$tlimit" \
      "$work/soak" "$rounds" "$agrees" $((seed + j)) "$logs" "$kill_pm" >"$logs/out" 2>&1 ) &
  mp=$!
  watchdog=
  if [[ -n $keep ]] && ((tlimit > 5)); then
    ( sleep $((tlimit - 3)); snapshot "$mp" >"$logs/snapshot" 2>&1 ) 2>/dev/null &
    watchdog=$!
  fi
  action=none
  if ((RANDOM % 100 < ext_pct)); then action=KILL; elif ((RANDOM % 100 < stop_pct)); then action=STOP; fi
  if [[ $action != none ]]; then
    if ((init)) && ((RANDOM % 2)); then delay_ms=$((RANDOM % 40)); when=init; else delay_ms=$((dmin + RANDOM % (dmax - dmin + 1))); when=run; fi
    sleep "$((delay_ms / 1000)).$(printf '%03d' $((delay_ms % 1000)))"
    mapfile -t pids < <(pgrep -P "$mp" 2>/dev/null)   # the ranks: mpiexec's children (never mpiexec itself)
    if ((${#pids[@]} > 0)); then
      victim=${pids[RANDOM % ${#pids[@]}]}
      if kill -"$action" "$victim" 2>/dev/null; then
        if [[ $action == KILL ]]; then extkills=$((extkills + 1)); else stops=$((stops + 1)); fi
        [[ $when == init ]] && echo "$action during start-up" >"$logs/init_action"
        echo "$action $when +${delay_ms}ms pid $victim ($(tr '\0' ' ' 2>/dev/null </proc/$victim/cmdline | cut -c1-60))" >"$logs/action"
      fi
    fi
  fi
  wait "$mp"
  rc=$?
  if [[ -n $watchdog ]]; then
    { pkill -P "$watchdog"; kill "$watchdog"; wait "$watchdog"; } 2>/dev/null
  fi
  sleep 0.2
  mapfile -t left < <(pgrep -f -- "$work/soak $rounds $agrees $((seed + j)) " 2>/dev/null)
  if ((${#left[@]} > 0)); then
    leftovers=$((leftovers + 1))
    echo "job $j: processes left behind: ${left[*]}" >&2
    kill -KILL "${left[@]}" 2>/dev/null
  fi
  if ls /dev/shm 2>/dev/null | grep -q "^ftmpi-ftmpi-$mp-"; then
    leftovers=$((leftovers + 1))
    echo "job $j: /dev/shm segments left behind" >&2
  fi
  sk=$(cat "$logs"/r*.log 2>/dev/null | grep -c '^SELFKILL')
  selfkills=$((selfkills + sk))
  # mpiexec's verdicts on stopped ranks (its summary line): while heartbeating or before, and after the goodbye
  hung=$((hung + $(grep -o '(hung, killed)' "$logs/out" 2>/dev/null | wc -l)))
  late=$((late + $(grep -o '(stopped in or after MPI_Finalize, killed)' "$logs/out" 2>/dev/null | wc -l)))
  if [[ $rc -eq 124 ]]; then
    hangs=$((hangs + 1))
    echo "job $j (n=$n, seed $((seed + j)), action $action): HANG; end of its output:" >&2
    tail -5 "$logs/out" >&2
    keep_job "$j" "hang (n=$n, action $action)"
    continue
  fi
  [[ -f $logs/init_action ]] && initkills=$((initkills + 1))
  # disagreements: the same agreement (kind, gen, round, k) logged with different values
  d=$(cat "$logs"/r*.log 2>/dev/null | awk '$1=="A"{key=$1" "$2" "$3" "$4; v=$5} $1=="D"||$1=="E"||$1=="B"{key=$1" "$2" "$3; v=$4}
        $1=="A"||$1=="D"||$1=="E"||$1=="B"{n++; if(!(key in val)){val[key]=v; keys++} else if(val[key]!=v && !(key in bad)){bad[key]=1; nb++}}
        END{printf "%d %d %d\n", n, keys, nb}')
  read -r nd nk nbad <<<"$d"
  decisions=$((decisions + nd)) instances=$((instances + nk))
  if ((nbad > 0)); then disagree=$((disagree + nbad)); echo "job $j: $nbad disagreement(s)" >&2; fi
  w=$(cat "$logs"/r*.log 2>/dev/null | grep -c '^WRONG')
  if ((w > 0)); then wrong=$((wrong + w)); echo "job $j: wrong classes:" >&2; grep -h '^WRONG' "$logs"/r*.log | sort | uniq -c >&2; fi
  if ! grep -q '^DONE' "$logs"/r*.log 2>/dev/null; then
    nodone=$((nodone + 1))
    echo "job $j (n=$n, action $action, rc $rc): no survivor reached the end; end of its output:" >&2
    tail -3 "$logs/out" >&2
    keep_job "$j" "no survivor at the end (n=$n, action $action, rc $rc)"
  else
    jobs_ok=$((jobs_ok + 1))
  fi
  rm -rf "$logs"
  if (((j + 1) % 10 == 0)); then echo "... $((j + 1))/$jobs jobs, $((($(date +%s) - t_start))) s" >&2; fi
done

echo "# ftmpi FT soak: $jobs jobs of $nmin-$nmax ranks, $rounds rounds x $agrees agreements (+3 per round), seed $seed, $(($(date +%s) - t_start)) s"
printf '%-34s %s\n' "jobs completed by survivors" "$jobs_ok" "agreement decisions logged" "$decisions" \
  "agreement instances" "$instances" "self-kills (raise SIGKILL)" "$selfkills" "kill -9 from outside" "$extkills" \
  "SIGSTOP from outside" "$stops" "kills/stops during start-up" "$initkills" \
  "ranks declared hung (killed)" "$hung" "... stopped in/after MPI_Finalize" "$late" "hangs" "$hangs" \
  "disagreements" "$disagree" "wrong error classes" "$wrong" "jobs with no survivor at the end" "$nodone" \
  "leftovers (processes, shm)" "$leftovers"

if ((rss_cycles > 0)); then
  "$build/bin/mpicc" -O2 -I"$repo/tests/mpi" -I"$repo/tests/ft" -o "$work/ft_comm_rss" "$repo/tests/ft/ft_comm_rss.c" &&
    "$mpiexec" -n 3 --with-ft ulfm --timeout 600 "$work/ft_comm_rss" "$rss_cycles" 20 1024 2>&1 | grep -E "RSS|PASS|FAIL"
fi
((hangs == 0 && disagree == 0 && wrong == 0 && leftovers == 0))
