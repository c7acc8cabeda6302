#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LTP ioctl_loop04: LOOP_SET_CAPACITY after the backing file shrinks from
# 10 KiB to 5 KiB: /sys/block/DEV/size goes from 20 to 10 sectors, and a
# 10 KiB write at offset 0 writes only the 5 KiB that remain.
# what: LOOP_SET_CAPACITY after a shrink: size, short write
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/test.img

peer_case() {
	dd if=/dev/zero of=$img bs=1024 count=10 status=none
	dev=$(peer_free)
	peer_say "set-fd: $(lioctl $dev set-fd $img)"
	peer_say "size: $(peer_sys $dev size)"
	truncate -s 5120 $img
	peer_say "set-capacity: $(lioctl $dev set-capacity)"
	peer_say "size: $(peer_sys $dev size)"
	peer_say "$(xfs_io -c 'pwrite -b 10240 0 10240' $dev 2>&1 |
		sed -n 's/^\(wrote [0-9/]* bytes\).*/\1/p')"
	peer_detach $dev
	rm -f $img
	cat >/tmp/aiotest-peer-want <<-W
	set-fd: OK 0
	size: 20
	set-capacity: OK 0
	size: 10
	W
	head -4 $PEER_OUT | diff -u /tmp/aiotest-peer-want - ||
		fail "unexpected sizes"
	grep -qxF "wrote 5120/10240 bytes" $PEER_OUT ||
		fail "a 10 KiB write did not stop at the new end"
}
peer_run ltp/ioctl_loop04
