#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A cgroup's io.max on the disk under the backing file holds through the
# device on every path, and its io.stat shows the backing I/O: rbps, wbps
# and riops, 1 and 4 fio jobs, against stock loop (direct I/O, then
# buffered) first, then aioloop with its defaults (direct submission), with
# direct_submit=N (per-CPU workers), in sync mode (direct_io=N: the
# device's blocking workers, buffered), and on a device stacked on a file
# system on another aioloop device.
. /tests/lib.sh
. /tests/helpers/cgroup.sh
. /tests/helpers/chain.sh

M=1048576
BPS=$((4 * M))
IOPS=100
mkscratch ext4 /mnt/s
cg_setup /mnt/s
# The image is the cgroup's own, as a container's: its first writer
# attaches the inode to the writer's cgroup writeback, so the page cache
# of the sync-mode device is written back as the cgroup (a file first
# dirtied by another cgroup is written back as that one, through loop as
# through aioloop, until the kernel's foreign-inode switch moves it).
cg_run fallocate -l $((64 * M)) /mnt/s/img || fail "fallocate failed"
cg_run dd if=/dev/urandom of=/mnt/s/img bs=1M count=64 conv=notrunc,fsync \
	status=none || fail "filling the image failed"

# cg_fio DEV RW BS JOBS AMOUNT [FSYNC]: AMOUNT bytes of RW in BS blocks
# from JOBS jobs on disjoint regions of the first 32 MiB, inside the
# cgroup; prints fio's run time in ms (the final fsync included).  The
# regions are wider than the I/O, so that few random reads land next to
# each other and the buffered paths' readahead serves few of them.
cg_fio() {
	_sz=$((32 * M / $4))
	cg_run fio --name=cg --filename="$1" --rw="$2" --bs="$3" \
		--numjobs="$4" --size=$_sz --offset_increment=$_sz \
		--io_size=$(($5 / $4)) --ioengine=libaio --direct=1 \
		--iodepth=16 --end_fsync="${6:-0}" --randrepeat=0 \
		--group_reporting --output=/tmp/aiotest-fio >/dev/null ||
		{ cat /tmp/aiotest-fio; fail "fio $2 on $1 failed"; }
	sed -n 's/.*run=[0-9]*-\([0-9]*\)msec.*/\1/p' /tmp/aiotest-fio
}

# limits DRIVER DEV: every limit and job count on DEV
limits() {
	for jobs in 1 4; do
		drop_caches
		cg_limit rbps=$BPS wbps=max riops=max
		r0=$(cg_stat rbytes)
		ms=$(cg_fio "$2" randread 64k $jobs $((16 * M)))
		expect_limited "$1 rbps, $jobs job(s)" rbytes "$r0" $((16 * M)) \
			"$ms" $BPS

		cg_limit rbps=max wbps=$BPS riops=max
		w0=$(cg_stat wbytes)
		ms=$(cg_fio "$2" randwrite 64k $jobs $((16 * M)) 1)
		expect_limited "$1 wbps, $jobs job(s)" wbytes "$w0" $((16 * M)) \
			"$ms" $BPS

		drop_caches
		cg_limit rbps=max wbps=max riops=$IOPS
		i0=$(cg_stat rios)
		ms=$(cg_fio "$2" randread 4k $jobs $((400 * 4096)))
		expect_limited "$1 riops, $jobs job(s)" rios "$i0" 400 "$ms" $IOPS
	done
	cg_limit rbps=max wbps=max riops=max
}

# loop-dio, then loop buffered: the peer of the sync mode
cg_drivers limits /mnt/s/img on off
cg_stacked limits /mnt/s/img 40
cg_teardown
