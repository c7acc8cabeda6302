#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the host-side tests, scripts/host-tests/*.sh, on the build host
# (packaging, installation, documentation: nothing that loads the module).
# Each exits 0 to pass, 77 to be skipped, anything else fails.
#
#   scripts/run-host-tests.sh [RESULTS]
#
# Appends one "AIOTEST: host-NAME PASS|FAIL|SKIP (Ns)" line per test to
# RESULTS (the guest's result format, so scripts/check.sh counts them
# with the VM's tests; default: standard output) and prints the output
# of each failing test. ONLY=a,b runs only the tests named host-NAME in
# it; with ONLY set and no host test named, none runs. Logs are in
# $BUILD/host-NAME.log.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-$PWD/build}
export BUILD
mkdir -p "$BUILD"
RES=${1:-/dev/stdout}
[ "$RES" = /dev/stdout ] || : >"$RES"

for t in scripts/host-tests/*.sh; do
	[ -f "$t" ] || continue
	n=host-$(basename "$t" .sh)
	if [ -n "${ONLY:-}" ]; then
		case ",$ONLY," in
		*",$n,"*) ;;
		*) continue ;;
		esac
	fi
	log=$BUILD/$n.log
	t0=$SECONDS
	timeout -k 10 900 bash "$t" >"$log" 2>&1 </dev/null
	rc=$?
	case $rc in
	0) st=PASS ;;
	77) st=SKIP ;;
	*) st=FAIL ;;
	esac
	echo "AIOTEST: $n $st ($((SECONDS - t0))s)" >>"$RES"
	if [ $st = FAIL ]; then
		echo "--- $n (exit status $rc, $log)"
		tail -80 "$log" | sed 's/^/    /'
	fi
done
exit 0
