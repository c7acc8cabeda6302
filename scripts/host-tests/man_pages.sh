#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# man/aioloop.4 and tools/aioloop-setup.8 render without warnings and
# cover what they document: the module's parameters, ioctls and sysfs
# attributes (from the sources), the tool's commands, options (from its
# --help), JSON schema and exit status.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
command -v man >/dev/null || { echo "SKIP: no man (man-db)"; exit 77; }

PAGES="man/aioloop.4 tools/aioloop-setup.8"
for p in $PAGES; do
	[ -f "$p" ] || fail "no $p"
	warn=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$p" 2>&1 >/dev/null)
	[ -z "$warn" ] || fail "$p: warnings: $warn"
done

render() {
	MANWIDTH=200 LC_ALL=C man -l "$1" 2>/dev/null | col -b
}
# has PAGE WORD...: each WORD occurs in the rendered PAGE
has() {
	local page=$1 txt w
	shift
	txt=$(render "$page")
	for w in "$@"; do
		grep -qF -- "$w" <<<"$txt" || fail "$page does not mention '$w'"
	done
}

# aioloop.4
has man/aioloop.4 NAME SYNOPSIS DESCRIPTION "MODULE PARAMETERS" IOCTLS \
	ERRORS SYSFS "DIFFERENCES FROM LOOP" FILES "SEE ALSO"
params=$(sed -n 's/^module_param(\([a-z_]*\),.*/\1/p; s/^module_param_named(\([a-z_]*\),.*/\1/p' ./*.c)
# shellcheck disable=SC2086
has man/aioloop.4 $params
ioctls=$(grep -ho 'case LOOP_[A-Z0-9_]*:' ./*.c | sed 's/case \(.*\):/\1/' | sort -u)
[ -n "$ioctls" ] || fail "no ioctls found in the sources"
# shellcheck disable=SC2086
has man/aioloop.4 $ioctls
attrs=$(sed -n 's/^AIOLOOP_STAT_ATTR(\([a-z_]*\),.*/\1/p; s/^static DEVICE_ATTR_RO(\([a-z_]*\));/\1/p' sysfs.c)
[ -n "$attrs" ] || fail "no sysfs attributes found in sysfs.c"
# shellcheck disable=SC2086
has man/aioloop.4 $attrs
errnos=$(grep -ho -- '-E[A-Z]\{3,\}' ioctl.c aioloop.c submit.c | tr -d - | sort -u)
for e in $errnos; do
	case $e in
	# kernel-internal (ENOIOCTLCMD reaches a caller as ENOTTY) or not
	# an ioctl's
	EIOCBQUEUED | ENOIOCTLCMD | EAGAIN | ENOSPC | EOPNOTSUPP | EINTR) continue ;;
	esac
	has man/aioloop.4 "$e"
done

# aioloop-setup.8, against the tool's own help when it is built
has tools/aioloop-setup.8 NAME SYNOPSIS COMMANDS OPTIONS "JSON OUTPUT" \
	"EXIT STATUS" back-file log-sec sizelimit autoclear partscan
tool=tools/aioloop-setup
if [ -x $tool ]; then
	cmds=$($tool --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
	[ -n "$cmds" ] || fail "no commands in '$tool --help'"
	for c in $cmds; do
		has tools/aioloop-setup.8 "$c"
		opts=$($tool help "$c" | { grep -o -- '--[a-z][a-z-]*' || true; } | sort -u)
		for o in $opts; do
			has tools/aioloop-setup.8 "$o"
		done
	done
	for s in 0 1 2 3; do
		render tools/aioloop-setup.8 | sed -n '/^EXIT STATUS/,/^[A-Z]/p' |
			grep -q "^ *$s\$\|^ *$s " || fail "exit status $s not documented"
	done
else
	echo "note: $tool not built; commands not checked against --help"
fi
echo "man pages: ok"
