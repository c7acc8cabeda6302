# SPDX-License-Identifier: GPL-2.0
#
# Ports of the loop driver's own test suites (blktests tests/loop, LTP
# ioctl_loop01..07), sourced by tests/cases/peer_*.sh after /tests/lib.sh
# and ioctl.sh.
#
# A case is one shell function, peer_case, written once against the
# driver-neutral helpers below ($P is the driver: loop or aioloop).
# peer_run runs it on stock loop (/dev/loopN) first and then on aioloop
# (/dev/aioloopN), each in a subshell with the driver freshly loaded, and
# prints one line per driver for the README table (scripts/peer-table.sh):
#
#   PEER <kernel release> <case> <driver> PASS|FAIL|SKIP|KNOWN
#
# A case exits 77 (SKIP) where it does not apply, and on loop 76 (KNOWN)
# where stock loop fails it for a documented reason on this kernel (a
# fix the kernel lacks): that is reported, and only aioloop is held to
# the case.
#
# What a case reports with peer_say goes to a transcript per driver;
# device names are replaced by DEV, and the two transcripts must match.
# The test fails if either driver fails or the transcripts differ: a
# failure on loop means that the port or the guest is wrong, a failure
# on aioloop only is aioloop's. Where aioloop differs from loop on purpose
# (README, "Where aioloop differs from loop"), the case asserts each
# driver's documented behaviour and reports the common part.

. /tests/helpers/ioctl.sh
. /tests/helpers/chain.sh

P=
PEER_CASE=
PEER_OUT=/tmp/aiotest-peer.out

# peer_say TEXT...: one transcript line
peer_say() {
	echo "$*" | sed "s|/dev/${P}[0-9][0-9]*|DEV|g; s|${P}[0-9][0-9]*|DEV|g" |
		tee -a "$PEER_OUT"
}

# peer_losetup ARGS...: util-linux losetup (busybox has its own)
peer_losetup() {
	"$(losetup_bin)" "$@"
}

# peer_free: a free device, from LOOP_CTL_GET_FREE on the control node
peer_free() {
	_pn=$(lok /dev/$P-control ctl-get-free)
	echo /dev/$P$_pn
}

# peer_attach [LOSETUP OPTIONS] FILE: util-linux losetup attaches FILE to
# a free device with the options given (it does this on both drivers);
# prints the device
peer_attach() {
	_pd=$(peer_free)
	peer_losetup "$_pd" "$@" >&2 || fail "losetup $_pd $* failed"
	echo "$_pd"
}

# peer_detach DEV: LOOP_CLR_FD, what losetup -d issues (util-linux
# losetup refuses -d on aioloop devices, see README)
peer_detach() {
	lok "$1" clr-fd >/dev/null
}

# peer_sys DEV [ATTR]: the device's sysfs directory, or one attribute
peer_sys() {
	_ps=$SYSBLK/${1##*/}
	if [ $# -ge 2 ]; then
		cat "$_ps/$2"
	else
		echo "$_ps"
	fi
}

# peer_flags DEV: lo_flags of LOOP_GET_STATUS64 without LO_FLAGS_DIRECT_IO
# (16), which aioloop sets whenever it runs in aio mode (documented) and
# loop only when asked; peer_dio_flag_ok checks that flag per driver
peer_flags() {
	echo $(($(lstatus "$1" flags) & ~16))
}

# peer_flags32 DEV: the same from LOOP_GET_STATUS (struct loop_info)
peer_flags32() {
	_po=$(lioctl "$1" get-status 2>&1) || fail "get-status: $_po"
	echo $(($(echo "$_po" | sed -n 's/^flags=//p') & ~16))
}

# peer_dio_flag_ok DEV: LO_FLAGS_DIRECT_IO and loop/dio as documented:
# on aioloop they report aio mode; on loop (not asked for direct I/O here)
# they are clear
peer_dio_flag_ok() {
	_pf=$(($(lstatus "$1" flags) & 16))
	_pdio=$(peer_sys "$1" loop/dio)
	if [ $P = aioloop ] && [ "$(counter "$1" mode)" = aio ]; then
		[ $_pf = 16 ] && [ "$_pdio" = 1 ] ||
			fail "aioloop in aio mode: LO_FLAGS_DIRECT_IO $_pf, dio $_pdio"
	else
		[ $_pf = 0 ] && [ "$_pdio" = 0 ] ||
			fail "$P: LO_FLAGS_DIRECT_IO $_pf, dio $_pdio without direct I/O"
	fi
}

# kver_ge A B C: the running kernel is at least A.B.C
kver_ge() {
	set -- "$@" $(uname -r | sed 's/[^0-9.].*//; s/\./ /g')
	[ $(($4 * 1000000 + $5 * 1000 + ${6:-0})) -ge \
		$(($1 * 1000000 + $2 * 1000 + $3)) ]
}

# peer_cleanup: detach every device of the driver under test, unload it
# (a case mounts what it puts on the device at /mnt/top)
peer_cleanup() {
	umount /mnt/top 2>/dev/null || true
	for _pb in $SYSBLK/$P*/loop; do
		[ -d "$_pb" ] || continue
		_pb=${_pb%/loop}
		"$LIOCTL" /dev/${_pb##*/} clr-fd >/dev/null 2>&1 || true
	done
	sleep 1
	rmmod $P 2>/dev/null || true
}

# peer_run CASE: run peer_case on loop, then on aioloop
peer_run() {
	PEER_CASE=$1
	_prel=$(uname -r)
	_pbad=
	for P in loop aioloop; do
		rm -f "$PEER_OUT"
		echo "== $PEER_CASE on $P"
		if [ $P = loop ]; then
			modprobe loop || fail "modprobe loop failed"
		else
			load_aioloop
		fi
		set +e
		(set -e; peer_case)
		_prc=$?
		set -e
		peer_cleanup
		case $_prc in
		0) _pst=PASS ;;
		77) _pst=SKIP ;;
		76) [ $P = loop ] && _pst=KNOWN || _pst=FAIL _pbad="$_pbad $P" ;;
		*) _pst=FAIL _pbad="$_pbad $P" ;;
		esac
		echo "PEER $_prel $PEER_CASE $P $_pst"
		[ $P = loop ] && _ploop=$_pst
		[ -e "$PEER_OUT" ] || : >"$PEER_OUT"
		mv "$PEER_OUT" "/tmp/aiotest-peer-$P.out"
	done
	[ -z "$_pbad" ] || fail "$PEER_CASE failed on:$_pbad"
	[ "$_pst" != SKIP ] || skip "$PEER_CASE does not apply to aioloop here"
	# a case that does not apply to loop on this kernel has no reference
	[ "$_ploop" = PASS ] || return 0
	diff -u /tmp/aiotest-peer-loop.out /tmp/aiotest-peer-aioloop.out ||
		fail "$PEER_CASE: loop and aioloop differ (transcripts above)"
}
