#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An offset that O_DIRECT cannot use (1000 bytes) selects the sync
# fallback (reason unaligned); fio crc32c verification passes and the
# data lands at that offset of the backing file, nothing outside it.
. /tests/lib.sh

M=1048576
off=1000
lim=$((64 * M))
mkscratch ext4 /mnt/s
mkfile /mnt/s/backing $((66 * M))
fill_random /mnt/s/backing
head=$(file_md5 /mnt/s/backing 0 $off)
tail=$(file_md5 /mnt/s/backing $((off + lim)) $((66 * M - off - lim)))

load_aioloop
dev=$(attach --offset $off --sizelimit $lim /mnt/s/backing)
expect_eq mode "$(counter "$dev" mode)" sync
expect_eq sync_reason "$(counter "$dev" sync_reason)" unaligned
expect_eq "device bytes" "$(dev_size "$dev")" $lim

fio_verify "$dev" 32m
show_counters "$dev"
[ "$(counter "$dev" sync_ios)" -gt 0 ] || fail "sync_ios did not grow"
expect_eq aio_submitted "$(counter "$dev" aio_submitted)" 0
expect_eq errors "$(counter "$dev" errors)" 0

md5=$(dev_md5 "$dev")
detach "$dev"
drop_caches
expect_eq "window md5" "$(file_md5 /mnt/s/backing $off $lim)" "$md5"
expect_eq "md5 before the window" "$(file_md5 /mnt/s/backing 0 $off)" "$head"
expect_eq "md5 after the window" \
	"$(file_md5 /mnt/s/backing $((off + lim)) $((66 * M - off - lim)))" \
	"$tail"
