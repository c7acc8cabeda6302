#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# How deep the kernel stack gets on a chain of aioloop devices: with
# stack_watch=Y each device records the deepest stack of the tasks that
# submit to it or serve it (the high-water mark of their zeroed stacks,
# read after every bio). A single device and a chain of 3, each backed by
# a fallocated file on ext4 on the one below (tests/helpers/chain.sh),
# serve fio verify with direct submission on (1 and 4 jobs, and 512 small
# writes in flight) and an fsync-heavy ext4 on the top device. The deepest
# stack must stay under three quarters of THREAD_SIZE (16 KiB; 32 KiB
# with KASAN), so that at least a quarter is left; the difference between
# the two chains is the cost of two more levels. Kernel workers live
# longer than the test, so their marks can include earlier work: the
# figure is an upper bound.
. /tests/lib.sh
. /tests/helpers/chain.sh

limit=16384
case $(uname -r) in
*debug*) limit=32768 ;;
esac
load_aioloop stack_watch=1

# measure DEPTH: the workloads on a chain of DEPTH; prints "BYTES TASK"
# of its deepest stack
measure() {
	chain_up aioloop "$1" >&2
	NUMJOBS=1 fio_verify "$TOP" 24m >&2
	NUMJOBS=4 fio_verify "$TOP" 8m >&2
	NUMJOBS=4 IODEPTH=128 BSSPLIT=512/50:4k/50 fio_verify "$TOP" 2m >&2
	chain_fs_fsync "$TOP" >&2
	[ "$(counter "$TOP" aio_direct)" -gt 0 ] ||
		fail "no bio submitted directly on $TOP"
	_best=0 _task=
	for _d in $CHAIN_DEVS; do
		_u=$(counter "$_d" stack_max_used)
		log "depth $1: $_d: deepest stack $_u bytes" \
			"($(counter "$_d" stack_max_task)), aio_direct" \
			"$(counter "$_d" aio_direct)" >&2
		if [ "$_u" -gt "$_best" ]; then
			_best=$_u _task=$(counter "$_d" stack_max_task)
		fi
	done
	chain_down >&2
	echo "$_best $_task"
}

set -- $(measure 1)
one=$1 one_task=$2
set -- $(measure 3)
three=$1 three_task=$2
log "deepest stack: one device $one bytes ($one_task), a chain of 3" \
	"$three bytes ($three_task), of $limit; two more levels: $((three - one))"
[ "$one" -gt 0 ] || fail "stack_max_used stayed 0"
[ "$three" -le $((limit * 3 / 4)) ] ||
	fail "a chain of 3 used $three of $limit bytes of stack"
unload_aioloop
