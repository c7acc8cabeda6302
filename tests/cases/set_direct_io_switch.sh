#!/bin/sh
# aioloop-setup set-direct-io: aio <-> sync on ext4 with the data intact in
# both modes; "on" is refused on tmpfs (no O_DIRECT) and the mode stays sync.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
need_setup
load_aioloop
mkscratch ext4 /mnt/s
mkfile /mnt/s/img 64M
dev=$(attach /mnt/s/img)
M=1048576

# check_region OFF LEN: device and backing file agree
check_region() {
	expect_eq "md5 at $1" "$(dev_md5 "$dev" "$1" "$2")" \
		"$(file_md5 /mnt/s/img "$1" "$2")"
}

# dio_flag: LO_FLAGS_DIRECT_IO in LOOP_GET_STATUS64
dio_flag() {
	echo $(($(lstatus "$dev" flags) / 16 % 2))
}

expect_eq mode "$(counter "$dev" mode)" aio
expect_eq "dio flag (aio)" "$(dio_flag)" 1
expect_eq "sysfs dio (aio)" "$(loopattr "$dev" dio)" 1
a0=$(counter "$dev" aio_submitted)
fill_random "$dev" 0 $((4 * M))
check_region 0 $((4 * M))
a1=$(counter "$dev" aio_submitted)
[ "$a1" -gt "$a0" ] || fail "aio mode: aio_submitted did not grow ($a0 -> $a1)"

aioloop-setup set-direct-io "$dev" off || fail "set-direct-io off failed"
expect_eq mode "$(counter "$dev" mode)" sync
expect_eq sync_reason "$(counter "$dev" sync_reason)" user
expect_eq "dio flag (sync)" "$(dio_flag)" 0
expect_eq "sysfs dio (sync)" "$(loopattr "$dev" dio)" 0
s0=$(counter "$dev" sync_ios)
a0=$(counter "$dev" aio_submitted)
fill_random "$dev" $((8 * M)) $((4 * M))
check_region $((8 * M)) $((4 * M))
check_region 0 $((4 * M))
s1=$(counter "$dev" sync_ios)
a1=$(counter "$dev" aio_submitted)
[ "$s1" -gt "$s0" ] || fail "sync mode: sync_ios did not grow ($s0 -> $s1)"
expect_eq "sync mode: aio_submitted" "$a1" "$a0"

aioloop-setup set-direct-io "$dev" on || fail "set-direct-io on failed"
expect_eq mode "$(counter "$dev" mode)" aio
expect_eq "dio flag (aio again)" "$(dio_flag)" 1
a0=$(counter "$dev" aio_submitted)
fill_random "$dev" $((16 * M)) $((4 * M))
check_region $((16 * M)) $((4 * M))
check_region $((8 * M)) $((4 * M))
a1=$(counter "$dev" aio_submitted)
[ "$a1" -gt "$a0" ] || fail "aio again: aio_submitted did not grow"
detach "$dev"

# tmpfs has no O_DIRECT: sync from the start, "on" refused
mkscratch tmpfs /mnt/t
mkfile /mnt/t/img 16M
dev=$(attach /mnt/t/img)
expect_eq "tmpfs mode" "$(counter "$dev" mode)" sync
log "tmpfs sync_reason: $(counter "$dev" sync_reason)"
expect_errno EINVAL lioctl "$dev" set-direct-io 1
if aioloop-setup set-direct-io "$dev" on 2>/dev/null; then
	fail "set-direct-io on succeeded on tmpfs"
fi
expect_eq "tmpfs mode after refused on" "$(counter "$dev" mode)" sync
fill_random "$dev" 0 $((2 * M))
expect_eq "tmpfs md5" "$(dev_md5 "$dev" 0 $((2 * M)))" \
	"$(file_md5 /mnt/t/img 0 $((2 * M)))"
detach "$dev"
