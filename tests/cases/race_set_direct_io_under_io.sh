#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LOOP_SET_DIRECT_IO toggled off and on over and over while fio writes
# and verifies (crc32c, queue depth 32, mixed block sizes): every switch
# succeeds, both modes served I/O, and verification passes.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
. /tests/helpers/bg.sh
need_setup
M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/img $((64 * M))
load_aioloop
dev=$(attach /mnt/s/img)
expect_eq mode "$(counter "$dev" mode)" aio

# shellcheck disable=SC2086
bg_start fio timeout -k 10 240 fio --name=verify --filename="$dev" \
	--size=12m --offset_increment=12m --loops=3 $FIO_VERIFY
io_started "$dev"
n=0
while bg_running fio && [ $n -lt 1000 ]; do
	lok "$dev" set-direct-io 0 >/dev/null
	expect_eq "mode after 0" "$(counter "$dev" mode)" sync
	lok "$dev" set-direct-io 1 >/dev/null
	expect_eq "mode after 1" "$(counter "$dev" mode)" aio
	n=$((n + 1))
done
bg_expect_ok fio 300
bg_out fio | grep -E 'err=|WRITE:|READ:' | sed 's/^ */  /'
log "$n off/on switches during fio"
[ $n -ge 5 ] || fail "only $n switches while fio ran"
s=$(counter "$dev" sync_ios)
a=$(counter "$dev" aio_submitted)
log "sync_ios $s, aio_submitted $a"
[ "$s" -gt 0 ] && [ "$a" -gt 0 ] || fail "not both modes served I/O"
expect_eq errors "$(counter "$dev" errors)" 0
check_aio_counters "$dev"
expect_eq "device vs file" "$(dev_md5 "$dev")" "$(file_md5 /mnt/s/img)"
detach "$dev"
