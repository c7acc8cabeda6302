#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LTP ioctl_loop01: LO_FLAGS_AUTOCLEAR and LO_FLAGS_PARTSCAN. After
# LOOP_SET_FD, loop/partscan and loop/autoclear are 0 and
# loop/backing_file names the file. LOOP_SET_STATUS with AUTOCLEAR,
# PARTSCAN, READ_ONLY and DIRECT_IO sets only the first two (GET_STATUS,
# sysfs), and the partition appears as DEVp1 and in sysfs; LOOP_SET_STATUS
# with 0 clears AUTOCLEAR but not PARTSCAN. aioloop reports
# LO_FLAGS_DIRECT_IO whenever it runs in aio mode (documented): the port
# checks that bit per driver and compares the others.
# what: AUTOCLEAR and PARTSCAN via LOOP_SET_STATUS, sysfs, partitions
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/test.img
dd if=/dev/zero of=$img bs=1M count=10 status=none
printf 'label: dos\nstart=1MiB,size=9MiB,type=L\n' | sfdisk -q $img ||
	fail "sfdisk failed"

check() {
	peer_say "set-status flags=$1: $(lioctl $dev set-status flags=$1)"
	peer_say "flags: $(peer_flags32 $dev)"
	peer_dio_flag_ok $dev
	peer_say "partscan: $(peer_sys $dev loop/partscan)"
	peer_say "autoclear: $(peer_sys $dev loop/autoclear)"
	for i in $(seq 50); do
		[ -b ${dev}p1 ] && break
		sleep 0.2
	done
	[ -b ${dev}p1 ] && peer_say "${dev}p1: present" || peer_say "${dev}p1: missing"
	[ -e $(peer_sys $dev)/${dev##*/}p1 ] && peer_say "sysfs p1: present" ||
		peer_say "sysfs p1: missing"
}

peer_case() {
	dev=$(peer_free)
	peer_say "set-fd: $(lioctl $dev set-fd $img)"
	# held open as LTP holds it, so that LO_FLAGS_AUTOCLEAR does not
	# detach the device when lioctl closes it
	exec 5<$dev
	peer_say "partscan: $(peer_sys $dev loop/partscan)"
	peer_say "autoclear: $(peer_sys $dev loop/autoclear)"
	expect_eq backing_file "$(peer_sys $dev loop/backing_file)" $img
	check 29
	check 0
	exec 5<&-
	peer_detach $dev
	cat >/tmp/aiotest-peer-want <<-W
	set-fd: OK 0
	partscan: 0
	autoclear: 0
	set-status flags=29: OK 0
	flags: 12
	partscan: 1
	autoclear: 1
	DEVp1: present
	sysfs p1: present
	set-status flags=0: OK 0
	flags: 8
	partscan: 1
	autoclear: 0
	DEVp1: present
	sysfs p1: present
	W
	diff -u /tmp/aiotest-peer-want $PEER_OUT || fail "unexpected values"
}
peer_run ltp/ioctl_loop01
