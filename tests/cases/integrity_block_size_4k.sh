#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# With --block-size 4096 the device has 4 KiB logical blocks, stays in
# aio mode and passes fio crc32c verification with 4 KiB aligned I/O;
# 512-byte direct I/O is refused.
. /tests/lib.sh

mkscratch xfs /mnt/s
mkfile /mnt/s/backing 128M
load_aioloop
dev=$(attach --block-size 4096 /mnt/s/backing)
q=$SYSBLK/${dev##*/}/queue
expect_eq logical_block_size "$(cat $q/logical_block_size)" 4096
expect_eq mode "$(counter "$dev" mode)" aio

fio_verify "$dev" 64m 4k
show_counters "$dev"
[ "$(counter "$dev" aio_submitted)" -gt 0 ] || fail "aio_submitted is 0"
expect_eq errors "$(counter "$dev" errors)" 0
expect_fail dd if=/dev/zero of="$dev" bs=512 count=1 oflag=direct \
	conv=notrunc status=none

md5=$(dev_md5 "$dev")
detach "$dev"
drop_caches
expect_eq "backing md5" "$(file_md5 /mnt/s/backing)" "$md5"
