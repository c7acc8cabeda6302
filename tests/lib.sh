# SPDX-License-Identifier: GPL-2.0
#
# Helpers for tests/cases/*.sh, sourced by each test (POSIX sh, in the
# test VM). A test exits 0 to pass, 77 (skip) to be skipped, anything
# else fails.
#
# Disks: /dev/vdb and /dev/vdc are scratch disks for filesystems
# (mkscratch), /dev/vda is a raw disk for tests that need a block device.

set -eu

T=$(basename "$0" .sh)
LIOCTL=/tests/helpers/lioctl
SCRATCH_DEVS="/dev/vdb /dev/vdc"
RAW_DEV=/dev/vda
SYSBLK=/sys/block

log() {
	echo "$T: $*"
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# expect_ok CMD...: CMD must succeed
expect_ok() {
	"$@" || fail "'$*' failed (exit $?)"
}

# expect_fail CMD...: CMD must fail
expect_fail() {
	if "$@"; then
		fail "'$*' succeeded, expected a failure"
	fi
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# expect_errno ERRNAME CMD...: CMD (lioctl or any command printing
# "ERR <ERRNAME>") must report ERRNAME
expect_errno() {
	_want=$1
	shift
	_out=$("$@" 2>&1) || true
	case "$_out" in
	*"ERR $_want"*) ;;
	*) fail "'$*': expected ERR $_want, got '$_out'" ;;
	esac
}

# lioctl ARGS...: the raw ioctl helper (prints "OK <ret>" or "ERR <NAME>")
lioctl() {
	[ -x "$LIOCTL" ] || skip "tests/helpers/lioctl not built"
	"$LIOCTL" "$@"
}

need_setup() {
	command -v aioloop-setup >/dev/null || skip "aioloop-setup not built"
}

# ---- module ------------------------------------------------------------

load_aioloop() {
	modprobe aioloop "$@" || fail "modprobe aioloop $* failed"
	[ -c /dev/aioloop-control ] || fail "no /dev/aioloop-control"
}

unload_aioloop() {
	rmmod aioloop || fail "rmmod aioloop failed"
	[ ! -d /sys/module/aioloop ] || fail "/sys/module/aioloop still there"
}

# ---- devices -------------------------------------------------------------

# attach [OPTIONS] FILE [DEV]: attach FILE, print the device path
attach() {
	need_setup
	aioloop-setup attach "$@" || fail "aioloop-setup attach $* failed"
}

detach() {
	aioloop-setup detach "$1" || fail "aioloop-setup detach $1 failed"
}

# counter DEV NAME: /sys/block/<dev>/aioloop/NAME
counter() {
	cat "$SYSBLK/${1##*/}/aioloop/$2"
}

# loopattr DEV NAME: /sys/block/<dev>/loop/NAME
loopattr() {
	cat "$SYSBLK/${1##*/}/loop/$2"
}

show_counters() {
	for _c in mode sync_reason aio_submitted aio_direct aio_inline \
		aio_queued nowait_eagain sync_ios flushes discards errors; do
		printf '  %-14s %s\n' "$_c" "$(counter "$1" "$_c" 2>&1)"
	done
}

# check_aio_counters DEV: with no I/O in flight, every submitted kaio
# request completed either inline or queued
check_aio_counters() {
	_s=$(counter "$1" aio_submitted)
	_i=$(counter "$1" aio_inline)
	_q=$(counter "$1" aio_queued)
	[ $((_i + _q)) -eq "$_s" ] ||
		fail "aio_inline $_i + aio_queued $_q != aio_submitted $_s"
}

# dev_size DEV: size in bytes
dev_size() {
	blockdev --getsize64 "$1"
}

# ---- data ------------------------------------------------------------------

# file_md5 FILE [OFFSET LEN]: md5 of a file (region), through the page cache
file_md5() {
	if [ $# -ge 3 ]; then
		dd if="$1" bs=1M skip="$2" count="$3" \
			iflag=skip_bytes,count_bytes status=none
	else
		cat "$1"
	fi | md5sum | cut -d' ' -f1
}

# dev_md5 DEV [OFFSET LEN]: md5 of a block device (region), O_DIRECT reads
dev_md5() {
	if [ $# -ge 3 ]; then
		dd if="$1" bs=1M skip="$2" count="$3" \
			iflag=direct,skip_bytes,count_bytes status=none
	else
		dd if="$1" bs=1M iflag=direct status=none
	fi | md5sum | cut -d' ' -f1
}

# zero_md5 LEN: md5 of LEN zero bytes
zero_md5() {
	head -c "$1" /dev/zero | md5sum | cut -d' ' -f1
}

# fill_random DEV|FILE [OFFSET LEN]: overwrite with random data (O_DIRECT
# for devices); the whole target if no region given
fill_random() {
	_of=seek_bytes
	[ -b "$1" ] && _of=$_of,direct
	if [ $# -ge 3 ]; then
		_off=$2 _len=$3
	else
		_off=0
		_len=$(dev_size "$1" 2>/dev/null || stat -c %s "$1")
	fi
	dd if=/dev/urandom of="$1" bs=1M seek="$_off" count="$_len" \
		iflag=fullblock,count_bytes oflag=$_of conv=notrunc status=none
}

# attach_inner DEV: ext4 on DEV, mounted at /mnt/d, and a device
# attached to a 48M file /mnt/d/inner in it; prints the new device (call
# it as inner=$(attach_inner DEV), so that a failure stops the test)
attach_inner() {
	expect_ok mkfs.ext4 -q -F "$1"
	mkdir -p /mnt/d
	expect_ok mount -t ext4 "$1" /mnt/d
	mkfile /mnt/d/inner 48M
	attach /mnt/d/inner
}

# mkfile PATH SIZE: sparse file
mkfile() {
	rm -f "$1"
	truncate -s "$2" "$1"
}

# fio_verify DEV [SIZE [MINBS]]: crc32c-verified random writes with mixed
# block sizes from 512 bytes (or MINBS: 4k) to 1 MiB (or $BSSPLIT),
# $NUMJOBS jobs (default 2) at queue depth $IODEPTH (default 32) on
# disjoint SIZE regions (default 32m each)
fio_verify() {
	_out=/tmp/fio-verify.$$
	case "${3:-512}" in
	512) _bs=512/15:4k/30:16k/20:64k/15:256k/10:1m/10 ;;
	4k) _bs=4k/45:16k/20:64k/15:256k/10:1m/10 ;;
	*) fail "fio_verify: MINBS is 512 or 4k" ;;
	esac
	if ! DEV=$1 SIZE=${2:-32m} BSSPLIT=${BSSPLIT:-$_bs} BA=${3:-512} \
		NUMJOBS=${NUMJOBS:-2} IODEPTH=${IODEPTH:-32} \
		fio --eta=never --output="$_out" /tests/fio/verify.fio; then
		grep -v '^fio: io_u error' "$_out" | head -60
		grep '^fio: io_u error' "$_out" | head -5
		fail "fio verify on $1 failed"
	fi
	grep -E 'err=|WRITE:|READ:' "$_out" | sed 's/^ */  /'
	rm -f "$_out"
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# kmemleak_check: fail if a kmemleak scan (kernels with kmemleak) finds
# an unreferenced object allocated by aioloop; only objects older than
# 5 s are reported, so this waits 6 s first
kmemleak_check() {
	_kml=/sys/kernel/debug/kmemleak
	[ -w $_kml ] || return 0
	sleep 6
	_t0=$(cut -d. -f1 /proc/uptime)
	echo scan >$_kml
	log "kmemleak scan: $(($(cut -d. -f1 /proc/uptime) - _t0))s"
	grep -q . $_kml || return 0
	log "$(grep -c 'unreferenced object' $_kml) unreferenced object(s) in all"
	if awk '/^unreferenced object/ { if (o ~ /aioloop|kaio/) print o; o = "" }
		{ o = o $0 "\n" } END { if (o ~ /aioloop|kaio/) print o }' $_kml |
		tee /tmp/aiotest-leaks | grep -q .; then
		cat /tmp/aiotest-leaks
		fail "objects allocated by aioloop leaked"
	fi
}

# ---- scratch filesystems -----------------------------------------------------

free_scratch_dev() {
	for _d in $SCRATCH_DEVS; do
		grep -q "^$_d " /proc/mounts || {
			echo "$_d"
			return 0
		}
	done
	fail "no free scratch disk"
}

# mkscratch ext4|xfs|btrfs|tmpfs DIR: fresh filesystem mounted on DIR
mkscratch() {
	mkdir -p "$2"
	case "$1" in
	tmpfs)
		mount -t tmpfs -o size=1g tmpfs "$2"
		return
		;;
	esac
	_dev=$(free_scratch_dev)
	case "$1" in
	ext4)
		mkfs.ext4 -q -F -E nodiscard "$_dev"
		mount -t ext4 -o noinit_itable "$_dev" "$2"
		;;
	xfs)
		mkfs.xfs -q -f -K "$_dev"
		mount -t xfs "$_dev" "$2"
		;;
	btrfs)
		command -v mkfs.btrfs >/dev/null || skip "no mkfs.btrfs"
		modprobe btrfs
		mkfs.btrfs -q -f -K "$_dev" >/dev/null
		mount -t btrfs "$_dev" "$2"
		;;
	*)
		fail "mkscratch: unknown filesystem $1"
		;;
	esac
}

# ---- between tests ---------------------------------------------------------

umount_all() {
	awk '$2 ~ /^\/mnt\// { print $2 }' /proc/mounts | sort -r |
	while read -r _m; do
		umount "$_m" 2>/dev/null || true
	done
}

# Undo what a test may have left behind: swap, offline CPUs, cgroups, mounts
# under /mnt, aioloop devices, the aioloop module, other test block
# devices. Fails when something could not be undone.
aiotest_cleanup() {
	_rc=0
	# swap a test left on keeps its device busy; an offline CPU slows
	# every later test
	swapoff -a 2>/dev/null || true
	for _c in /sys/devices/system/cpu/cpu*/online; do
		[ "$(cat "$_c" 2>/dev/null)" = 0 ] && echo 1 >"$_c"
	done
	for _pass in 1 2 3; do
		umount_all
		if [ -d /sys/module/aioloop ]; then
			if command -v aioloop-setup >/dev/null; then
				aioloop-setup detach-all >/dev/null 2>&1 || true
			elif [ -x "$LIOCTL" ]; then
				for _b in $SYSBLK/aioloop*/loop; do
					[ -d "$_b" ] || continue
					_b=${_b%/loop}
					"$LIOCTL" /dev/${_b##*/} clr-fd >/dev/null 2>&1 || true
				done
			fi
		fi
		dmsetup remove_all >/dev/null 2>&1 || true
		losetup -D >/dev/null 2>&1 || true
	done
	if awk '$2 ~ /^\/mnt\// { print; n++ } END { exit !n }' /proc/mounts; then
		echo "cleanup: filesystems still mounted"
		_rc=1
	fi
	if [ -d /sys/module/aioloop ]; then
		for _i in 1 2 3 4 5 6 7 8 9 10; do
			rmmod aioloop 2>/dev/null && break
			sleep 1
		done
		if [ -d /sys/module/aioloop ]; then
			echo "cleanup: cannot unload aioloop:"
			grep -H . $SYSBLK/aioloop*/loop/backing_file 2>/dev/null || true
			_rc=1
		fi
	fi
	# a test's cgroup (its processes have exited by now)
	for _g in /sys/fs/cgroup/aiotest*; do
		[ -d "$_g" ] && rmdir "$_g" 2>/dev/null
	done
	for _m in scsi_debug null_blk brd dm_flakey dm_delay loop; do
		[ -d /sys/module/$_m ] && rmmod $_m 2>/dev/null
	done
	[ $_rc -ne 0 ] || rm -rf /mnt/* /tmp/aiotest-* 2>/dev/null
	return $_rc
}

# aio_integrity FILE SIZE: attach FILE, assert aio mode, run fio_verify on
# SIZE bytes with the aio counters moving and no error, detach.  Leaves
# the md5 of the device's content in $AIO_MD5.
aio_integrity() {
	load_aioloop
	_dev=$(attach "$1")
	expect_eq backing_file "$(loopattr "$_dev" backing_file)" "$1"
	expect_eq mode "$(counter "$_dev" mode)" aio
	expect_eq "loop/dio" "$(loopattr "$_dev" dio)" 1

	_s0=$(counter "$_dev" aio_submitted)
	fio_verify "$_dev" "$2"
	_s1=$(counter "$_dev" aio_submitted)
	show_counters "$_dev"
	[ "$_s1" -gt "$_s0" ] || fail "aio_submitted did not grow ($_s0 -> $_s1)"
	expect_eq errors "$(counter "$_dev" errors)" 0
	check_aio_counters "$_dev"

	AIO_MD5=$(dev_md5 "$_dev")
	detach "$_dev"
}
