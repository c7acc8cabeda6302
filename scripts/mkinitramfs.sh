#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build $BUILD/initramfs.cpio.gz for the test VM: busybox, fio, the
# filesystem and block tools, the guest kernel modules the tests use,
# aioloop.ko, the userspace tools if built, and the tests/ tree.
set -euo pipefail

cd "$(dirname "$0")/.."
SRC=$PWD
BUILD=${BUILD:-$SRC/build}
# KVER, and KMODROOT: where the kernel's modules are on this host ("" for
# /; the chroot of scripts/chroot-kernels.sh; KERNEL=debug: the tree of
# scripts/build-debug-kernel.sh, whose drivers are built in)
kenv=$(scripts/kenv.sh)
KVER=$(echo "$kenv" | sed -n 's/^KVER=//p')
KMODROOT=$(echo "$kenv" | sed -n 's/^KMODROOT=//p')
MODDIR=/lib/modules/$KVER
ROOT=$BUILD/initramfs
OUT=$BUILD/initramfs.cpio.gz
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Guest kernel modules (dependencies and softdeps are added).
MODULES="virtio_pci virtio_blk null_blk brd loop scsi_debug sd_mod
ext4 xfs btrfs dm-mod dm-flakey dm-delay nfsd nfsv4"
# Modules only some kernels have: 7.2 has neither crc32c module (CRC32C
# is a library there, which ext4 and btrfs pull in themselves).
OPT_MODULES="crc32c_intel crc32c_generic"

# Userspace binaries, by name; libraries come from ldd.
BINS="fio losetup blkdiscard blockdev fallocate lsblk blkid wipefs sfdisk
partx fsfreeze flock findmnt
mkfs.ext4 mke2fs e2fsck fsck.ext4 tune2fs dumpe2fs filefrag debugfs
mkfs.xfs xfs_repair xfs_io xfs_db
mkfs.btrfs btrfs
dmsetup dd stat truncate cmp timeout env nice nohup xargs setsid taskset
rpc.nfsd rpc.mountd exportfs udevadm"
OPT_BINS="mkfs.btrfs btrfs xfs_db debugfs rpc.nfsd rpc.mountd exportfs udevadm"

rm -rf "$ROOT"
mkdir -p "$ROOT"/usr/{bin,sbin,lib,lib64,local/sbin}
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$ROOT/$d"
done
mkdir -p "$ROOT"/{dev,proc,sys,tmp,run,mnt,root,etc,var/tmp}

add_libs() {
	{ ldd "$1" 2>/dev/null || true; } | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' |
	while read -r lib; do
		[ -e "$ROOT$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$ROOT$lib"
	done
}

# add_bin PATH [DEST]: copy a binary (dereferenced) and its libraries.
add_bin() {
	local dst=${2:-$1}
	rm -f "$ROOT$dst"
	install -D -m 0755 "$(readlink -f "$1")" "$ROOT$dst"
	add_libs "$1"
}

# busybox first; real tools installed later replace its applets. The
# shell is dash: busybox-static's ash runs its own applets in preference
# to the real tools in $PATH.
add_bin "$(command -v busybox)" /usr/bin/busybox
for a in $(busybox --list); do
	[ "$a" = busybox ] || ln -sf busybox "$ROOT/usr/bin/$a"
done
add_bin /usr/bin/dash
ln -sf dash "$ROOT/usr/bin/sh"

for b in $BINS; do
	p=$(command -v "$b" || true)
	if [ -z "$p" ]; then
		case " $OPT_BINS " in
		*" $b "*) continue ;;
		esac
		echo "mkinitramfs: $b not found (run scripts/deps.sh)" >&2
		exit 1
	fi
	p=$(realpath -s "$p")
	p=/usr${p#/usr}
	add_bin "$p"
	# keep a single copy in PATH: drop the busybox applet of that name
	[ "$(dirname "$p")" = /usr/bin ] || rm -f "$ROOT/usr/bin/$b"
done

# kmod and its personalities
add_bin /usr/bin/kmod
for k in modprobe insmod rmmod lsmod depmod modinfo; do
	rm -f "$ROOT/usr/bin/$k"
	ln -sf ../bin/kmod "$ROOT/usr/sbin/$k"
done

# aioloop userspace tools, when built
if [ -x tools/aioloop-setup ]; then
	add_bin "$SRC/tools/aioloop-setup" /usr/local/sbin/aioloop-setup
	ln -sf aioloop-setup "$ROOT/usr/local/sbin/aiolosetup"
else
	echo "mkinitramfs: note: tools/aioloop-setup not built" >&2
fi

# tests tree (and its helpers' libraries)
cp -a tests "$ROOT/tests"
rm -f "$ROOT/tests/init"
install -m 0755 tests/init "$ROOT/init"
for h in "$ROOT"/tests/helpers/*; do
	if [ -f "$h" ] && [ -x "$h" ] && head -c 4 "$h" | grep -q ELF; then
		add_libs "$h"
	fi
done

# kernel modules
add_mod() {
	local f=$1 dst
	dst=$ROOT${f#"$KMODROOT"}
	dst=${dst%.xz}
	dst=${dst%.zst}
	dst=${dst%.gz}
	[ -e "$dst" ] && return 0
	mkdir -p "$(dirname "$dst")"
	case "$f" in
	*.xz) xz -dc "$f" >"$dst" ;;
	*.zst) zstd -qdc "$f" >"$dst" ;;
	*.gz) gzip -dc "$f" >"$dst" ;;
	*) cp "$f" "$dst" ;;
	esac
}
add_mod_deps() {
	modprobe ${KMODROOT:+-d "$KMODROOT"} -S "$KVER" --show-depends "$1" | while read -r what path _; do
		if [ "$what" = insmod ]; then
			add_mod "$path"
		fi
	done
}
for m in $MODULES; do
	add_mod_deps "$m"
done
for m in $OPT_MODULES; do
	if modprobe ${KMODROOT:+-d "$KMODROOT"} -S "$KVER" --show-depends "$m" \
		>/dev/null 2>&1; then
		add_mod_deps "$m"
	fi
done
mkdir -p "$ROOT$MODDIR"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$KMODROOT$MODDIR/$f" ] && cp "$KMODROOT$MODDIR/$f" "$ROOT$MODDIR/"
done
if [ -f aioloop.ko ]; then
	vm=$(modinfo -F vermagic aioloop.ko | cut -d' ' -f1)
	if [ "$vm" != "$KVER" ]; then
		echo "mkinitramfs: aioloop.ko is built for $vm, not $KVER" >&2
		exit 1
	fi
	install -D -m 0644 aioloop.ko "$ROOT$MODDIR/extra/aioloop.ko"
	for d in $(modinfo -F depends aioloop.ko | tr , ' '); do
		add_mod_deps "$d"
	done
else
	echo "mkinitramfs: note: aioloop.ko not built" >&2
fi
depmod -b "$ROOT" "$KVER"

# /etc
cat >"$ROOT/etc/passwd" <<'EOT'
root:x:0:0:root:/root:/bin/sh
EOT
cat >"$ROOT/etc/group" <<'EOT'
root:x:0:
EOT
echo aiotest >"$ROOT/etc/hostname"
ln -s /proc/self/mounts "$ROOT/etc/mtab"
[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$ROOT/etc/"
# rpc.mountd (libtirpc) needs netconfig
for f in /etc/netconfig /etc/services /etc/protocols; do
	if [ -f "$f" ]; then cp "$f" "$ROOT/etc/"; fi
done
# the udev rule, and udevd (udevadm called by that name) for its test
install -D -m 0644 udev/60-aioloop.rules "$ROOT/usr/lib/udev/rules.d/60-aioloop.rules"
if [ -e "$ROOT/usr/bin/udevadm" ]; then
	mkdir -p "$ROOT/usr/lib/systemd"
	ln -sf ../../bin/udevadm "$ROOT/usr/lib/systemd/systemd-udevd"
fi
printf '%s\n' /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/ceph \
	/usr/local/lib >"$ROOT/etc/ld.so.conf"
ldconfig -r "$ROOT"

# the kernel opens /dev/console before /init can mount devtmpfs
if [ "$(id -u)" -eq 0 ]; then
	mknod -m 600 "$ROOT/dev/console" c 5 1
	mknod -m 666 "$ROOT/dev/null" c 1 3
fi

(cd "$ROOT" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "mkinitramfs: $OUT ($(du -h "$OUT" | cut -f1), kernel $KVER)"
