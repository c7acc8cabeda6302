#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/010, "stale partitions": one process attaches an image
# with a GPT partition to device 0 with -P and probes DEVp1 (blkid), the
# other detaches device 0, both in a loop for 20 s. No partition scan may
# fail with EBUSY ("partition scan ... failed", the stale-partition
# symptom), and once detached the device has no partition left. Stock
# loop fails this before 6.11 (commit 18048c1af783, "loop: Fix a race
# between loop detach and loop open"); the table reports that.
# what: detach racing partition opens: no failed rescan, no stale partition
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
img=/mnt/s/img
mkfile $img 1G
printf 'label: gpt\nstart=2048,size=400MiB\n' | sfdisk -q $img ||
	fail "sfdisk failed"
SECS=20

peer_case() {
	dev=/dev/${P}0
	peer_losetup -P $dev $img || fail "attach"
	[ -b ${dev}p1 ] || fail "no ${dev}p1"
	mkfs.xfs -q -f -K ${dev}p1 || fail "mkfs.xfs on ${dev}p1"
	peer_detach $dev
	n0=$(dmesg | wc -l)
	rm -f /tmp/aiotest-peer-stop
	(
		n=0
		while [ ! -e /tmp/aiotest-peer-stop ]; do
			peer_losetup -P $dev $img 2>/dev/null && n=$((n + 1))
			blkid ${dev}p1 >/dev/null 2>&1 || true
		done
		echo $n >/tmp/aiotest-peer-attach.n
	) &
	(
		n=0
		while [ ! -e /tmp/aiotest-peer-stop ]; do
			[ "$($LIOCTL $dev clr-fd 2>&1)" = "OK 0" ] && n=$((n + 1))
		done
		echo $n >/tmp/aiotest-peer-detach.n
	) &
	sleep $SECS
	touch /tmp/aiotest-peer-stop
	wait
	log "$P: $(cat /tmp/aiotest-peer-attach.n) attaches, $(cat \
		/tmp/aiotest-peer-detach.n) detaches"
	[ "$(cat /tmp/aiotest-peer-detach.n)" -ge 5 ] || fail "too few detaches"
	$LIOCTL $dev clr-fd >/dev/null 2>&1 || true
	sleep 1
	bad=$(dmesg | tail -n +$((n0 + 1)) |
		grep -i "partition scan.*fail\|partition rescan.*fail" || true)
	if [ -n "$bad" ]; then
		echo "$bad" | tail -3
		log "$P: $(echo "$bad" | wc -l) partition scans failed"
		if [ $P = loop ] && ! kver_ge 6 11 0; then
			echo "loop lacks 18048c1af783 (\"loop: Fix a race between loop detach and loop open\", 6.11)"
			exit 76
		fi
		fail "a partition scan failed"
	fi
	peer_say "no partition scan failed"
	[ ! -e $(peer_sys $dev)/${dev##*/}p1 ] || fail "stale ${dev}p1 after detach"
	peer_say "no stale partition"
}
peer_run blktests/loop/010
