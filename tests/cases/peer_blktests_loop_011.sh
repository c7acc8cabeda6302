#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/011, "a backing file system without fallocate modes does
# not fill dmesg": a 100 MiB file on tmpfs, mkfs.ext2 on the device
# (which issues write zeroes and discards); at most one "operation not
# supported error ... WRITE_ZEROES" line may appear (blktests expects
# loop's one: its first failure turns write zeroes off), and the file
# system checks clean. blktests runs it on kernels from 6.9.11, which have
# loop's fix (5f75e081ab5c); where stock loop fails it before that, the
# table says so, and aioloop is held to it on every kernel.
# what: backing without fallocate modes: at most one WRITE_ZEROES error in dmesg
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch tmpfs /mnt/t
img=/mnt/t/disk.img
dd if=/dev/zero of=$img bs=1M count=100 status=none

peer_case() {
	dev=$(peer_attach $img)
	n0=$(dmesg | wc -l)
	mke2fs -q -F -t ext2 $dev || fail "mkfs.ext2 failed"
	e2fsck -fn $dev >/dev/null || fail "e2fsck found errors"
	errors=$(dmesg | tail -n +$((n0 + 1)) |
		grep -c "operation not supported error, dev .*WRITE_ZEROES" || true)
	dmesg | tail -n +$((n0 + 1)) | tail -5
	log "$P: found $errors error(s) in dmesg"
	peer_detach $dev
	if [ $errors -gt 1 ] && [ $P = loop ] && ! kver_ge 6 9 11; then
		echo "loop lacks 5f75e081ab5c (\"loop: Disable fallocate() zero and discard if not supported\", 6.9.11)"
		exit 76
	fi
	[ $errors -le 1 ] || fail "$errors WRITE_ZEROES errors in dmesg"
	peer_say "at most one WRITE_ZEROES error in dmesg"
}
peer_run blktests/loop/011
