#!/bin/sh
# aioloop-setup attach options: --block-size, --no-direct-io, --partscan,
# --read-only, explicit DEV, size suffixes.
. /tests/lib.sh
need_setup
load_aioloop
mkscratch ext4 /mnt/s
mkfile /mnt/s/img 64M

# explicit device, block size with a suffix
dev=$(attach --block-size 4K /mnt/s/img aioloop3)
expect_eq device "$dev" /dev/aioloop3
expect_eq logical_block_size \
	"$(cat $SYSBLK/aioloop3/queue/logical_block_size)" 4096
expect_eq mode "$(counter $dev mode)" aio
detach $dev

# --no-direct-io: sync mode by request
dev=$(attach --no-direct-io /mnt/s/img)
expect_eq mode "$(counter $dev mode)" sync
expect_eq sync_reason "$(counter $dev sync_reason)" user
expect_eq dio "$(loopattr $dev dio)" 0
fill_random $dev 0 1048576
expect_eq md5 "$(dev_md5 $dev 0 1048576)" "$(file_md5 /mnt/s/img 0 1048576)"
detach $dev

# --read-only: the device refuses writes, the file is unchanged
before=$(file_md5 /mnt/s/img 0 1048576)
dev=$(attach --read-only /mnt/s/img)
expect_eq ro "$(cat $SYSBLK/${dev##*/}/ro)" 1
if dd if=/dev/urandom of=$dev bs=4096 count=1 oflag=direct conv=notrunc \
	status=none 2>/dev/null; then
	fail "write to a read-only device succeeded"
fi
expect_eq "file after refused write" "$(file_md5 /mnt/s/img 0 1048576)" \
	"$before"
detach $dev

# --partscan: partitions of the file show up
echo 'start=2048, size=8192' | sfdisk -q /mnt/s/img ||
	fail "sfdisk on the image failed"
dev=$(attach --partscan /mnt/s/img)
n=${dev##*/}
expect_eq partscan "$(loopattr $dev partscan)" 1
[ -b ${dev}p1 ] || fail "no ${dev}p1 after attach --partscan"
expect_eq "p1 size" "$(cat $SYSBLK/$n/${n}p1/size)" 8192
detach $dev
dev=$(attach /mnt/s/img)
[ ! -b ${dev}p1 ] || fail "${dev}p1 present without --partscan"
detach $dev
