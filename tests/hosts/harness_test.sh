#!/usr/bin/env bash
# harness_test.sh — checks netns.sh itself: three hosts with their own hostname and /dev/shm reach each other
# by name, a cut link gives silence (a timeout, not a refusal), and `down` leaves no namespace, bridge or slot.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/netns.sh" check || exit $?
eval "$("$here/netns.sh" up 3)"
trap '"$here/netns.sh" down "$NETNS_SLOT"' EXIT
S=$NETNS_SLOT a=ft${S}h1 b=ft${S}h2 c=ft${S}h3
[ "$("$NETNS_AGENT" "$b" hostname)" = "$b" ] || { echo "FAIL: hostname"; exit 1; }
touch /dev/shm/ftmpi-harness-probe-$$
[ "$("$NETNS_AGENT" "$b" "ls /dev/shm | wc -l")" = 0 ] || { echo "FAIL: /dev/shm is shared"; rm -f /dev/shm/ftmpi-harness-probe-$$; exit 1; }
rm -f /dev/shm/ftmpi-harness-probe-$$
# A listener on c (bash cannot listen: use the origin's reply of "refused" vs silence instead).
"$NETNS_AGENT" "$a" "timeout 3 bash -c 'echo > /dev/tcp/$c/1'" 2>/dev/null && { echo "FAIL: port 1 open?"; exit 1; }
rc=0; "$NETNS_AGENT" "$a" "timeout 3 bash -c 'echo > /dev/tcp/$c/1'" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || { echo "FAIL: expected a refusal from $c (rc $rc)"; exit 1; }
"$here/netns.sh" cut "$c"
rc=0; "$NETNS_AGENT" "$a" "timeout 2 bash -c 'echo > /dev/tcp/$c/1'" 2>/dev/null || rc=$?
[ "$rc" = 124 ] || { echo "FAIL: a cut link should be silent (rc $rc)"; exit 1; }
"$here/netns.sh" heal "$c"
"$NETNS_AGENT" "$c" "sleep 30" & sleep 0.3
"$here/netns.sh" kill "$c"
wait || true
[ -z "$(ip netns pids "$c")" ] || { echo "FAIL: kill left processes"; exit 1; }
"$here/netns.sh" down "$S"; trap - EXIT
ip netns list | grep -q "^ft${S}h" && { echo "FAIL: namespaces left"; exit 1; }
[ ! -e /tmp/ftmpi-netns-$S ] || { echo "FAIL: slot left"; exit 1; }
echo "PASS netns harness"
