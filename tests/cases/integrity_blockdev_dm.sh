#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A device-mapper device (dm-delay, no delay) as the backing block device
# passes fio crc32c verification in aio mode.
. /tests/lib.sh

modprobe dm-delay || fail "no dm-delay"
echo "0 262144 delay $RAW_DEV 0 0" | dmsetup create aiotest-delay ||
	fail "dmsetup create failed"

load_aioloop
dev=$(attach /dev/mapper/aiotest-delay)
expect_eq mode "$(counter "$dev" mode)" aio
fio_verify "$dev" 32m
show_counters "$dev"
expect_eq errors "$(counter "$dev" errors)" 0
md5=$(dev_md5 "$dev" 0 $((64 * 1048576)))
detach "$dev"
expect_eq "disk md5" "$(dev_md5 $RAW_DEV 0 $((64 * 1048576)))" "$md5"
dmsetup remove aiotest-delay
