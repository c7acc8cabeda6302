#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What was fsync'ed survives a power cut: ext4 on the device, whose backing
# file sits on ext4 on dm-flakey. Files are written and fsync'ed, then the
# lower disk starts dropping every write (drop_writes: the "power cut"),
# more is written and overwritten, everything is unmounted and detached,
# the disk comes back (linear), the lower file system is mounted again
# (journal replay), the device re-attached and its file system recovered
# by a mount: e2fsck -fn finds both file systems clean and the fsync'ed
# files have their content. In aio mode and in sync mode.
. /tests/lib.sh
need_setup
M=1048576
DM=aiotest-pc
modprobe dm-flakey || skip "no dm-flakey"
lower=$(free_scratch_dev)
sz=$((512 * 2048))
load_aioloop

dm_table() {
	dmsetup suspend --nolockfs $DM || fail "dmsetup suspend"
	dmsetup reload $DM --table "$1" || fail "dmsetup reload '$1'"
	dmsetup resume $DM || fail "dmsetup resume"
}

md5of() {
	md5sum <"$1" | cut -d' ' -f1
}

round() {
	mode=$1
	opts=
	[ "$mode" = sync ] && opts=--no-direct-io
	dmsetup create $DM --table "0 $sz linear $lower 0" ||
		fail "dmsetup create"
	mkfs.ext4 -q -F -E nodiscard /dev/mapper/$DM
	mkdir -p /mnt/lower /mnt/up
	mount -t ext4 /dev/mapper/$DM /mnt/lower
	truncate -s 192M /mnt/lower/img
	# shellcheck disable=SC2086
	dev=$(attach $opts /mnt/lower/img)
	expect_eq "mode" "$(counter "$dev" mode)" "$mode"
	mkfs.ext4 -q -F -E nodiscard "$dev"
	mount -t ext4 "$dev" /mnt/up

	# durable: written and fsync'ed before the cut
	mkdir /mnt/up/dir
	for i in 1 2 3 4; do
		dd if=/dev/urandom of=/mnt/up/dir/keep$i bs=256k count=$((i * 3)) \
			conv=fsync status=none || fail "writing keep$i failed"
		eval "sum$i=$(md5of /mnt/up/dir/keep$i)"
	done
	flushes=$(counter "$dev" flushes)
	[ "$flushes" -gt 0 ] || fail "$mode: fsync on the upper fs sent no flush"

	# power cut: from now on the lower disk drops every write
	dm_table "0 $sz flakey $lower 0 0 3600 1 drop_writes"
	for i in 1 2 3; do
		dd if=/dev/urandom of=/mnt/up/lost$i bs=1M count=2 conv=fsync \
			status=none || fail "writing lost$i failed"
	done
	dd if=/dev/zero of=/mnt/up/dir/keep1 bs=64k count=4 conv=notrunc,fsync \
		status=none || fail "overwriting keep1 failed"
	rm /mnt/up/dir/keep2
	sync
	umount /mnt/up
	detach "$dev"
	umount /mnt/lower
	# drop the lower disk's cached blocks while its writes still vanish
	blockdev --flushbufs /dev/mapper/$DM

	# power back
	dm_table "0 $sz linear $lower 0"
	mount -t ext4 /dev/mapper/$DM /mnt/lower || fail "$mode: lower fs does not mount"
	# shellcheck disable=SC2086
	dev=$(attach $opts /mnt/lower/img)
	mount -t ext4 "$dev" /mnt/up || fail "$mode: upper fs does not mount"
	umount /mnt/up
	e2fsck -fn "$dev" >/tmp/aiotest-fsck 2>&1 ||
		{ cat /tmp/aiotest-fsck; fail "$mode: e2fsck -fn of the upper fs failed"; }
	mount -t ext4 -o ro "$dev" /mnt/up
	for i in 1 2 3 4; do
		[ -f /mnt/up/dir/keep$i ] || fail "$mode: fsync'ed keep$i is gone"
		eval "want=\$sum$i"
		expect_eq "$mode: keep$i" "$(md5of /mnt/up/dir/keep$i)" "$want"
	done
	log "$mode: after the cut: $(ls /mnt/up | tr '\n' ' ')"
	umount /mnt/up
	detach "$dev"
	umount /mnt/lower
	e2fsck -fn /dev/mapper/$DM >/tmp/aiotest-fsck 2>&1 ||
		{ cat /tmp/aiotest-fsck; fail "$mode: e2fsck -fn of the lower fs failed"; }
	dmsetup remove $DM
	log "$mode: $flushes flushes before the cut; fsync'ed files intact"
}

round aio
round sync
