#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages needed to build aioloop, boot the test VM
# and run the test suite. Does nothing (and prints nothing) when all of
# them are already present.
set -eu

PKGS="build-essential gcc-multilib sparse kmod cpio gzip zstd
linux-image-amd64 linux-headers-amd64
qemu-system-x86
dash busybox-static fio util-linux fdisk coreutils diffutils findutils
e2fsprogs xfsprogs btrfs-progs dmsetup
dkms nfs-kernel-server udev man-db groff-base debootstrap
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
[ "$(id -u)" -eq 0 ] && SUDO= || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	echo "deps: installing:$missing"
	$SUDO apt-get update -q
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing
fi

# The second kernel, Debian's 6.12 from bookworm-backports, for the 6.12
# part of make check (DEPS_612=0 skips it). The backports entry reuses the
# mirror and key of the system's own Debian entry.
[ "${DEPS_612:-1}" = 0 ] && exit 0
for d in /lib/modules/6.12.*/build; do
	[ -e "$d" ] && [ -e "/boot/vmlinuz-$(basename "$(dirname "$d")")" ] &&
		exit 0
done

BPO=/etc/apt/sources.list.d/aioloop-backports.sources
if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/
then
	mirror=$("$(dirname "$0")/debian-mirror.sh") || exit 1
	uri=${mirror%% *} key=${mirror#* }
	echo "deps: adding bookworm-backports ($uri)"
	{
		echo "Types: deb"
		echo "URIs: $uri"
		echo "Suites: bookworm-backports"
		echo "Components: main"
		[ -n "$key" ] && echo "Signed-By: $key"
	} | $SUDO tee "$BPO" >/dev/null
fi
$SUDO apt-get update -q
img=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9.]+\+deb12-amd64$' |
	awk '{ print $1 }' | sort -V | tail -n 1)
if [ -z "$img" ]; then
	echo "deps: no 6.12 kernel found in bookworm-backports" >&2
	exit 1
fi
echo "deps: installing $img and its headers"
$SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports \
	"$img" "$(echo "$img" | sed 's/linux-image/linux-headers/')"

