#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A backing file on ext4 on a device-mapper device (dm-delay, no delay)
# passes fio crc32c verification in aio mode.
. /tests/lib.sh

modprobe dm-delay || fail "no dm-delay"
sz=$(blockdev --getsz /dev/vdb)
echo "0 $sz delay /dev/vdb 0 0" | dmsetup create aiotest-delay ||
	fail "dmsetup create failed"
mkdir -p /mnt/s
expect_ok mkfs.ext4 -q -F -E nodiscard /dev/mapper/aiotest-delay
expect_ok mount -t ext4 -o noinit_itable /dev/mapper/aiotest-delay /mnt/s
mkfile /mnt/s/backing 64M

load_aioloop
dev=$(attach /mnt/s/backing)
expect_eq mode "$(counter "$dev" mode)" aio
fio_verify "$dev" 32m
show_counters "$dev"
expect_eq errors "$(counter "$dev" errors)" 0
md5=$(dev_md5 "$dev")
detach "$dev"
drop_caches
expect_eq "backing md5" "$(file_md5 /mnt/s/backing)" "$md5"
umount /mnt/s
dmsetup remove aiotest-delay
