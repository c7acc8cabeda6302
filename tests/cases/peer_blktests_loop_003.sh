#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/003, "open and close an unbound device": 2000 opens and
# closes of a free device (flushing an unbound device must neither hang
# nor fail), under a time bound; the device then attaches and reads.
# what: 2000 opens of an unbound device, then attach and read
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/file
mkfile $img 1M
fill_random $img

peer_case() {
	dev=$(peer_free)
	timeout 240 sh -c 'i=0
		while [ $i -lt 2000 ]; do
			exec 3<"$1" || exit 1
			exec 3<&-
			i=$((i + 1))
		done' sh "$dev" || fail "2000 opens of unbound $dev failed or hung"
	peer_say "opened and closed an unbound device 2000 times"
	[ ! -e $(peer_sys $dev)/loop/backing_file ] || fail "$dev became bound"
	peer_losetup "$dev" $img || fail "attach after the opens failed"
	expect_eq "data" "$(dd if=$dev bs=64k iflag=direct status=none | md5sum)" \
		"$(md5sum <$img)"
	peer_say "attached and read back"
	peer_detach $dev
}
peer_run blktests/loop/003
