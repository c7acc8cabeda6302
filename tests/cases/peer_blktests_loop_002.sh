#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/002, "various block sizes": LOOP_SET_BLOCK_SIZE to 4096,
# 2048, 1234 (EINVAL, the size stays), 1024 and 512 on a 1 MiB file; at
# each size an O_DIRECT write of one block reads back the same checksum,
# and queue/logical_block_size follows.
# what: block sizes 4096..512 (1234 EINVAL), O_DIRECT data read back
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/file
mkfile $img 1M

peer_case() {
	dev=$(peer_attach $img)
	q=$(peer_sys $dev)/queue/logical_block_size
	peer_say "default: $(cat $q)"
	for bs in 4096 2048 1234 1024 512; do
		peer_say "set $bs: $(lioctl $dev set-block-size $bs)"
		if [ "$(cat $q)" = $bs ]; then
			xfs_io -d -c "pwrite -q -S 0x5a 0 $bs" $dev ||
				fail "O_DIRECT write of $bs bytes failed"
			peer_say "read back: $(dd if=$dev bs=$bs count=1 \
				iflag=direct status=none | md5sum | cut -d' ' -f1)"
		fi
		peer_say "logical_block_size: $(cat $q)"
	done
	peer_detach $dev
	want() {
		grep -qxF "$1" $PEER_OUT || fail "expected the line '$1'"
	}
	want "default: 512"
	want "set 1234: ERR EINVAL"
	want "read back: $(head -c 4096 /dev/zero | tr '\0' Z | md5sum | cut -d' ' -f1)"
	want "read back: $(head -c 512 /dev/zero | tr '\0' Z | md5sum | cut -d' ' -f1)"
	[ "$(grep -c '^read back' $PEER_OUT)" = 4 ] ||
		fail "expected 4 block sizes to take effect"
}
peer_run blktests/loop/002
