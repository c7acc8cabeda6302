#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Without CAP_SYS_ADMIN (capability dropped, or uid/gid nobody) every
# configuring ioctl fails with EPERM, before any other check (bad fd,
# unbound device, read-write device for LOOP_CHANGE_FD) and without any
# effect, on unbound and bound devices and on the control node;
# LOOP_GET_STATUS64 and LOOP_GET_STATUS still work.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
M=1048576
img=/tmp/aiotest-a.img
img2=/tmp/aiotest-b.img
mkfile $img $((4 * M))
mkfile $img2 $((4 * M))
load_aioloop max_devices=4
ctl=/dev/aioloop-control
d=/dev/aioloop0
n=0

# eperm_all DEV: every configuring ioctl on DEV, both ways of dropping
eperm_all() {
	for p in --unpriv --nobody; do
		want_errno EPERM lioctl $p "$1" set-fd $img
		want_errno EPERM lioctl $p "$1" set-fd -1
		want_errno EPERM lioctl $p "$1" configure $img
		want_errno EPERM lioctl $p "$1" configure -1 bs=1000
		want_errno EPERM lioctl $p "$1" change-fd ro:$img2
		want_errno EPERM lioctl $p "$1" change-fd -1
		want_errno EPERM lioctl $p "$1" clr-fd
		want_errno EPERM lioctl $p "$1" set-status offset=4096
		want_errno EPERM lioctl $p "$1" set-status64 offset=4096 sizelimit=4096
		want_errno EPERM lioctl $p "$1" set-status64 flags=12
		want_errno EPERM lioctl $p "$1" set-capacity
		want_errno EPERM lioctl $p "$1" set-direct-io 0
		want_errno EPERM lioctl $p "$1" set-direct-io 1
		want_errno EPERM lioctl $p "$1" set-block-size 4096
		want_errno EPERM lioctl $p "$1" set-block-size 1000
		n=$((n + 15))
	done
}

ndev() {
	ls -d $SYSBLK/aioloop[0-9]* | wc -l
}

# the control node
for p in --unpriv --nobody; do
	want_errno EPERM lioctl $p $ctl ctl-add 10
	want_errno EPERM lioctl $p $ctl ctl-add -1
	want_errno EPERM lioctl $p $ctl ctl-remove 3
	want_errno EPERM lioctl $p $ctl ctl-remove 10
	want_errno EPERM lioctl $p $ctl ctl-get-free
	n=$((n + 5))
done
expect_eq "devices after refused control ioctls" "$(ndev)" 4
[ -b /dev/aioloop3 ] || fail "aioloop3 removed by an unprivileged REMOVE"

# unbound device
eperm_all $d
! bound $d || fail "$d bound by an unprivileged ioctl"

# state DEV: what a configuring ioctl could change
state() {
	for _a in backing_file offset sizelimit autoclear partscan dio; do
		printf '%s=%s ' $_a "$(loopattr "$1" $_a)"
	done
	printf 'mode=%s lbs=%s size=%s ro=%s\n' "$(counter "$1" mode)" \
		"$(cat $SYSBLK/${1##*/}/queue/logical_block_size)" \
		"$(dev_size "$1")" "$(cat $SYSBLK/${1##*/}/ro)"
}

# bound read-write device
lok $d configure $img >/dev/null
before=$(state $d)
log "state: $before"
eperm_all $d
bound $d || fail "$d detached by an unprivileged ioctl"
expect_eq "state after refused ioctls" "$(state $d)" "$before"
# reading the status needs no privilege
lok --unpriv $d get-status64 >/dev/null
lok --nobody $d get-status64 >/dev/null
lok --nobody --rdonly $d get-status64 >/dev/null
lok --nobody $d get-status >/dev/null
expect_eq "GET_STATUS64 offset, unprivileged" \
	"$(lioctl --nobody $d get-status64 | sed -n 's/^offset=//p')" 0
# the capacity check does not run before the permission check either
truncate -s $((8 * M)) $img
want_errno EPERM lioctl --nobody $d set-capacity
expect_eq "size after refused SET_CAPACITY" "$(dev_size $d)" $((4 * M))
truncate -s $((4 * M)) $img
lok $d clr-fd >/dev/null

# bound read-only device (where LOOP_CHANGE_FD would be allowed)
lok $d configure ro:$img flags=1 >/dev/null
before=$(state $d)
eperm_all $d
expect_eq "state after refused ioctls (read-only device)" "$(state $d)" \
	"$before"
lok $d change-fd ro:$img2 >/dev/null
expect_eq "backing_file after a privileged CHANGE_FD" \
	"$(loopattr $d backing_file)" $img2
lok $d clr-fd >/dev/null

errno_summary
log "$n unprivileged configuring ioctls refused with EPERM"
