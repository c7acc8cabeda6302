#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every slab allocation LOOP_CTL_ADD and LOOP_CTL_REMOVE make fails in
# turn, one per call (fail-nth, failslab on every cache, sleeping
# allocations included): each call either succeeds or fails and leaves
# the device present or absent as before, with no reference to the module
# left; afterwards devices can be added, used and removed, kmemleak finds
# nothing of aioloop's and the module unloads. Skipped on kernels
# without failslab.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
. /tests/helpers/failnth.sh

CTL=/dev/aioloop-control
mkscratch ext4 /mnt/s
mkfile /mnt/s/a 8M
load_aioloop
[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
failslab_on

has9() { [ -d $SYSBLK/aioloop9 ] || { _why="no aioloop9"; return 1; }; }
no9() { [ ! -d $SYSBLK/aioloop9 ] || { _why="aioloop9 exists"; return 1; }; }
rm9() { [ ! -d $SYSBLK/aioloop9 ] || lok $CTL ctl-remove 9 >/dev/null; }
add9() { [ -d $SYSBLK/aioloop9 ] || lok $CTL ctl-add 9 >/dev/null; }

idle=$(cat $REF)
faults ctl-add nop has9 no9 rm9 -- $CTL ctl-add 9
faults ctl-remove add9 no9 has9 rm9 -- $CTL ctl-remove 9
faults_summary

add9
dev=$(attach /mnt/s/a /dev/aioloop9)
fio_verify "$dev" 2m
detach "$dev"
rm9
expect_eq refcnt "$(cat $REF)" 0
kmemleak_check
unload_aioloop
