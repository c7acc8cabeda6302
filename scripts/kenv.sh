#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print where the selected kernel (KVER, KERNEL: see scripts/kver.sh)
# lives, one NAME=value per line:
#   KVER=      its release
#   KDIR=      its build directory (a path inside KCHROOT when that is set)
#   KIMAGE=    the image the test VM boots
#   KMODROOT=  the directory its /lib/modules/KVER is under ("" for /)
#   KCHROOT=   the chroot the module is built in ("" for this system)
set -eu

here=$(dirname "$0")
case "${KERNEL:-}" in
debug | debug-rt)
	"$here/build-debug-kernel.sh" --env
	echo "KCHROOT="
	exit 0
	;;
esac
rel=$("$here/kver.sh")
root=
if [ ! -e "/lib/modules/$rel/build" ]; then
	root=$("$here/chroot-kernels.sh" --dir)
fi
echo "KVER=$rel"
if [ -n "$root" ]; then
	# the link as the chroot resolves it
	link=$(readlink "$root/lib/modules/$rel/build")
	case "$link" in
	/*) echo "KDIR=$link" ;;
	*) echo "KDIR=$(realpath -m "/lib/modules/$rel/$link")" ;;
	esac
else
	echo "KDIR=/lib/modules/$rel/build"
fi
echo "KIMAGE=$root/boot/vmlinuz-$rel"
echo "KMODROOT=$root"
echo "KCHROOT=$root"
