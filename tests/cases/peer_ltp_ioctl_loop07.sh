#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LTP ioctl_loop07: lo_sizelimit, through LOOP_SET_STATUS64 and through
# LOOP_CONFIGURE, on a 1 MiB file. A limit of 4 MiB (beyond the file)
# leaves the device at 2048 sectors, one of 512 KiB cuts it to 1024;
# loop/sizelimit and LOOP_GET_STATUS64 return the limit set, and
# LOOP_SET_STATUS with 0 lifts it.
# what: lo_sizelimit via SET_STATUS64 and CONFIGURE
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/test.img
dd if=/dev/zero of=$img bs=1M count=1 status=none

show() {
	peer_say "size: $(peer_sys $dev size), loop/sizelimit: $(peer_sys \
		$dev loop/sizelimit), lo_sizelimit: $(lstatus $dev sizelimit)"
}

peer_case() {
	dev=$(peer_attach $img)
	for lim in 4194304 524288; do
		peer_say "set-status64 sizelimit=$lim: $(lioctl $dev \
			set-status64 sizelimit=$lim)"
		show
		peer_say "set-status (limit 0): $(lioctl $dev set-status)"
		peer_say "size: $(peer_sys $dev size)"
	done
	peer_detach $dev
	for lim in 4194304 524288; do
		peer_say "configure sizelimit=$lim: $(lioctl $dev configure $img \
			sizelimit=$lim)"
		show
		peer_detach $dev
	done
	cat >/tmp/aiotest-peer-want <<-W
	set-status64 sizelimit=4194304: OK 0
	size: 2048, loop/sizelimit: 4194304, lo_sizelimit: 4194304
	set-status (limit 0): OK 0
	size: 2048
	set-status64 sizelimit=524288: OK 0
	size: 1024, loop/sizelimit: 524288, lo_sizelimit: 524288
	set-status (limit 0): OK 0
	size: 2048
	configure sizelimit=4194304: OK 0
	size: 2048, loop/sizelimit: 4194304, lo_sizelimit: 4194304
	configure sizelimit=524288: OK 0
	size: 1024, loop/sizelimit: 524288, lo_sizelimit: 524288
	W
	diff -u /tmp/aiotest-peer-want $PEER_OUT || fail "unexpected values"
}
peer_run ltp/ioctl_loop07
