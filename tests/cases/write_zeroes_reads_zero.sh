#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# BLKZEROOUT (blkdiscard -z) zeroes the range, including a short range
# that is not aligned to the backing filesystem block; the rest is intact.
. /tests/lib.sh

M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/backing $((32 * M))
load_aioloop
dev=$(attach /mnt/s/backing)
fill_random "$dev"
dd if="$dev" of=/tmp/expect bs=1M iflag=direct status=none

# zeroout OFFSET LEN: on the device, and on the expected image
zeroout() {
	expect_ok blkdiscard -z -o "$1" -l "$2" "$dev"
	dd if=/dev/zero of=/tmp/expect bs=1M seek="$1" count="$2" \
		iflag=count_bytes oflag=seek_bytes conv=notrunc status=none
}

d0=$(counter "$dev" discards)
zeroout $((4 * M)) $((8 * M))
zeroout $((20 * M + 3 * 512)) $((7 * 512))
zeroout $((32 * M - 4096)) 4096
d1=$(counter "$dev" discards)

expect_eq "zeroed range" "$(dev_md5 "$dev" $((4 * M)) $((8 * M)))" \
	"$(zero_md5 $((8 * M)))"
expect_eq "device md5" "$(dev_md5 "$dev")" "$(file_md5 /tmp/expect)"
wz=$(cat $SYSBLK/${dev##*/}/queue/write_zeroes_max_bytes)
log "write_zeroes_max_bytes $wz, discards $d0 -> $d1"
if [ "$wz" -gt 0 ]; then
	[ "$d1" -gt "$d0" ] || fail "discards counter did not grow"
fi
detach "$dev"
drop_caches
expect_eq "backing md5" "$(file_md5 /mnt/s/backing)" "$(file_md5 /tmp/expect)"
