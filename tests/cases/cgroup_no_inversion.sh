#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A cgroup throttled in the backing file system holds up only its own
# blocking work: on a device in sync mode (every bio served by a blocking
# worker, buffered), cgroup "slow" reads 6 MiB at 1 MiB/s (io.max on the
# disk under the backing file) while cgroup "fast", unthrottled, reads 16 MiB
# elsewhere on the same device; "fast" must finish while "slow" is still
# reading.  With one worker for all cgroups, "fast" would wait behind
# "slow"'s throttled reads.  Where "fast" alone takes over a second (a
# KASAN kernel), "slow"'s limit is lowered so that its reads last three
# times as long as that, plus 3 s.  Stock loop without direct I/O first
# (it has one worker per cgroup too).  The throughput "fast" keeps,
# against its run alone, is logged.
. /tests/lib.sh
. /tests/helpers/cgroup.sh
. /tests/helpers/chain.sh

M=1048576
mkscratch ext4 /mnt/s
cg_setup /mnt/s
SLOW=$CG/aiotest-slow
FAST=$CG/aiotest-fast
mkdir -p $SLOW $FAST
fallocate -l $((64 * M)) /mnt/s/img || fail "fallocate failed"
fill_random /mnt/s/img
sync

# rd CGROUP DEV OFFSET SIZE OUT: 64k random reads of SIZE bytes at
# OFFSET from inside CGROUP; the shell becomes fio, so that a background
# rd's $! is fio's pid
rd() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec fio --name=rd \
		--filename="$1" --rw=randread --bs=64k --offset="$2" \
		--size="$3" --ioengine=libaio --direct=1 --iodepth=16 \
		--randrepeat=0 --output="$4" >/dev/null' "$@"
}

# inversion DRIVER DEV
inversion() {
	drop_caches
	t0=$(now_ms)
	rd $FAST "$2" 0 $((16 * M)) /tmp/aiotest-fast ||
		fail "$1: fast reader failed alone"
	solo=$(($(now_ms) - t0))
	# 6 MiB in 3 * solo + 3 s, at 1 MiB/s at most
	bps=$((6 * M * 1000 / (3 * solo + 3000)))
	[ $bps -le $M ] || bps=$M
	echo "$CG_DISK rbps=$bps" >$SLOW/io.max || fail "io.max refused"

	drop_caches
	rd $SLOW "$2" $((32 * M)) $((6 * M)) /tmp/aiotest-slow &
	slow=$!
	sleep 1
	kill -0 $slow 2>/dev/null || fail "$1: slow reader ended within 1 s"
	t0=$(now_ms)
	rd $FAST "$2" 0 $((16 * M)) /tmp/aiotest-fast ||
		fail "$1: fast reader failed"
	both=$(($(now_ms) - t0))
	log "$1: fast reader ${solo}ms alone, ${both}ms beside the one throttled to $bps B/s: $((solo * 100 / both))% of its throughput"
	kill -0 $slow 2>/dev/null ||
		fail "$1: the fast reader finished after the throttled one"
	wait $slow || fail "$1: the throttled reader failed"
}

modprobe loop || fail "modprobe loop failed"
dev=$($(losetup_bin) --direct-io=off -f --show /mnt/s/img) ||
	fail "losetup --direct-io=off failed"
inversion loop "$dev"
$(losetup_bin) -d "$dev"

load_aioloop direct_io=N
dev=$(attach /mnt/s/img)
expect_eq mode "$(counter "$dev" mode)" sync
inversion "aioloop sync mode" "$dev"
detach "$dev"
rmdir $SLOW $FAST
cg_teardown
