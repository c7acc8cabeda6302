#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# in-chroot.sh CHROOT [-C DIR] CMD...: run CMD inside CHROOT (the chroot
# of scripts/chroot-kernels.sh) with a clean environment, /proc and /dev
# mounted there and, with -C, the directory DIR bind-mounted at the same
# path and made the working directory. The mounts live in a private mount
# namespace: nothing stays mounted. Needs root.
set -eu

usage() {
	echo "usage: $0 CHROOT [-C DIR] CMD..." >&2
	exit 2
}
[ $# -ge 2 ] || usage
root=$1 dir=
shift
if [ "$1" = -C ]; then
	[ $# -ge 3 ] || usage
	dir=$2
	shift 2
	mkdir -p "$root$dir"
fi
exec unshare -m -- sh -c 'root=$1 dir=$2; shift 2
	if [ -n "$dir" ]; then
		mount --bind "$dir" "$root$dir" || exit 1
	fi
	mount -t proc proc "$root/proc" &&
	mount --rbind /dev "$root/dev" &&
	exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C DEBIAN_FRONTEND=noninteractive \
		sh -c '\''cd "${0:-/}" && exec "$@"'\'' "$dir" "$@"' \
	sh "$root" "$dir" "$@"
