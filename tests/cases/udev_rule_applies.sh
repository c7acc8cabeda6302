#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# udev/60-aioloop.rules under a real udevd: /dev/aioloopN and
# /dev/aioloop-control get group disk and mode 0660, and
# /dev/aioloop/by-file/PATH points to the device bound to /PATH while it
# is attached, and goes away on detach.
. /tests/lib.sh
RULE=/usr/lib/udev/rules.d/60-aioloop.rules
UDEVD=/usr/lib/systemd/systemd-udevd
command -v udevadm >/dev/null || skip "no udevadm"
[ -x $UDEVD ] || skip "no $UDEVD"
[ -f $RULE ] || skip "no $RULE"
need_setup

grep -q '^disk:' /etc/group || echo 'disk:x:6:' >>/etc/group
udevd=
stop_udevd() {
	[ -n "$udevd" ] || return 0
	udevadm control --exit 2>/dev/null || kill "$udevd" 2>/dev/null
	wait "$udevd" 2>/dev/null
	udevd=
}
trap stop_udevd EXIT

$UDEVD --resolve-names=late 2>/tmp/aiotest-udevd.log &
udevd=$!
for _ in $(seq 50); do
	udevadm control --ping 2>/dev/null && break
	sleep 0.2
done
udevadm control --ping || fail "udevd does not answer: $(cat /tmp/aiotest-udevd.log)"
if grep -i "$RULE" /tmp/aiotest-udevd.log; then
	fail "udevd complained about the rule"
fi

load_aioloop
udevadm trigger --action=add --sysname-match='aioloop*' --settle ||
	fail "udevadm trigger failed"
udevadm settle -t 30

perm() {
	stat -L -c '%a %G' "$1"
}
expect_eq "/dev/aioloop-control" "$(perm /dev/aioloop-control)" "660 disk"
expect_eq "/dev/aioloop0" "$(perm /dev/aioloop0)" "660 disk"
expect_eq "/dev/aioloop7" "$(perm /dev/aioloop7)" "660 disk"

img=/tmp/aiotest-udev\ file.img
mkfile "$img" 16M
dev=$(attach "$img")
udevadm settle -t 30
link="/dev/aioloop/by-file/tmp/aiotest-udev_file.img"
ls -lR /dev/aioloop
[ -L "$link" ] || fail "no symlink $link"
expect_eq "$link" "$(readlink -f "$link")" "$dev"

# a partition of a bound device gets the group and mode, not the link
sfdisk -q "$dev" <<EOT
,8M
EOT
detach "$dev"
dev=$(attach --partscan "$img")
udevadm settle -t 30
[ -b "${dev}p1" ] || fail "no ${dev}p1"
expect_eq "${dev}p1" "$(perm "${dev}p1")" "660 disk"
expect_eq "$link" "$(readlink -f "$link")" "$dev"
detach "$dev"
udevadm settle -t 30
[ ! -e "$link" ] || fail "$link still there after detach"
[ ! -L "$link" ] || fail "dangling $link after detach"
stop_udevd
