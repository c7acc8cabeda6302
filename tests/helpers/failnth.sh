# SPDX-License-Identifier: GPL-2.0
#
# Systematic allocation-failure tests of ioctls, sourced after
# /tests/lib.sh and /tests/helpers/ioctl.sh on a kernel with failslab:
# faults NAME ... runs one ioctl with each of its slab allocations
# failing in turn (/proc/thread-self/fail-nth, lioctl --fail-nth).

. /tests/helpers/failslab.sh
[ -e /proc/self/fail-nth ] || skip "kernel without fail-nth"
need_setup

# every slab allocation counts, sleeping ones too; no stack dumps
failslab_on() {
	echo N >$FS/ignore-gfp-wait
	echo 0 >$FS/verbose
}

MAXN=${FAILNTH_MAX:-400}
REF=/sys/module/aioloop/refcnt
points=0 injected=0 failed=0 errnos=

# faults NAME SETUP CHECK_OK CHECK_ERR UNDO -- DEV CMD ARGS...: for n = 1,
# 2, ... run SETUP, then the ioctl with its n-th fault point failing,
# then CHECK_OK or, if it failed, CHECK_ERR (shell functions: the state
# must be the new or the old one; they set $_why when it is not), then
# UNDO, and check that the module's reference count is $idle; until the
# ioctl passes fewer than n points.
faults() {
	_name=$1 _setup=$2 _ok=$3 _err=$4 _undo=$5
	shift 6
	_n=1
	while [ $_n -le $MAXN ]; do
		$_setup
		_o=$(lioctl --fail-nth $_n "$@" 2>&1) || true
		case "$_o" in
		"OK "*) $_ok || fail "$_name, fault $_n: succeeded, but $_why" ;;
		"ERR "*)
			$_err || fail "$_name, fault $_n: '$_o', but $_why"
			failed=$((failed + 1))
			_e=$(echo "$_o" | sed -n '1s/^ERR //p')
			case " $errnos " in *" $_e "*) ;; *) errnos="$errnos $_e" ;; esac
			;;
		*) fail "$_name, fault $_n: '$_o'" ;;
		esac
		case "$_o" in
		*"FAULT injected"*) injected=$((injected + 1)) ;;
		*"FAULT none"*) break ;;
		*) fail "$_name, fault $_n: no FAULT line in '$_o'" ;;
		esac
		$_undo
		expect_eq "$_name, fault $_n: refcnt" "$(cat $REF)" "$idle"
		_n=$((_n + 1))
	done
	[ $_n -le $MAXN ] || fail "$_name: more than $MAXN fault points"
	$_undo
	log "$_name: $((_n - 1)) fault points"
	points=$((points + _n - 1))
}

faults_summary() {
	log "$points fault points, $injected faults injected," \
		"$failed ioctls failed (${errnos# })"
	[ "$injected" -gt 0 ] || fail "no fault injected"
	failslab_reset
}

nop() { :; }
