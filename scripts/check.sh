#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the whole suite (scripts/check-kernel.sh) on the kernel
# KVER selects (Debian's 6.1 by default) and, when KVER is not given, a
# smoke subset on each of the other kernels: Debian's 6.12, unstable's
# 7.2 and trixie's 6.12 PREEMPT_RT (the last two in the chroot of
# scripts/chroot-kernels.sh, set up here if needed, about 5 minutes),
# each built from a copy of the tree in $BUILD/k<kernel>. Prints every
# test's PASS/FAIL line (other kernels' as "7.2:name") and one final
# "N passed, M failed" line; exits non-zero if anything failed.
#
# Then, unless KVER or KERNEL is given, a subset on the debug kernel
# (scripts/build-debug-kernel.sh: KASAN, lockdep, kmemleak, failslab;
# built once, 11 to 19 minutes on two cores), lines "debug:name".
#
#   ONLY=a,b     only these tests (and no smoke or debug part unless
#                SMOKE_KERNELS or DEBUG_SMOKE=1 asks for them)
#   SMOKE_KERNELS="6.12 7.2 6.12-rt"  the kernels of the smoke parts
#                (empty: none); SMOKE_612_TESTS=a,b the 6.12 subset,
#                SMOKE_TESTS=a,b the 7.2 and 6.12-rt one
#   DEBUG_SMOKE=0  no debug part; DEBUG_SMOKE_TESTS=a,b another subset
set -uo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
export BUILD
mkdir -p "$BUILD"

SMOKE_612_TESTS=${SMOKE_612_TESTS:-module_load_unload,integrity_ext4,integrity_xfs,integrity_tmpfs,ioctl_errnos,tool_attach_detach_list,aiolosetup_matches_losetup,discard_punches_holes,flush_reaches_backing,race_detach_under_io,stack_chain_2,stack_chain_3,cgroup_writeback,handoff_deep_queue,stack_depth_chain_3,swap_little_memory,peer_blktests_loop_001,peer_blktests_loop_002,peer_blktests_loop_003,peer_blktests_loop_004,peer_blktests_loop_005,peer_blktests_loop_006,peer_blktests_loop_007,peer_blktests_loop_008,peer_blktests_loop_009,peer_blktests_loop_010,peer_blktests_loop_011,peer_ltp_ioctl_loop01,peer_ltp_ioctl_loop02,peer_ltp_ioctl_loop03,peer_ltp_ioctl_loop04,peer_ltp_ioctl_loop05,peer_ltp_ioctl_loop06,peer_ltp_ioctl_loop07}

# the newer kernels' subset: what the version shims in include/compat.h
# touch (queue limits and features, freezing, timers, the rotational
# flag), NOWAIT, the ioctls and tools, and the paths PREEMPT_RT changes
# (direct submission, completion, the workers, stacking), and swap under
# global reclaim, where PREEMPT_RT's direct reclaimers press hardest
SMOKE_TESTS=${SMOKE_TESTS:-module_load_unload,ioctl_attach_detach,ioctl_errnos,ioctl_compat32,integrity_ext4,integrity_xfs,integrity_blockdev,discard_punches_holes,flush_reaches_backing,nowait_bios_again,direct_submit_switch,handoff_deep_queue,race_detach_under_io,stack_chain_2,swap_little_memory,tool_attach_detach_list,aiolosetup_matches_losetup,peer_blktests_loop_010,peer_ltp_ioctl_loop05}

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

# With ONLY, the smoke and debug parts run only if SMOKE_KERNELS or
# DEBUG_SMOKE=1 asks for them; KERNEL=debug (debug-rt) checks the debug
# kernel (its PREEMPT_RT variant) only.
if [ -n "${ONLY:-}" ]; then
	SMOKE_KERNELS=${SMOKE_KERNELS:-}
	DEBUG_SMOKE=${DEBUG_SMOKE:-0}
fi
if [ -n "${KVER:-}" ] || [ -n "${KERNEL:-}" ]; then
	SMOKE_KERNELS=
	DEBUG_SMOKE=0
fi

# smoke KVER TESTS: TESTS on KVER, from a copy of the tree
smoke() {
	local k=$1 tests=$2 d=$BUILD/k$1
	copy_tree "$d"
	case "$k" in
	6.12) ;;
	*)
		if ! scripts/chroot-kernels.sh >"$d/kernel.log" 2>&1; then
			build_fail "$k" "$d/kernel.log"
			return
		fi
		;;
	esac
	if ! KVER=$k scripts/kver.sh >/dev/null 2>&1; then
		echo "FAIL $k: no such kernel installed"
		fail=$((fail + 1))
		return
	fi
	if make -C "$d/src" KVER="$k" all >"$d/build.log" 2>&1; then
		run "$k" env KVER="$k" BUILD="$d" ONLY="$tests" \
			"$d/src/scripts/check-kernel.sh"
	else
		build_fail "$k" "$d/build.log"
	fi
}

for k in ${SMOKE_KERNELS-6.12 7.2 6.12-rt}; do
	case "$k" in
	6.12) smoke "$k" "$SMOKE_612_TESTS" ;;
	*) smoke "$k" "$SMOKE_TESTS" ;;
	esac
done
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
