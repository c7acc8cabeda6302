#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modinfo of the built aioloop.ko: description, author, license, the
# version of aioloop.c (and dkms.conf), every parameter with a
# description and a type, and the kernel it was built for.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

ko=aioloop.ko
[ -f $ko ] || fail "$ko not built (make)"
modinfo $ko

field() {
	modinfo -F "$1" $ko
}
[ -n "$(field description)" ] || fail "no description"
[ -n "$(field author)" ] || fail "no author"
case "$(field license)" in
GPL | "GPL v2") ;;
*) fail "license '$(field license)' is not GPL" ;;
esac
want=$(sed -n 's/^#define AIOLOOP_VERSION[[:space:]]*"\(.*\)"/\1/p' aioloop.c)
[ -n "$want" ] || fail "no AIOLOOP_VERSION in aioloop.c"
[ "$(field version)" = "$want" ] ||
	fail "version '$(field version)', aioloop.c says '$want'"
dkver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[ "$dkver" = "$want" ] || fail "dkms.conf PACKAGE_VERSION '$dkver' != '$want'"

# every module_param() in the sources, and nothing else
params=$(sed -n 's/^module_param(\([a-z_]*\),.*/\1/p; s/^module_param_named(\([a-z_]*\),.*/\1/p' ./*.c | sort)
[ -n "$params" ] || fail "no module_param in the sources"
got=$(field parm | cut -d: -f1 | sort)
[ "$got" = "$params" ] || fail "parameters '$got', sources have '$params'"
field parm | while IFS= read -r line; do
	name=${line%%:*}
	desc=${line#*:}
	case "$desc" in
	?*" ("*")") ;;
	*) fail "parameter $name: no description and type: '$line'" ;;
	esac
	[ ${#desc} -gt 20 ] || fail "parameter $name: description too short: '$desc'"
done
# the defaults the man page and README state
for p in "max_devices:.*default 8" "direct_io:.*default Y" "nowait:.*default Y"; do
	field parm | grep -q "^$p" || fail "parameter ${p%%:*}: description lacks '${p#*.\*}'"
done

rel=$(scripts/kver.sh)
vm=$(field vermagic | cut -d' ' -f1)
[ "$vm" = "$rel" ] || fail "built for $vm, expected $rel"
echo "modinfo $ko: ok (version $want, kernel $vm)"
