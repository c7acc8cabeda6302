#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LTP ioctl_loop02: a read-only device and LOOP_CHANGE_FD. Attached with
# LOOP_SET_FD on a file opened read-only, and with LOOP_CONFIGURE and
# LO_FLAGS_READ_ONLY on a file opened read-write: /sys/block/DEV/ro is 1,
# lo_flags is READ_ONLY only, a write to the device fails, LOOP_CHANGE_FD
# to a file of the same size succeeds (still read-only, backing_file
# follows) and to a file of another size fails with EINVAL. aioloop's
# LO_FLAGS_DIRECT_IO in aio mode is checked per driver (documented).
# what: read-only device: ro, refused write, LOOP_CHANGE_FD sizes
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
cd /mnt/s
dd if=/dev/zero of=test.img bs=1024 count=10 status=none
dd if=/dev/zero of=test1.img bs=1024 count=10 status=none
dd if=/dev/zero of=test2.img bs=2048 count=20 status=none

one() {
	peer_say "$1: $(lioctl $dev $2)"
	peer_say "ro: $(peer_sys $dev ro)"
	expect_eq backing_file "$(peer_sys $dev loop/backing_file)" /mnt/s/test.img
	peer_say "flags: $(peer_flags32 $dev)"
	peer_dio_flag_ok $dev
	w=$(xfs_io -c "pwrite 0 2" $dev 2>&1 || true)
	case $w in
	*wrote*) fail "a write to the read-only device succeeded" ;;
	esac
	peer_say "write: refused"
	peer_say "change-fd same size: $(lioctl $dev change-fd /mnt/s/test1.img)"
	peer_say "ro: $(peer_sys $dev ro)"
	expect_eq backing_file "$(peer_sys $dev loop/backing_file)" /mnt/s/test1.img
	peer_say "change-fd other size: $(lioctl $dev change-fd /mnt/s/test2.img)"
	peer_detach $dev
}

peer_case() {
	dev=$(peer_free)
	one "set-fd read-only file" "set-fd ro:/mnt/s/test.img"
	one "configure LO_FLAGS_READ_ONLY" "configure /mnt/s/test.img flags=1"
	grep -c '^ro: 1$' $PEER_OUT | grep -qx 4 || fail "ro is not 1"
	grep -c '^flags: 1$' $PEER_OUT | grep -qx 2 || fail "flags not READ_ONLY"
	grep -c '^change-fd same size: OK 0$' $PEER_OUT | grep -qx 2 ||
		fail "LOOP_CHANGE_FD to a file of the same size"
	grep -c '^change-fd other size: ERR EINVAL$' $PEER_OUT | grep -qx 2 ||
		fail "LOOP_CHANGE_FD to a file of another size"
}
peer_run ltp/ioctl_loop02
