#!/bin/sh
# Raw LOOP_CONFIGURE / LOOP_SET_FD / LOOP_SET_STATUS64 / LOOP_CLR_FD and
# the fields LOOP_GET_STATUS64 reports.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
load_aioloop
dev=/dev/aioloop0
img=/tmp/aiotest-a.img
mkfile $img 8M

# LOOP_CONFIGURE with offset, sizelimit and a name
lok $dev configure $img offset=4096 sizelimit=1048576 >/dev/null
bound $dev || fail "not bound after LOOP_CONFIGURE"
expect_eq offset "$(lstatus $dev offset)" 4096
expect_eq sizelimit "$(lstatus $dev sizelimit)" 1048576
expect_eq file "$(lstatus $dev file)" $img
expect_eq number "$(lstatus $dev number)" 0
expect_eq "ro flag" $(($(lstatus $dev flags) & 1)) 0
expect_eq "sysfs backing_file" "$(loopattr $dev backing_file)" $img
expect_eq "sysfs offset" "$(loopattr $dev offset)" 4096
expect_eq "sysfs sizelimit" "$(loopattr $dev sizelimit)" 1048576
expect_eq "sysfs size" "$(cat $SYSBLK/aioloop0/size)" 2048
ino=$(stat -c %i $img)
expect_eq inode "$(lstatus $dev inode)" "$ino"
out=$(lioctl $dev get-status) || fail "LOOP_GET_STATUS failed: $out"
echo "$out" | grep -qx 'offset=4096' || fail "LOOP_GET_STATUS: $out"

# LOOP_CLR_FD
lok $dev clr-fd >/dev/null
! bound $dev || fail "still bound after LOOP_CLR_FD"
expect_errno ENXIO lioctl $dev get-status64

# LOOP_SET_FD (no offset, whole file), then LOOP_SET_STATUS64
lok $dev set-fd $img >/dev/null
bound $dev || fail "not bound after LOOP_SET_FD"
expect_eq offset "$(lstatus $dev offset)" 0
expect_eq sizelimit "$(lstatus $dev sizelimit)" 0
expect_eq "sysfs size" "$(cat $SYSBLK/aioloop0/size)" 16384
lok $dev set-status64 offset=8192 sizelimit=65536 name=renamed >/dev/null
expect_eq offset "$(lstatus $dev offset)" 8192
expect_eq sizelimit "$(lstatus $dev sizelimit)" 65536
expect_eq file "$(lstatus $dev file)" renamed
expect_eq "sysfs offset" "$(loopattr $dev offset)" 8192
expect_eq "sysfs size" "$(cat $SYSBLK/aioloop0/size)" 128
lok $dev clr-fd >/dev/null
! bound $dev || fail "still bound after LOOP_CLR_FD"

# read-only configuration on another device
lok /dev/aioloop1 configure ro:$img flags=1 >/dev/null
expect_eq "ro flag" $(($(lstatus /dev/aioloop1 flags) & 1)) 1
expect_eq "sysfs ro" "$(cat $SYSBLK/aioloop1/ro)" 1
if dd if=/dev/zero of=/dev/aioloop1 bs=4096 count=1 oflag=direct \
	status=none 2>/dev/null; then
	fail "write to a read-only device succeeded"
fi
lok /dev/aioloop1 clr-fd >/dev/null
! bound /dev/aioloop1 || fail "aioloop1 still bound after LOOP_CLR_FD"
