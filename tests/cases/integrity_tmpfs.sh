#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A file on tmpfs: where tmpfs has no O_DIRECT (6.1) the synchronous
# fallback serves it (mode sync, reason no-direct-io); where it has
# (6.12) the aio path does.  fio crc32c verification passes
# either way, and the counters of the path in use move.
. /tests/lib.sh

mkscratch tmpfs /mnt/s
mkfile /mnt/s/backing 128M
if dd if=/dev/zero of=/mnt/s/probe bs=4096 count=1 oflag=direct 2>/dev/null
then
	want=aio reason=none dio=1 moved=aio_submitted idle=sync_ios
else
	want=sync reason=no-direct-io dio=0 moved=sync_ios idle=aio_submitted
fi
rm -f /mnt/s/probe
log "tmpfs O_DIRECT: $([ $dio = 1 ] && echo yes || echo no), expecting $want"

load_aioloop
dev=$(attach /mnt/s/backing)
expect_eq mode "$(counter "$dev" mode)" $want
expect_eq sync_reason "$(counter "$dev" sync_reason)" $reason
expect_eq "loop/dio" "$(loopattr "$dev" dio)" $dio

n0=$(counter "$dev" $moved)
fio_verify "$dev" 64m
n1=$(counter "$dev" $moved)
show_counters "$dev"
[ "$n1" -gt "$n0" ] || fail "$moved did not grow ($n0 -> $n1)"
expect_eq $idle "$(counter "$dev" $idle)" 0
expect_eq errors "$(counter "$dev" errors)" 0

md5=$(dev_md5 "$dev")
detach "$dev"
expect_eq "backing file md5" "$(file_md5 /mnt/s/backing)" "$md5"
