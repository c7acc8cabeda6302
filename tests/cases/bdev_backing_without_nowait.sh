#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A block device backing whose queue does not take REQ_NOWAIT bios
# (bio-based null_blk, dm-delay, another aioloop device) works in aio
# mode: O_DIRECT writes and reads of the device succeed and read back
# what was written. (The submission path tries IOCB_NOWAIT first; such a
# queue refuses the bio with EOPNOTSUPP, which must lead to a blocking
# retry, as io_uring does, not to a failed bio.)
. /tests/lib.sh
need_setup
M=1048576
load_aioloop
modprobe null_blk nr_devices=1 queue_mode=0 gb=1 memory_backed=1 ||
	skip "no null_blk"
modprobe dm-delay || skip "no dm-delay"
echo "0 65536 delay $RAW_DEV 0 0" | dmsetup create aiotest-nw ||
	fail "dmsetup create failed"
mkfile /tmp/aiotest-img $((32 * M))
low=$(attach /tmp/aiotest-img /dev/aioloop0)

bad=0
for b in /dev/nullb0 /dev/mapper/aiotest-nw $low; do
	dev=$(attach "$b" /dev/aioloop1)
	m=$(counter "$dev" mode)
	if ! fill_random "$dev" 0 $((4 * M)) 2>/tmp/aiotest-err; then
		echo "FAIL: $b ($m mode): O_DIRECT write: $(cat /tmp/aiotest-err)" >&2
		bad=$((bad + 1))
	elif [ "$(dev_md5 "$dev" 0 $((4 * M)))" != \
		"$(dev_md5 "$b" 0 $((4 * M)))" ]; then
		echo "FAIL: $b ($m mode): device and backing differ" >&2
		bad=$((bad + 1))
	else
		log "$b ($m mode): ok"
	fi
	e=$(counter "$dev" errors)
	[ "$e" = 0 ] || { echo "FAIL: $b: errors $e" >&2; bad=$((bad + 1)); }
	detach "$dev"
done
detach "$low"
dmsetup remove aiotest-nw
[ $bad = 0 ] || fail "$bad backing(s) failed"
