#!/usr/bin/env bash
# netns.sh — hosts on one machine for the several-hosts tests (issue 8): one network namespace per host,
# each with a veth into a bridge, addresses in 198.18.0.0/15 only, its own hostname and /dev/shm (given by
# rsh_netns.sh, the rsh agent that "logs in" to such a host).
#
#   eval "$(netns.sh up N)"      create N hosts in a free slot; prints shell assignments:
#                                  NETNS_SLOT=S  NETNS_HOSTS=ftSh1,ftSh2,...  NETNS_AGENT=/path/rsh_netns.sh
#                                  NETNS_ORIGIN_IP=198.18.S.1 (the bridge: where mpiexec/srun/Hydra run)
#                                  NETNS_BRIDGE=ftbrS  NETNS_HOSTS_FILE=/tmp/ftmpi-netns-S/hosts
#   netns.sh down S              kill every process of slot S's hosts, remove namespaces, bridge, slot.
#   netns.sh kill HOST           SIGKILL every process of HOST (power loss).
#   netns.sh cut HOST | heal HOST   take HOST's link down (silence, no EOF) / up again.
#   netns.sh ip HOST             print HOST's address.
#   netns.sh check               exit 0 if namespaces can be made here, 77 (ctest SKIP) if not (not root,
#                                no ip/unshare).
# Slots (1..200) are taken with mkdir, so tests running in parallel get distinct subnets 198.18.S.0/24.
# Host i of slot S is namespace and hostname "ftS" "h" i, address 198.18.S.(10+i).
# Contract: every `up` is paired with a `down` (tests: trap 'netns.sh down $NETNS_SLOT' EXIT).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
state_root=/tmp/ftmpi-netns

check() {
  [ "$(id -u)" = 0 ] || { echo "netns.sh: needs root" >&2; return 77; }
  command -v ip >/dev/null && command -v unshare >/dev/null || { echo "netns.sh: needs ip and unshare" >&2; return 77; }
  local probe="ftprobe$$"
  ip netns add "$probe" 2>/dev/null || { echo "netns.sh: cannot create a network namespace" >&2; return 77; }
  ip netns del "$probe"
}

hosts_of() { local s=$1; ls "$state_root-$s/hosts.d" 2>/dev/null || true; }

kill_host() {
  local h=$1 pids
  for _ in 1 2 3 4 5; do
    pids=$(ip netns pids "$h" 2>/dev/null || true)
    [ -z "$pids" ] && return 0
    kill -9 $pids 2>/dev/null || true
    sleep 0.05
  done
}

down() {
  local s=$1 h
  # The host side of each veth goes explicitly: a cut host's namespace can outlive `ip netns del` while
  # its orphaned TCP sockets retry, and its veth would then block the slot's next `up`.
  for h in $(hosts_of "$s"); do kill_host "$h"; ip link del "${h}v" 2>/dev/null || true; ip netns del "$h" 2>/dev/null || true; done
  ip link del "ftbr$s" 2>/dev/null || true
  rm -rf "$state_root-$s"
}

up() {
  local n=$1 s i h v
  check || exit $?
  for s in $(seq 1 200); do
    if mkdir "$state_root-$s" 2>/dev/null; then break; fi
    # Reclaim a slot whose owner died without `down` (no process of it left alive).
    if [ -f "$state_root-$s/owner" ] && ! kill -0 "$(cat "$state_root-$s/owner")" 2>/dev/null; then
      down "$s"; mkdir "$state_root-$s" && break
    fi
    [ "$s" = 200 ] && { echo "netns.sh: no free slot" >&2; exit 1; }
  done
  echo "$PPID" > "$state_root-$s/owner"
  mkdir -p "$state_root-$s/hosts.d"
  local br="ftbr$s" hostsf="$state_root-$s/hosts" names=()
  ip link add "$br" type bridge
  # A fixed address: a bridge otherwise takes the lowest MAC of its ports and changes it as ports join, and a
  # host that learnt the gateway's address in between (from an ARP of a previous test's orphaned socket that
  # still retransmits to this slot's addresses) sends into the void for the next ~10 s of neighbour probing.
  ip link set "$br" address "$(printf '02:fb:00:00:%02x:01' "$s")"
  ip addr add "198.18.$s.1/24" dev "$br"
  ip link set "$br" up
  printf '127.0.0.1\tlocalhost\n198.18.%s.1\tftorigin%s\n' "$s" "$s" > "$hostsf"
  for i in $(seq 1 "$n"); do
    h="ft${s}h$i"; v="ft${s}h${i}v"
    touch "$state_root-$s/hosts.d/$h"
    ip netns add "$h"
    ip link add "$v" type veth peer name eth0 netns "$h"
    ip link set "$v" master "$br"
    ip link set "$v" up
    ip -n "$h" addr add "198.18.$s.$((10 + i))/24" dev eth0
    ip -n "$h" link set eth0 up
    ip -n "$h" link set lo up
    ip -n "$h" route add default via "198.18.$s.1"
    printf '198.18.%s.%s\t%s\n' "$s" "$((10 + i))" "$h" >> "$hostsf"
    names+=("$h")
  done
  local IFS=,
  echo "NETNS_SLOT=$s NETNS_HOSTS=${names[*]} NETNS_AGENT=$here/rsh_netns.sh NETNS_ORIGIN_IP=198.18.$s.1" \
       "NETNS_BRIDGE=$br NETNS_HOSTS_FILE=$hostsf"
}

cmd=${1:-}; shift || true
case "$cmd" in
  check) check ;;
  up) up "${1:?host count}" ;;
  down) down "${1:?slot}" ;;
  kill) kill_host "${1:?host}" ;;
  cut) ip link set "${1:?host}v" down ;;
  heal) ip link set "${1:?host}v" up ;;
  ip) ip -n "${1:?host}" -4 -o addr show dev eth0 | awk '{print $4}' | cut -d/ -f1 ;;
  *) echo "usage: netns.sh check|up N|down SLOT|kill HOST|cut HOST|heal HOST|ip HOST" >&2; exit 2 ;;
esac
