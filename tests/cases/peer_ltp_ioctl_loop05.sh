#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LTP ioctl_loop05: LOOP_SET_DIRECT_IO on a live device, backed by a file
# on ext4. 1 sets LO_FLAGS_DIRECT_IO and loop/dio, 0 clears both; with
# lo_offset equal to the backing's logical block size 1 succeeds; with
# half of it 1 fails with EINVAL or succeeds (LTP accepts both; loop
# ignores the offset on 6.1 and refuses on later kernels). aioloop refuses
# it (EINVAL, documented: direct I/O where aio mode is impossible), and
# the port holds it to that.
# what: LOOP_SET_DIRECT_IO on/off, with aligned and unaligned offsets
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/test.img
dd if=/dev/zero of=$img bs=1024 count=1024 status=none
bdev=$(findmnt -n -o SOURCE /mnt/s)
lbs=$(blockdev --getss $bdev)

dio() {
	peer_say "set-direct-io $1: $(lioctl $dev set-direct-io $1)"
	f=$(lstatus $dev flags)
	peer_say "LO_FLAGS_DIRECT_IO: $((f & 16)), dio: $(peer_sys $dev loop/dio)"
}

peer_case() {
	dev=$(peer_attach $img)
	[ $lbs -le 512 ] || lok $dev set-block-size $lbs >/dev/null
	peer_say "set-status: $(lioctl $dev set-status offset=0)"
	dio 1
	dio 0
	peer_say "set-status offset=$lbs: $(lioctl $dev set-status offset=$lbs)"
	dio 1
	lok $dev set-direct-io 0 >/dev/null
	half=$((lbs / 2))
	lok $dev set-status offset=$half >/dev/null
	r=$(lioctl $dev set-direct-io 1 || true)
	log "$P: LOOP_SET_DIRECT_IO 1 at offset $half: $r"
	case $P:$r in
	loop:"OK 0"|loop:"ERR EINVAL"|aioloop:"ERR EINVAL") ;;
	*) fail "LOOP_SET_DIRECT_IO 1 at offset $half: $r" ;;
	esac
	peer_say "offset $half: accepted or EINVAL"
	peer_detach $dev
	cat >/tmp/aiotest-peer-want <<-W
	set-status: OK 0
	set-direct-io 1: OK 0
	LO_FLAGS_DIRECT_IO: 16, dio: 1
	set-direct-io 0: OK 0
	LO_FLAGS_DIRECT_IO: 0, dio: 0
	set-status offset=$lbs: OK 0
	set-direct-io 1: OK 0
	LO_FLAGS_DIRECT_IO: 16, dio: 1
	offset $half: accepted or EINVAL
	W
	diff -u /tmp/aiotest-peer-want $PEER_OUT || fail "unexpected values"
}
peer_run ltp/ioctl_loop05
