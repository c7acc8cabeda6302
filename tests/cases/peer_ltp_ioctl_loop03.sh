#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LTP ioctl_loop03: LOOP_CHANGE_FD on a writable device fails with
# EINVAL, and the device keeps its backing file.
# what: LOOP_CHANGE_FD on a writable device: EINVAL
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/test.img
dd if=/dev/zero of=$img bs=1024 count=10 status=none

peer_case() {
	dev=$(peer_free)
	peer_say "set-fd: $(lioctl $dev set-fd $img)"
	peer_say "flags: $(peer_flags32 $dev)"
	peer_say "change-fd: $(lioctl $dev change-fd $img)"
	expect_eq backing_file "$(peer_sys $dev loop/backing_file)" $img
	peer_detach $dev
	grep -qxF "flags: 0" $PEER_OUT || fail "device not writable"
	grep -qxF "change-fd: ERR EINVAL" $PEER_OUT || fail "expected EINVAL"
}
peer_run ltp/ioctl_loop03
