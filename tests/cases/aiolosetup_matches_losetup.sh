#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# aiolosetup (aioloop-setup with losetup's command line) against
# util-linux losetup: the same sequence of losetup commands runs on stock
# loop with util-linux's losetup, then on aioloop with aiolosetup, and
# the two transcripts (each command's output, messages and exit status)
# must match field by field: device names (/dev/loopN, /dev/aioloopN) and
# the program name are masked, runs of spaces count as one (a table's
# NAME column is as wide as its longest device name) and devices may come
# in another order. Covered:
# -f --show, DEV FILE, -o, --sizelimit, -r, -P, -b, --direct-io[=on|off]
# at attach and on a bound device, -l with the default columns, -O, -n,
# --raw, --json, --output-all (without MAJ:MIN, the device's own number),
# -a, -j with and without -o, DEV, -c, -L (overlap refused, same range
# reused), -d of several devices and of an unbound one, a file on a
# read-only mount (attached read-only), -D, -f, and usage errors. loop
# runs with --direct-io=on where aioloop runs in aio mode, so that DIO
# matches (aioloop reports its mode there, README).
. /tests/lib.sh
. /tests/helpers/chain.sh
command -v aiolosetup >/dev/null || skip "aiolosetup not installed"

LOSETUP=$(losetup_bin)
mkscratch ext4 /mnt/s
cd /mnt/s
mkfile img1 64M
mkfile img2 32M
mkfile img3 8M
# a read-only view: a file that cannot be written is attached read-only
mkdir -p /mnt/ro
mount --bind /mnt/s /mnt/ro && mount -o remount,bind,ro /mnt/ro ||
	fail "read-only bind mount failed"

# run TOOL PREFIX ARGS...: one command, its output and status, with the
# device names and the program name masked
run() {
	_t=$1 _p=$2
	shift 2
	echo "\$ losetup $*" | sed "s|/dev/${_p}\([0-9]\)|/dev/X\1|g"
	_rc=0
	"$_t" "$@" >/tmp/aiotest-ls.out 2>&1 || _rc=$?
	sed -e "s|/dev/${_p}\([0-9]\)|/dev/X\1|g" -e "s|\\\\x2fdev\\\\x2f${_p}|\\\\x2fdev\\\\x2fX|g" \
		-e "s|^[^ :]*losetup:|losetup:|; s|'aiolosetup --help'|'losetup --help'|" \
		/tmp/aiotest-ls.out
	echo "[exit $_rc]"
}

# no MAJ:MIN: the device's own major and minor differ by driver
COLS=NAME,AUTOCLEAR,BACK-FILE,BACK-INO,BACK-MAJ:MIN,OFFSET,PARTSCAN,RO,SIZELIMIT,DIO,LOG-SEC

# sequence TOOL PREFIX
sequence() {
	T=$1 P=$2
	D=/dev/$P
	run $T $P -f --show --direct-io=on /mnt/s/img1
	run $T $P -o 4096 --sizelimit 1048576 -r --direct-io=on -f --show /mnt/s/img1
	run $T $P -P -b 4096 --direct-io=on ${D}2 /mnt/s/img2
	run $T $P
	run $T $P -l
	run $T $P -l -n -O NAME,BACK-FILE,OFFSET,SIZELIMIT,RO,PARTSCAN,DIO,LOG-SEC
	run $T $P --raw -l
	run $T $P -J -l
	run $T $P -l -O $COLS
	run $T $P -J -O $COLS
	run $T $P -a
	run $T $P -j /mnt/s/img1
	run $T $P -j /mnt/s/img1 -o 4096
	run $T $P -l -j img2
	run $T $P ${D}0
	run $T $P -l ${D}1
	run $T $P -c ${D}0
	# (in this order: loop on 6.1 turns direct I/O back on when the block
	# size changes, as losetup opened the file O_DIRECT; aioloop keeps
	# the mode it was asked for)
	run $T $P -b 1024 ${D}0
	run $T $P --direct-io=off ${D}0
	run $T $P -l -O NAME,DIO,LOG-SEC ${D}0
	# -L: a range overlapping two devices; the same range as one device
	# (no other device of that file: losetup's answer would otherwise
	# depend on the order it meets them in)
	run $T $P -L -o 2048 -f --show /mnt/s/img1
	run $T $P -L -P -b 4096 --direct-io=on -f --show /mnt/s/img2
	run $T $P -o 1000 -f --show /mnt/s/img3
	run $T $P -d ${D}1 ${D}2 ${D}3
	run $T $P -l
	run $T $P ${D}5
	run $T $P -J -l ${D}5
	run $T $P -d ${D}5
	run $T $P -d /mnt/s/img1
	run $T $P -f --show /mnt/ro/img2
	run $T $P -l -O NAME,RO,BACK-FILE
	# -L: the same range of the same file, but that device is read-only
	run $T $P -L -f --show /mnt/s/img2
	run $T $P -D
	run $T $P -l
	run $T $P -J -l
	run $T $P -a
	run $T $P -f
	run $T $P -x
	run $T $P -l -O bogus
	run $T $P --sizelimit 1 ${D}0
	run $T $P -a -d ${D}0
	run $T $P --direct-io=maybe ${D}0
	run $T $P ${D}0 /mnt/s/nonexistent
}

modprobe loop || fail "modprobe loop failed"
sequence "$LOSETUP" loop >/tmp/aiotest-ls-loop.txt
$LOSETUP -D
rmmod loop 2>/dev/null || true
load_aioloop
sequence aiolosetup aioloop >/tmp/aiotest-ls-aio.txt
aioloop-setup detach-all
umount /mnt/ro

sed 's/^/  /' /tmp/aiotest-ls-aio.txt
# canon: each command's output lines sorted (both tools list devices in
# /sys/block's order, which differs between loop's names and aioloop's),
# each JSON device object first joined into one line
canon() {
	awk '
	function emit(i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		for (i = 1; i <= n; i++)
			print a[i]
		n = 0
	}
	/^\$ / || /^\[exit / { emit(); print; next }
	/"loopdevices": \[$/ { emit(); print; injson = 1; obj = ""; next }
	injson && /^ *\]$/ {
		if (obj != "") a[++n] = obj
		emit(); print; injson = 0; next
	}
	injson && /^ *\},\{$/ { a[++n] = obj; obj = ""; next }
	injson && (/^ *\{$/ || /^ *\}$/) { next }
	injson { obj = obj $0; next }
	{ a[++n] = $0 }
	END { emit() }' "$1"
}
for f in loop aio; do
	tr -s ' ' </tmp/aiotest-ls-$f.txt >/tmp/aiotest-ls-$f.fields
	canon /tmp/aiotest-ls-$f.fields >/tmp/aiotest-ls-$f.canon
done
if ! diff -u /tmp/aiotest-ls-loop.canon /tmp/aiotest-ls-aio.canon; then
	fail "aiolosetup's transcript differs from util-linux losetup's"
fi
# what both must have done, so that a failure common to both cannot pass
want() {
	grep -qxF -- "$1" /tmp/aiotest-ls-aio.fields || fail "expected the line '$1'"
}
want "/dev/X0"
want "/dev/X1"
want "/dev/X1 1048576 4096 0 1 /mnt/s/img1 1 512"
want ' "back-file": "/mnt/s/img1",'
want "losetup: /mnt/s/img1: overlapping loop device exists"
grep -A1 -xF -- "\$ losetup -L -P -b 4096 --direct-io=on -f --show /mnt/s/img2" \
	/tmp/aiotest-ls-aio.fields | grep -qxF /dev/X2 || fail "-L did not reuse /dev/X2"
want "losetup: /dev/X5: detach failed: No such device or address"
want "/dev/X1 1 /mnt/ro/img2"
want "losetup: /mnt/s/img2: overlapping read-only loop device exists"
[ "$(grep -c '^\[exit 0\]' /tmp/aiotest-ls-aio.txt)" -ge 28 ] ||
	fail "fewer commands succeeded than expected"
unload_aioloop
