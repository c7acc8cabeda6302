#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/005, "LOOP_GET_STATUS{,64} with a NULL argument": EINVAL,
# and the device's configuration lock is released (the next ioctls
# answer, under a time bound, and the device detaches).
# what: LOOP_GET_STATUS(64) NULL: EINVAL, lock released
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/file
mkfile $img 1M

peer_case() {
	dev=$(peer_attach $img)
	peer_say "get-status NULL: $(lioctl $dev get-status null)"
	peer_say "get-status64 NULL: $(lioctl $dev get-status64 null)"
	peer_say "get-status64 after: $(timeout 30 $LIOCTL $dev get-status64 |
		head -1)"
	peer_say "clr-fd: $(timeout 30 $LIOCTL $dev clr-fd)"
	grep -qxF "get-status NULL: ERR EINVAL" $PEER_OUT || fail "GET_STATUS"
	grep -qxF "get-status64 NULL: ERR EINVAL" $PEER_OUT || fail "GET_STATUS64"
	grep -qxF "clr-fd: OK 0" $PEER_OUT || fail "LOOP_CLR_FD after"
}
peer_run blktests/loop/005
