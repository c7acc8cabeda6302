# SPDX-License-Identifier: GPL-2.0
#
# cgroup v2 helpers for the io.max and writeback tests, sourced after
# /tests/lib.sh. The tests' cgroup is $CG/aiotest, with the io and
# memory controllers (both are needed for cgroup writeback); limits are
# set on the disk under the backing file system, $CG_DISK (MAJ:MIN).

CG=/sys/fs/cgroup
CGT=$CG/aiotest
CG_DISK=

# cg_setup MOUNTPOINT: cgroup v2 with io and memory; CG_DISK is the disk
# MOUNTPOINT's file system is on
cg_setup() {
	awk -v m=$CG '$2 == m && $3 == "cgroup2" { f = 1 } END { exit !f }' \
		/proc/mounts || mount -t cgroup2 none $CG || skip "no cgroup v2"
	for _c in io memory; do
		grep -qw $_c $CG/cgroup.controllers || skip "no $_c controller"
	done
	echo "+io +memory" >$CG/cgroup.subtree_control
	mkdir -p $CGT
	_d=$(awk -v m="$1" '$2 == m { print $1 }' /proc/mounts)
	[ -b "$_d" ] || fail "cg_setup: $1 is not on a block device"
	CG_DISK=$(cat "$SYSBLK/${_d##*/}/dev")
}

# cg_limit KEY=VALUE...: io.max of the test cgroup on CG_DISK ("max"
# values lift a limit)
cg_limit() {
	echo "$CG_DISK $*" >$CGT/io.max || fail "io.max '$*' refused"
}

# cg_stat FIELD: the test cgroup's io.stat FIELD (rbytes, wbytes, rios,
# wios) on CG_DISK, 0 before any I/O
cg_stat() {
	awk -v d="$CG_DISK" -v f="$1" '$1 == d {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == f) v = kv[2]
		}
	} END { print v + 0 }' $CGT/io.stat
}

# cg_run CMD...: run CMD inside the test cgroup
cg_run() {
	sh -c 'echo $$ >'"$CGT"'/cgroup.procs && exec "$@"' sh "$@"
}

# now_ms: uptime in milliseconds (10 ms resolution)
now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# expect_limited WHAT FIELD BEFORE AMOUNT MS LIMIT: AMOUNT (bytes or
# I/Os) went through the device in MS milliseconds under the LIMIT per
# second on io.stat FIELD, which was BEFORE: the device went no faster
# than the limit allows (20% slack), the cgroup was charged at least 90%
# of AMOUNT on the disk, and the disk went no faster than the limit,
# within 20% (buffered paths read ahead, so the disk may see more than
# the device). A disk slower than the limit is logged, not failed: a
# KASAN kernel under TCG cannot reach 4 MiB/s even through stock loop
expect_limited() {
	_dev=$(($4 * 1000 / $5))
	_got=$(($(cg_stat "$2") - $3))
	_disk=$((_got * 1000 / $5))
	log "$1: device $_dev/s, disk $_disk/s ($_got in ${5}ms), limit $6/s"
	[ "$_dev" -le $(($6 * 12 / 10)) ] ||
		fail "$1: $_dev/s through the device, limit $6/s"
	if [ "$_got" -lt $(($4 * 9 / 10)) ]; then
		log "$1: io.stat on $CG_DISK: root: $(grep "^$CG_DISK " \
			$CG/io.stat); test cgroup: $(grep "^$CG_DISK " $CGT/io.stat)"
		fail "$1: io.stat $2 grew by $_got, expected about $4"
	fi
	[ "$_disk" -le $(($6 * 12 / 10)) ] ||
		fail "$1: disk at $_disk/s, above the limit $6/s by over 20%"
	[ "$_disk" -ge $(($6 * 8 / 10)) ] ||
		log "$1: the disk stayed under the limit (a slow machine)"
}

# cg_drivers FUNC IMAGE IO...: FUNC NAME DEV on IMAGE attached to stock
# loop with each losetup --direct-io=IO (on: "loop-dio", off: "loop"),
# then to aioloop with its defaults, with direct_submit=N and in sync
# mode (direct_io=N); needs losetup_bin (helpers/chain.sh)
cg_drivers() {
	_cgd_fn=$1 _cgd_img=$2
	shift 2
	modprobe loop || fail "modprobe loop failed"
	for _cgd_io in "$@"; do
		_cgd_dev=$($(losetup_bin) --direct-io="$_cgd_io" -f --show \
			"$_cgd_img") || fail "losetup --direct-io=$_cgd_io failed"
		case $_cgd_io in
		on) $_cgd_fn loop-dio "$_cgd_dev" ;;
		*) $_cgd_fn loop "$_cgd_dev" ;;
		esac
		$(losetup_bin) -d "$_cgd_dev"
	done
	for _cgd_p in "" direct_submit=N direct_io=N; do
		load_aioloop $_cgd_p
		_cgd_dev=$(attach "$_cgd_img")
		$_cgd_fn "aioloop ${_cgd_p:-defaults}" "$_cgd_dev"
		expect_eq errors "$(counter "$_cgd_dev" errors)" 0
		detach "$_cgd_dev"
		unload_aioloop
	done
}

# cg_stacked FUNC IMAGE MB: FUNC "aioloop on aioloop" DEV on a device
# whose MB MiB image (random data) is on ext4 on another aioloop device
# over IMAGE; the cgroup formats the lower device and writes the upper
# image, so both are its own
cg_stacked() {
	load_aioloop
	_cgs_low=$(attach "$2")
	cg_run mkfs.ext4 -q -F -E nodiscard "$_cgs_low" ||
		fail "mkfs.ext4 on $_cgs_low failed"
	mkdir -p /mnt/low
	mount "$_cgs_low" /mnt/low || fail "mount $_cgs_low failed"
	cg_run fallocate -l $(($3 * 1048576)) /mnt/low/img ||
		fail "fallocate on $_cgs_low failed"
	cg_run dd if=/dev/urandom of=/mnt/low/img bs=1M count="$3" \
		conv=notrunc,fsync status=none ||
		fail "filling the upper image failed"
	_cgs_top=$(attach /mnt/low/img)
	$1 "aioloop on aioloop" "$_cgs_top"
	expect_eq "upper errors" "$(counter "$_cgs_top" errors)" 0
	expect_eq "lower errors" "$(counter "$_cgs_low" errors)" 0
	detach "$_cgs_top"
	umount /mnt/low
	detach "$_cgs_low"
	unload_aioloop
}

# cg_teardown: remove the test cgroup (its processes have exited)
cg_teardown() {
	[ -d $CGT ] && rmdir $CGT
	return 0
}
