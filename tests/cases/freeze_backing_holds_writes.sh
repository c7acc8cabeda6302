#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fsfreeze of the backing file system while fio writes through aioloop
# (rate-limited, so that it is still writing when the freeze starts and
# ends): while frozen, the backing disk's count of sectors written stays
# put although the device has writes in flight, which wait (the direct
# path's try of the freeze protection fails: nowait_eagain grows) and go
# on after fsfreeze -u; fio verify and fsck are clean afterwards.
. /tests/lib.sh
. /tests/helpers/bg.sh

# util-linux fsfreeze, not busybox's applet
ff=
for _f in /usr/sbin/fsfreeze /sbin/fsfreeze /usr/bin/fsfreeze; do
	[ -x $_f ] && ! [ -L $_f ] && { ff=$_f; break; }
done
[ -n "$ff" ] || fail "no util-linux fsfreeze"

mkscratch ext4 /mnt/s
disk=$(awk '$2 == "/mnt/s" { print $1 }' /proc/mounts)
disk=${disk##*/}
# written, not fallocated: no write needs a block allocation, so the
# direct path takes -EAGAIN only for the freeze
img=/mnt/s/img
expect_ok dd if=/dev/zero of=$img bs=1M count=128 conv=fsync status=none
load_aioloop
dev=$(attach $img)
expect_eq mode "$(counter $dev mode)" aio

# sectors written to the backing disk (field 7 of its stat)
written() {
	awk '{ print $7 }' $SYSBLK/$disk/stat
}

e0=$(counter $dev nowait_eagain)
bg_start fio fio --name=freeze --filename=$dev --ioengine=libaio \
	--direct=1 --iodepth=16 --numjobs=2 --rw=randwrite --bs=4k \
	--size=48m --offset_increment=48m --rate_iops=1000 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
	--eta=never
io_started $dev
sleep 1
bg_running fio || fail "fio ended before the freeze"
expect_ok $ff -f /mnt/s
w0=$(written)
sleep 3
w1=$(written)
inflight=$(awk '{ print $2 }' $SYSBLK/${dev##*/}/inflight)
running=0
bg_running fio && running=1
expect_ok $ff -u /mnt/s
log "while frozen: $((w1 - w0)) sectors written to $disk," \
	"$inflight writes waiting on $dev"
expect_eq "fio running during the freeze" $running 1
expect_eq "sectors written to $disk while frozen" $w1 $w0
[ "$inflight" -gt 0 ] || fail "no write of fio waited during the freeze"

bg_expect_ok fio 300
fio_summary /tmp/aiotest-fio.out
e1=$(counter $dev nowait_eagain)
log "nowait_eagain: $((e1 - e0))"
[ "$e1" -gt "$e0" ] || fail "no direct write found the file system frozen"
check_aio_counters $dev
detach $dev
umount /mnt/s || fail "umount /mnt/s failed"
expect_ok e2fsck -fn /dev/$disk >/dev/null
