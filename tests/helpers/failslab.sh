# SPDX-License-Identifier: GPL-2.0
#
# failslab's debugfs knobs, sourced after /tests/lib.sh; skips the test
# on kernels without failslab. failslab_reset, also run on exit, puts
# back failslab's defaults: no faults, every cache, sleeping allocations
# spared, a stack dump per fault.

FS=/sys/kernel/debug/failslab
[ -d $FS ] || skip "kernel without failslab"

failslab_reset() {
	echo 0 >$FS/probability
	echo 1 >$FS/times
	echo N >$FS/cache-filter
	echo Y >$FS/ignore-gfp-wait
	echo 2 >$FS/verbose
}
trap failslab_reset EXIT
