#!/usr/bin/env bash
# icount.sh — instructions per call of the small-message path (issue 13), ftmpi next to Open MPI and MPICH.
#
# Runs bench/msgrate.c (8-byte windows of 64 Isend/Irecv + Waitall, 1-byte acknowledgement) and bench/pingpong.c
# (1-byte blocking Send/Recv) with 2 ranks on shared memory, every rank under valgrind's callgrind, and prints
# the inclusive instructions per call of each MPI function the benchmark calls (bench/icount.py). Instruction
# counts do not depend on the machine's load, unlike times; calls that wait (Waitall, Recv) include their
# polling, so their figures move with the timing, Isend/Irecv/Send do not.
#
# usage: bench/icount.sh [-i ftmpi,openmpi,mpich] [-w WINDOWS] [-f] [-s USEC] [BUILD_DIR]
#   -i  implementations (default all three)   -w  timed windows of msgrate (default 200)
#   -f  ftmpi only, FT off and on (--with-ft ulfm) side by side: the FT-on overhead per call
#   -s  instructions per MESSAGE instead, with no polling in them: msgrate -S USEC (the receiver waits outside
#       MPI, looking every USEC at a flag in a shared file, until the sender has handed its 64 messages to MPI,
#       so its Waitall finds them all arrived) and msgrate -B -S USEC (single blocking messages, each
#       direction in turn, the receiver calling MPI_Recv once the sender's MPI_Send returned). Printed: per call, and per message
#       Isend + Irecv + (sender's + receiver's Waitall) / 64 (window) and Send + Recv (blocking). Both ranks'
#       calls are summed, so a Waitall figure is the mean of the sender's and the receiver's.
# With -f the FT run has --detector-timeout 60000: under valgrind on a loaded machine heartbeats come late and
# the default 1 s timeout declared ranks hung and killed them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)
impls=ftmpi,openmpi,mpich
windows=200
ft_pair=0
may_install=0
sleep_us=0
while getopts "i:w:fs:h" opt; do
  case $opt in
    i) impls=$OPTARG ;;
    w) windows=$OPTARG ;;
    f) ft_pair=1; impls=ftmpi ;;
    s) sleep_us=$OPTARG ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-$repo/build/release}" && pwd -P)
say() { echo "icount.sh: $*" >&2; }
command -v valgrind >/dev/null || { say "valgrind is needed"; exit 1; }
. "$here/peers.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-icount.XXXXXX")
trap 'rm -rf "$work"' EXIT
vg=(valgrind --tool=callgrind --compress-strings=no --compress-pos=no)

run() { # run <impl> <label> <extra mpiexec args> -- <program> [args...]
  local impl=$1 label=$2 extra=$3
  shift 4
  local out=$work/cg.$label.$(basename "$1")
  local launcher
  case $impl in
    ftmpi) launcher=("$build/bin/mpiexec" -n 2 $extra) ;;
    openmpi) launcher=(mpiexec.openmpi --allow-run-as-root --oversubscribe -n 2) ;;
    mpich) launcher=(mpiexec.mpich -n 2) ;;
  esac
  # Up to 3 tries: MPICH's UCX start-up fails now and then under valgrind ("init_worker No such device").
  local try
  for try in 1 2 3; do
    rm -f "$out".*
    timeout -k 5 600 "${launcher[@]}" "${vg[@]}" --callgrind-out-file="$out.%p" "$@" >"$out.log" 2>&1 && break
    say "$label: $* failed (try $try):"; tail -n 5 "$out.log" >&2
    [ $try = 3 ] && return 1
  done
  python3 "$here/icount.py" "$1" "$out".*
}

IFS=, read -r -a want <<<"$impls"
declare -A result
labels=()
for impl in "${want[@]}"; do
  compiler=${cc[$impl]}
  command -v "$compiler" >/dev/null || { say "no compiler $compiler: $impl left out"; continue; }
  for b in msgrate pingpong; do
    "$compiler" -O2 -g -o "$work/$b.$impl" "$here/$b.c" || { say "building $b for $impl failed"; exit 1; }
  done
  variants=("$impl:")
  [ $ft_pair = 1 ] && variants=("ftmpi:" "ftmpi-ft:--with-ft ulfm --detector-timeout 60000")
  for v in "${variants[@]}"; do
    label=${v%%:*} extra=${v#*:}
    say "$label: msgrate and pingpong under callgrind"
    if [ "$sleep_us" != 0 ]; then
      result[$label]=$( {
        run "$impl" "$label" "$extra" -- "$work/msgrate.$impl" -i 60 -w 5 -S "$sleep_us" | grep -E '^MPI_(Isend|Irecv|Waitall) '
        run "$impl" "$label" "$extra" -- "$work/msgrate.$impl" -B -m 1 -i 3 -w 1 -S "$sleep_us" | grep -E '^MPI_(Send|Recv) '
      } )
      labels+=("$label")
      continue
    fi
    # Isend/Irecv/Waitall from msgrate; Send/Recv from pingpong (msgrate's 1-byte acknowledgement is not it).
    result[$label]=$( {
      run "$impl" "$label" "$extra" -- "$work/msgrate.$impl" -i "$windows" -w 10 -T 1 | grep -v -E '^MPI_(Send|Recv) '
      run "$impl" "$label" "$extra" -- "$work/pingpong.$impl" -m 1 -M 1 -i 2000 -w 100 -T 0 | grep -E '^MPI_(Send|Recv) '
    } )
    labels+=("$label")
  done
done

if [ "$sleep_us" != 0 ]; then
  echo "== instructions per call and per message, no polling (callgrind, inclusive; 2 ranks, shared memory; the receiver waits outside MPI until the messages are in) =="
  printf "%-26s" call; for l in "${labels[@]}"; do printf " %10s" "$l"; done; echo
  for f in MPI_Isend MPI_Irecv MPI_Waitall MPI_Send MPI_Recv window blocking; do
    case $f in
      window) printf "%-26s" "per message, 8 B window" ;;
      blocking) printf "%-26s" "per message, 1 B blocking" ;;
      *) printf "%-26s" "$f" ;;
    esac
    for l in "${labels[@]}"; do
      v=$(awk -v f="$f" '{ c[$1] = $3 } END {
            if (f == "window") { if (("MPI_Isend" in c) && ("MPI_Waitall" in c)) printf "%.0f", c["MPI_Isend"] + c["MPI_Irecv"] + 2 * c["MPI_Waitall"] / 64 }
            else if (f == "blocking") { if ("MPI_Send" in c) printf "%.0f", c["MPI_Send"] + c["MPI_Recv"] }
            else if (f in c) print c[f] }' <<<"${result[$l]}")
      printf " %10s" "${v:--}"
    done
    echo
  done
  exit 0
fi
echo "== instructions per call (callgrind, inclusive; 2 ranks, shared memory; msgrate 8 B x 64 x $windows windows, pingpong 1 B) =="
printf "%-14s" call; for l in "${labels[@]}"; do printf " %10s" "$l"; done; echo
for f in MPI_Isend MPI_Irecv MPI_Waitall MPI_Send MPI_Recv; do
  printf "%-14s" "$f"
  for l in "${labels[@]}"; do
    v=$(awk -v f="$f" '$1 == f { print $3 }' <<<"${result[$l]}")
    printf " %10s" "${v:--}"
  done
  echo
done
