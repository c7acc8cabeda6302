#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A sparse backing file larger than the space left on its file system:
# writing past the space fails (O_DIRECT write, buffered write + fsync,
# and in sync mode), the failures are counted in `errors`, and whatever a
# write acknowledged reads back as written.
. /tests/lib.sh
need_setup
M=1048576
DM=aiotest-small
lower=$(free_scratch_dev)
modprobe dm-mod 2>/dev/null || true
dmsetup create $DM --table "0 $((64 * 2048)) linear $lower 0" ||
	fail "dmsetup create"
mkfs.ext4 -q -F -m 0 -E nodiscard /dev/mapper/$DM
mkdir -p /mnt/small
mount -t ext4 /dev/mapper/$DM /mnt/small
avail=$(($(stat -f -c '%a * %S' /mnt/small)))
fallocate -l $((avail - 4 * M)) /mnt/small/filler
log "free space: $(($(stat -f -c '%a * %S' /mnt/small) / 1024)) KiB"
truncate -s 64M /mnt/small/img
dd if=/dev/urandom of=/tmp/aiotest-src bs=1M count=16 status=none

load_aioloop
dev=$(attach /mnt/small/img)
expect_eq mode "$(counter "$dev" mode)" aio

# copied BYTES: what dd acknowledged, from its summary line
copied() {
	sed -n 's/^\([0-9][0-9]*\) bytes.* copied.*/\1/p' "$1" | tail -1
}

# check_acked WHAT DEVOFF SRCOFF LEN: the acknowledged bytes read back
check_acked() {
	[ "$4" -gt 0 ] || return 0
	expect_eq "$1: acknowledged $4 bytes" "$(dev_md5 "$dev" "$2" "$4")" \
		"$(file_md5 /tmp/aiotest-src "$3" "$4")"
}

# 1. O_DIRECT writes, aio mode
e0=$(counter "$dev" errors)
if dd if=/tmp/aiotest-src of="$dev" bs=1M count=16 oflag=direct \
	conv=notrunc 2>/tmp/aiotest-dd; then
	fail "16 MiB of O_DIRECT writes into 4 MiB of free space succeeded"
fi
cat /tmp/aiotest-dd
grep -Eq 'No space left on device|Input/output error' /tmp/aiotest-dd ||
	fail "unexpected error: $(cat /tmp/aiotest-dd)"
grep -q 'No space left on device' /tmp/aiotest-dd ||
	log "note: reported as EIO, not ENOSPC"
n1=$(copied /tmp/aiotest-dd)
log "aio: $n1 bytes acknowledged"
[ "$n1" -lt $((16 * M)) ] || fail "all 16 MiB acknowledged"
e1=$(counter "$dev" errors)
[ "$e1" -gt "$e0" ] || fail "errors did not grow ($e0 -> $e1)"
check_acked aio 0 0 "$n1"

# 2. buffered writes: the error must come back from fsync
if dd if=/tmp/aiotest-src of="$dev" bs=1M count=8 seek=24 conv=notrunc,fsync \
	2>/tmp/aiotest-dd; then
	fail "buffered writes + fsync past the free space succeeded"
fi
cat /tmp/aiotest-dd
e2=$(counter "$dev" errors)
[ "$e2" -gt "$e1" ] || fail "errors did not grow on writeback ($e1 -> $e2)"

# 3. sync mode (buffered on the backing file)
aioloop-setup set-direct-io "$dev" off || fail "set-direct-io off failed"
expect_eq mode "$(counter "$dev" mode)" sync
if dd if=/tmp/aiotest-src of="$dev" bs=1M count=8 seek=40 oflag=direct \
	conv=notrunc 2>/tmp/aiotest-dd; then
	fail "sync mode: writes past the free space succeeded"
fi
cat /tmp/aiotest-dd
n=$(copied /tmp/aiotest-dd)
e3=$(counter "$dev" errors)
[ "$e3" -gt "$e2" ] || fail "sync mode: errors did not grow ($e2 -> $e3)"
log "sync: ${n:-0} bytes acknowledged"
check_acked sync $((40 * M)) 0 "${n:-0}"

# space freed: what was acknowledged is still there, writing works again
rm /mnt/small/filler
check_acked "aio, at the end" 0 0 "$n1"
fill_random "$dev" $((48 * M)) $((4 * M))
expect_eq "after freeing space" "$(dev_md5 "$dev" $((48 * M)) $((4 * M)))" \
	"$(file_md5 /mnt/small/img $((48 * M)) $((4 * M)))"
detach "$dev"
