#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# io_uring on the device: it takes REQ_NOWAIT bios (queue/nowait, where
# the kernel has it), and io_uring issues each I/O with REQ_NOWAIT first
# (a device without NOWAIT ends them EOPNOTSUPP, and io_uring reissues
# every one from its workers). On a fresh sparse
# backing file every first write needs a block allocation, which ext4
# refuses under IOCB_NOWAIT: those bios end BLK_STS_AGAIN within the
# submitter's call (counter nowait_again) instead of waiting for the
# device's worker, io_uring reissues them from its own workers, and fio
# verify passes with no error counted, once with direct submission and
# once with direct_submit=N (where nothing blocks the submitter and the
# workers serve the retries: no AGAIN). Under lockdep (the debug kernel,
# until lockdep has reported something) io_uring's submitter holds its
# ring's lock, so nothing is submitted directly and no bio ends AGAIN
# there either.
. /tests/lib.sh

mkscratch ext4 /mnt/s

# run_uring MODPARAMS...: fio verify through io_uring on a fresh device;
# prints the device's nowait_again
run_uring() {
	load_aioloop "$@"
	mkfile /mnt/s/img 256M
	dev=$(attach /mnt/s/img)
	_nw=$SYSBLK/${dev##*/}/queue/nowait
	[ ! -e "$_nw" ] || expect_eq "queue/nowait" "$(cat "$_nw")" 1
	fio --eta=never --output=/tmp/aiotest-uring.out --name=uring \
		--filename="$dev" --ioengine=io_uring --direct=1 \
		--iodepth=32 --numjobs=2 --size=32m --offset_increment=32m \
		--rw=randwrite --bssplit=4k/50:16k/25:64k/25 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--group_reporting >&2 ||
		{ cat /tmp/aiotest-uring.out >&2; fail "io_uring fio on $dev failed"; }
	grep -E 'err=|WRITE:|READ:' /tmp/aiotest-uring.out | sed 's/^ */  /' >&2
	expect_eq "errors" "$(counter "$dev" errors)" 0
	check_aio_counters "$dev"
	counter "$dev" nowait_again
	detach "$dev"
	unload_aioloop
	rm -f /mnt/s/img
}

again=$(run_uring)
log "direct submission: $again REQ_NOWAIT bios ended BLK_STS_AGAIN"
if grep -q '^ *debug_locks: *1$' /proc/lockdep_stats 2>/dev/null; then
	# under lockdep a caller holding a lock (io_uring's submitter holds
	# its ring's lock) never submits directly: the workers serve it all.
	# Once lockdep has reported (debug_locks 0), it tracks no lock, and
	# the device submits directly as on a stock kernel.
	expect_eq "nowait_again under lockdep" "$again" 0
else
	[ "$again" -gt 0 ] || fail "no REQ_NOWAIT bio ended BLK_STS_AGAIN"
fi
again=$(run_uring direct_submit=N)
log "direct_submit=N: $again REQ_NOWAIT bios ended BLK_STS_AGAIN"
expect_eq "nowait_again with direct_submit=N" "$again" 0
