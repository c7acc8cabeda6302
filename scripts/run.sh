#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Main job: boot the test VM, attach a 256 MiB file on ext4 to an
# aioloop device and run tests/fio/main.fio; print fio's results.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
export BUILD
mkdir -p "$BUILD"

scripts/mkinitramfs.sh
rc=0
AIOTEST=run TAG=run VM_TIMEOUT=${VM_TIMEOUT:-900} scripts/vm.sh >/dev/null || rc=$?

tr -d '\r' <"$BUILD/console-run.log" |
	sed -n '/AIOTEST-SUMMARY-BEGIN/,/AIOTEST-SUMMARY-END/p' |
	sed '1d;$d'
if ! tr -d '\r' <"$BUILD/results-run.log" | grep -q '^AIOTEST-RUN: OK'; then
	echo "run: failed (qemu exit $rc), see $BUILD/console-run.log" >&2
	exit 1
fi
