#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a debug kernel for the test VM from Debian's linux-source-6.1
# (/usr/src/linux-source-6.1.tar.xz): x86_64 defconfig, trimmed, with
# what the tests use built in (virtio, ext4, xfs, btrfs, dm with flakey
# and delay, null_blk, brd, loop, scsi_debug, NFS client and server) and
# the cgroup v2 memory and io controllers with io.max and cgroup
# writeback, swap and huge pages, and the checkers on: KASAN,
# PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, DEBUG_KMEMLEAK, FAULT_INJECTION with
# FAIL_MAKE_REQUEST and FAILSLAB.
# No debug info (smaller, faster). About 21 CPU-minutes of compiling:
# 42 minutes on a busy 2-core machine (about 11 estimated when idle).
#
# KERNEL=debug-rt builds the PREEMPT_RT variant instead, from Debian's
# linux-source-6.12 (bookworm-backports): the same drivers and fault
# injection, PREEMPT_RT, and the checkers RT's locking wants: lockdep
# with raw_spinlock/spinlock nesting (PROVE_RAW_LOCK_NESTING: a sleeping
# lock taken under a raw one), DEBUG_ATOMIC_SLEEP and DEBUG_PREEMPT;
# without KASAN and kmemleak, which the 6.1 debug kernel covers.
#
# The result is cached outside the tree, in $AIOLOOP_CACHE (default
# /var/cache/aioloop), as debug-kernel-<hash> (debug-rt-kernel-<hash>),
# <hash> covering the source tarball, the configuration below and the
# compiler; a second run only prints the directory. The build tree stays
# there: it is the KDIR the module is built against.
#
#   scripts/build-debug-kernel.sh          build if needed, print the directory
#   scripts/build-debug-kernel.sh --env    print KVER= KDIR= KIMAGE= KMODROOT=
#                                          for the harness (fails if not built)
#   scripts/build-debug-kernel.sh --check  exit 0 if built
#
# `make check KERNEL=debug` (KERNEL=debug-rt) builds it (if needed) and
# boots it; the build log and its duration are in the directory
# (build.log, build-seconds).
set -euo pipefail

cd "$(dirname "$0")/.."
case "${KERNEL:-debug}" in
debug-rt) flavour=rt series=6.12 ;;
*) flavour= series=6.1 ;;
esac
SRC_TAR=${DEBUG_KERNEL_SOURCE:-/usr/src/linux-source-$series.tar.xz}
CACHE=${AIOLOOP_CACHE:-/var/cache/aioloop}
JOBS=${JOBS:-$(nproc)}

# Options on top of x86_64_defconfig. "=n" lines switch off what defconfig
# builds and the VM does not need.
fragment() {
	echo "CONFIG_LOCALVERSION=\"-aioloop-debug${flavour:+-$flavour}\""
	cat <<'EOF'
# CONFIG_LOCALVERSION_AUTO is not set
CONFIG_DEBUG_INFO_NONE=y
# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set
# CONFIG_DEBUG_INFO_BTF is not set
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_MODULE_FORCE_UNLOAD=y
# CONFIG_MODULE_SIG is not set
# CONFIG_MODVERSIONS is not set
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_DEVTMPFS=y
CONFIG_CGROUPS=y
CONFIG_MEMCG=y
CONFIG_BLK_CGROUP=y
CONFIG_BLK_DEV_THROTTLING=y
CONFIG_CGROUP_WRITEBACK=y
CONFIG_SWAP=y
CONFIG_HUGETLBFS=y
CONFIG_TMPFS=y
CONFIG_TMPFS_POSIX_ACL=y
CONFIG_MAGIC_SYSRQ=y
CONFIG_DEBUG_FS=y
CONFIG_PRINTK_TIME=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_VIRTIO_MENU=y
CONFIG_VIRTIO=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_BLK=y
CONFIG_BLK_DEV=y
CONFIG_BLK_DEV_LOOP=y
CONFIG_BLK_DEV_NULL_BLK=y
CONFIG_BLK_DEV_RAM=y
CONFIG_SCSI=y
CONFIG_BLK_DEV_SD=y
CONFIG_SCSI_LOWLEVEL=y
CONFIG_SCSI_DEBUG=y
CONFIG_MD=y
CONFIG_BLK_DEV_DM=y
CONFIG_DM_FLAKEY=y
CONFIG_DM_DELAY=y
CONFIG_EXT4_FS=y
CONFIG_EXT4_USE_FOR_EXT2=y
CONFIG_XFS_FS=y
CONFIG_BTRFS_FS=y
CONFIG_CRYPTO_CRC32C=y
CONFIG_CRYPTO_CRC32C_INTEL=y
CONFIG_NFS_FS=y
CONFIG_NFS_V4=y
CONFIG_NFSD=y
CONFIG_NFSD_V4=y
EOF
	[ -n "$flavour" ] || cat <<'EOF'
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
EOF
	cat <<'EOF'
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
EOF
	[ -n "$flavour" ] || cat <<'EOF'
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=16000
# CONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF is not set
# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set
EOF
	cat <<'EOF'
CONFIG_FAULT_INJECTION=y
CONFIG_FAULT_INJECTION_DEBUG_FS=y
CONFIG_FAIL_MAKE_REQUEST=y
CONFIG_FAILSLAB=y
CONFIG_DETECT_HUNG_TASK=y
CONFIG_SOFTLOCKUP_DETECTOR=y
# CONFIG_DRM is not set
# CONFIG_SOUND is not set
# CONFIG_USB_SUPPORT is not set
# CONFIG_WIRELESS is not set
# CONFIG_WLAN is not set
# CONFIG_NETDEVICES is not set
# CONFIG_AGP is not set
# CONFIG_HID is not set
# CONFIG_INPUT_JOYSTICK is not set
# CONFIG_INPUT_TABLET is not set
# CONFIG_INPUT_TOUCHSCREEN is not set
# CONFIG_ACPI_VIDEO is not set
# CONFIG_FB is not set
# CONFIG_EFI is not set
# CONFIG_HIBERNATION is not set
# CONFIG_SUSPEND is not set
EOF
	[ "$flavour" != rt ] || cat <<'EOF'
CONFIG_EXPERT=y
CONFIG_PREEMPT_RT=y
CONFIG_PROVE_RAW_LOCK_NESTING=y
CONFIG_DEBUG_PREEMPT=y
EOF
}

# What must be =y after olddefconfig (dependencies can silently drop
# options from a fragment).
MUST="KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK FAULT_INJECTION
FAIL_MAKE_REQUEST FAILSLAB VIRTIO_PCI VIRTIO_BLK EXT4_FS XFS_FS BTRFS_FS
BLK_DEV_DM DM_FLAKEY DM_DELAY BLK_DEV_NULL_BLK BLK_DEV_RAM BLK_DEV_LOOP
SCSI_DEBUG NFS_V4 NFSD MODULE_UNLOAD DEVTMPFS BLK_DEV_INITRD
SERIAL_8250_CONSOLE MEMCG BLK_CGROUP BLK_DEV_THROTTLING CGROUP_WRITEBACK SWAP
HUGETLBFS"
# RT: its own checkers in place of KASAN and kmemleak
[ "$flavour" != rt ] ||
	MUST=$(echo "$MUST" | sed 's/^KASAN/PREEMPT_RT PROVE_RAW_LOCK_NESTING DEBUG_PREEMPT/; s/ DEBUG_KMEMLEAK//')

# bump when the build steps change in a way that changes the result
RECIPE=1
hash=$({
	echo "recipe $RECIPE"
	stat -c '%s %Y' "$SRC_TAR"
	fragment
	echo "$MUST"
	${CC:-gcc} --version | head -1
} | sha256sum | cut -c1-12)
OUT=$CACHE/debug${flavour:+-$flavour}-kernel-$hash

built() {
	[ -f "$OUT/done" ] && [ -f "$OUT/bzImage" ]
}

case "${1:-}" in
--check)
	built
	exit
	;;
--env)
	if ! built; then
		echo "build-debug-kernel: no debug kernel in $OUT (run scripts/build-debug-kernel.sh)" >&2
		exit 1
	fi
	rel=$(cat "$OUT/done")
	echo "KVER=$rel"
	echo "KDIR=$OUT/src"
	echo "KIMAGE=$OUT/bzImage"
	echo "KMODROOT=$OUT/modroot"
	exit 0
	;;
"") ;;
*)
	echo "usage: $0 [--env|--check]" >&2
	exit 2
	;;
esac

if built; then
	echo "$OUT"
	exit 0
fi

[ -f "$SRC_TAR" ] || {
	echo "build-debug-kernel: $SRC_TAR missing (apt-get install linux-source-$series${flavour:+, from bookworm-backports})" >&2
	exit 1
}
for t in bc bison flex; do
	command -v $t >/dev/null || {
		echo "build-debug-kernel: $t missing (run scripts/deps.sh)" >&2
		exit 1
	}
done

mkdir -p "$OUT"
exec 3>&1
exec >"$OUT/build.log" 2>&1
echo "build-debug-kernel: building in $OUT with $JOBS jobs (log: $OUT/build.log)" >&3
t0=$(date +%s)
rm -rf "$OUT/src" "$OUT/modroot"
mkdir -p "$OUT/src"
tar -xf "$SRC_TAR" -C "$OUT/src" --strip-components=1
cd "$OUT/src"
make x86_64_defconfig
fragment >"$OUT/fragment.config"
scripts/kconfig/merge_config.sh -m .config "$OUT/fragment.config"
make olddefconfig
missing=
for o in $MUST; do
	grep -q "^CONFIG_$o=y" .config || missing="$missing $o"
done
if [ -n "$missing" ]; then
	echo "build-debug-kernel: not enabled after olddefconfig:$missing" | tee /dev/fd/3
	exit 1
fi
t1=$(date +%s)
nice -n 19 make -j"$JOBS" bzImage modules
make modules_install INSTALL_MOD_PATH="$OUT/modroot" INSTALL_MOD_STRIP=1
rel=$(make -s kernelrelease)
cp arch/x86/boot/bzImage "$OUT/bzImage"
t2=$(date +%s)
echo $((t2 - t0)) >"$OUT/build-seconds"
echo "$rel" >"$OUT/done"
echo "build-debug-kernel: $rel built in $((t2 - t0))s (configure $((t1 - t0))s, compile $((t2 - t1))s)" | tee /dev/fd/3
echo "$OUT" >&3
