#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Reads and writes go to the backing file from the submitter's context
# (aio_direct counts them) unless direct_submit=N, and the data is the
# same either way; a device on a file of a file system on another
# aioloop device (submission descending twice) keeps its data too.
. /tests/lib.sh

PARAM=/sys/module/aioloop/parameters/direct_submit

mkscratch ext4 /mnt/s
mkfile /mnt/s/backing 96M
load_aioloop
expect_eq "direct_submit default" "$(cat $PARAM)" Y
dev=$(attach /mnt/s/backing)

d0=$(counter "$dev" aio_direct)
fio_verify "$dev" 16m
d1=$(counter "$dev" aio_direct)
[ "$d1" -gt "$d0" ] || fail "aio_direct did not grow ($d0 -> $d1)"

echo N >$PARAM
s0=$(counter "$dev" aio_submitted)
fio_verify "$dev" 16m
s1=$(counter "$dev" aio_submitted)
d2=$(counter "$dev" aio_direct)
echo Y >$PARAM
[ "$s1" -gt "$s0" ] || fail "aio_submitted did not grow ($s0 -> $s1)"
expect_eq "aio_direct with direct_submit=N" "$d2" "$d1"
show_counters "$dev"
check_aio_counters "$dev"
expect_eq errors "$(counter "$dev" errors)" 0

# Two levels: ext4 on $dev, and a device on a file in that ext4.
inner=$(attach_inner "$dev")
expect_eq "inner mode" "$(counter "$inner" mode)" aio
fio_verify "$inner" 32m
sum=$(dev_md5 "$inner")
show_counters "$inner"
[ "$(counter "$inner" aio_direct)" -gt 0 ] || fail "inner aio_direct is 0"
expect_eq "inner errors" "$(counter "$inner" errors)" 0
detach "$inner"
expect_ok umount /mnt/d
drop_caches
expect_ok mount -t ext4 "$dev" /mnt/d
expect_eq "inner file md5 after remount" "$(file_md5 /mnt/d/inner)" "$sum"
expect_ok umount /mnt/d
e2fsck -fn "$dev" || fail "e2fsck -fn: exit $?"
detach "$dev"
