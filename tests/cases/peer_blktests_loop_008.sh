#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/008, "a GPT and an EFI system partition on a raw image":
# a device attached without LO_FLAGS_PARTSCAN still takes partitions
# that the partitioning tool adds itself (BLKPG): sfdisk writes the label
# on the device, partx -a adds the partition, and a file system is made
# on DEVp1 and checks clean. The port makes ext4 there (the guest has no
# mkfs.vfat); the device behaviour under test is the same.
# what: BLKPG partitions without LO_FLAGS_PARTSCAN, mkfs on p1
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/img
mkfile $img 16M

peer_case() {
	dev=$(peer_attach $img)
	peer_say "partscan: $(peer_sys $dev loop/partscan)"
	printf 'label: gpt\nstart=2048,type=U\n' | sfdisk -q --no-reread $dev ||
		fail "sfdisk on $dev failed"
	partx -a $dev 2>&1 || true
	for i in $(seq 25); do
		[ -b ${dev}p1 ] && break
		sleep 0.2
	done
	[ -b ${dev}p1 ] || fail "no ${dev}p1 after BLKPG"
	peer_say "p1 sectors: $(cat $(peer_sys $dev)/${dev##*/}p1/size)"
	mkfs.ext4 -q -F ${dev}p1 || fail "mkfs on ${dev}p1 failed"
	e2fsck -fn ${dev}p1 >/dev/null || fail "e2fsck on ${dev}p1"
	peer_say "file system on p1 checks clean"
	peer_detach $dev
}
peer_run blktests/loop/008
