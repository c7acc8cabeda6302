#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fio crc32c verification through a device backed by a block device
# (the raw disk), in aio mode; the disk holds what the device holds.
. /tests/lib.sh

load_aioloop
dev=$(attach $RAW_DEV)
expect_eq mode "$(counter "$dev" mode)" aio
expect_eq "size (sectors)" "$(cat $SYSBLK/${dev##*/}/size)" \
	"$(cat $SYSBLK/${RAW_DEV##*/}/size)"

s0=$(counter "$dev" aio_submitted)
fio_verify "$dev" 64m
s1=$(counter "$dev" aio_submitted)
show_counters "$dev"
[ "$s1" -gt "$s0" ] || fail "aio_submitted did not grow ($s0 -> $s1)"
expect_eq errors "$(counter "$dev" errors)" 0

md5=$(dev_md5 "$dev" 0 $((128 * 1048576)))
detach "$dev"
expect_eq "disk md5" "$(dev_md5 $RAW_DEV 0 $((128 * 1048576)))" "$md5"
