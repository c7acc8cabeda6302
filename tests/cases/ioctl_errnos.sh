#!/bin/sh
# Error codes of the device ioctls (those of the loop driver).
. /tests/lib.sh
. /tests/helpers/ioctl.sh
load_aioloop
d0=/dev/aioloop0
d1=/dev/aioloop1
d2=/dev/aioloop2
d3=/dev/aioloop3
img=/tmp/aiotest-a.img
img2=/tmp/aiotest-b.img
mkfile $img 4M
mkfile $img2 4M
mkdir -p /tmp/aiotest-dir

# unbound device
want_errno ENXIO lioctl $d0 clr-fd
want_errno ENXIO lioctl $d0 get-status64
want_errno ENXIO lioctl $d0 get-status
want_errno ENXIO lioctl $d0 set-status64 offset=0

# bad or unsuitable backing files
want_errno EBADF lioctl $d0 configure -1
want_errno EBADF lioctl $d0 set-fd -1
want_errno EINVAL lioctl $d0 configure ro:/tmp/aiotest-dir
want_errno EINVAL lioctl $d0 set-fd ro:/tmp/aiotest-dir
want_errno EINVAL lioctl $d0 configure $img offset=8388608
# offset exactly at EOF (empty device): reported, not asserted
log "offset at EOF: $(lioctl $d0 configure $img offset=4194304 2>&1)"
bound $d0 && lok $d0 clr-fd >/dev/null
! bound $d0 || fail "$d0 bound after failed LOOP_CONFIGUREs"

# block sizes: a power of two from 512 to the kernel's largest, which is
# PAGE_SIZE, or 64 KiB on kernels with large block sizes (7.2): 8192 is
# refused or taken as stock loop refuses or takes it on this kernel
modprobe loop || fail "modprobe loop failed"
[ -b /dev/loop0 ] || fail "no /dev/loop0"
case $(lioctl /dev/loop0 configure $img bs=8192 2>&1) in
"OK"*)
	lok /dev/loop0 clr-fd >/dev/null
	bad="1000 256 131072" big=8192
	log "stock loop takes 8192-byte blocks here"
	;;
*"ERR EINVAL"*) bad="1000 256 8192 131072" big= ;;
*) fail "stock loop: LOOP_CONFIGURE bs=8192 neither works nor gives EINVAL" ;;
esac
rmmod loop 2>/dev/null || true
for bs in $bad; do
	want_errno EINVAL lioctl $d0 configure $img bs=$bs
done
! bound $d0 || fail "$d0 bound after LOOP_CONFIGURE with a bad block size"
if [ -n "$big" ]; then
	lok $d0 configure $img bs=$big >/dev/null
	expect_eq "logical_block_size" \
		"$(cat $SYSBLK/aioloop0/queue/logical_block_size)" $big
	lok $d0 clr-fd >/dev/null
	! bound $d0 || fail "$d0 bound after LOOP_CLR_FD"
fi
lok $d0 configure $img bs=4096 >/dev/null
expect_eq "logical_block_size" \
	"$(cat $SYSBLK/aioloop0/queue/logical_block_size)" 4096
for bs in $bad; do
	want_errno EINVAL lioctl $d0 set-block-size $bs
done
expect_eq "logical_block_size after bad LOOP_SET_BLOCK_SIZE" \
	"$(cat $SYSBLK/aioloop0/queue/logical_block_size)" 4096
lok $d0 set-block-size 512 >/dev/null
expect_eq "logical_block_size" \
	"$(cat $SYSBLK/aioloop0/queue/logical_block_size)" 512

# NULL status buffers
want_errno EINVAL lioctl $d0 get-status64 null
want_errno EINVAL lioctl $d0 get-status null

# bound device
want_errno EBUSY lioctl $d0 set-fd $img2
want_errno EBUSY lioctl $d0 configure $img2
expect_eq "backing_file after EBUSY" "$(loopattr $d0 backing_file)" $img
lok $d0 clr-fd >/dev/null

# a device as its own backing file: EBADF, as loop
want_errno EBADF lioctl $d0 configure $d0
want_errno EBADF lioctl $d0 set-fd $d0
! bound $d0 || fail "$d0 bound to itself"

# chains: aioloop1 backed by aioloop0; aioloop0 must not be switched
# (LOOP_CHANGE_FD, read-only devices only) to aioloop1 nor to itself
lok $d0 configure ro:$img flags=1 >/dev/null
lok $d1 configure ro:$d0 flags=1 >/dev/null
lok $d0 change-fd ro:$img2 >/dev/null
expect_eq "backing_file after LOOP_CHANGE_FD" "$(loopattr $d0 backing_file)" \
	$img2
want_errno EBADF lioctl $d0 change-fd ro:$d1
want_errno EBADF lioctl $d0 change-fd ro:$d0
expect_eq "backing_file after refused LOOP_CHANGE_FD" \
	"$(loopattr $d0 backing_file)" $img2
# and a longer chain: aioloop2 -> aioloop1 -> aioloop0
lok $d2 configure ro:$d1 flags=1 >/dev/null
want_errno EBADF lioctl $d0 change-fd ro:$d2
# a chain through an unbound device: EINVAL
lok $d2 clr-fd >/dev/null
want_errno EINVAL lioctl $d3 configure ro:$d2
lok $d1 clr-fd >/dev/null
lok $d0 clr-fd >/dev/null

# without CAP_SYS_ADMIN (device opened read-write before dropping it)
want_errno EPERM lioctl --unpriv $d0 configure $img
want_errno EPERM lioctl --unpriv $d0 set-fd $img
! bound $d0 || fail "$d0 bound by an unprivileged LOOP_CONFIGURE/SET_FD"
lok $d0 configure $img >/dev/null
lok --unpriv $d0 get-status64 >/dev/null
want_errno EPERM lioctl --unpriv $d0 clr-fd
want_errno EPERM lioctl --unpriv $d0 set-status64 offset=4096
want_errno EPERM lioctl --unpriv $d0 set-capacity
want_errno EPERM lioctl --unpriv $d0 set-direct-io 0
want_errno EPERM lioctl --unpriv $d0 set-block-size 4096
want_errno EPERM lioctl --nobody $d0 clr-fd
bound $d0 || fail "$d0 detached by an unprivileged LOOP_CLR_FD"
expect_eq "offset after unprivileged LOOP_SET_STATUS64" \
	"$(loopattr $d0 offset)" 0
lok $d0 clr-fd >/dev/null
errno_summary
