#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/009, "LOOP_CONFIGURE sends uevents for partitions": an
# image with a GPT partition attached with LOOP_CONFIGURE and
# LO_FLAGS_PARTSCAN; the kernel must send an "add" uevent for DEVp1
# (seen with udevadm monitor on the kernel's netlink socket; no udevd
# runs, so nothing else rescans the device).
# what: LOOP_CONFIGURE sends add uevents for partitions
. /tests/lib.sh
. /tests/helpers/peer.sh
command -v udevadm >/dev/null || skip "no udevadm"

mkscratch ext4 /mnt/s
img=/mnt/s/img
mkfile $img 3M
printf 'label: gpt\nsize=1MiB\n' | sfdisk -q $img || fail "sfdisk failed"

peer_case() {
	dev=$(peer_free)
	mon=/tmp/aiotest-peer-mon
	rm -f $mon
	timeout 20 udevadm monitor -k -s block/partition >$mon 2>&1 &
	for i in $(seq 50); do
		grep -q '^KERNEL - ' $mon 2>/dev/null && break
		sleep 0.2
	done
	grep -q '^KERNEL - ' $mon || fail "udevadm monitor did not start"
	sleep 0.5
	peer_say "configure: $(lioctl $dev configure $img flags=8)"
	for i in $(seq 50); do
		grep -q "^KERNEL\[.*\] add .*/${dev##*/}p1 (block)" $mon && break
		sleep 0.2
	done
	kill %1 2>/dev/null || true
	wait
	cat $mon
	grep "^KERNEL\[.*\] add .*/${dev##*/}p1 (block)" $mon |
		sed 's/\[[^]]*\]//; s|/devices/.*/||' | head -1 >/tmp/aiotest-peer-ev
	[ -s /tmp/aiotest-peer-ev ] || fail "no add uevent for ${dev##*/}p1"
	peer_say "uevent: $(cat /tmp/aiotest-peer-ev)"
	peer_detach $dev
}
peer_run blktests/loop/009
