#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module cannot go while a device is attached, open, mounted or the
# control node is open; /sys/module/aioloop/refcnt counts exactly those
# users and is back to 0 after every detach (also after autoclear, after
# I/O, after refused attaches and after many cycles); then rmmod succeeds
# and takes the devices, the control node and the kaio_req slab cache
# with it.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
need_setup
M=1048576
REF=/sys/module/aioloop/refcnt
mkscratch ext4 /mnt/s
mkfile /mnt/s/img $((16 * M))
mkdir -p /tmp/aiotest-dir
load_aioloop
dev=/dev/aioloop0

refcnt() {
	cat $REF
}
# refused WHY: rmmod must fail, the module stays
refused() {
	if rmmod aioloop 2>/dev/null; then
		fail "rmmod succeeded while $1"
	fi
	[ -d /sys/module/aioloop ] || fail "module gone while $1"
}

expect_eq "refcnt after load" "$(refcnt)" 0
slab=/sys/kernel/slab/kaio_req
if [ -L $slab ]; then
	log "kaio_req is an alias of $(readlink $slab) (merged slab cache)"
elif [ -d $slab ]; then
	log "kaio_req has its own slab cache"
else
	log "no /sys/kernel/slab/kaio_req"
fi

# open
exec 3<$dev
expect_eq "refcnt, device open" "$(refcnt)" 1
refused "a device is open"
exec 3<&-
expect_eq "refcnt, closed" "$(refcnt)" 0

# control node open
exec 3</dev/aioloop-control
refused "the control node is open"
exec 3<&-
expect_eq "refcnt, control node closed" "$(refcnt)" 0

# attached
attach /mnt/s/img $dev >/dev/null
expect_eq "refcnt, attached" "$(refcnt)" 1
refused "a device is attached"
fio_verify $dev 2m
detach $dev
expect_eq "refcnt after I/O and detach" "$(refcnt)" 0

# mounted
attach /mnt/s/img $dev >/dev/null
mkfs.ext4 -q -F $dev
mkdir -p /mnt/m
mount -t ext4 $dev /mnt/m
expect_eq "refcnt, mounted" "$(refcnt)" 2
refused "a device is mounted"
umount /mnt/m
detach $dev
expect_eq "refcnt after umount and detach" "$(refcnt)" 0

# autoclear
attach /mnt/s/img $dev >/dev/null
exec 3<$dev
lok $dev clr-fd >/dev/null
bound $dev || fail "detached while open"
refused "an autoclear device is open"
exec 3<&-
! bound $dev || fail "not detached at last close"
expect_eq "refcnt after autoclear" "$(refcnt)" 0

# refused attaches take no reference
want_errno EINVAL lioctl $dev configure /mnt/s/img bs=1000
want_errno EINVAL lioctl $dev configure /mnt/s/img offset=$((32 * M))
want_errno EINVAL lioctl $dev configure ro:/tmp/aiotest-dir
want_errno EBADF lioctl $dev configure -1
want_errno EBADF lioctl $dev configure $dev
lok $dev configure /mnt/s/img >/dev/null
want_errno EBUSY lioctl $dev configure /mnt/s/img
want_errno EBUSY lioctl $dev set-fd /mnt/s/img
expect_eq "refcnt, attached after refusals" "$(refcnt)" 1
lok $dev clr-fd >/dev/null
want_errno ENXIO lioctl $dev clr-fd
errno_summary
expect_eq "refcnt after refused attaches" "$(refcnt)" 0

# many cycles on several devices, and chains
for i in 1 2 3 4 5; do
	lok /dev/aioloop0 configure ro:/mnt/s/img flags=1 >/dev/null
	lok /dev/aioloop1 configure ro:/dev/aioloop0 flags=1 >/dev/null
	# two bound, and aioloop1 holds aioloop0 open
	r=$(refcnt)
	[ "$r" -ge 3 ] || fail "refcnt with a chain of two: $r"
	[ $i = 1 ] && log "refcnt with a chain of two: $r"
	lok /dev/aioloop1 clr-fd >/dev/null
	lok /dev/aioloop0 clr-fd >/dev/null
	for d in 0 1 2 3; do
		lok /dev/aioloop$d configure /mnt/s/img >/dev/null
	done
	expect_eq "refcnt, four attached" "$(refcnt)" 4
	for d in 0 1 2 3; do
		lok /dev/aioloop$d clr-fd >/dev/null
	done
	expect_eq "refcnt after cycle $i" "$(refcnt)" 0
done

rmmod aioloop || fail "rmmod failed with nothing attached"
[ ! -d /sys/module/aioloop ] || fail "/sys/module/aioloop still there"
[ ! -e /dev/aioloop0 ] || fail "/dev/aioloop0 still there"
[ ! -e /dev/aioloop-control ] || fail "/dev/aioloop-control still there"
[ ! -e $SYSBLK/aioloop0 ] || fail "$SYSBLK/aioloop0 still there"
# a cache of its own must be gone; SLUB keeps the name of a merged one
# as an alias of the shared cache (not the module's to remove)
if [ -L $slab ]; then
	log "after rmmod: kaio_req still an alias of $(readlink $slab)"
elif [ -d $slab ]; then
	fail "kaio_req slab cache still there after rmmod"
fi
grep -q '^kaio_req ' /proc/slabinfo 2>/dev/null &&
	fail "kaio_req still in /proc/slabinfo"
# and it comes back
load_aioloop
expect_eq "refcnt after reload" "$(refcnt)" 0
unload_aioloop
