#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side DKMS test (root): put this tree's module sources in
# /usr/src/aioloop-VERSION, dkms add/build/install for a kernel
# (KVER, as for make: default the Debian 6.1 one), check that aioloop.ko
# landed in /lib/modules/RELEASE/updates/dkms (or extra) with the right
# version, then dkms remove it again. Exits 0 on success, 77 when it
# cannot run here (not root, no dkms, an aioloop DKMS installation that
# this test did not make), 1 on failure.
set -euo pipefail

cd "$(dirname "$0")/.."
SRC=$PWD
PKG=aioloop

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
skip() {
	echo "SKIP: $*" >&2
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v dkms >/dev/null || skip "dkms not installed (scripts/deps.sh)"
# DKMS packaging does not depend on the guest kernel: under KERNEL=debug
# (whose headers are not installed in /lib/modules) it builds for KVER's.
kenv=$(KERNEL= scripts/kenv.sh) || fail "no kernel to build for"
REL=$(echo "$kenv" | sed -n 's/^KVER=//p')
# A kernel of scripts/chroot-kernels.sh (7.2, 6.12-rt): the same test in
# the chroot, with its dkms and headers
root=$(echo "$kenv" | sed -n 's/^KCHROOT=//p')
if [ -n "$root" ]; then
	exec scripts/in-chroot.sh "$root" -C "$SRC" env KVER="$REL" \
		scripts/test-dkms.sh
fi
[ -e "/lib/modules/$REL/build" ] || fail "no headers for $REL"

conf() {
	sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p" dkms.conf
}
VER=$(conf PACKAGE_VERSION)
[ "$(conf PACKAGE_NAME)" = $PKG ] || fail "dkms.conf: PACKAGE_NAME is not $PKG"
modver=$(sed -n 's/^#define AIOLOOP_VERSION[[:space:]]*"\(.*\)"/\1/p' aioloop.c)
[ "$VER" = "$modver" ] ||
	fail "dkms.conf PACKAGE_VERSION $VER != MODULE_VERSION $modver"
DST=/usr/src/$PKG-$VER

# One DKMS run at a time on this machine (/usr/src and /var/lib/dkms are
# shared with anyone else running this test).
mkdir -p /run/lock
exec 9>/run/lock/aioloop-dkms.lock
flock -w 600 9 || fail "timed out waiting for /run/lock/aioloop-dkms.lock"

LOG=$(mktemp)
cleanup() {
	dkms remove "$PKG/$VER" --all >>"$LOG" 2>&1 || true
	rm -rf "$DST"
	rm -f "$LOG"
}
trap cleanup EXIT

# run CMD...: quiet unless it fails
run() {
	if ! "$@" >"$LOG" 2>&1; then
		cat "$LOG" >&2
		for f in /var/lib/dkms/$PKG/$VER/build/make.log; do
			[ -f "$f" ] && tail -40 "$f" >&2
		done
		fail "'$*' failed"
	fi
}

# A leftover of an interrupted run of this test is removed; a DKMS
# installation of aioloop made otherwise is left alone.
MARK=$DST/.dkms-test
if [ -e "$DST" ] || dkms status "$PKG/$VER" 2>/dev/null | grep -q .; then
	if [ ! -e "$MARK" ]; then
		trap - EXIT
		rm -f "$LOG"
		skip "$PKG/$VER is already in DKMS or $DST exists (not made by this test)"
	fi
	dkms remove "$PKG/$VER" --all >/dev/null 2>&1 || true
	rm -rf "$DST"
fi

# The tree as a clone has it (git archive of it gives the same): no
# build products, VM images or git data.
mkdir -p "$DST"
tar -C "$SRC" -cf - --exclude-vcs --exclude=./build \
	--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude='*.o.d' --exclude=modules.order \
	--exclude=Module.symvers --exclude=.tmp_versions \
	--exclude=./tools/aioloop-setup --exclude=./tests/helpers/lioctl \
	--exclude=./tests/helpers/lioctl32 \
	--exclude=./tests/helpers/fuzz . |
	tar -C "$DST" -xf -
[ -f "$DST/dkms.conf" ] || fail "no dkms.conf in $DST"
: >"$MARK"

run dkms add "$PKG/$VER"
run dkms build "$PKG/$VER" -k "$REL"
run dkms install "$PKG/$VER" -k "$REL"

st=$(dkms status "$PKG/$VER" -k "$REL" 2>/dev/null)
echo "dkms status: $st"
case "$st" in
*": installed"*) ;;
*) fail "dkms status does not say installed: $st" ;;
esac

ko=
for d in updates/dkms extra; do
	for f in "/lib/modules/$REL/$d/$PKG.ko" "/lib/modules/$REL/$d/$PKG.ko.xz" \
		"/lib/modules/$REL/$d/$PKG.ko.zst"; do
		[ -f "$f" ] && ko=$f && break 2
	done
done
[ -n "$ko" ] ||
	fail "no $PKG.ko in /lib/modules/$REL/updates/dkms or /extra"
echo "installed: $ko"

got=$(modinfo -F version "$ko")
[ "$got" = "$VER" ] || fail "modinfo version of $ko: '$got', expected $VER"
vm=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
[ "$vm" = "$REL" ] || fail "vermagic of $ko: '$vm', expected $REL"
# depmod ran: modprobe resolves the name to the installed file
res=$(modprobe -S "$REL" -n -v "$PKG" 2>&1 | awk '$1 == "insmod" { print $2 }')
[ "$res" = "$ko" ] || fail "modprobe -S $REL resolves $PKG to '$res', not $ko"

run dkms remove "$PKG/$VER" --all
[ ! -e "$ko" ] || fail "$ko still there after dkms remove"
if dkms status "$PKG/$VER" 2>/dev/null | grep -q .; then
	fail "dkms still lists $PKG/$VER after remove"
fi
echo "dkms add/build/install/remove $PKG/$VER for $REL: ok (version $got)"
