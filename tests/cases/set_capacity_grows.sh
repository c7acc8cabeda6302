#!/bin/sh
# LOOP_SET_CAPACITY (aioloop-setup set-capacity) picks up a grown backing
# file; the new space is usable.
. /tests/lib.sh
need_setup
load_aioloop
mkscratch ext4 /mnt/s
mkfile /mnt/s/img 16M
dev=$(attach /mnt/s/img)
sys=$SYSBLK/${dev##*/}

expect_eq "size before" "$(cat $sys/size)" 32768
truncate -s 48M /mnt/s/img
expect_eq "size before set-capacity" "$(cat $sys/size)" 32768
aioloop-setup set-capacity "$dev" || fail "set-capacity failed"
expect_eq "size after" "$(cat $sys/size)" 98304
expect_eq "blockdev size" "$(dev_size "$dev")" 50331648

# write and read back the new tail
fill_random "$dev" $((40 * 1048576)) $((8 * 1048576))
expect_eq "tail md5" "$(dev_md5 "$dev" $((40 * 1048576)) $((8 * 1048576)))" \
	"$(file_md5 /mnt/s/img $((40 * 1048576)) $((8 * 1048576)))"
expect_eq "file size" "$(stat -c %s /mnt/s/img)" 50331648

# with a size limit the capacity stays capped
detach "$dev"
dev=$(attach --sizelimit 20M /mnt/s/img)
sys=$SYSBLK/${dev##*/}
truncate -s 64M /mnt/s/img
aioloop-setup set-capacity "$dev" || fail "set-capacity failed"
expect_eq "capped size" "$(cat $sys/size)" 40960
detach "$dev"
