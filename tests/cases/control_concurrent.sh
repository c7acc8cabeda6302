#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Several shells at once on /dev/aioloop-control (LOOP_CTL_ADD, REMOVE,
# GET_FREE on indices 0..15), with others opening, attaching and
# detaching random devices meanwhile: every answer is one loop-control
# can give, and afterwards every /dev/aioloopN matches /sys/block (and
# the other way round), every device works, all can be removed and the
# module unloads.
. /tests/lib.sh
. /tests/helpers/ioctl.sh
. /tests/helpers/bg.sh
[ -x "$LIOCTL" ] || skip "lioctl not built"
CTL=/dev/aioloop-control
ITER=60
SECS=30	# each shell stops after ITER operations or SECS seconds
img=/tmp/aiotest-img
mkfile $img 4M
load_aioloop max_devices=4

# rnd: next pseudo-random number in $r (seeded per shell)
rnd() {
	r=$(((r * 1103515245 + 12345) % 2147483648))
}

# ctl_shell SEED: random control ioctls, checking every answer
ctl_shell() {
	r=$1 bad=0 ok=0
	end=$(($(cut -d. -f1 /proc/uptime) + SECS))
	for _i in $(seq $ITER); do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || break
		rnd
		idx=$((r / 7 % 17 - 1))	# -1..15
		case $((r % 3)) in
		0) op=ctl-add ;;
		1) op=ctl-remove ;;
		2) op=ctl-get-free ;;
		esac
		[ $op = ctl-remove ] && [ $idx -lt 0 ] && idx=0
		if [ $op = ctl-get-free ]; then
			out=$($LIOCTL $CTL $op 2>&1)
		else
			out=$($LIOCTL $CTL $op $idx 2>&1)
		fi
		case "$op:$out" in
		"ctl-add:OK $idx" | ctl-add:"ERR EEXIST") ok=$((ok + 1)) ;;
		ctl-add:"OK "*) [ $idx = -1 ] && ok=$((ok + 1)) || bad=$((bad + 1)) ;;
		"ctl-remove:OK $idx" | ctl-remove:"ERR ENODEV" | \
			ctl-remove:"ERR EBUSY") ok=$((ok + 1)) ;;
		ctl-get-free:"OK "*) ok=$((ok + 1)) ;;
		*) bad=$((bad + 1)) ;;
		esac
		case "$op:$out" in
		ctl-add:"OK "* | ctl-remove:"OK "* | ctl-get-free:"OK "* | \
			ctl-add:"ERR EEXIST" | ctl-remove:"ERR ENODEV" | \
			ctl-remove:"ERR EBUSY") ;;
		*) echo "unexpected: $op $idx: $out" ;;
		esac
	done
	echo "control shell: $ok expected answers, $bad unexpected"
	[ $bad = 0 ]
}

# user_shell SEED: open, attach and detach random devices
user_shell() {
	r=$1 n=0
	end=$(($(cut -d. -f1 /proc/uptime) + SECS))
	for _i in $(seq $ITER); do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || break
		rnd
		d=/dev/aioloop$((r / 5 % 16))
		case $((r % 4)) in
		0 | 1) dd if=$d of=/dev/null bs=4k count=1 status=none 2>/dev/null ;;
		2) $LIOCTL $d configure $img >/dev/null 2>&1 && n=$((n + 1)) ;;
		3) $LIOCTL $d clr-fd >/dev/null 2>&1 ;;
		esac
	done
	echo "user shell: $n attaches"
}

for s in 1 2 3 4; do
	bg_start ctl$s ctl_shell $((s * 7919 + $$))
done
bg_start user1 user_shell 4242
bg_start user2 user_shell 1717
for s in 1 2 3 4; do
	bg_expect_ok ctl$s 400
	log "$(bg_out ctl$s | tail -1)"
done
for s in 1 2; do
	bg_expect_ok user$s 400
	log "$(bg_out user$s)"
done

# detach whatever the user shells left attached
for b in $SYSBLK/aioloop*/loop; do
	[ -d "$b" ] || continue
	b=${b%/loop}
	lok /dev/${b##*/} clr-fd >/dev/null
done

# /dev and /sys/block agree
n=0
for s in $SYSBLK/aioloop*; do
	[ -e "$s" ] || continue
	name=${s##*/}
	[ -b /dev/$name ] || fail "$name in /sys/block but no /dev/$name"
	want=$(cat $s/dev)
	got=$(stat -c '%t:%T' /dev/$name)
	got=$((0x${got%:*})):$((0x${got#*:}))
	expect_eq "/dev/$name major:minor" "$got" "$want"
	expect_errno ENXIO lioctl /dev/$name get-status64
	n=$((n + 1))
done
for d in /dev/aioloop*; do
	case "$d" in /dev/aioloop-control) continue ;; esac
	[ -e "$d" ] || continue
	[ -d $SYSBLK/${d#/dev/} ] || fail "$d has no /sys/block entry"
done
log "$n devices, all consistent"

# every device works
for s in $SYSBLK/aioloop*; do
	[ -e "$s" ] || continue
	d=/dev/${s##*/}
	lok $d configure $img >/dev/null
	expect_eq "$d size" "$(dev_size $d)" 4194304
	dd if=$d of=/dev/null bs=64k iflag=direct status=none ||
		fail "reading $d failed"
	lok $d clr-fd >/dev/null
done

# GET_FREE gives an existing unbound device
f=$(lok $CTL ctl-get-free)
[ -b /dev/aioloop$f ] || fail "GET_FREE returned absent aioloop$f"

# all can be removed, then the module goes
for s in $SYSBLK/aioloop*; do
	[ -e "$s" ] || continue
	i=${s##*/aioloop}
	expect_eq "REMOVE $i" "$(lok $CTL ctl-remove "$i")" "$i"
done
ls -d $SYSBLK/aioloop* 2>/dev/null && fail "devices left after removing all"
for d in /dev/aioloop*; do
	[ "$d" = /dev/aioloop-control ] || [ ! -e "$d" ] || fail "$d left"
done
unload_aioloop
