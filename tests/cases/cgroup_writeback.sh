#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Cgroup writeback through the device holds the cgroup's wbps: buffered
# writes and fsync from inside the cgroup into ext4 on the device, whose
# backing file is on a disk with io.max wbps for the cgroup.  The page
# cache above is written back by the writer's fsync and by the flusher
# threads (tagged with the cgroup), so the device must charge the
# backing writes to the bio's cgroup, not to the thread that issues
# them.  Stock loop with direct I/O first, then aioloop with its
# defaults, with direct_submit=N, in sync mode, and on a device stacked
# on a file system on another aioloop device; the data is read back and
# checked.
. /tests/lib.sh
. /tests/helpers/cgroup.sh
. /tests/helpers/chain.sh

M=1048576
BPS=$((4 * M))
mkscratch ext4 /mnt/s
cg_setup /mnt/s
head -c $((24 * M)) /dev/urandom >/tmp/aiotest-data
want=$(file_md5 /tmp/aiotest-data)

# writeback DRIVER DEV
writeback() {
	# by the cgroup too: see the image below
	cg_run mkfs.ext4 -q -F -E nodiscard "$2" ||
		fail "mkfs.ext4 on $2 failed"
	mkdir -p /mnt/top
	mount "$2" /mnt/top || fail "mount $2 failed"
	w0=$(cg_stat wbytes)
	t0=$(now_ms)
	cg_run dd if=/tmp/aiotest-data of=/mnt/top/f bs=1M conv=fsync \
		status=none || fail "$1: dd into ext4 on $2 failed"
	ms=$(($(now_ms) - t0))
	expect_limited "$1 writeback" wbytes "$w0" $((24 * M)) "$ms" \
		$BPS
	umount /mnt/top
	mount "$2" /mnt/top || fail "mount $2 failed"
	expect_eq "$1: data read back" "$(file_md5 /mnt/top/f)" "$want"
	umount /mnt/top
}

# The image is the cgroup's own, written by it first and formatted by
# it: in sync mode the backing page cache is written back as the cgroup
# that owns the backing inode, which the kernel moves to the cgroup that
# dirties most of its pages (a root mkfs would take it; stock loop
# without direct I/O goes the same way).
cg_run dd if=/dev/zero of=/mnt/s/img bs=1M count=128 conv=fsync \
	status=none || fail "writing the image failed"
cg_limit wbps=$BPS

cg_drivers writeback /mnt/s/img on
cg_stacked writeback /mnt/s/img 48
cg_teardown
