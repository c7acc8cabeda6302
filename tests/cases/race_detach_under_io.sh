#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LOOP_CLR_FD while I/O runs. With fio (queue depth 32) holding the device
# open it returns 0 and sets autoclear: fio goes on without an error and
# the device detaches when fio closes it. With short-lived readers opening
# and closing the device all the time, it detaches for real while they
# come and go: they see errors at worst, nothing hangs. Afterwards the
# device attaches again, works, and the module unloads.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
. /tests/helpers/bg.sh
need_setup
M=1048576
mkscratch ext4 /mnt/s
fill_random /mnt/s/img 0 $((32 * M))
load_aioloop
dev=/dev/aioloop0

# 1. fio holds the device open: autoclear (fio runs long enough to be
# still running at the checks on a slow debug kernel)
for round in 1 2 3; do
	attach_when_free /mnt/s/img $dev >/dev/null
	bg_start fio timeout -k 10 90 fio --name=clr --filename=$dev \
		--ioengine=libaio --direct=1 --iodepth=32 --rw=randrw --bs=4k \
		--size=32m --time_based --runtime=10 --eta=never
	io_started $dev
	sleep 0.5
	bg_running fio || { bg_out fio; fail "fio ended early"; }
	lok $dev clr-fd >/dev/null
	bound $dev || fail "round $round: detached under fio's feet"
	expect_eq "autoclear" "$(loopattr $dev autoclear)" 1
	rc=$(bg_wait fio 120)
	[ "$rc" = 0 ] || { bg_out fio | tail; fail "round $round: fio failed ($rc)"; }
	i=0
	while bound $dev && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	! bound $dev || fail "round $round: still bound after fio closed it"
done
log "autoclear under fio: 3 rounds"

# 2. readers opening and closing the device while it is detached
reader() {
	_end=$(($(cut -d. -f1 /proc/uptime) + $1))
	_ok=0 _err=0
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $_end ]; do
		if dd if=$dev of=/dev/null bs=4k count=64 iflag=direct \
			status=none 2>/dev/null; then
			_ok=$((_ok + 1))
		else
			_err=$((_err + 1))
		fi
	done
	echo "reads ok $_ok failed $_err"
}
detaches=0 autoclears=0 direct=0
for round in 1 2 3 4; do
	attach_when_free /mnt/s/img $dev >/dev/null
	bg_start r1 reader 2
	bg_start r2 reader 2
	sleep 0.5
	out=$(lioctl $dev clr-fd 2>&1) || true
	expect_eq "round $round: LOOP_CLR_FD" "$out" "OK 0"
	if bound $dev; then
		autoclears=$((autoclears + 1))
	else
		direct=$((direct + 1))
	fi
	# the autoclear case waits for a reader's close
	i=0
	while bound $dev && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	! bound $dev || fail "round $round: still bound"
	detaches=$((detaches + 1))
	bg_expect_ok r1 60
	bg_expect_ok r2 60
	log "round $round: $(bg_out r1), $(bg_out r2)"
done
log "$detaches detaches under readers: $direct at once, $autoclears at a reader's last close"

# the device is fine afterwards
dev=$(attach_when_free /mnt/s/img $dev)
expect_eq "device vs file" "$(dev_md5 $dev)" "$(file_md5 /mnt/s/img)"
fio_verify $dev 4m
detach $dev
unload_aioloop
