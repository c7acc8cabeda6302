#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every slab allocation a configuring device ioctl makes fails in turn,
# one per call (fail-nth, failslab on every cache, sleeping allocations
# included): LOOP_CONFIGURE, LOOP_SET_FD, LOOP_SET_STATUS64,
# LOOP_SET_DIRECT_IO, LOOP_SET_BLOCK_SIZE, LOOP_CHANGE_FD and
# LOOP_CLR_FD. Each call either succeeds or fails and leaves the device
# as it was (a bind that lost its loop/ directory or O_DIRECT on the way
# says so in dmesg), the module's reference count is back to its idle
# value after each one, and afterwards the device works, kmemleak finds
# nothing of aioloop's and the module unloads. Skipped on kernels without
# failslab.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
. /tests/helpers/failnth.sh

D=/dev/aioloop0
mkscratch ext4 /mnt/s
mkfile /mnt/s/a 8M
mkfile /mnt/s/b 8M
load_aioloop
[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
failslab_on

# bound by LOOP_GET_STATUS64: a bind whose loop/ sysfs directory could
# not be made is still a bind (as in loop)
has_file() { lioctl $D get-status64 2>&1 | grep -q '^OK'; }
is_bound() { has_file || { _why="not bound"; return 1; }; }
is_unbound() { ! has_file || { _why="bound"; return 1; }; }
unbind() { ! has_file || lok $D clr-fd >/dev/null; }
bind_a() { has_file || lok $D configure /mnt/s/a >/dev/null; }
bind_ro_a() { has_file || lok $D configure ro:/mnt/s/a flags=1 >/dev/null; }
mode_is() { [ "$(counter $D mode)" = "$1" ] || { _why="mode $(counter $D mode)"; return 1; }; }

# a bind that succeeded without its loop/ directory, or in sync mode
# because the O_DIRECT reopen failed, says so in dmesg
W_SYSFS="aioloop0: no loop/ sysfs attributes"
W_DIO="cannot reopen a with O_DIRECT"
nlines() { dmesg | grep -c "$1" || true; }
mark() { _sysfs0=$(nlines "$W_SYSFS") _dio0=$(nlines "$W_DIO"); }
said() { [ "$(nlines "$1")" -gt "$2" ] || { _why="$3, no '$1' in dmesg"; return 1; }; }
is_bound_said() {
	is_bound || return 1
	bound $D || said "$W_SYSFS" "$_sysfs0" "no loop/" || return 1
	mode_is aio || said "$W_DIO" "$_dio0" "sync mode"
}

idle=$(cat $REF)
faults configure mark is_bound_said is_unbound unbind -- $D configure /mnt/s/a
faults set-fd mark is_bound_said is_unbound unbind -- $D set-fd /mnt/s/a

# on a bound device (whose binding holds a reference)
bind_a
idle=$(cat $REF)
off() { [ "$(lstatus $D offset)" = "$1" ] || { _why="offset $(lstatus $D offset)"; return 1; }; }
off_new() { off 4096; }
off_old() { off 0; }
off_undo() { lok $D set-status64 offset=0 >/dev/null; }
faults set-status64 nop off_new off_old off_undo -- $D set-status64 offset=4096

is_sync() { mode_is sync; }
is_aio() { mode_is aio; }
dio_undo() { lok $D set-direct-io 1 >/dev/null; }
faults set-direct-io-off nop is_sync is_aio dio_undo -- $D set-direct-io 0

lbs() { cat $SYSBLK/aioloop0/queue/logical_block_size; }
bs() { [ "$(lbs)" = "$1" ] || { _why="block size $(lbs)"; return 1; }; }
bs_new() { bs 4096; }
bs_old() { bs 512; }
bs_undo() { lok $D set-block-size 512 >/dev/null; }
faults set-block-size nop bs_new bs_old bs_undo -- $D set-block-size 4096

unbind
bind_ro_a
idle=$(cat $REF)
on() { [ "$(loopattr $D backing_file)" = "$1" ] || { _why="backing file $(loopattr $D backing_file)"; return 1; }; }
on_b() { on /mnt/s/b; }
on_a() { on /mnt/s/a; }
back_to_a() { unbind; bind_ro_a; }
faults change-fd nop on_b on_a back_to_a -- $D change-fd ro:/mnt/s/b

unbind
idle=$(cat $REF)
faults clr-fd bind_ro_a is_unbound is_bound unbind -- $D clr-fd
faults_summary

expect_eq refcnt "$(cat $REF)" 0
dev=$(attach /mnt/s/a)
fio_verify "$dev" 2m
detach "$dev"
kmemleak_check
unload_aioloop
