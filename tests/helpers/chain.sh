# SPDX-License-Identifier: GPL-2.0
#
# Chains of file-backed block devices, sourced by tests/cases/stack_*.sh
# after /tests/lib.sh:
#
#   brd (1 GiB) -> ext4 -> 700 MiB file -> dev 1 -> ext4 -> 450 MiB file
#   -> dev 2 [-> ext4 -> 200 MiB file -> dev 3]
#
# Each level's backing file is fallocated (unwritten extents: every first
# write converts them, in ext4's own workers) on an ext4 with lazy inode
# table init running (write zeroes on every level below), and attached
# with util-linux losetup: stock loop with --direct-io=on, or
# /dev/aioloopN. On the top device: fio verify (1 and 4 jobs at QD32, 4
# jobs of small writes at QD128), then an ext4 with fsync after every few
# writes and an fstrim (discards through every level), fsck clean on
# every level on the way down.

CHAIN_SIZES="700M 450M 200M"
CHAIN_DEVS=
CHAIN_DRIVER=
CHAIN_MODE=aio

# losetup_bin: util-linux losetup (not busybox's)
losetup_bin() {
	for _l in /usr/sbin/losetup /sbin/losetup /usr/bin/losetup; do
		[ -x $_l ] && ! [ -L $_l ] && { echo $_l; return; }
	done
	command -v losetup
}

# chain_attach DRIVER LEVEL FILE: attach FILE, print the device
chain_attach() {
	_lo=$(losetup_bin)
	case $1 in
	loop)
		$_lo --direct-io=on -f --show "$3" ||
			fail "losetup --direct-io=on $3 failed"
		;;
	aioloop)
		$_lo /dev/aioloop$(($2 - 1)) "$3" ||
			fail "losetup /dev/aioloop$(($2 - 1)) $3 failed"
		echo /dev/aioloop$(($2 - 1))
		;;
	esac
}

# brd_builtin: brd is part of the kernel (the debug kernel), sized on the
# kernel command line (scripts/vm.sh)
brd_builtin() {
	[ -d /sys/module/brd ] && ! grep -q '^brd ' /proc/modules
}

# chain_up DRIVER DEPTH: build the chain, leave the top device in $TOP
chain_up() {
	CHAIN_DRIVER=$1 CHAIN_DEVS=
	brd_builtin || modprobe brd rd_nr=1 rd_size=1048576 ||
		fail "modprobe brd failed"
	[ "$(cat /sys/module/brd/parameters/rd_size)" -ge 1048576 ] ||
		fail "brd: /dev/ram0 is smaller than 1 GiB"
	[ "$1" = loop ] && { modprobe loop || fail "modprobe loop failed"; }
	_below=/dev/ram0
	_i=1
	for _sz in $CHAIN_SIZES; do
		[ $_i -le "$2" ] || break
		mkdir -p /mnt/c$_i
		expect_ok mkfs.ext4 -q -F -E nodiscard "$_below"
		expect_ok mount -t ext4 "$_below" /mnt/c$_i
		expect_ok fallocate -l "$_sz" /mnt/c$_i/img
		_below=$(chain_attach "$1" $_i /mnt/c$_i/img)
		[ -b "$_below" ] || fail "level $_i: no device"
		[ "$1" = aioloop ] && expect_eq "level $_i mode" \
			"$(counter "$_below" mode)" $CHAIN_MODE
		CHAIN_DEVS="$_below $CHAIN_DEVS"
		_i=$((_i + 1))
	done
	TOP=$_below
	log "$1 chain of $2, top $TOP"
}

# chain_detach DEV
chain_detach() {
	if [ "$CHAIN_DRIVER" = loop ]; then
		$(losetup_bin) -d "$1" || fail "losetup -d $1 failed"
	else
		detach "$1"
	fi
}

# chain_down: detach every level from the top, fsck each ext4 below
chain_down() {
	_i=$(echo $CHAIN_DEVS | wc -w)
	for _d in $CHAIN_DEVS; do
		chain_detach "$_d"
		umount /mnt/c$_i || fail "umount /mnt/c$_i failed"
		_i=$((_i - 1))
	done
	expect_ok e2fsck -fn /dev/ram0 >/dev/null
	brd_builtin || rmmod brd || fail "rmmod brd failed"
}

# chain_fs_fsync DEV: ext4 on DEV, four writers that fsync every 4
# writes and verify, then fsck
chain_fs_fsync() {
	mkdir -p /mnt/top
	expect_ok mkfs.ext4 -q -F -E nodiscard "$1"
	expect_ok mount -t ext4 "$1" /mnt/top
	fio --eta=never --output=/tmp/aiotest-fsync.out --name=fsync \
		--directory=/mnt/top --ioengine=psync --rw=randwrite --bs=4k \
		--size=2m --numjobs=4 --fsync=4 --verify=crc32c \
		--verify_fatal=1 --group_reporting ||
		{ cat /tmp/aiotest-fsync.out; fail "fsync fio on $1 failed"; }
	grep -E 'err=|WRITE:' /tmp/aiotest-fsync.out | sed 's/^ */  /'
	rm -f /mnt/top/fsync.*
	expect_ok fstrim /mnt/top
	umount /mnt/top || fail "umount /mnt/top failed"
	expect_ok e2fsck -fn "$1" >/dev/null
}

# chain_round DRIVER DEPTH [MODULE OPTIONS]: one chain, the workloads on
# its top, down
chain_round() {
	_drv=$1 _depth=$2
	shift 2
	[ "$_drv" = aioloop ] && load_aioloop "$@"
	chain_up "$_drv" "$_depth"
	NUMJOBS=1 fio_verify "$TOP" 24m
	NUMJOBS=4 fio_verify "$TOP" 8m
	# 512 small writes in flight into fresh blocks: each one needs the
	# backing inode's lock and waits for the level below, which has to
	# convert fresh blocks too
	NUMJOBS=4 IODEPTH=128 BSSPLIT=512/50:4k/50 fio_verify "$TOP" 2m
	chain_fs_fsync "$TOP"
	chain_down
	[ "$_drv" = aioloop ] && unload_aioloop
	:
}

# cpu1_online 0|1: take the second vCPU away or give it back (a
# one-CPU guest, where shared workers run out soonest)
cpu1_online() {
	_f=/sys/devices/system/cpu/cpu1/online
	[ -w $_f ] || fail "cannot take cpu1 offline"
	echo "$1" >$_f || fail "cpu1 online=$1 failed"
}

# chain_test DEPTH ROUNDS: the chain on stock loop, then ROUNDS times on
# aioloop with its defaults, once with direct_submit=N (every read and
# write through the per-CPU workers), once in sync mode (direct_io=N),
# and on both drivers once more with one CPU online. On the debug kernel
# (KASAN, lockdep: several times slower) each aioloop path runs once and
# stock loop not at all. The test's time limit bounds a hang; a stall of
# the kernel fails it through the harness's dmesg check (hung_task at
# 30 s here).
chain_test() {
	_rounds=$2 _peer=loop
	case $(uname -r) in
	*debug*) _rounds=1 _peer= ;;
	esac
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || true
	[ -n "$_peer" ] && chain_round $_peer "$1"
	_r=1
	while [ $_r -le $_rounds ]; do
		log "aioloop round $_r of $_rounds"
		chain_round aioloop "$1"
		_r=$((_r + 1))
	done
	log "aioloop, direct_submit=N"
	chain_round aioloop "$1" direct_submit=N
	log "aioloop, sync mode"
	CHAIN_MODE=sync
	chain_round aioloop "$1" direct_io=N
	CHAIN_MODE=aio
	log "one CPU online"
	cpu1_online 0
	[ -n "$_peer" ] && chain_round $_peer "$1"
	chain_round aioloop "$1"
	cpu1_online 1
}
