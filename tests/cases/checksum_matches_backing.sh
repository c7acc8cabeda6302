#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data written to the device lands at the right place in the backing
# file, also with --offset and --sizelimit, and the device has the
# expected size.
. /tests/lib.sh

M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/backing $((32 * M))
load_aioloop

# whole file
dev=$(attach /mnt/s/backing)
expect_eq "size (sectors)" "$(cat $SYSBLK/${dev##*/}/size)" $((32 * M / 512))
fill_random "$dev"
md5=$(dev_md5 "$dev")
drop_caches
expect_eq "backing md5" "$(file_md5 /mnt/s/backing)" "$md5"
detach "$dev"

# offset 1 MiB, sizelimit 8 MiB: only that window changes
off=$M
lim=$((8 * M))
head=$(file_md5 /mnt/s/backing 0 $off)
tail=$(file_md5 /mnt/s/backing $((off + lim)) $((32 * M - off - lim)))
dev=$(attach --offset $off --sizelimit $lim /mnt/s/backing)
expect_eq "size (sectors)" "$(cat $SYSBLK/${dev##*/}/size)" $((lim / 512))
expect_eq "device bytes" "$(dev_size "$dev")" $lim
expect_eq "loop/offset" "$(loopattr "$dev" offset)" $off
expect_eq "loop/sizelimit" "$(loopattr "$dev" sizelimit)" $lim
fill_random "$dev"
md5=$(dev_md5 "$dev")
detach "$dev"
drop_caches
expect_eq "window md5" "$(file_md5 /mnt/s/backing $off $lim)" "$md5"
expect_eq "md5 before the window" "$(file_md5 /mnt/s/backing 0 $off)" "$head"
expect_eq "md5 after the window" \
	"$(file_md5 /mnt/s/backing $((off + lim)) $((32 * M - off - lim)))" "$tail"

# offset alone: the device ends at the end of the file
dev=$(attach --offset $((3 * M)) /mnt/s/backing)
expect_eq "size with offset (sectors)" "$(cat $SYSBLK/${dev##*/}/size)" \
	$((29 * M / 512))
expect_eq "md5 at offset" "$(dev_md5 "$dev" 0 $M)" \
	"$(file_md5 /mnt/s/backing $((3 * M)) $M)"
detach "$dev"
