#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# I/O errors of the disk under the backing file reach the device's users:
# while the disk fails every I/O (dm-flakey, down), O_DIRECT reads and
# writes of the device (dd, fio) fail with EIO and are counted in
# `errors`; with the disk back (table reloaded to linear) the device
# works again and the data written before is intact.
#
# The lower ext4 has no journal and is mounted lazytime, and the backing
# file is fully allocated: overwrites change no metadata that would have
# to reach the failing disk, so the lower file system survives the window.
. /tests/lib.sh
. /tests/helpers/bg.sh
need_setup
M=1048576
DM=aiotest-eio
modprobe dm-flakey || skip "no dm-flakey"
lower=$(free_scratch_dev)
sz=$((256 * 2048))	# 256 MiB, in sectors

dmsetup create $DM --table "0 $sz linear $lower 0" || fail "dmsetup create"
mkfs.ext4 -q -F -O ^has_journal -e continue -E nodiscard /dev/mapper/$DM
mkdir -p /mnt/f
mount -t ext4 -o noatime,lazytime /dev/mapper/$DM /mnt/f
dd if=/dev/urandom of=/mnt/f/img bs=1M count=32 conv=fsync status=none

load_aioloop
dev=$(attach /mnt/f/img)
expect_eq mode "$(counter "$dev" mode)" aio
md5=$(dev_md5 "$dev")
expect_eq "device vs file" "$md5" "$(file_md5 /mnt/f/img)"
e0=$(counter "$dev" errors)
expect_eq "errors before" "$e0" 0

# table reload without freezing the file system on it (--nolockfs)
dm_table() {
	dmsetup suspend --nolockfs $DM || fail "dmsetup suspend"
	dmsetup reload $DM --table "$1" || fail "dmsetup reload '$1'"
	dmsetup resume $DM || fail "dmsetup resume"
}

# ---- fault window: every I/O of the lower disk fails ----
dm_table "0 $sz flakey $lower 0 0 3600"
log "lower disk failing: $(dmsetup table $DM)"
drop_caches

if dd if="$dev" of=/dev/null bs=64k count=16 iflag=direct 2>/tmp/aiotest-rd; then
	fail "O_DIRECT read succeeded while the disk fails"
fi
grep -q 'Input/output error' /tmp/aiotest-rd ||
	fail "read error is not EIO: $(cat /tmp/aiotest-rd)"
e1=$(counter "$dev" errors)
[ "$e1" -gt "$e0" ] || fail "errors did not grow on failed reads ($e0 -> $e1)"

if dd if=/dev/urandom of="$dev" bs=64k count=4 seek=$((20 * 16)) \
	oflag=direct conv=notrunc 2>/tmp/aiotest-wr; then
	fail "O_DIRECT write succeeded while the disk fails"
fi
grep -q 'Input/output error' /tmp/aiotest-wr ||
	fail "write error is not EIO: $(cat /tmp/aiotest-wr)"
e2=$(counter "$dev" errors)
[ "$e2" -gt "$e1" ] || fail "errors did not grow on failed writes ($e1 -> $e2)"

# fio at queue depth 32: fails with EIO, does not hang
bg_start fio timeout -k 10 120 fio --name=eio --filename="$dev" \
	--ioengine=libaio --direct=1 --iodepth=32 --rw=randrw --bs=4k \
	--offset=16m --size=8m --io_size=4m --eta=never
rc=$(bg_wait fio 150)
[ "$rc" != 124 ] && [ "$rc" != 137 ] || fail "fio hung on the failing disk"
[ "$rc" != 0 ] || fail "fio saw no error while the disk fails"
bg_out fio | grep -Eq 'err= *5|Input/output error' ||
	{ bg_out fio | tail -20; fail "fio error is not EIO"; }
e3=$(counter "$dev" errors)
[ "$e3" -gt "$e2" ] || fail "errors did not grow under fio ($e2 -> $e3)"
log "errors counted in the window: $e3"

# ---- the disk is back ----
dm_table "0 $sz linear $lower 0"
expect_eq "data written before the window" "$(dev_md5 "$dev")" "$md5"
fill_random "$dev" $((8 * M)) $((4 * M))
expect_eq "written after the window" "$(dev_md5 "$dev" $((8 * M)) $((4 * M)))" \
	"$(file_md5 /mnt/f/img $((8 * M)) $((4 * M)))"
fio_verify "$dev" 2m
f0=$(counter "$dev" flushes)
dd if=/dev/zero of="$dev" bs=4k count=1 seek=100 conv=notrunc,fsync status=none ||
	fail "write + fsync after the window failed"
[ "$(counter "$dev" flushes)" -gt "$f0" ] || fail "fsync did not flush"
expect_eq "errors after the window" "$(counter "$dev" errors)" "$e3"
detach "$dev"
umount /mnt/f
