#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LTP ioctl_loop06: invalid block sizes. LOOP_SET_BLOCK_SIZE on a bound
# device and LOOP_CONFIGURE on a free one, each with 256 (below 512),
# 131072 (twice the largest block size any kernel takes) and PAGE_SIZE - 1
# (not a power of two): EINVAL every time, and LOOP_CONFIGURE leaves the
# device unbound.
# what: invalid block sizes via SET_BLOCK_SIZE and CONFIGURE: EINVAL
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/test.img
dd if=/dev/zero of=$img bs=1024 count=1024 status=none
pg=$(getconf PAGESIZE 2>/dev/null || echo 4096)

peer_case() {
	dev=$(peer_attach $img)
	for bs in 256 131072 $((pg - 1)); do
		peer_say "set-block-size $bs: $(lioctl $dev set-block-size $bs)"
	done
	peer_detach $dev
	for bs in 256 131072 $((pg - 1)); do
		peer_say "configure bs=$bs: $(lioctl $dev configure $img bs=$bs)"
		[ ! -e $(peer_sys $dev)/loop/backing_file ] ||
			fail "LOOP_CONFIGURE bs=$bs left $dev bound"
	done
	[ "$(grep -c 'ERR EINVAL$' $PEER_OUT)" = 6 ] ||
		fail "expected EINVAL six times"
}
peer_run ltp/ioctl_loop06
