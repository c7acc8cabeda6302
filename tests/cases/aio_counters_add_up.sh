#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every kaio request counted in aio_submitted is counted once more, as
# completed inline or queued; block device direct I/O is queued. The
# counters restart from zero when a file is attached.
. /tests/lib.sh

# io DEV: some mixed reads and writes, then idle
io() {
	fio --name=io --filename="$1" --ioengine=libaio --direct=1 \
		--rw=randrw --bsrange=4k-256k --iodepth=16 --size=16m \
		--output=/dev/null || fail "fio on $1 failed"
}

load_aioloop
dev=$(attach $RAW_DEV)
io "$dev"
show_counters "$dev"
[ "$(counter "$dev" aio_submitted)" -gt 0 ] || fail "aio_submitted is 0"
check_aio_counters "$dev"
[ "$(counter "$dev" aio_queued)" -gt 0 ] ||
	fail "aio_queued is 0 with a block device backing"
detach "$dev"

mkscratch ext4 /mnt/s
mkfile /mnt/s/backing 32M
dev=$(attach /mnt/s/backing)
for c in aio_submitted aio_inline aio_queued nowait_eagain sync_ios \
	flushes discards errors; do
	expect_eq "$c after attach" "$(counter "$dev" $c)" 0
done
io "$dev"
show_counters "$dev"
check_aio_counters "$dev"
detach "$dev"
