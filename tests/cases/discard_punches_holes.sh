#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Discard punches a hole in the backing file: its blocks are freed, the
# range reads back as zeroes, the rest is intact.
. /tests/lib.sh

M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/backing $((32 * M))
load_aioloop
dev=$(attach /mnt/s/backing)
fill_random "$dev"
sync
b0=$(stat -c %b /mnt/s/backing)
[ "$b0" -ge $((32 * M / 512)) ] || fail "backing not allocated: $b0 blocks"

# expected contents: the device with the discarded range zeroed
dd if="$dev" of=/tmp/expect bs=1M iflag=direct status=none
dd if=/dev/zero of=/tmp/expect bs=1M seek=$((8 * M)) count=$((16 * M)) \
	iflag=count_bytes oflag=seek_bytes conv=notrunc status=none

d0=$(counter "$dev" discards)
expect_ok blkdiscard -o $((8 * M)) -l $((16 * M)) "$dev"
d1=$(counter "$dev" discards)
[ "$d1" -gt "$d0" ] || fail "discards counter did not grow ($d0 -> $d1)"

b1=$(stat -c %b /mnt/s/backing)
freed=$((b0 - b1))
log "backing blocks $b0 -> $b1"
[ "$freed" -ge $((16 * M / 512 - 16)) ] ||
	fail "only $freed blocks freed, expected $((16 * M / 512))"
[ "$freed" -le $((16 * M / 512 + 64)) ] ||
	fail "$freed blocks freed, expected $((16 * M / 512))"

expect_eq "discarded range" "$(dev_md5 "$dev" $((8 * M)) $((16 * M)))" \
	"$(zero_md5 $((16 * M)))"
expect_eq "device md5" "$(dev_md5 "$dev")" "$(file_md5 /tmp/expect)"
detach "$dev"
drop_caches
expect_eq "backing md5" "$(file_md5 /mnt/s/backing)" "$(file_md5 /tmp/expect)"
