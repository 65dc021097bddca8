#!/usr/bin/env bash
# slurm_netns.sh — a Slurm cluster on netns.sh hosts for the tests (Debian's slurm-wlm 22.05, no munge):
# one slurmctld on the origin (the slot's bridge address) and one slurmd inside each host of the slot, so
# srun's ranks land on different hosts (own hostname, /dev/shm, address).
#
#   slurm_netns.sh check                  exit 0 when slurmctld, slurmd and srun exist, 77 (ctest SKIP) if not
#   eval "$(slurm_netns.sh up SLOT)"      start the daemons for netns.sh slot SLOT (after netns.sh up); prints
#                                           SLURM_CONF=/tmp/ftslurm-SLOT/slurm.conf (export it for srun)
#   slurm_netns.sh down SLOT              stop the daemons and remove the state (also safe when never up)
# Config: AuthType=auth/none, CredType=cred/none, proctrack/linuxproc, task/none, select/linear, ports
# 20000+10*SLOT (slurmctld) and +1 (slurmd), every file under /tmp/ftslurm-SLOT.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

check() {
  for b in slurmctld slurmd srun sinfo; do
    command -v $b >/dev/null || { echo "slurm_netns.sh: $b not installed" >&2; return 77; }
  done
  [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/auth_none.so ] || ls /usr/lib/*/slurm*/auth_none.so >/dev/null 2>&1 ||
    { echo "slurm_netns.sh: auth/none plugin missing" >&2; return 77; }
}

down() {
  local s=$1 d=/tmp/ftslurm-$1 p
  for p in "$d"/*.pid; do
    [ -f "$p" ] || continue
    kill -9 "$(cat "$p")" 2>/dev/null || true
  done
  rm -rf "$d"
}

up() {
  local s=$1 d=/tmp/ftslurm-$1 hosts=() h i
  check || exit $?
  for h in $(ls /tmp/ftmpi-netns-"$s"/hosts.d); do hosts+=("$h"); done
  [ ${#hosts[@]} -gt 0 ] || { echo "slurm_netns.sh: slot $s has no hosts" >&2; exit 1; }
  mkdir -p "$d"
  local cport=$((20000 + 10 * s)) dport=$((20001 + 10 * s)) nodes=""
  {
    echo "ClusterName=ft$s"
    echo "SlurmctldHost=$(hostname -s)(198.18.$s.1)"
    echo "SlurmctldPort=$cport"
    echo "SlurmdPort=$dport"
    echo "AuthType=auth/none"
    echo "CredType=cred/none"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "StateSaveLocation=$d/state"
    echo "SlurmdSpoolDir=$d/spool-%n"
    echo "SlurmctldPidFile=$d/slurmctld.pid"
    echo "SlurmdPidFile=$d/slurmd-%n.pid"
    echo "SlurmctldLogFile=$d/slurmctld.log"
    echo "SlurmdLogFile=$d/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/linear"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "MpiDefault=none"
    echo "SlurmdParameters=config_overrides"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=30"
    echo "InactiveLimit=0"
    echo "KillWait=2"
    echo "MessageTimeout=10"
    echo "PlugStackConfig=$d/plugstack.conf"
    for h in "${hosts[@]}"; do
      i=${h##*h}
      echo "NodeName=$h NodeAddr=198.18.$s.$((10 + i)) CPUs=$(nproc) State=UNKNOWN"
      nodes+="${nodes:+,}$h"
    done
    echo "PartitionName=ft Nodes=$nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
  } > "$d/slurm.conf"
  : > "$d/plugstack.conf"
  printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\nConstrainCores=no\nConstrainRAMSpace=no\n' > "$d/cgroup.conf"
  mkdir -p "$d/state"
  export SLURM_CONF="$d/slurm.conf"
  slurmctld -c -f "$d/slurm.conf" >"$d/slurmctld.out" 2>&1 || { cat "$d/slurmctld.out" "$d/slurmctld.log" >&2 2>/dev/null; exit 1; }
  # `ip netns exec` gives the host a fresh /sys without cgroups, which slurmd needs: mount v1 hierarchies.
  local mount_cgroups='mount -t tmpfs none /sys/fs/cgroup && for c in freezer cpuset memory devices; do mkdir -p /sys/fs/cgroup/$c && mount -t cgroup -o $c none /sys/fs/cgroup/$c; done &&'
  for h in "${hosts[@]}"; do
    mkdir -p "$d/spool-$h"
    "$here/rsh_netns.sh" "$h" "$mount_cgroups SLURM_CONF=$d/slurm.conf slurmd -f $d/slurm.conf -N $h" >"$d/slurmd-$h.out" 2>&1 ||
      { cat "$d/slurmd-$h.out" "$d/slurmd-$h.log" >&2 2>/dev/null; exit 1; }
  done
  # Wait until every node is idle.
  for _ in $(seq 1 100); do
    if [ "$(sinfo -h -o '%t' 2>/dev/null | sort -u)" = "idle" ]; then
      echo "SLURM_CONF=$d/slurm.conf"
      return 0
    fi
    sleep 0.2
  done
  echo "slurm_netns.sh: nodes not idle after 20 s:" >&2
  sinfo >&2 || true
  tail -5 "$d"/*.log >&2 || true
  exit 1
}

cmd=${1:-}; shift || true
case "$cmd" in
  check) check ;;
  up) up "${1:?slot}" ;;
  down) down "${1:?slot}" ;;
  *) echo "usage: slurm_netns.sh check|up SLOT|down SLOT" >&2; exit 2 ;;
esac
