#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An ext4 filesystem made on the device (backing file on xfs) survives a
# detach and re-attach: e2fsck finds it clean and the files are intact.
. /tests/lib.sh

mkscratch xfs /mnt/s
mkfile /mnt/s/backing 256M
load_aioloop
dev=$(attach /mnt/s/backing)
expect_ok mkfs.ext4 -q -F "$dev"
mkdir -p /mnt/d
expect_ok mount -t ext4 "$dev" /mnt/d

mkdir /mnt/d/dir
for i in 1 2 3 4 5 6 7 8; do
	dd if=/dev/urandom of=/mnt/d/f$i bs=64k count=$((i * 6)) status=none
	head -c $((i * 1000 + 17)) /dev/urandom >/mnt/d/dir/small$i
done
(cd /mnt/d && md5sum f* dir/*) >/tmp/sums
sync
expect_ok umount /mnt/d
detach "$dev"

dev=$(attach /mnt/s/backing)
e2fsck -fn "$dev" || fail "e2fsck -fn: exit $?"
expect_ok mount -t ext4 "$dev" /mnt/d
(cd /mnt/d && md5sum -c /tmp/sums >/tmp/sums.out) ||
	fail "file checksums differ: $(grep -v OK /tmp/sums.out)"
expect_ok umount /mnt/d
detach "$dev"
