#!/bin/sh
# util-linux losetup attaches an aioloop device by path (the loop ioctls).
# Other losetup commands are tried and reported; those that claim success
# must have done what they say.
#
# losetup -d, -c and "losetup DEV" of util-linux 2.38 first check that DEV
# is a loop device (major 7 or a sysfs name starting with "loop") and
# refuse /dev/aioloopN with "failed to use device: No such device"; later
# versions dropped that check. Where they refuse, the device is detached
# with aioloop-setup instead.
. /tests/lib.sh
command -v losetup >/dev/null || skip "no losetup"
need_setup
load_aioloop
dev=/dev/aioloop0
img=/tmp/aiotest-a.img
mkfile $img 32M
log "$(losetup --version)"

# try WHAT CMD...: run CMD, report, return its status
try() {
	_what=$1
	shift
	if _out=$("$@" 2>&1); then
		log "losetup $_what: works: $(echo "${_out:-(no output)}" | head -3)"
		return 0
	fi
	log "losetup $_what: fails: $(echo "$_out" | head -3)"
	return 1
}

# losetup -d if it works (tried once), else aioloop-setup detach
detach_works=unknown
losetup_detach() {
	if [ $detach_works != no ] && try "-d DEV (detach)" losetup -d $dev; then
		detach_works=yes
		! bound $dev || fail "$dev still bound after losetup -d"
	else
		[ $detach_works = yes ] && fail "losetup -d failed this time"
		detach_works=no
		detach $dev
	fi
}

bound() {
	[ -e $SYSBLK/${1##*/}/loop ]
}

# asserted: attach by path, I/O through the device
losetup $dev $img || fail "losetup $dev $img failed"
expect_eq backing_file "$(loopattr $dev backing_file)" $img
fill_random $dev 0 4194304
expect_eq md5 "$(dev_md5 $dev 0 4194304)" "$(file_md5 $img 0 4194304)"
losetup_detach

if try "-o 4096 --sizelimit 1M -r DEV FILE" \
	losetup -o 4096 --sizelimit 1048576 -r $dev $img; then
	expect_eq "offset" "$(loopattr $dev offset)" 4096
	expect_eq "sizelimit" "$(loopattr $dev sizelimit)" 1048576
	expect_eq "ro" "$(cat $SYSBLK/aioloop0/ro)" 1
	losetup_detach
fi
if try "-b 4096 -P DEV FILE" losetup -b 4096 -P $dev $img; then
	expect_eq "block size" \
		"$(cat $SYSBLK/aioloop0/queue/logical_block_size)" 4096
	expect_eq "partscan" "$(loopattr $dev partscan)" 1
	losetup_detach
fi
if try "--direct-io=off DEV FILE" losetup --direct-io=off $dev $img; then
	log "mode after attach with --direct-io=off: $(counter $dev mode)"
	losetup_detach
fi
if try "--show DEV FILE" losetup --show $dev $img; then
	expect_eq "--show output" "$_out" $dev
	losetup_detach
fi

# informational: commands on a bound device
losetup $dev $img || fail "losetup $dev $img failed"
try "DEV (status)" losetup $dev || true
try "-l DEV (list)" losetup -l $dev || true
try "-a (all)" losetup -a || true
try "-j FILE (associated)" losetup -j $img || true
try "--json -l DEV" losetup --json -l $dev || true
if try "-c DEV (set capacity)" losetup -c $dev; then
	truncate -s 48M $img
	losetup -c $dev || fail "losetup -c failed the second time"
	expect_eq "size after losetup -c" "$(cat $SYSBLK/aioloop0/size)" 98304
fi
if try "--direct-io=off DEV" losetup --direct-io=off $dev; then
	expect_eq "mode after --direct-io=off" "$(counter $dev mode)" sync
fi
if try "-b 4096 DEV (sector size)" losetup -b 4096 $dev; then
	expect_eq "block size after losetup -b" \
		"$(cat $SYSBLK/aioloop0/queue/logical_block_size)" 4096
fi
losetup_detach

# -f searches /dev/loop-control, not aioloop: whatever it binds is not ours
if try "-f --show FILE (find)" losetup -f --show $img; then
	case "$_out" in
	/dev/aioloop*) fail "losetup -f picked an aioloop device" ;;
	*) losetup -d "$_out" ;;
	esac
fi
