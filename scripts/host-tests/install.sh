#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make install DESTDIR=..." puts every file in place under DESTDIR and
# nothing outside it: the module (for the kernel make builds for), the
# tool, both man pages, the bash completion and the udev rule; with
# PREFIX=/usr the rule goes to /usr/lib/udev/rules.d. The rule is checked
# with "udevadm verify" where udevadm has it (systemd 253 and later), and
# otherwise for its syntax and content here (the guest test
# udev_rule_applies runs it under udevd).
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
REL=$(scripts/kver.sh)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
real_ko=/lib/modules/$REL/extra/aioloop.ko
had_real=no
[ -e "$real_ko" ] && had_real=yes

make -s install DESTDIR="$D/a" >"$D/log" 2>&1 || { cat "$D/log"; fail "make install failed"; }
make -s -C tools install DESTDIR="$D/b" PREFIX=/usr >>"$D/log" 2>&1 ||
	{ cat "$D/log"; fail "make -C tools install PREFIX=/usr failed"; }
(cd "$D" && find . -type f -o -type l | sort)

expect() {
	local mode=$1 f=$2
	[ -f "$f" ] || fail "not installed: ${f#"$D"}"
	[ "$(stat -c %a "$f")" = "$mode" ] ||
		fail "${f#"$D"}: mode $(stat -c %a "$f"), expected $mode"
}
A=$D/a
expect 755 "$A/usr/local/sbin/aioloop-setup"
expect 644 "$A/usr/local/share/man/man8/aioloop-setup.8"
expect 644 "$A/usr/local/share/man/man4/aioloop.4"
expect 644 "$A/usr/local/share/bash-completion/completions/aioloop-setup"
expect 644 "$A/usr/local/lib/udev/rules.d/60-aioloop.rules"
# aiolosetup: links to the tool, its man page and its completion
for l in sbin/aiolosetup share/bash-completion/completions/aiolosetup; do
	[ "$(readlink "$A/usr/local/$l")" = aioloop-setup ] ||
		fail "usr/local/$l is not a link to aioloop-setup"
done
grep -qx '.so man8/aioloop-setup.8' "$A/usr/local/share/man/man8/aiolosetup.8" ||
	fail "aiolosetup.8 does not point to aioloop-setup.8"
"$A/usr/local/sbin/aiolosetup" --version | grep -q '^aiolosetup ' ||
	fail "aiolosetup --version does not name aiolosetup"
ko=$(find "$A/lib/modules/$REL" -name 'aioloop.ko*' | head -1)
[ -n "$ko" ] || fail "no aioloop.ko under DESTDIR/lib/modules/$REL"
[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$REL" ] ||
	fail "${ko#"$D"} is not built for $REL"
B=$D/b
expect 755 "$B/usr/sbin/aioloop-setup"
expect 644 "$B/usr/share/man/man4/aioloop.4"
expect 644 "$B/usr/share/bash-completion/completions/aioloop-setup"
expect 644 "$B/usr/lib/udev/rules.d/60-aioloop.rules"

cmp "$A/usr/local/share/man/man4/aioloop.4" man/aioloop.4
cmp "$A/usr/local/lib/udev/rules.d/60-aioloop.rules" udev/60-aioloop.rules
"$A/usr/local/sbin/aioloop-setup" --version
# nothing outside DESTDIR
[ $had_real = yes ] || [ ! -e "$real_ko" ] || fail "make install DESTDIR= wrote $real_ko"

RULE=udev/60-aioloop.rules
if udevadm verify --help >/dev/null 2>&1; then
	udevadm verify "$RULE" || fail "udevadm verify $RULE failed"
	echo "udevadm verify: ok"
fi

# syntax: every rule (continuation lines joined) is a comma-separated
# list of KEY[{attr}] OP "value"
rules=$(sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*//; ta' "$RULE" | grep -v '^[[:space:]]*\(#\|$\)')
KEY='[A-Z_]+(\{[^}]+\})?'
OP='(==|!=|\+=|-=|:=|=)'
PAIR="$KEY$OP\"[^\"]*\""
bad=$(grep -Ev "^$PAIR(, *$PAIR)*\$" <<<"$rules" || true)
[ -z "$bad" ] || fail "$RULE: malformed: $bad"
keys=$(grep -oE "$KEY$OP" <<<"$rules" | sed -E 's/\{[^}]*\}//; s/(==|!=|\+=|-=|:=|=)$//' | sort -u)
for k in $keys; do
	case $k in
	ACTION | KERNEL | SUBSYSTEM | ENV | ATTR | TEST | GROUP | MODE | SYMLINK | GOTO | LABEL) ;;
	*) fail "$RULE: unexpected key $k" ;;
	esac
done
# every GOTO has its LABEL
for l in $(grep -oE 'GOTO="[^"]+"' <<<"$rules" | cut -d'"' -f2 | sort -u); do
	grep -q "LABEL=\"$l\"" <<<"$rules" || fail "$RULE: GOTO=\"$l\" without LABEL"
done
# the content the README and aioloop(4) describe
grep -q 'KERNEL=="aioloop-control", GROUP="disk", MODE="0660"' <<<"$rules" ||
	fail "$RULE: no rule for aioloop-control"
grep -q 'KERNEL!="aioloop\[0-9\]\*", GOTO' <<<"$rules" ||
	fail "$RULE: devices not matched by aioloop[0-9]*"
grep -qx 'GROUP="disk", MODE="0660"' <<<"$rules" || fail "$RULE: no device permissions"
grep -q 'SYMLINK+="aioloop/by-file$attr{loop/backing_file}"' <<<"$rules" ||
	fail "$RULE: no by-file symlink"
echo "make install: ok"
