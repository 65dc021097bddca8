#!/usr/bin/env bash
# Build and run the tests/mpi suite with a peer MPI (MPICH or Open MPI) instead of ftmpi — to validate the
# test programs themselves.  Not part of CTest.
#
#   tests/mpi/run_with_peer.sh mpich|openmpi [name-regex]
#
# Reads the single-line ftmpi_mpi_test(...) declarations of tests/mpi/CMakeLists.txt, compiles each SOURCE
# with mpicc.<peer>, and runs every test once (shm/tcp variants collapse to one run: the peer picks its own
# transport; LAUNCHER hydra tests are skipped).  EXPECT pass: exit 0 and no "FAIL" in the output;
# EXPECT fail / exit:<code>: any non-zero exit (peers use other exit statuses than ours).
set -u
peer=${1:-}
filter=${2:-.}
case "$peer" in
  mpich) cc=mpicc.mpich; run=(mpiexec.mpich) ;;
  openmpi) cc=mpicc.openmpi; run=(mpiexec.openmpi --allow-run-as-root --oversubscribe) ;;
  *) echo "usage: $0 mpich|openmpi [name-regex]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/ftmpi-peer-XXXXXX)
trap 'rm -rf "$out"' EXIT

declarations=$(python3 - "$here/CMakeLists.txt" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r'\s*ftmpi_mpi_test\((.*)\)\s*$', line)
    if not m:
        continue
    words = m.group(1).split()
    keys = {"NAME", "SOURCE", "RANKS", "TIMEOUT", "EXPECT", "LAUNCHER", "MPIEXEC_ARGS", "ARGS", "TRANSPORTS", "LABELS", "RUN_SERIAL"}
    d, cur = {}, None
    for w in words:
        if w in keys:
            cur = w; d[cur] = []
        elif cur:
            d[cur].append(w)
    if d.get("LAUNCHER", ["ftmpi"])[0] != "ftmpi":
        continue
    print("\t".join([d["NAME"][0], d["SOURCE"][0], d["RANKS"][0], d["TIMEOUT"][0],
                     d.get("EXPECT", ["pass"])[0], " ".join(d.get("ARGS", []))]))
PY
)

pass=0; fail=0; failed=()
while IFS=$'\t' read -r name src ranks tmo expect args; do
  [[ "$name" =~ $filter ]] || continue
  exe="$out/$(basename "${src%.c}")"
  if [ ! -x "$exe" ]; then
    if ! $cc -std=c11 -O1 -Wall -Wextra -Wno-stringop-overflow -I"$here" -o "$exe" "$here/$src" -lpthread \
         >"$exe.build.log" 2>&1; then
      echo "BUILD FAILED $src"; cat "$exe.build.log"; fail=$((fail + 1)); failed+=("$name"); continue
    fi
  fi
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  timeout --kill-after=5 "$tmo" "${run[@]}" -n "$ranks" "$exe" $args >"$out/$name.log" 2>&1 </dev/null
  rc=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  ok=0
  if [ "$expect" = pass ]; then
    [ $rc -eq 0 ] && ! grep -q FAIL "$out/$name.log" && ok=1
  else
    [ $rc -ne 0 ] && ok=1
  fi
  if [ $ok = 1 ]; then
    printf '%-28s ok    %5ss (exit %d)\n' "$name" "$secs" "$rc"; pass=$((pass + 1))
  else
    printf '%-28s FAILED %5ss (exit %d, expected %s)\n' "$name" "$secs" "$rc" "$expect"
    sed 's/^/    | /' "$out/$name.log" | head -20
    fail=$((fail + 1)); failed+=("$name")
  fi
done <<<"$declarations"
echo "$peer: $pass passed, $fail failed ${failed[*]:-}"
[ $fail -eq 0 ]
