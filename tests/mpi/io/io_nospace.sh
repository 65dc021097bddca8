#!/bin/sh
# io_nospace.sh MPIEXEC PROGRAM — runs PROGRAM on 2 ranks with a full 1 MiB tmpfs and a read-only tmpfs, both
# mounted in a private mount namespace (nothing is visible outside; they vanish with it). Needs root and
# unshare(1): exits 77 (skipped) otherwise.
mpiexec=$1
prog=$2
[ "$(id -u)" = 0 ] || { echo "SKIP io_nospace: not root"; exit 77; }
command -v unshare >/dev/null 2>&1 || { echo "SKIP io_nospace: no unshare"; exit 77; }
unshare --mount true 2>/dev/null || { echo "SKIP io_nospace: unshare --mount not permitted"; exit 77; }
d=$(mktemp -d /tmp/ftmpi-nospace-XXXXXX)
unshare --mount sh -c "mount --make-rprivate / 2>/dev/null
  mount -t tmpfs -o size=1m tmpfs '$d' && mkdir '$d/ro' && mount -t tmpfs -o size=64k tmpfs '$d/ro' &&
  touch '$d/ro/f' && mount -o remount,ro '$d/ro' && '$mpiexec' -n 2 '$prog' '$d'"
rc=$?
rmdir "$d"
exit $rc
