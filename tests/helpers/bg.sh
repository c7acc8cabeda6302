# SPDX-License-Identifier: GPL-2.0
#
# Background jobs for the fault and race tests, sourced after
# /tests/lib.sh. A job's output goes to /tmp/aiotest-NAME.out and its exit
# status to /tmp/aiotest-NAME.rc when it ends (aiotest_cleanup removes
# them).

# bg_start NAME CMD...: run CMD in the background
bg_start() {
	_bn=$1
	shift
	rm -f "/tmp/aiotest-$_bn.rc" "/tmp/aiotest-$_bn.out"
	(
		set +e
		"$@" >"/tmp/aiotest-$_bn.out" 2>&1
		echo $? >"/tmp/aiotest-$_bn.rc"
	) &
}

# bg_running NAME: the job has not ended yet
bg_running() {
	[ ! -e "/tmp/aiotest-$1.rc" ]
}

# bg_wait NAME SECS: wait up to SECS seconds for the job to end, print its
# exit status; fails the test if it did not end
bg_wait() {
	_bt=$(($2 * 5))
	while bg_running "$1"; do
		_bt=$((_bt - 1))
		if [ "$_bt" -le 0 ]; then
			echo "--- $1 output:" >&2
			tail -20 "/tmp/aiotest-$1.out" >&2
			fail "$1 did not finish within $2s"
		fi
		sleep 0.2
	done
	cat "/tmp/aiotest-$1.rc"
}

# bg_out NAME: the job's output
bg_out() {
	cat "/tmp/aiotest-$1.out"
}

# bg_expect_ok NAME SECS: wait for the job; it must have succeeded
bg_expect_ok() {
	_brc=$(bg_wait "$1" "$2")
	if [ "$_brc" != 0 ]; then
		echo "--- $1 output:" >&2
		tail -40 "/tmp/aiotest-$1.out" >&2
		fail "$1 failed (exit $_brc)"
	fi
}

# fio_summary FILE: the lines of a fio output that matter
fio_summary() {
	grep -E 'err=|WRITE:|READ:|verify' "$1" | sed 's/^ */  /' | head -8
}

# no_kernel_problems: fail now if the kernel already logged a problem
no_kernel_problems() {
	if dmesg | grep -E 'BUG:|WARNING:|Oops|KASAN|general protection|Call Trace|hung_task|blocked for more than' >&2; then
		fail "kernel problem in dmesg"
	fi
}

# attach_when_free FILE DEV: attach, retrying for a few seconds while DEV
# is still being detached (EBUSY until the detach has finished)
attach_when_free() {
	for _ai in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		aioloop-setup attach "$1" "$2" 2>/dev/null && return 0
		sleep 0.25
	done
	attach "$1" "$2"
}

# fio options for crc32c-verified random writes of mixed block sizes (512
# bytes to 1 MiB) at queue depth 32, two jobs; add --name, --filename,
# --size and --offset_increment
FIO_VERIFY="--ioengine=libaio --direct=1 --iodepth=32 --numjobs=2
--rw=randwrite --bssplit=512/15:4k/30:16k/20:64k/15:256k/10:1m/10
--blockalign=512 --verify=crc32c --do_verify=1 --verify_fatal=1
--group_reporting --eta=never"

# io_started DEV: wait (up to 60s) until DEV has served I/O since attach,
# so that what follows races with I/O and not with fio's start-up
io_started() {
	_bw=300
	while [ $(($(counter "$1" aio_submitted) + $(counter "$1" sync_ios))) -eq 0 ]; do
		_bw=$((_bw - 1))
		[ $_bw -gt 0 ] || fail "no I/O reached $1"
		sleep 0.2
	done
}
