#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# With failslab and the kaio_req cache marked for it (make check
# KERNEL=debug boots with slub_debug=A,kaio_req): every allocation from
# the kaio_req slab fails, so every request comes from the mempool's
# reserve, and with more I/O in flight than the reserve holds (4 jobs at
# iodepth 128) submitters wait for a free request instead of failing,
# while io_uring's REQ_NOWAIT bios end BLK_STS_AGAIN and are reissued.
# fio's verification passes, a failure was injected for every bio, and
# with the faults off the device works as before. Skipped elsewhere.
. /tests/lib.sh
. /tests/helpers/failslab.sh
grep -q 'slub_debug=A,kaio_req' /proc/cmdline ||
	skip "kaio_req cache not marked for failslab (slub_debug=A,kaio_req)"

# ios DEV: reads + writes completed (/sys/block/DEV/stat)
ios() {
	awk '{ print $1 + $5 }' $SYSBLK/${1##*/}/stat
}

mkscratch ext4 /mnt/s
mkfile /mnt/s/img 128M
load_aioloop
expect_eq "kaio_req failslab flag" "$(cat /sys/kernel/slab/kaio_req/failslab)" 1
dev=$(attach /mnt/s/img)
expect_eq mode "$(counter "$dev" mode)" aio

TIMES=1000000000
i0=$(ios "$dev")
echo Y >$FS/cache-filter
echo N >$FS/ignore-gfp-wait
echo 0 >$FS/verbose
echo 1 >$FS/interval
echo $TIMES >$FS/times
echo 100 >$FS/probability
out=/tmp/aiotest-fio.out
if ! fio --eta=never --output=$out --name=pool --filename="$dev" \
	--ioengine=libaio --direct=1 --iodepth=128 --numjobs=4 \
	--size=4m --offset_increment=4m --rw=randwrite --bs=4k \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting; then
	head -40 $out
	fail "fio verify with every kaio_req slab allocation failing"
fi
injected=$((TIMES - $(cat $FS/times)))
bios=$(($(ios "$dev") - i0))

# io_uring's REQ_NOWAIT bios do not wait for the reserve: with it empty
# they end BLK_STS_AGAIN (nowait_again; under lockdep nothing else ends
# so, as io_uring's submitter holds a lock and never submits directly)
# and io_uring reissues them from its workers, which wait like the jobs
# above
a0=$(counter "$dev" nowait_again)
uring=/tmp/aiotest-uring.out
if ! fio --eta=never --output=$uring --name=uring --filename="$dev" \
	--ioengine=io_uring --direct=1 --iodepth=128 --numjobs=4 \
	--offset=16m --size=4m --offset_increment=4m --rw=randwrite --bs=4k \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting; then
	head -40 $uring
	fail "io_uring fio verify with every kaio_req slab allocation failing"
fi
failslab_reset
grep -E 'err=|WRITE:|READ:' $out $uring | sed 's/^ */  /'
again=$(($(counter "$dev" nowait_again) - a0))
log "io_uring: $again REQ_NOWAIT bios found the reserve empty"
[ "$again" -gt 0 ] || fail "no REQ_NOWAIT bio ended BLK_STS_AGAIN with the reserve empty"
log "bios $bios, kaio_req slab allocations failed $injected"
[ "$bios" -gt 0 ] || fail "no I/O counted"
[ "$injected" -ge "$bios" ] ||
	fail "only $injected slab failures for $bios bios: not every request came from the reserve"
expect_eq errors "$(counter "$dev" errors)" 0
check_aio_counters "$dev"

fio_verify "$dev" 8m
detach "$dev"
unload_aioloop
