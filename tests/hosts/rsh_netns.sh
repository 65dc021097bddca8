#!/usr/bin/env bash
# rsh_netns.sh HOST COMMAND... — an rsh agent (called like ssh) that runs COMMAND on a netns.sh host: inside
# HOST's network namespace, with HOST as hostname, a private tmpfs /dev/shm and the slot's /etc/hosts (so the
# hosts and the origin "ftorigin<S>" resolve by name). Like ssh, the words of COMMAND are joined by spaces and
# run by a shell. Options before HOST that ssh accepts and callers pass (-x, -n, -T, -q, -o X) are ignored.
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    -o) shift 2 ;;
    -[xnTqtA]) shift ;;
    *) break ;;
  esac
done
host=${1:?host}; shift
slot=${host#ft}; slot=${slot%%h*}
hostsf=/tmp/ftmpi-netns-$slot/hosts
[ -f "$hostsf" ] || { echo "rsh_netns.sh: no such host $host" >&2; exit 255; }
cmd="$*"
exec ip netns exec "$host" unshare --uts --mount sh -c \
  "hostname '$host' && mount -t tmpfs tmpfs /dev/shm && mount --bind '$hostsf' /etc/hosts && cd '$PWD' 2>/dev/null; $cmd"
