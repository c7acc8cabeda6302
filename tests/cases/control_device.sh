#!/bin/sh
# /dev/aioloop-control: LOOP_CTL_GET_FREE, LOOP_CTL_ADD, LOOP_CTL_REMOVE.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
load_aioloop max_devices=2
ctl=/dev/aioloop-control
img=/tmp/aiotest-a.img
mkfile $img 4M

exists() {
	[ -b "/dev/aioloop$1" ] && [ -d "$SYSBLK/aioloop$1" ]
}

exists 0 && exists 1 || fail "aioloop0/1 missing after load"
! exists 2 || fail "aioloop2 present with max_devices=2"

# GET_FREE returns an unbound device
n=$(lok $ctl ctl-get-free)
log "free: $n"
exists "$n" || fail "GET_FREE returned absent device $n"
! bound /dev/aioloop$n || fail "GET_FREE returned bound device $n"
lok /dev/aioloop0 configure $img >/dev/null
n=$(lok $ctl ctl-get-free)
[ "$n" != 0 ] || fail "GET_FREE returned the bound aioloop0"
lok /dev/aioloop1 configure $img >/dev/null
# all bound: GET_FREE creates one
n=$(lok $ctl ctl-get-free)
log "free with all bound: $n"
[ "$n" -ge 2 ] || fail "GET_FREE returned bound device $n"
exists "$n" || fail "GET_FREE did not create aioloop$n"
! bound /dev/aioloop$n || fail "GET_FREE returned bound device $n"

# ADD
expect_errno EEXIST lioctl $ctl ctl-add 0
expect_errno EEXIST lioctl $ctl ctl-add "$n"
! exists 20 || fail "aioloop20 present before ADD"
expect_eq "ADD 20" "$(lok $ctl ctl-add 20)" 20
exists 20 || fail "ADD 20 did not create /dev/aioloop20"
expect_errno EEXIST lioctl $ctl ctl-add 20
expect_errno ENXIO lioctl /dev/aioloop20 get-status64

# REMOVE
expect_errno EBUSY lioctl $ctl ctl-remove 0
exists 0 || fail "REMOVE of the bound aioloop0 removed it"
expect_errno ENODEV lioctl $ctl ctl-remove 30
exec 3</dev/aioloop20
expect_errno EBUSY lioctl $ctl ctl-remove 20
exec 3<&-
r=$(lok $ctl ctl-remove 20)
log "REMOVE 20 returned $r"
! exists 20 || fail "REMOVE 20 left the device"
[ ! -e /dev/aioloop20 ] || fail "REMOVE 20 left /dev/aioloop20"
expect_errno ENODEV lioctl $ctl ctl-remove 20
# the index can be reused
expect_eq "ADD 20 again" "$(lok $ctl ctl-add 20)" 20
exists 20 || fail "ADD 20 again did not create the device"
lok /dev/aioloop1 clr-fd >/dev/null
lok /dev/aioloop0 clr-fd >/dev/null
