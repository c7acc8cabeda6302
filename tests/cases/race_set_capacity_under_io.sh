#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The backing file grows step by step and LOOP_SET_CAPACITY picks it up
# while fio writes and verifies the first 16 MiB (queue depth 32):
# verification passes, the final size is the file's, the new space works.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
. /tests/helpers/bg.sh
need_setup
M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/img $((16 * M))
load_aioloop
dev=$(attach /mnt/s/img)

# shellcheck disable=SC2086
bg_start fio timeout -k 10 240 fio --name=verify --filename="$dev" \
	--size=8m --offset_increment=8m --loops=4 $FIO_VERIFY
io_started "$dev"
size=16
n=0
while bg_running fio && [ $size -lt 200 ]; do
	size=$((size + 1))
	truncate -s $((size * M)) /mnt/s/img
	lok "$dev" set-capacity >/dev/null
	lok "$dev" set-capacity >/dev/null	# unchanged size
	expect_eq "size" "$(dev_size "$dev")" $((size * M))
	n=$((n + 1))
done
bg_expect_ok fio 300
bg_out fio | grep -E 'err=|WRITE:|READ:' | sed 's/^ */  /'
log "$n capacity changes during fio, now $size MiB"
[ $n -ge 5 ] || fail "only $n capacity changes while fio ran"
expect_eq "final size" "$(dev_size "$dev")" $((size * M))
expect_eq "sysfs size" "$(cat $SYSBLK/${dev##*/}/size)" $((size * 2048))
fill_random "$dev" $(((size - 4) * M)) $((4 * M))
expect_eq "tail" "$(dev_md5 "$dev" $(((size - 4) * M)) $((4 * M)))" \
	"$(file_md5 /mnt/s/img $(((size - 4) * M)) $((4 * M)))"
expect_eq errors "$(counter "$dev" errors)" 0
detach "$dev"
