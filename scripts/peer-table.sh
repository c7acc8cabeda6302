#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README table of the peer suites (tests/cases/peer_*.sh): each
# case's result on stock loop and on aioloop, per kernel, from the PEER
# lines the cases print on the test VM's console. Replaces the block
# between <!-- peer:begin --> and <!-- peer:end --> in README.md.
#
#   scripts/peer-table.sh [CONSOLE_LOG...]
#
# Default logs: the last `make check` on 6.1 ($BUILD/console-check.log)
# and its 6.12 part ($BUILD/k6.12/console-check.log).
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
[ $# -gt 0 ] || set -- "$BUILD/console-check.log" "$BUILD/k6.12/console-check.log"

table=$(mktemp)
trap 'rm -f "$table"' EXIT

# case -> what it checks: the "# what:" line of each case, keyed by the
# case name it passes to peer_run
titles() {
	for f in tests/cases/peer_*.sh; do
		printf '%s\t%s\n' "$(sed -n 's/^peer_run //p' "$f")" \
			"$(sed -n 's/^# what: //p' "$f")"
	done
}

cat "$@" 2>/dev/null | tr -d '\r' | sed -n 's/^ *PEER //p' |
awk -v titles="$(titles)" '
BEGIN {
	n = split(titles, t, "\n")
	for (i = 1; i <= n; i++) {
		split(t[i], kv, "\t")
		title[kv[1]] = kv[2]
	}
	word["PASS"] = "pass"; word["FAIL"] = "**FAIL**"; word["SKIP"] = "skip"
	word["KNOWN"] = "fails: kernel lacks loop'"'"'s fix (see case)"
}
{
	rel = $1; c = $2; drv = $3; st = $4
	ver = rel; sub(/-.*/, "", ver); split(ver, v, "."); kn = v[1] "." v[2]
	if (!(kn in kseen)) { kseen[kn] = 1; kern[++nk] = kn; krel[kn] = rel }
	if (!(c in cseen)) { cseen[c] = 1; cases[++nc] = c }
	res[c, kn, drv] = word[st]
}
END {
	hdr = "| case | what it checks |"; sep = "|---|---|"
	for (k = 1; k <= nk; k++) {
		hdr = hdr " loop, " kern[k] " | aioloop, " kern[k] " |"
		sep = sep "---|---|"
	}
	print hdr; print sep
	for (i = 1; i <= nc; i++) {
		c = cases[i]; line = "| " c " | " title[c] " |"
		for (k = 1; k <= nk; k++)
			line = line " " ((c, kern[k], "loop") in res ? res[c, kern[k], "loop"] : "not run") \
				" | " ((c, kern[k], "aioloop") in res ? res[c, kern[k], "aioloop"] : "not run") " |"
		print line
	}
	printf "\nKernels:"
	for (k = 1; k <= nk; k++) printf " %s%s", krel[kern[k]], (k < nk ? "," : ".")
	print ""
}' >"$table"

[ -s "$table" ] || { echo "peer-table: no PEER lines in $*" >&2; exit 1; }
awk -v table="$table" '
/<!-- peer:begin -->/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
/<!-- peer:end -->/ { skip = 0 }
!skip' README.md >README.md.new
grep -q '<!-- peer:end -->' README.md.new || { rm -f README.md.new; echo "peer-table: no markers in README.md" >&2; exit 1; }
mv README.md.new README.md
cat "$table"
