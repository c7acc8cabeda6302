#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/006, "change the backing file while another device is
# attached to and detached from this one": LOOP_CHANGE_FD switches a
# read-only device between two files while a second device of the same
# driver is attached to the first and detached, in a loop, for 15 s.
# Both loops must keep succeeding (no failed CHANGE_FD, no failed attach
# or detach), and the first device ends bound to one of the two files.
# what: LOOP_CHANGE_FD racing a device stacked on it
. /tests/lib.sh
. /tests/helpers/peer.sh

mkscratch ext4 /mnt/s
mkfile /mnt/s/file0 1M
mkfile /mnt/s/file1 1M
SECS=15

peer_case() {
	dev=$(peer_attach -r /mnt/s/file0)
	top=$(peer_free)
	[ "$top" != "$dev" ] || fail "no second free device"
	rm -f /tmp/aiotest-peer-stop
	# switcher: CHANGE_FD file1, file0, file1, ...
	(
		n=0 i=1
		while [ ! -e /tmp/aiotest-peer-stop ]; do
			o=$($LIOCTL $dev change-fd /mnt/s/file$i 2>&1 || true)
			[ "$o" = "OK 0" ] || { echo "change-fd: $o"; break; }
			i=$(((i + 1) % 2)) n=$((n + 1))
		done
		echo $n >/tmp/aiotest-peer-switch.n
	) >/tmp/aiotest-peer-switch.out 2>&1 &
	# setter: attach the second device to the first, detach it
	(
		n=0
		while [ ! -e /tmp/aiotest-peer-stop ]; do
			peer_losetup -r $top $dev 2>&1 || { echo "attach failed"; break; }
			o=$($LIOCTL $top clr-fd 2>&1 || true)
			[ "$o" = "OK 0" ] || { echo "clr-fd: $o"; break; }
			n=$((n + 1))
		done
		echo $n >/tmp/aiotest-peer-set.n
	) >/tmp/aiotest-peer-set.out 2>&1 &
	sleep $SECS
	touch /tmp/aiotest-peer-stop
	wait
	log "$P: $(cat /tmp/aiotest-peer-switch.n) CHANGE_FDs, $(cat \
		/tmp/aiotest-peer-set.n) attaches of a device stacked on it"
	cat /tmp/aiotest-peer-switch.out /tmp/aiotest-peer-set.out
	! grep -q . /tmp/aiotest-peer-switch.out /tmp/aiotest-peer-set.out ||
		fail "a loop stopped on an error"
	[ "$(cat /tmp/aiotest-peer-switch.n)" -ge 10 ] || fail "too few CHANGE_FDs"
	[ "$(cat /tmp/aiotest-peer-set.n)" -ge 10 ] || fail "too few attaches"
	peer_say "both loops ran for ${SECS}s without an error"
	case $(peer_sys $dev loop/backing_file) in
	/mnt/s/file0|/mnt/s/file1) peer_say "bound to one of the two files" ;;
	*) fail "backing_file: $(peer_sys $dev loop/backing_file)" ;;
	esac
	[ ! -e $(peer_sys $top)/loop/backing_file ] || fail "$top still bound"
	peer_detach $dev
}
peer_run blktests/loop/006
