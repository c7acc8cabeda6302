#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Swap on an aioloop device whose backing is a fresh sparse file on ext4
# (every page written out is a first write: the blocking path, from
# reclaim): a 320 MiB tmpfs working set written from a memory cgroup
# limited to 96 MiB is pushed out to it and read back verified, with no
# hang (the test's time limit), no OOM kill and (the harness's dmesg
# check) no hung-task report. The swap-out bios come from reclaim and are
# counted in reclaim_queued.
. /tests/lib.sh

CG=/sys/fs/cgroup
mkscratch ext4 /mnt/s
mkfile /mnt/s/swap.img 512M
load_aioloop
dev=$(attach /mnt/s/swap.img)
expect_ok mkswap "$dev" >/dev/null
expect_ok swapon "$dev"

grep -q cgroup2 /proc/mounts || mount -t cgroup2 none $CG ||
	skip "no cgroup v2"
grep -qw memory $CG/cgroup.controllers || skip "no memory controller"
echo +memory >$CG/cgroup.subtree_control
mkdir -p $CG/swaptest
echo 96M >$CG/swaptest/memory.max

mkdir -p /mnt/t
mount -t tmpfs -o size=400m tmpfs /mnt/t
out0=$(awk '/^pswpout/ { print $2 }' /proc/vmstat)
# in the cgroup: write the working set, then read it back and verify
sh -c "echo \$\$ >$CG/swaptest/cgroup.procs &&
	fio --eta=never --output=/tmp/swap-fio.out --name=ws \
		--filename=/mnt/t/ws --size=320m --rw=write --bs=64k \
		--verify=crc32c --do_verify=0 &&
	fio --eta=never --output=/tmp/swap-fio-v.out --name=ws \
		--filename=/mnt/t/ws --size=320m --rw=write --bs=64k \
		--verify=crc32c --verify_only --verify_fatal=1" || {
	cat /tmp/swap-fio.out /tmp/swap-fio-v.out 2>/dev/null | head -40
	fail "working set not written or not verified"
}
out1=$(awk '/^pswpout/ { print $2 }' /proc/vmstat)
in1=$(awk '/^pswpin/ { print $2 }' /proc/vmstat)
log "pages swapped out $((out1 - out0)), swapped in $in1 in all"
# 320 MiB in 96 MiB: at least 160 MiB (40960 pages) went out
[ $((out1 - out0)) -ge 40960 ] ||
	fail "only $((out1 - out0)) pages swapped out"
grep -q 'oom_kill [1-9]' $CG/swaptest/memory.events &&
	fail "OOM kill in the cgroup"
# every swap-out came from reclaim, which the workers serve
rq=$(counter "$dev" reclaim_queued)
log "bios from reclaim sent to the workers: $rq"
[ "$rq" -gt 0 ] || fail "no bio counted in reclaim_queued"

umount /mnt/t
rmdir $CG/swaptest
expect_ok swapoff "$dev"
detach "$dev"
unload_aioloop
if dmesg | grep 'Out of memory'; then
	fail "OOM reported"
fi
