#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/001, "partition scanning": a 1 GiB image with an msdos
# label and two partitions, attached with -P (LO_FLAGS_PARTSCAN), shows
# the device and both partitions; detaching removes the partitions.
# what: partition scan with -P; partitions gone after detach
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/img
mkfile $img 1G
printf 'label: dos\n,512MiB,L\n,,L\n' | sfdisk -q $img ||
	fail "sfdisk $img failed"

peer_case() {
	dev=$(peer_attach -P $img)
	peer_say "lsblk lines: $(lsblk -ln "$dev" | wc -l)"
	for p in 1 2; do
		[ -b ${dev}p$p ] || fail "no ${dev}p$p after LO_FLAGS_PARTSCAN"
		peer_say "p$p sectors: $(cat $(peer_sys $dev)/${dev##*/}p$p/size)"
	done
	peer_detach "$dev"
	[ ! -e $(peer_sys $dev)/${dev##*/}p1 ] ||
		fail "${dev}p1 is still there after LOOP_CLR_FD"
	expect_eq "lsblk lines" "$(grep -c "lsblk lines: 3" $PEER_OUT)" 1
}
peer_run blktests/loop/001
