#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A 32-bit caller (tests/helpers/lioctl32, lioctl built with -m32) drives
# the device ioctls through ->compat_ioctl: LOOP_SET_STATUS and
# LOOP_GET_STATUS with the 32-bit struct loop_info, the others with their
# pointer converted. The same sequence runs on stock loop and then on
# aioloop, and the two transcripts must match (device numbers and the
# direct I/O flag aside); the data read through the device after each
# offset change must match the backing file there, and a 2 GiB offset,
# which struct loop_info cannot carry, is EOVERFLOW on LOOP_GET_STATUS.
. /tests/lib.sh

L32=/tests/helpers/lioctl32
[ -x $L32 ] || fail "$L32 not built (gcc-multilib, tools/Makefile)"
$L32 >/dev/null 2>&1 && fail "lioctl32 without arguments succeeded"
[ $? = 2 ] || fail "$L32 does not run: no 32-bit support in the kernel?"

# on ext4 (O_DIRECT, so that aioloop runs in aio mode and loop can
# switch to direct I/O); sparse, so that a 2 GiB offset is inside it
mkscratch ext4 /mnt/s
img=/mnt/s/compat.img
mkfile $img 3G
fill_random $img 0 1048576

# l32 LABEL DEV ARGS...: one 32-bit ioctl, its output on one line, the
# device number and the direct I/O flag (LO_FLAGS_DIRECT_IO, 16: aioloop
# sets it in aio mode, loop only on request) left out
l32() {
	_label=$1
	shift
	_line=
	$L32 "$@" >/tmp/aiotest-l32.out 2>&1 || true
	while IFS= read -r _l; do
		case $_l in
		number=*) continue ;;
		flags=*) _l=flags=$((${_l#flags=} & ~16)) ;;
		esac
		_line=${_line:+$_line; }$_l
	done </tmp/aiotest-l32.out
	echo "$_label: $_line"
}

# data LABEL DEV OFFSET: the device's first 64 KiB against the file's at
# OFFSET (a multiple of 4096)
data() {
	_f=$(dd if=$img bs=4096 skip=$(($3 / 4096)) count=16 2>/dev/null |
		md5sum)
	_d=$(dd if="$2" bs=4096 count=16 2>/dev/null | md5sum)
	[ "$_f" = "$_d" ] && echo "$1: match" || echo "$1: MISMATCH"
}

# seq DEV: the sequence, one line per step
seq32() {
	d=$1
	l32 set-fd "$d" set-fd $img
	l32 get-status "$d" get-status
	l32 set-status "$d" set-status offset=4096 flags=8
	l32 get-status "$d" get-status
	l32 get-status64 "$d" get-status64
	data "data at 4096" "$d" 4096
	l32 set-status64 "$d" set-status64 offset=8192
	l32 get-status64 "$d" get-status64
	data "data at 8192" "$d" 8192
	l32 set-capacity "$d" set-capacity
	l32 set-block-size "$d" set-block-size 4096
	l32 set-block-size "$d" set-block-size 512
	l32 set-direct-io "$d" set-direct-io 1
	l32 get-status-null "$d" get-status null
	l32 set-status64-2g "$d" set-status64 offset=2147483648
	l32 get-status-2g "$d" get-status
	l32 get-status64-2g "$d" get-status64
	l32 clr-fd "$d" clr-fd
	l32 get-status-unbound "$d" get-status
	l32 configure "$d" configure $img offset=4096 bs=4096
	l32 get-status "$d" get-status
	data "data at 4096" "$d" 4096
	l32 change-fd "$d" change-fd $img
	l32 clr-fd "$d" clr-fd
}

modprobe loop || fail "modprobe loop failed"
[ -b /dev/loop0 ] || fail "no /dev/loop0"
seq32 /dev/loop0 >/tmp/aiotest-compat-loop.out
sed 's/^/  loop: /' /tmp/aiotest-compat-loop.out
load_aioloop
seq32 /dev/aioloop0 >/tmp/aiotest-compat-aio.out
sed 's/^/  aioloop: /' /tmp/aiotest-compat-aio.out

diff -u /tmp/aiotest-compat-loop.out /tmp/aiotest-compat-aio.out ||
	fail "the 32-bit transcripts of loop and aioloop differ"

# what both must have done, so that a common failure does not pass
want() {
	grep -qxF "$1" /tmp/aiotest-compat-aio.out ||
		fail "aioloop: expected the line '$1'"
}
want "set-fd: OK 0"
want "set-status: OK 0"
grep -qx "get-status: OK 0; offset=4096; flags=8; inode=$(stat -c %i $img); file=.*" \
	/tmp/aiotest-compat-aio.out ||
	fail "aioloop: LOOP_GET_STATUS after LOOP_SET_STATUS"
want "data at 4096: match"
want "data at 8192: match"
want "get-status-null: ERR EINVAL"
want "get-status-2g: ERR EOVERFLOW"
want "clr-fd: OK 0"
want "get-status-unbound: ERR ENXIO"
want "configure: OK 0"
unload_aioloop
rmmod loop 2>/dev/null || true
