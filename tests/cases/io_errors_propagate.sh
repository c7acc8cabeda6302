#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# I/O errors of the backing device reach the caller: reads and writes of
# a failing range (dm error target) fail, also when they only partly
# cover it, the errors counter counts them, and the rest keeps working.
. /tests/lib.sh

M=1048576
modprobe dm-mod || fail "no dm-mod"
# 64 MiB: [0, 4M) and [8M, 64M) on the raw disk, [4M, 8M) fails
dmsetup create aiotest-err <<EOT || fail "dmsetup create failed"
0 8192 linear $RAW_DEV 0
8192 8192 error
16384 114688 linear $RAW_DEV 16384
EOT
bdev=/dev/mapper/aiotest-err
[ -b $bdev ] || bdev=/dev/$(basename "$(dirname "$(grep -l '^aiotest-err$' $SYSBLK/dm-*/dm/name)")")
[ -b "$bdev" ] || fail "no block device for aiotest-err"

load_aioloop
dev=$(attach "$bdev")
expect_eq mode "$(counter "$dev" mode)" aio

fill_random "$dev" 0 $((4 * M))
expect_eq "good range md5" "$(dev_md5 "$dev" 0 $((4 * M)))" \
	"$(dev_md5 $RAW_DEV 0 $((4 * M)))"
e0=$(counter "$dev" errors)
expect_eq "errors before" "$e0" 0

# rd SKIP_KIB COUNT_KIB [FLAG]: read through the device
rd() {
	dd if="$dev" of=/dev/null bs=1k skip="$1" count="$2" ${3:-iflag=direct} \
		status=none 2>/dev/null
}
expect_fail rd 5120 4
expect_fail rd 3072 2048
expect_fail rd 7168 2048
e1=$(counter "$dev" errors)
[ "$e1" -ge 3 ] || fail "3 failed reads, errors is $e1"
expect_fail dd if=/dev/zero of="$dev" bs=4k seek=1536 count=1 oflag=direct \
	conv=notrunc status=none
e2=$(counter "$dev" errors)
[ "$e2" -gt "$e1" ] || fail "failed write not counted ($e1 -> $e2)"
echo 3 >/proc/sys/vm/drop_caches
expect_fail rd 6144 64 iflag=fullblock

# the good ranges still work
expect_ok rd 0 4096
fill_random "$dev" $((8 * M)) $((8 * M))
expect_eq "good range md5 after errors" \
	"$(dev_md5 "$dev" $((8 * M)) $((8 * M)))" \
	"$(dev_md5 $RAW_DEV $((8 * M)) $((8 * M)))"
show_counters "$dev"
detach "$dev"
dmsetup remove aiotest-err
