#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LOOP_CHANGE_FD back and forth between two backing files of the same
# size and content (one on ext4: aio mode, one on tmpfs: sync mode) of a
# read-only device, 20 times, while fio reads and verifies it (crc32c
# headers, queue depth 32): every switch succeeds and every read verifies.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
. /tests/helpers/bg.sh
need_setup
M=1048576
mkscratch ext4 /mnt/s
mkscratch tmpfs /mnt/t
VERIFY="--bs=4k --verify=crc32c --size=16m"
# shellcheck disable=SC2086
fio --name=fill --filename=/mnt/s/a --rw=write --ioengine=psync $VERIFY \
	--do_verify=0 --eta=never --output=/dev/null || fail "fio fill failed"
cp /mnt/s/a /mnt/t/b
cmp /mnt/s/a /mnt/t/b || fail "copies differ"
sync
load_aioloop
dev=$(attach --read-only /mnt/s/a)
expect_eq mode "$(counter "$dev" mode)" aio

# readers: read-only verifying fio runs, one after the other
readers() {
	_i=0
	while [ ! -e /tmp/aiotest-stop ]; do
		# shellcheck disable=SC2086
		timeout -k 10 120 fio --name=rd --filename="$dev" \
			--ioengine=libaio --direct=1 --iodepth=32 --rw=randread \
			$VERIFY --verify_fatal=1 --eta=never \
			--output=/tmp/aiotest-fio.$_i || {
			cat /tmp/aiotest-fio.$_i
			echo "fio run $_i failed"
			return 1
		}
		_i=$((_i + 1))
	done
	echo "$_i verifying fio runs"
}
rm -f /tmp/aiotest-stop
bg_start rd readers
io_started "$dev"
n=0 modes=
# a fixed number of switches, each one under running readers
while [ $n -lt 20 ]; do
	for f in /mnt/t/b /mnt/s/a; do
		bg_running rd || break 2
		lok "$dev" change-fd ro:$f >/dev/null
		expect_eq "backing_file" "$(loopattr "$dev" backing_file)" $f
		m=$(counter "$dev" mode)
		case " $modes " in *" $m "*) ;; *) modes="$modes $m" ;; esac
		n=$((n + 1))
		sleep 0.1
	done
done
touch /tmp/aiotest-stop
bg_expect_ok rd 200
log "$n switches, modes:$modes; $(bg_out rd | tail -1)"
[ $n -eq 20 ] || fail "readers stopped after $n switches"
case "$modes" in *aio*sync* | *sync*aio*) ;; *) fail "modes seen:$modes" ;; esac
expect_eq errors "$(counter "$dev" errors)" 0
expect_eq "device vs file" "$(dev_md5 "$dev")" "$(file_md5 /mnt/s/a)"
detach "$dev"
