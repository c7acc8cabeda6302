#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages needed to build aioloop, boot the test VM
# and run the test suite. Does nothing (and prints nothing) when all of
# them are already present.
set -eu

PKGS="build-essential sparse kmod cpio gzip zstd
linux-image-amd64 linux-headers-amd64
qemu-system-x86
dash busybox-static fio util-linux fdisk coreutils diffutils findutils
e2fsprogs xfsprogs btrfs-progs dmsetup
dkms nfs-kernel-server udev man-db groff-base
gnuplot-nox
linux-source-6.1 bc bison flex libssl-dev libelf-dev dwarves"

missing=
for p in $PKGS; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing"
[ "$(id -u)" -eq 0 ] && SUDO= || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
