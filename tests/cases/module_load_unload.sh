#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Loading creates max_devices devices and the control node; the module
# cannot be unloaded while a device is open or attached.
. /tests/lib.sh

ndev() {
	ls -d $SYSBLK/aioloop[0-9]* 2>/dev/null | wc -l
}

load_aioloop
expect_eq "devices (default max_devices)" "$(ndev)" 8
for i in 0 1 2 3 4 5 6 7; do
	[ -b /dev/aioloop$i ] || fail "no /dev/aioloop$i"
done
expect_eq "unbound mode" "$(counter aioloop0 mode)" none
[ ! -e $SYSBLK/aioloop0/loop ] || fail "loop/ in sysfs of an unbound device"
unload_aioloop
[ ! -e /dev/aioloop0 ] || fail "/dev/aioloop0 still there after rmmod"
[ ! -e /dev/aioloop-control ] || fail "/dev/aioloop-control still there"

load_aioloop max_devices=3
expect_eq "devices (max_devices=3)" "$(ndev)" 3
[ ! -e /dev/aioloop3 ] || fail "/dev/aioloop3 exists with max_devices=3"

exec 3</dev/aioloop0
expect_fail rmmod aioloop
exec 3<&-

mkscratch tmpfs /mnt/t
mkfile /mnt/t/img 16M
dev=$(attach /mnt/t/img /dev/aioloop1)
expect_eq "attached device" "$dev" /dev/aioloop1
expect_fail rmmod aioloop
[ -d /sys/module/aioloop ] || fail "module gone while attached"
detach "$dev"
unload_aioloop
