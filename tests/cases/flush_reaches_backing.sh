#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fsync of the device flushes it (the backing file is fsynced: the
# flushes counter moves, once per fsync) and the data written before,
# direct or buffered, is in the backing file.
. /tests/lib.sh

M=1048576
mkscratch ext4 /mnt/s
mkfile /mnt/s/backing $((32 * M))
load_aioloop
dev=$(attach /mnt/s/backing)
expect_eq "write cache" "$(cat $SYSBLK/${dev##*/}/queue/write_cache)" \
	"write back"

# flushed_write OFFSET FLAGS: 4 MiB of random data at OFFSET MiB, fsync,
# then check the flushes counter and the backing file
flushed_write() {
	head -c $((4 * M)) /dev/urandom >/tmp/data
	_f0=$(counter "$dev" flushes)
	dd if=/tmp/data of="$dev" bs=1M seek="$1" $2 conv=notrunc,fsync \
		status=none || fail "dd $2 to $dev failed"
	_f1=$(counter "$dev" flushes)
	[ "$_f1" -gt "$_f0" ] ||
		fail "fsync after dd $2: flushes did not grow ($_f0 -> $_f1)"
	echo 3 >/proc/sys/vm/drop_caches
	expect_eq "backing md5 (dd $2)" \
		"$(file_md5 /mnt/s/backing $(($1 * M)) $((4 * M)))" \
		"$(file_md5 /tmp/data)"
	expect_eq "device md5 (dd $2)" \
		"$(dev_md5 "$dev" $(($1 * M)) $((4 * M)))" "$(file_md5 /tmp/data)"
}

flushed_write 2 oflag=direct
flushed_write 9 ""

# one flush per fsync: 8 dd runs, each with one fsync
f0=$(counter "$dev" flushes)
for i in 1 2 3 4 5 6 7 8; do
	dd if=/dev/urandom of="$dev" bs=4k seek=$((i * 3)) count=1 \
		conv=notrunc,fsync status=none || fail "dd $i failed"
done
f1=$(counter "$dev" flushes)
log "flushes $f0 -> $f1 for 8 fsyncs"
[ $((f1 - f0)) -ge 8 ] || fail "8 fsyncs, flushes grew by $((f1 - f0))"
detach "$dev"
