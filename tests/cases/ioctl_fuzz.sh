#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Random ioctls (loop's commands, numbers next to them, random numbers;
# random loop_info64 / loop_config contents, bad and odd file descriptors,
# bad pointers, huge offsets and sizes, odd block sizes) on four devices
# and the control node, mixed with I/O and reopens: the fuzzer's checks
# hold, the kernel logs no problem, and afterwards every device detaches
# and serves verified I/O. FUZZ_SEED=N on the kernel command line replays.
. /tests/lib.sh
. /tests/helpers/bg.sh
FUZZ=/tests/helpers/fuzz
[ -x $FUZZ ] || skip "tests/helpers/fuzz not built"
need_setup
M=1048576

seed=
for w in $(cat /proc/cmdline); do
	case "$w" in
	aiotest.fuzz_seed=*) seed=${w#*=} ;;
	esac
done
[ -n "$seed" ] || seed=$(($(date +%s) % 1000000007))

load_aioloop max_devices=8
mkscratch ext4 /mnt/s
mkscratch tmpfs /mnt/t
# equal sizes (LOOP_CHANGE_FD can succeed), odd and empty ones
fill_random /mnt/s/a 0 $((8 * M))
mkfile /mnt/s/b $((8 * M))
mkfile /mnt/t/c $((8 * M))
fill_random /mnt/s/d 0 $((1 * M))
head -c 5000 /dev/urandom >/mnt/s/e
: >/mnt/s/empty
files="-f /mnt/s/a -f /mnt/s/b -f /mnt/t/c -f /mnt/s/d -f /mnt/s/e -f /mnt/s/empty"

# one process (with the state checks), then two at once
# shellcheck disable=SC2086
timeout -k 10 200 $FUZZ -s "$seed" -n 14000 -t 120 -D 4 $files ||
	fail "fuzz (seed $seed) failed"
no_kernel_problems
# shellcheck disable=SC2086
timeout -k 10 120 $FUZZ -s "$((seed + 1))" -n 3000 -t 60 -p 2 -D 4 $files ||
	fail "fuzz -p 2 (seed $((seed + 1))) failed"
no_kernel_problems

# healthy afterwards: everything detaches, a device works
aioloop-setup detach-all || fail "detach-all after fuzzing failed"
for b in $SYSBLK/aioloop*/loop; do
	[ -e "$b" ] && fail "${b%/loop} still bound after detach-all"
done
ndev=$(ls -d $SYSBLK/aioloop[0-9]* | wc -l)
log "$ndev devices after fuzzing"
mkfile /mnt/s/ok $((16 * M))
dev=$(attach /mnt/s/ok /dev/aioloop0)
expect_eq mode "$(counter "$dev" mode)" aio
expect_eq "size" "$(dev_size "$dev")" $((16 * M))
fio_verify "$dev" 4m
expect_eq "device vs file" "$(dev_md5 "$dev")" "$(file_md5 /mnt/s/ok)"
expect_eq errors "$(counter "$dev" errors)" 0
detach "$dev"
unload_aioloop
