#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Swap on an aioloop device in a guest left with little memory: all but
# 192 MiB of its free memory (more with KASAN) is reserved as huge pages
# (which nothing reclaims), and a tmpfs working set 128 MiB larger than
# that (320 MiB) is written and read back verified with no memory cgroup
# around it, so global reclaim (kswapd and direct reclaim in the writer)
# pushes it out through the device. The backing is a written file on
# ext4 (swap-out overwrites: the aio path). No OOM kill, the data
# verifies, the swap-out bios are counted in reclaim_queued (served by
# the workers, never from the reclaimer), and the harness's dmesg check
# sees no hung task. Without the throttle of reclaim's bios in flight
# (reclaim_waits), the workers, kswapd and the direct reclaimers all
# waited in mempool_alloc() of fs_bio_set for good here, on 6.12 and
# 6.12-rt; stock loop --direct-io=on does the same on 6.12.
. /tests/lib.sh

HP=/proc/sys/vm/nr_hugepages
[ -w $HP ] || skip "no hugetlb"
# MiB left free, and the working set: 128 MiB more than that. KASAN (the
# debug kernel) keeps freed slab objects in a quarantine of up to a 32nd
# of RAM, which swapping fills with freed bios and requests, and it and
# kmemleak add metadata to every object: a 16th of RAM more is left free
# there
room=192
if grep -q ' kasan_quarantine_reduce$' /proc/kallsyms; then
	room=$((room + $(awk '/^MemTotal:/ { print int($2 / 1024 / 16) }' \
		/proc/meminfo)))
fi
ws=$((room + 128))
mkscratch ext4 /mnt/s
dd if=/dev/zero of=/mnt/s/swap.img bs=1M count=$((ws + 192)) status=none
sync
load_aioloop
dev=$(attach /mnt/s/swap.img)
expect_eq mode "$(counter "$dev" mode)" aio
expect_ok mkswap "$dev" >/dev/null

release() {
	echo 0 >$HP
}
trap release EXIT
# The huge pages are reserved before swapon, so that making room for
# them never swaps
drop_caches
free_mb=$(awk '/^MemFree:/ { print int($2 / 1024) }' /proc/meminfo)
echo $(((free_mb - room) / 2)) >$HP
log "free before: ${free_mb} MiB, to leave: $room MiB; huge pages" \
	"reserved: $(cat $HP) (2 MiB); free now:" \
	"$(awk '/^MemFree:/ { print int($2 / 1024) }' /proc/meminfo) MiB;" \
	"working set: $ws MiB"
[ "$(cat $HP)" -ge $(((free_mb - room - 64) / 2)) ] ||
	fail "could not reserve the huge pages"
expect_ok swapon "$dev"
mkdir -p /mnt/t
mount -t tmpfs -o size=$((ws + 64))m tmpfs /mnt/t

out0=$(awk '/^pswpout/ { print $2 }' /proc/vmstat)
fio --eta=never --output=/tmp/swap-fio.out --name=ws \
	--filename=/mnt/t/ws --size=${ws}m --rw=write --bs=64k \
	--verify=crc32c --do_verify=0 &&
fio --eta=never --output=/tmp/swap-fio-v.out --name=ws \
	--filename=/mnt/t/ws --size=${ws}m --rw=write --bs=64k \
	--verify=crc32c --verify_only --verify_fatal=1 || {
	cat /tmp/swap-fio.out /tmp/swap-fio-v.out 2>/dev/null | head -40
	fail "working set not written or not verified"
}
out1=$(awk '/^pswpout/ { print $2 }' /proc/vmstat)
rq=$(counter "$dev" reclaim_queued)
log "pages swapped out $((out1 - out0)); bios from reclaim sent to the" \
	"workers: $rq; reclaimers throttled: $(counter "$dev" reclaim_waits);" \
	"aio_direct: $(counter "$dev" aio_direct)"
# WS MiB in ROOM MiB of free memory: at least 128 MiB went out
[ $((out1 - out0)) -ge 32768 ] || fail "only $((out1 - out0)) pages swapped out"
[ "$rq" -gt 0 ] || fail "no bio counted in reclaim_queued"
[ "$(counter "$dev" errors)" = 0 ] || fail "I/O errors on the swap device"

umount /mnt/t
release
expect_ok swapoff "$dev"
detach "$dev"
unload_aioloop
if dmesg | grep -i 'Out of memory\|oom-kill'; then
	fail "OOM reported"
fi
