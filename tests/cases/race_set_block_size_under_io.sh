#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LOOP_SET_BLOCK_SIZE cycling through 512, 1024, 2048 and 4096 while fio
# writes and verifies 4 KiB-aligned blocks (queue depth 32): every change
# succeeds and takes effect, verification passes, the size stays.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
. /tests/helpers/bg.sh
need_setup
M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/img $((32 * M))
load_aioloop
dev=$(attach /mnt/s/img)
lbs=$SYSBLK/${dev##*/}/queue/logical_block_size

bg_start fio timeout -k 10 240 fio --name=bs --filename="$dev" \
	--ioengine=libaio --direct=1 --iodepth=32 --numjobs=2 --size=12m \
	--offset_increment=12m --rw=randwrite --bsrange=4k-64k --blockalign=4k \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
	--eta=never
io_started "$dev"
n=0
while bg_running fio && [ $n -lt 1000 ]; do
	for bs in 4096 1024 2048 512; do
		lok "$dev" set-block-size $bs >/dev/null
		expect_eq "logical_block_size" "$(cat $lbs)" $bs
		n=$((n + 1))
	done
done
bg_expect_ok fio 300
bg_out fio | grep -E 'err=|WRITE:|READ:' | sed 's/^ */  /'
log "$n block size changes during fio"
[ $n -ge 8 ] || fail "only $n changes while fio ran"
expect_eq "size" "$(dev_size "$dev")" $((32 * M))
expect_eq errors "$(counter "$dev" errors)" 0
expect_eq mode "$(counter "$dev" mode)" aio
expect_eq "device vs file" "$(dev_md5 "$dev")" "$(file_md5 /mnt/s/img)"
detach "$dev"
