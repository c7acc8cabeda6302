#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run tests/cases/*.sh in the test VM on one kernel (KVER) and report.
# ONLY=a,b runs a subset. scripts/check.sh calls it once per kernel.
# Prints one "PASS|FAIL|SKIP name" line per test and a final
# "N passed, M failed[, K skipped]"; exits non-zero on any failure or
# when the guest did not finish (crash, hang) or the kernel logged a
# BUG/WARNING/Oops.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
export BUILD
mkdir -p "$BUILD"

scripts/mkinitramfs.sh
# host-side tests (scripts/host-tests/*.sh), counted with the guest's
HOSTRES=$BUILD/results-host.log
scripts/run-host-tests.sh "$HOSTRES"
rc=0
AIOTEST=check TAG=check scripts/vm.sh >/dev/null || rc=$?

CONSOLE=$BUILD/console-check.log
RESULTS=$BUILD/results-check.log
BAD='BUG:|WARNING:|Oops|KASAN|general protection|Call Trace|hung_task|blocked for more than'

# Results come from the second serial port; the console log gives the
# failing tests' output and is scanned for kernel problems.
cat "$HOSTRES" "$RESULTS" | tr -d '\r' | awk -v bad="$BAD" -v qrc="$rc" -v console="$CONSOLE" '
/^AIOTEST-PLAN:/ { for (i = 2; i <= NF; i++) plan[++nplan] = $i; planned = 1 }
/^AIOTEST: / {
	name = $2; st = $3
	if (!(name in seen)) order[++nres] = name
	seen[name] = st
}
/^AIOTEST-ABORT:/ { sub(/^AIOTEST-ABORT: */, ""); abort = $0 }
/^AIOTEST-DONE/ { done = 1 }
END {
	while ((getline line < console) > 0) {
		gsub(/\r/, "", line)
		if (line ~ /^--- [^ ]+$/) {
			cur = substr(line, 5); nl = 0; out[cur] = ""
		} else if (cur != "" && index(line, "AIOTEST: " cur " ") == 1) {
			cur = ""
		} else if (cur != "" && nl++ < 80) {
			out[cur] = out[cur] line "\n"
		}
		if (line ~ /^\[ *[0-9]+\.[0-9]+\]/ && line ~ bad && !(line in badseen)) {
			badseen[line] = 1
			badl[++nbad] = line
		}
		# the first report whole: a crash ends the log, and CI
		# keeps only this output
		if (nbad && nrep < 60)
			rep[++nrep] = line
	}
	for (i = 1; i <= nres; i++) {
		n = order[i]; st = seen[n]
		print st " " n
		if (st == "PASS") pass++
		else if (st == "SKIP") skipped++
		else failed++
	}
	for (i = 1; i <= nplan; i++)
		if (!(plan[i] in seen)) {
			print "FAIL " plan[i] " (not run)"
			failed++; missing++
		}
	for (i = 1; i <= nres; i++) {
		n = order[i]
		if (seen[n] == "FAIL")
			printf "--- %s\n%s", n, out[n]
	}
	if (abort != "")
		print "incomplete: " abort
	if (!done) {
		print "incomplete: the guest did not finish (qemu exit " qrc "), see " console
		if (!missing) failed++
	}
	if (nbad) {
		print "kernel problems in " console ":"
		for (i = 1; i <= nbad && i <= 20; i++) print "  " badl[i]
		print "the first report, from the console:"
		for (i = 1; i <= nrep; i++) print "  | " rep[i]
		if (!failed) {
			print "FAIL console (kernel BUG/WARNING outside a failing test)"
			failed++
		}
	}
	summary = (pass + 0) " passed, " (failed + 0) " failed"
	if (skipped) summary = summary ", " skipped " skipped"
	print summary
	exit failed ? 1 : 0
}'
