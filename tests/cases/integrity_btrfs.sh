#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fio crc32c verification through a device backed by a file on btrfs, in
# aio mode; the backing file holds what the device holds.
. /tests/lib.sh

mkscratch btrfs /mnt/s
mkfile /mnt/s/backing 128M
load_aioloop
dev=$(attach /mnt/s/backing)
expect_eq mode "$(counter "$dev" mode)" aio
expect_eq "loop/dio" "$(loopattr "$dev" dio)" 1

s0=$(counter "$dev" aio_submitted)
fio_verify "$dev" 64m
s1=$(counter "$dev" aio_submitted)
show_counters "$dev"
[ "$s1" -gt "$s0" ] || fail "aio_submitted did not grow ($s0 -> $s1)"
expect_eq errors "$(counter "$dev" errors)" 0

md5=$(dev_md5 "$dev")
detach "$dev"
drop_caches
expect_eq "backing file md5" "$(file_md5 /mnt/s/backing)" "$md5"
