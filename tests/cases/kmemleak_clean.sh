#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# With a kmemleak kernel (make check KERNEL=debug): attaching, I/O in
# both modes, refused and accepted ioctls, detaching and removing devices
# leave no unreferenced object allocated by aioloop. Skipped on kernels
# without kmemleak.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
KML=/sys/kernel/debug/kmemleak
[ -w $KML ] || skip "kernel without kmemleak"
need_setup
M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/img $((16 * M))
load_aioloop
echo clear >$KML

dev=$(attach /mnt/s/img)
fio_verify "$dev" 2m
aioloop-setup set-direct-io "$dev" off
fill_random "$dev" 0 $((2 * M))
dd if=/dev/zero of="$dev" bs=4k count=4 conv=notrunc,fsync status=none
blkdiscard -o 0 -l $M "$dev"
detach "$dev"
lioctl /dev/aioloop1 configure /mnt/s/img bs=1000 >/dev/null || true
lioctl /dev/aioloop1 configure ro:/mnt/s/img flags=1 >/dev/null
lioctl /dev/aioloop2 configure ro:/dev/aioloop1 flags=1 >/dev/null
lioctl /dev/aioloop2 clr-fd >/dev/null
lioctl /dev/aioloop1 clr-fd >/dev/null
lioctl /dev/aioloop-control ctl-add 20 >/dev/null
lioctl /dev/aioloop-control ctl-remove 20 >/dev/null

kmemleak_check
unload_aioloop
