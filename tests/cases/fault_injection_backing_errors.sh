#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# With a fault-injection kernel (make check KERNEL=debug): the disk under
# the device fails random requests (fail_make_request, 10%); fio at queue
# depth 32 sees the errors instead of hanging, `errors` counts them, and
# with the faults off the device works again. Skipped on kernels without
# CONFIG_FAIL_MAKE_REQUEST.
. /tests/lib.sh
. /tests/helpers/bg.sh
FMR=/sys/kernel/debug/fail_make_request
disk=${RAW_DEV#/dev/}
[ -d $FMR ] && [ -e $SYSBLK/$disk/make-it-fail ] ||
	skip "kernel without fail_make_request"
need_setup
load_aioloop
dev=$(attach $RAW_DEV)
expect_eq mode "$(counter "$dev" mode)" aio

echo 10 >$FMR/probability
echo 100 >$FMR/interval
echo -1 >$FMR/times
echo 0 >$FMR/verbose
echo 1 >$SYSBLK/$disk/make-it-fail
bg_start fio timeout -k 10 200 fio --name=faults --filename="$dev" \
	--ioengine=libaio --direct=1 --iodepth=32 --rw=randrw --bs=4k \
	--size=64m --io_size=16m --continue_on_error=io --eta=never
rc=$(bg_wait fio 250)
echo 0 >$SYSBLK/$disk/make-it-fail
[ "$rc" != 124 ] && [ "$rc" != 137 ] || fail "fio hung under injected faults"
bg_out fio | grep -E 'err=|READ:|WRITE:' | sed 's/^ */  /'
e=$(counter "$dev" errors)
log "errors with faults injected: $e (fio exit $rc)"
[ "$e" -gt 0 ] || fail "no error counted with 10% of the disk's requests failing"

# faults off: clean again
e0=$e
fio_verify "$dev" 4m
expect_eq "device vs disk" "$(dev_md5 "$dev" 0 $((8 * 1048576)))" \
	"$(dev_md5 $RAW_DEV 0 $((8 * 1048576)))"
expect_eq "errors without faults" "$(counter "$dev" errors)" "$e0"
detach "$dev"
