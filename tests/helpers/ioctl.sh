# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the ioctl tests, sourced after /tests/lib.sh.

# lok ARGS...: "lioctl ARGS" must print "OK <ret>"; prints <ret>
lok() {
	_o=$(lioctl "$@" 2>&1) || fail "lioctl $*: expected OK, got '$_o'"
	case "$_o" in
	"OK "*) echo "$_o" | sed -n '1s/^OK //p' ;;
	*) fail "lioctl $*: expected OK, got '$_o'" ;;
	esac
}

# lstatus DEV FIELD: FIELD (offset, sizelimit, flags, file, ...) of
# LOOP_GET_STATUS64 on DEV
lstatus() {
	_o=$(lioctl "$1" get-status64 2>&1) ||
		fail "lioctl $1 get-status64: '$_o'"
	echo "$_o" | sed -n "s/^$2=//p"
}

# bound DEV: DEV has a backing file (sysfs loop/ directory present)
bound() {
	[ -e "$SYSBLK/${1##*/}/loop/backing_file" ]
}

# want_errno ERRNAME CMD...: like expect_errno, but a mismatch is counted
# and reported, and the test goes on; errno_summary fails the test if any
# check failed
_errno_bad=0
want_errno() {
	_want=$1
	shift
	_out=$("$@" 2>&1) || true
	case "$_out" in
	*"ERR $_want"*) ;;
	*)
		echo "FAIL: '$*': expected ERR $_want, got '$_out'" >&2
		_errno_bad=$((_errno_bad + 1))
		;;
	esac
}

errno_summary() {
	[ "$_errno_bad" = 0 ] || fail "$_errno_bad errno check(s) failed"
}
