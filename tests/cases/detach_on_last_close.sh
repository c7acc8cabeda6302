#!/bin/sh
# Autoclear: a device detached (or attached with --autoclear) while open
# elsewhere stays bound until its last user closes it.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
need_setup
load_aioloop
img=/tmp/aiotest-a.img
mkfile $img 16M
dev=/dev/aioloop2

# detach while open: succeeds, autoclear set, detached on close
attach $img $dev >/dev/null
exec 3<$dev
aioloop-setup detach $dev || fail "detach of an open device failed"
bound $dev || fail "detached while still open"
expect_eq autoclear "$(loopattr $dev autoclear)" 1
exec 3<&-
! bound $dev || fail "still bound after the last close"

# --autoclear while held open
exec 3<$dev
attach --autoclear $img $dev >/dev/null
bound $dev || fail "--autoclear device detached while open"
expect_eq autoclear "$(loopattr $dev autoclear)" 1
dd if=$dev of=/dev/null bs=1M count=1 status=none || fail "read failed"
bound $dev || fail "--autoclear device detached by another opener's close"
exec 3<&-
! bound $dev || fail "--autoclear device still bound after the last close"
