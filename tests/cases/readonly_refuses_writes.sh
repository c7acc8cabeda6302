#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A device attached --read-only is read-only (also after BLKROSET 0):
# writes and discards fail and the backing file is unchanged.
. /tests/lib.sh

M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/backing $((16 * M))
fill_random /mnt/s/backing
md5=$(file_md5 /mnt/s/backing)
load_aioloop
dev=$(attach --read-only /mnt/s/backing)
expect_eq "blockdev --getro" "$(blockdev --getro "$dev")" 1
expect_eq "sysfs ro" "$(cat $SYSBLK/${dev##*/}/ro)" 1
expect_eq "device md5" "$(dev_md5 "$dev")" "$md5"

expect_fail dd if=/dev/zero of="$dev" bs=4k count=1 oflag=direct \
	conv=notrunc status=none
expect_fail dd if=/dev/zero of="$dev" bs=4k count=1 conv=notrunc,fsync \
	status=none
expect_fail blkdiscard "$dev"
blockdev --setrw "$dev" 2>/dev/null || true
expect_fail dd if=/dev/zero of="$dev" bs=4k count=1 oflag=direct \
	conv=notrunc status=none

expect_eq "device md5 after writes" "$(dev_md5 "$dev")" "$md5"
detach "$dev"
drop_caches
expect_eq "backing md5" "$(file_md5 /mnt/s/backing)" "$md5"
