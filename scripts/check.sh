#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the whole suite (scripts/check-kernel.sh) on the kernel
# KVER selects (Debian's 6.1 by default) and, when KVER is not given and
# Debian's 6.12 is installed, a smoke subset on 6.12 too, built from a
# copy of the tree in $BUILD/k6.12. Prints every test's PASS/FAIL line
# (6.12 ones as "6.12:name") and one final "N passed, M failed" line;
# exits non-zero if anything failed.
#
# Then, unless KVER or KERNEL is given, a subset on the debug kernel
# (scripts/build-debug-kernel.sh: KASAN, lockdep, kmemleak, failslab;
# built once, about 11 minutes on two idle cores), lines "debug:name".
#
#   ONLY=a,b     only these tests (and no 6.12 or debug part unless
#                SMOKE_612=1 or DEBUG_SMOKE=1)
#   SMOKE_612=0  no 6.12 part; SMOKE_612_TESTS=a,b another subset
#   DEBUG_SMOKE=0  no debug part; DEBUG_SMOKE_TESTS=a,b another subset
set -uo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
export BUILD
mkdir -p "$BUILD"

SMOKE_612_TESTS=${SMOKE_612_TESTS:-module_load_unload,integrity_ext4,integrity_xfs,integrity_tmpfs,ioctl_errnos,tool_attach_detach_list,aiolosetup_matches_losetup,discard_punches_holes,flush_reaches_backing,race_detach_under_io,stack_chain_2,stack_chain_3,cgroup_writeback,handoff_deep_queue,stack_depth_chain_3,swap_little_memory,peer_blktests_loop_001,peer_blktests_loop_002,peer_blktests_loop_003,peer_blktests_loop_004,peer_blktests_loop_005,peer_blktests_loop_006,peer_blktests_loop_007,peer_blktests_loop_008,peer_blktests_loop_009,peer_blktests_loop_010,peer_blktests_loop_011,peer_ltp_ioctl_loop01,peer_ltp_ioctl_loop02,peer_ltp_ioctl_loop03,peer_ltp_ioctl_loop04,peer_ltp_ioctl_loop05,peer_ltp_ioctl_loop06,peer_ltp_ioctl_loop07}

# the checkers' subset: the ioctls, the data path, the kaio_req pool
# under failslab, detach and partition races under lockdep, leaks
DEBUG_SMOKE_TESTS=${DEBUG_SMOKE_TESTS:-module_load_unload,ioctl_attach_detach,ioctl_errnos,integrity_ext4,failslab_kaio_pool_serves_io,race_detach_under_io,peer_blktests_loop_010,kmemleak_clean}

pass=0 fail=0 skip=0

# run LABEL CMD...: run one kernel's suite, keep its counts, print its
# lines with the summary relabelled
run() {
	local label=$1 out rc summary
	shift
	out=$BUILD/check-$label.out
	"$@" 2>&1 | tee "$out" | grep -Ev '^[0-9]+ passed, [0-9]+ failed' |
		sed "s/^\(PASS\|FAIL\|SKIP\) /\1 $label:/"
	rc=${PIPESTATUS[0]}
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	if [ -z "$summary" ]; then
		echo "FAIL $label (no result, exit $rc)"
		fail=$((fail + 1))
		return
	fi
	set -- $(echo "$summary" | tr -d ',')
	pass=$((pass + $1)) fail=$((fail + $3))
	[ "${6:-}" = skipped ] && skip=$((skip + $5))
	[ "$rc" -ne 0 ] && [ "$3" -eq 0 ] && fail=$((fail + 1))
	echo "$label: $summary"
}

rel=$(scripts/kver.sh) || exit 1
run "$(echo "$rel" | cut -d. -f1,2)" scripts/check-kernel.sh

# copy_tree DIR: the tree's files (tracked and new) in DIR/src, so that
# a build for another kernel leaves this one's alone
copy_tree() {
	rm -rf "$1/src"
	mkdir -p "$1/src"
	git ls-files -co --exclude-standard -z |
		xargs -0 cp --parents -t "$1/src" 2>/dev/null
}

# build_fail LABEL LOG: the end of a failed build's log, counted
build_fail() {
	tail -n 20 "$2"
	echo "FAIL $1:build"
	fail=$((fail + 1))
}

# With ONLY, the 6.12 and debug parts run only if SMOKE_612=1 or
# DEBUG_SMOKE=1 asks for them; KERNEL=debug checks the debug kernel only.
if [ -n "${ONLY:-}" ]; then
	SMOKE_612=${SMOKE_612:-0}
	DEBUG_SMOKE=${DEBUG_SMOKE:-0}
fi
if [ -n "${KVER:-}" ] || [ -n "${KERNEL:-}" ]; then
	SMOKE_612=0
	DEBUG_SMOKE=0
fi
if [ "${SMOKE_612:-1}" != 0 ] && KVER=6.12 scripts/kver.sh >/dev/null 2>&1; then
	copy_tree "$BUILD/k6.12"
	if make -C "$BUILD/k6.12/src" KVER=6.12 all >"$BUILD/k6.12/build.log" 2>&1; then
		run 6.12 env KVER=6.12 BUILD="$BUILD/k6.12" \
			ONLY="$SMOKE_612_TESTS" "$BUILD/k6.12/src/scripts/check-kernel.sh"
	else
		build_fail 6.12 "$BUILD/k6.12/build.log"
	fi
fi
if [ "${DEBUG_SMOKE:-1}" != 0 ]; then
	d=$BUILD/kdebug
	copy_tree "$d"
	if scripts/build-debug-kernel.sh >"$d/kernel.log" 2>&1 &&
	   make -C "$d/src" KERNEL=debug all >"$d/build.log" 2>&1; then
		run debug env KERNEL=debug BUILD="$d" \
			ONLY="$DEBUG_SMOKE_TESTS" "$d/src/scripts/check-kernel.sh"
	else
		cat "$d/kernel.log" >>"$d/build.log" 2>/dev/null
		build_fail debug "$d/build.log"
	fi
fi

out="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && out="$out, $skip skipped"
echo "$out"
[ "$fail" -eq 0 ]
