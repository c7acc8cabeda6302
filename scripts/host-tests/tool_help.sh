#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# aioloop-setup: "--help", "-h" and "help" work for the tool and for every
# command (exit 0, a Usage line on standard output, nothing on standard
# error) without the module; usage errors exit 2; --version prints the
# version of the tool and the module.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
tool=tools/aioloop-setup
[ -x $tool ] || fail "$tool not built (make)"

# ok_help ARGS...: a help text, exit 0
ok_help() {
	local out err rc
	err=$(mktemp)
	out=$($tool "$@" 2>"$err")
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$err" ] || ! grep -q '^Usage: aioloop-setup' <<<"$out"; then
		echo "aioloop-setup $*: exit $rc, stderr: $(cat "$err")" >&2
		rm -f "$err"
		return 1
	fi
	rm -f "$err"
	echo "ok: aioloop-setup $*"
}

bad=0
ok_help --help || bad=1
ok_help -h || bad=1
ok_help help || bad=1
cmds=$($tool --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ -n "$cmds" ] || fail "no commands listed by --help"
for c in $cmds; do
	ok_help "$c" --help || bad=1
	ok_help "$c" -h || bad=1
	ok_help help "$c" || bad=1
done
[ $bad -eq 0 ] || fail "help does not work everywhere"

# usage errors: exit 2 with a message on standard error
for args in "" "bogus" "--bogus" "attach" "attach --bogus f" "list --bogus" \
	"set-direct-io" "help bogus"; do
	# shellcheck disable=SC2086
	out=$($tool $args 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] || fail "aioloop-setup $args: exit $rc, expected 2"
	[ -n "$out" ] || fail "aioloop-setup $args: no message"
done

ver=$($tool --version) || fail "--version failed"
want=$(sed -n 's/^#define AIOLOOP_VERSION[[:space:]]*"\(.*\)"/\1/p' aioloop.c)
[ "$ver" = "aioloop-setup $want" ] || fail "--version: '$ver', module is $want"
echo "aioloop-setup help, usage errors, version: ok"
