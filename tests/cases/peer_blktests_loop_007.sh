#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/007, "update the capacity with a file system mounted":
# ext4 with 1 KiB blocks on the device, mounted; LOOP_SET_CAPACITY must
# not change the device's block size under the mounted file system (the
# old livelock): listing and reading it back answer within a bound, the
# file written before reads back, and the file system checks clean.
# what: LOOP_SET_CAPACITY under a mounted ext4 (block size kept)
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/img
mkfile $img 1G
mkdir -p /mnt/top

peer_case() {
	dev=$(peer_attach -P $img)
	mkfs.ext4 -q -F -b 1024 $dev || fail "mkfs.ext4 -b 1024 failed"
	mount -t ext4 $dev /mnt/top || fail "mount failed"
	dd if=/dev/urandom of=/mnt/top/f bs=64k count=16 status=none
	sync
	sum=$(md5sum </mnt/top/f)
	bsz=$(blockdev --getbsz $dev)
	peer_say "set-capacity: $(lioctl $dev set-capacity)"
	timeout 60 ls -l /mnt/top >/dev/null || fail "ls hung or failed"
	peer_say "block size after: $(blockdev --getbsz $dev) (before: $bsz)"
	echo 3 >/proc/sys/vm/drop_caches
	expect_eq "file after LOOP_SET_CAPACITY" "$(timeout 60 md5sum \
		</mnt/top/f)" "$sum"
	umount /mnt/top
	e2fsck -fn $dev >/dev/null || fail "e2fsck found errors"
	peer_say "file read back, fsck clean"
	peer_detach $dev
	grep -qxF "block size after: 1024 (before: 1024)" $PEER_OUT ||
		fail "the block size changed"
}
peer_run blktests/loop/007
