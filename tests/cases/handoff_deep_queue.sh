#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One submitter with a deep queue has its bios handed to a worker on an
# idle CPU (aio_handoff counts them); at queue depth 1 most bios stay
# direct (a probe of up to 9 bios now and then, at most once a second
# once settled: fewer than a quarter in 4 s); as many deep-queue jobs
# as CPUs leave no CPU to borrow and hand off under a quarter too (the
# start, before every job submits, may); handoff=N hands none off; data
# written at depth 32 by one job, while bios are handed off, reads back
# verified, on a device and on one stacked on a file system on it.
. /tests/lib.sh

PARAM=/sys/module/aioloop/parameters/handoff

# randread DEV QD SECONDS [JOBS]: fio jobs (default 1) of 4k random reads
randread() {
	expect_ok fio --name=rr --filename="$1" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --iodepth="$2" --numjobs="${4:-1}" \
		--size=64m --time_based --runtime="$3" --eta=never \
		--output=/dev/null
}

# handed DEV QD SECONDS [JOBS]: "handed-off submitted" counter deltas
handed() {
	_h0=$(counter "$1" aio_handoff)
	_s0=$(counter "$1" aio_submitted)
	randread "$@"
	echo "$(($(counter "$1" aio_handoff) - _h0))" \
		"$(($(counter "$1" aio_submitted) - _s0))"
}

mkscratch ext4 /mnt/s
mkfile /mnt/s/backing 96M
fill_random /mnt/s/backing 0 64M
load_aioloop
expect_eq "handoff default" "$(cat $PARAM)" Y
dev=$(attach /mnt/s/backing)

r=$(handed "$dev" 1 4)
set -- $r
log "QD1: $1 of $2 bios handed off"
[ "$2" -gt 0 ] || fail "QD1 submitted nothing"
[ $(($1 * 4)) -lt "$2" ] || fail "QD1 handed off $1 of $2 bios"

r=$(handed "$dev" 32 4)
set -- $r
log "QD32: $1 of $2 bios handed off"
[ "$1" -gt 0 ] || fail "QD32 handed off none of $2 bios"

cpus=$(nproc)
r=$(handed "$dev" 32 4 "$cpus")
set -- $r
log "QD32, $cpus jobs: $1 of $2 bios handed off"
[ "$2" -gt 0 ] || fail "$cpus jobs submitted nothing"
[ $(($1 * 4)) -lt "$2" ] || fail "$cpus jobs handed off $1 of $2 bios"

echo N >$PARAM
r=$(handed "$dev" 32 2)
set -- $r
echo Y >$PARAM
expect_eq "handed off with handoff=N" "$1" 0

h0=$(counter "$dev" aio_handoff)
IODEPTH=32 NUMJOBS=1 fio_verify "$dev" 32m
log "fio verify: $(($(counter "$dev" aio_handoff) - h0)) bios handed off"
show_counters "$dev"
check_aio_counters "$dev"
expect_eq errors "$(counter "$dev" errors)" 0

# ext4 on $dev, a device on a file in it, verified at depth 32
inner=$(attach_inner "$dev")
IODEPTH=32 NUMJOBS=1 fio_verify "$inner" 32m
log "stacked: $(counter "$inner" aio_handoff) and" \
	"$(counter "$dev" aio_handoff) bios handed off (upper, lower)"
check_aio_counters "$inner"
expect_eq "inner errors" "$(counter "$inner" errors)" 0
detach "$inner"
expect_ok umount /mnt/d
e2fsck -fn "$dev" || fail "e2fsck -fn: exit $?"
check_aio_counters "$dev"
expect_eq errors "$(counter "$dev" errors)" 0
detach "$dev"
