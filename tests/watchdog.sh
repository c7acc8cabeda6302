#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# watchdog.sh NAME PID SECS LOGDIR RESULTS: started by /init next to each
# test. After SECS, kill the test's process group. When the test cannot
# be killed (stuck in the kernel), report it, dump the blocked tasks and
# power the VM off.
name=$1 pid=$2 tmo=$3 logs=$4 res=$5

sleep "$tmo"
echo "timed out after ${tmo}s" >>"$logs/$name.log"
touch "$logs/$name.timeout"
kill -TERM -"$pid" 2>/dev/null
sleep 10
kill -KILL -"$pid" 2>/dev/null
sleep 30
[ -d "/proc/$pid" ] || exit 0
grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && exit 0

echo "--- $name: cannot be killed; blocked tasks:"
echo w >/proc/sysrq-trigger
sleep 2
sed 's/^/    /' "$logs/$name.log"
dmesg | tail -200 | sed 's/^/    /'
for l in "AIOTEST: $name FAIL (stuck)" "AIOTEST-ABORT: $name stuck in the kernel"; do
	echo "$l"
	[ "$res" = /dev/null ] || echo "$l" >"$res"
done
sync
poweroff -f
