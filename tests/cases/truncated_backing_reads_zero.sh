#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The backing file truncated under an attached device: what lies past the
# new end of file reads as zeroes (never the data written there before),
# in aio and sync mode, also once the file is extended again (a hole);
# truncating back and forth under running reads and writes does not
# upset the kernel.
. /tests/lib.sh
. /tests/helpers/bg.sh
need_setup
M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/img $((16 * M))
load_aioloop
dev=$(attach /mnt/s/img)
expect_eq mode "$(counter "$dev" mode)" aio
fill_random "$dev"
head_md5=$(dev_md5 "$dev" 0 $((6 * M)))
# the bytes that stay in the block that will hold the new end of file
dd if="$dev" bs=4k count=1 skip=$((6 * M)) iflag=direct,skip_bytes \
	status=none | head -c 1000 >/tmp/aiotest-part
new=$((6 * M + 1000))
tail_len=$((16 * M - new))
want_tail=$({ cat /tmp/aiotest-part; head -c $tail_len /dev/zero; } |
	md5sum | cut -d' ' -f1)

# check WHAT: the device reads the kept head and zeroes past the end
check() {
	expect_eq "$1: head" "$(dev_md5 "$dev" 0 $((6 * M)))" "$head_md5"
	expect_eq "$1: past the new end" \
		"$(dev_md5 "$dev" $((6 * M)) $((16 * M - 6 * M)))" "$want_tail"
	blockdev --flushbufs "$dev"
	_got=$(dd if="$dev" bs=1M skip=6 status=none | md5sum | cut -d' ' -f1)
	expect_eq "$1: past the new end, buffered" "$_got" "$want_tail"
}

truncate -s $new /mnt/s/img
expect_eq "device size (until LOOP_SET_CAPACITY)" "$(dev_size "$dev")" $((16 * M))
drop_caches
check aio
aioloop-setup set-direct-io "$dev" off || fail "set-direct-io off failed"
expect_eq mode "$(counter "$dev" mode)" sync
check sync
aioloop-setup set-direct-io "$dev" on || fail "set-direct-io on failed"

# extended again: a hole, still zeroes
truncate -s $((16 * M)) /mnt/s/img
drop_caches
check "aio, extended"
expect_eq "errors" "$(counter "$dev" errors)" 0

# truncating back and forth under fio
bg_start fio timeout -k 10 120 fio --name=trunc --filename="$dev" \
	--ioengine=libaio --direct=1 --iodepth=32 --rw=randrw --bs=4k \
	--size=16m --time_based --runtime=5 --eta=never
n=0
while bg_running fio && [ $n -lt 200 ]; do
	truncate -s $(((n % 7 + 1) * 2 * M + 512 * (n % 3))) /mnt/s/img
	sleep 0.1
	truncate -s $((16 * M)) /mnt/s/img
	n=$((n + 1))
done
rc=$(bg_wait fio 150)
[ "$rc" != 124 ] && [ "$rc" != 137 ] || fail "fio hung"
log "$n truncations under fio (fio exit $rc)"
no_kernel_problems
# the device still works
truncate -s $((16 * M)) /mnt/s/img
fill_random "$dev" 0 $((4 * M))
expect_eq "after the truncations" "$(dev_md5 "$dev" 0 $((4 * M)))" \
	"$(file_md5 /mnt/s/img 0 $((4 * M)))"
detach "$dev"
