#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark driver, in the test VM (kernel command line aiotest=bench;
# started by /init, run by scripts/bench.sh on the host).
#
# For each backing (fast: ext4 on brd; slow: ext4 on null_blk with a
# 100 us timer completion) a pre-filled file is created and attached to
# /dev/aioloop0 and /dev/loop0. Each workload of bench/matrix then runs
# on every driver in turn, repetition after repetition:
#   raw      fio on the backing file itself (direct=1, libaio)
#   aio      /dev/aioloop0 in its default (aio) mode
#   sync     /dev/aioloop0 after "aioloop-setup set-direct-io ... off"
#   loopdio  /dev/loop0 with direct I/O on
#   loopbuf  /dev/loop0 with direct I/O off (loop's default)
#
# Output on the console, one line per record:
#   AIOBENCH-BEGIN
#   AIOBENCH-META {json}                      the VM and the parameters
#   AIOBENCH-BACKING {json}                   a backing's set-up
#   AIOBENCH-POINT {json, with "fio": fio's JSON output on one line}
#   AIOBENCH-ERROR text                       something failed
#   AIOBENCH-PROGRESS text                    for the impatient
#   AIOBENCH-END
#
# Parameters (kernel command line, aiobench.KEY=VALUE):
#   matrix=quick|default|all   which workloads of bench/matrix
#   only=name,name             just these workloads
#   reps=N runtime=S ramp=S    repetitions, seconds measured, ramp seconds
#   size=MiB                   backing file size
#   backings=fast,slow drivers=raw,aio,sync,loopdio,loopbuf
#                              and variants of aio: aio~name=value[~...]
#                              runs aio with those (writable) aioloop
#                              module parameters, for A/B in one boot
#   modparams=a=1,b=2          aioloop module parameters
#   perf=aio,loopdio           profile these drivers' points of the first
#                              repetition: AIOBENCH-PERF point line
. /tests/lib.sh
set +eu

BENCH=/bench
JOB=$BENCH/jobs/bench.fio
MATRIXFILE=$BENCH/matrix
MNT=/mnt/bench
FILE=$MNT/backing.img
OUT=/tmp/aiobench
mkdir -p "$OUT"

MATRIX=default
ONLY=
REPS=3
RUNTIME=5
RAMP=1
SIZE_MB=1024
BACKINGS="fast slow"
DRIVERS="raw aio sync loopdio loopbuf"
MODPARAMS=
PERF=
for w in $(cat /proc/cmdline); do
	case "$w" in
	aiobench.matrix=*) MATRIX=${w#*=} ;;
	aiobench.only=*) ONLY=${w#*=} ;;
	aiobench.reps=*) REPS=${w#*=} ;;
	aiobench.runtime=*) RUNTIME=${w#*=} ;;
	aiobench.ramp=*) RAMP=${w#*=} ;;
	aiobench.size=*) SIZE_MB=${w#*=} ;;
	aiobench.backings=*) BACKINGS=$(echo "${w#*=}" | tr , ' ') ;;
	aiobench.drivers=*) DRIVERS=$(echo "${w#*=}" | tr , ' ') ;;
	aiobench.modparams=*) MODPARAMS=$(echo "${w#*=}" | tr , ' ') ;;
	aiobench.perf=*) PERF=${w#*=} ;;
	esac
done
NCPU=$(nproc)
COUNTERS="aio_submitted aio_direct aio_handoff aio_inline aio_queued
nowait_eagain sync_ios dio_retries aio_resubmits errors"

say() {
	echo "$*"
}

err() {
	say "AIOBENCH-ERROR $*"
}

progress() {
	say "AIOBENCH-PROGRESS $*"
}

# workloads NAME...: "name rw bs qd jobs" lines of the selected matrix
workloads() {
	grep -v '^#' "$MATRIXFILE" | while read -r n rw bs qd jobs m; do
		[ -n "$n" ] || continue
		if [ -n "$ONLY" ]; then
			case ",$ONLY," in *",$n,"*) ;; *) continue ;; esac
		else
			case ",$m," in *",$MATRIX,"*) ;; *) continue ;; esac
		fi
		echo "$n $rw $bs $qd $jobs"
	done
}

# ---- backings --------------------------------------------------------------

BDEV=
setup_backing() {
	_gb=$(((SIZE_MB + 256 + 1023) / 1024))
	case "$1" in
	fast)
		modprobe brd rd_nr=1 rd_size=$((_gb * 1024 * 1024)) max_part=0 ||
			return 1
		BDEV=/dev/ram0
		_desc="ext4 on brd (${_gb} GiB ramdisk)"
		;;
	slow)
		modprobe null_blk nr_devices=1 queue_mode=2 memory_backed=1 \
			irqmode=2 completion_nsec=100000 submit_queues="$NCPU" \
			hw_queue_depth=128 gb="$_gb" || return 1
		BDEV=/dev/nullb0
		_desc="ext4 on null_blk (memory_backed=1 irqmode=2 completion_nsec=100000 submit_queues=$NCPU hw_queue_depth=128, ${_gb} GiB)"
		;;
	*)
		err "unknown backing $1"
		return 1
		;;
	esac
	for _i in $(seq 50); do
		[ -b "$BDEV" ] && break
		sleep 0.1
	done
	mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 \
		"$BDEV" || return 1
	mkdir -p "$MNT"
	mount -t ext4 "$BDEV" "$MNT" || return 1
	# written extents, not sparse or unwritten: reads hit real blocks
	dd if=/dev/zero of="$FILE" bs=1M count="$SIZE_MB" oflag=direct \
		conv=fsync status=none || return 1
	sync
	_unwritten=$(filefrag -v "$FILE" | grep -c unwritten)
	_extents=$(filefrag "$FILE" | sed 's/.*: \([0-9]*\) extent.*/\1/')
	_blocks=$(stat -c %b "$FILE")
	drop_caches
	say "AIOBENCH-BACKING {\"backing\":\"$1\",\"desc\":\"$_desc\",\"dev\":\"$BDEV\",\"size_mb\":$SIZE_MB,\"allocated_bytes\":$((_blocks * 512)),\"extents\":${_extents:-0},\"unwritten_extents\":$_unwritten}"
	progress "$1: $_desc; $FILE ${SIZE_MB} MiB, ${_extents} extents, $_unwritten unwritten"
}

teardown_backing() {
	umount "$MNT" 2>/dev/null
	rmmod brd 2>/dev/null
	rmmod null_blk 2>/dev/null
	return 0
}

# ---- devices and their modes ------------------------------------------------

AIODEV=
LOOPDEV=
attach_devices() {
	AIODEV=$(aioloop-setup attach "$FILE") || return 1
	LOOPDEV=$(losetup --show -f "$FILE") || return 1
	progress "attached $FILE to $AIODEV and $LOOPDEV"
}

detach_devices() {
	[ -n "$AIODEV" ] && aioloop-setup detach "$AIODEV"
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"
	AIODEV="" LOOPDEV=""
	return 0
}

# variant_set DRIVER: for a variant "aio~name=value[~name=value]", set
# those aioloop module parameters for the point, remembering the old
# values in VARIANT_OLD; variant_reset puts them back
VARIANT_OLD=
variant_set() {
	VARIANT_OLD=
	case "$1" in *"~"*) ;; *) return 0 ;; esac
	for _kv in $(echo "${1#*~}" | tr '~' ' '); do
		_pf=/sys/module/aioloop/parameters/${_kv%%=*}
		[ -w "$_pf" ] || {
			err "$1: no writable aioloop parameter ${_kv%%=*}"
			return 1
		}
		VARIANT_OLD="$VARIANT_OLD ${_kv%%=*}=$(cat "$_pf")"
		echo "${_kv#*=}" >"$_pf" || return 1
	done
}

variant_reset() {
	for _kv in $VARIANT_OLD; do
		echo "${_kv#*=}" >"/sys/module/aioloop/parameters/${_kv%%=*}"
	done
	VARIANT_OLD=
}

# use_driver DRIVER: put the device in the driver's mode, print the fio
# target; a variant "aio~..." is aio with other module parameters
use_driver() {
	_want=${1%%~*}
	case "$_want" in
	raw)
		echo "$FILE"
		return 0
		;;
	aio | sync)
		_io=on
		[ "$_want" = sync ] && _io=off
		if [ "$(counter "$AIODEV" mode)" != "$_want" ]; then
			aioloop-setup set-direct-io "$AIODEV" "$_io" >&2 || return 1
		fi
		_got=$(counter "$AIODEV" mode)
		[ "$_got" = "$_want" ] || {
			err "$AIODEV: mode is $_got, not $_want"
			return 1
		}
		echo "$AIODEV"
		;;
	loopdio | loopbuf)
		_want=1 _io=on
		[ "$1" = loopbuf ] && _want=0 _io=off
		if [ "$(loopattr "$LOOPDEV" dio)" != "$_want" ]; then
			losetup --direct-io="$_io" "$LOOPDEV" >&2 || return 1
		fi
		_got=$(loopattr "$LOOPDEV" dio)
		[ "$_got" = "$_want" ] || {
			err "$LOOPDEV: dio is $_got, not $_want"
			return 1
		}
		echo "$LOOPDEV"
		;;
	*)
		err "unknown driver $1"
		return 1
		;;
	esac
}

# counters_json DEV: the aioloop counters as a JSON object ({} otherwise)
counters_json() {
	case "$1" in
	/dev/aioloop*) ;;
	*)
		echo "{}"
		return
		;;
	esac
	_sep="" _j="{"
	for _c in $COUNTERS; do
		_j="$_j$_sep\"$_c\":$(counter "$1" "$_c")"
		_sep=,
	done
	echo "$_j}"
}

cpustat() {
	head -1 /proc/stat | sed 's/^cpu  *//; s/ /,/g'
}

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# fio_iops FILE DIRECTION: the "iops" of a fio JSON output, for progress
fio_iops() {
	awk -v dir="\"$2\"" '
	$1 == dir && $3 == "{" { inside = 1; next }
	inside && $1 == "\"iops\"" { sub(/,$/, "", $3); printf "%d", $3; exit }
	' "$1"
}

# perf_start BACKING DRIVER REP NAME: profile the whole VM for the
# measured part of the point, if asked for (first repetition only)
PERF_PID=
perf_start() {
	PERF_PID=
	[ -n "$PERF" ] && [ "$3" = 1 ] || return 0
	case ",$PERF," in *",$2,"*) ;; *) return 0 ;; esac
	(
		sleep "$RAMP"
		exec perf record -q -e cpu-clock -F 2000 -a -g \
			-o "$OUT/perf.data" -- sleep "$RUNTIME"
	) >"$OUT/perf.err" 2>&1 &
	PERF_PID=$!
	PERF_POINT="$1-$4-$2"
}

# perf_report: the profile of the point just measured, flat and by caller
perf_report() {
	[ -n "$PERF_PID" ] || return 0
	wait "$PERF_PID"
	{
		echo "# $PERF_POINT: perf record -e cpu-clock -a -g, self time by symbol"
		perf report -i "$OUT/perf.data" --stdio --no-children -g none \
			--sort comm,dso,sym --percent-limit 0.7 2>&1 |
			grep -Ev '^(#|$)'
		echo "# callers of the top symbols"
		perf report -i "$OUT/perf.data" --stdio --no-children \
			-g graph,0.5,callee --sort sym \
			--percent-limit 3 2>&1 | grep -v '^$' | head -400
		echo "# inclusive time by symbol (self and callees)"
		perf report -i "$OUT/perf.data" --stdio --children -g none \
			--sort sym --percent-limit 2 2>&1 | grep -Ev '^(#|$)'
	} | sed "s/^/AIOBENCH-PERF $PERF_POINT /"
	rm -f "$OUT/perf.data"
	PERF_PID=
}

NPOINT=0
TOTAL=0
# run_point BACKING DRIVER REP NAME RW BS QD JOBS
run_point() {
	_b=$1 _d=$2 _rep=$3 _n=$4 _rw=$5 _bs=$6 _qd=$7 _jobs=$8
	NPOINT=$((NPOINT + 1))
	_tgt=$(use_driver "$_d") || {
		err "$_b $_d: cannot select the driver"
		return 1
	}
	variant_set "$_d" || {
		variant_reset
		return 1
	}
	_o=$OUT/fio.json
	rm -f "$_o"
	drop_caches
	_c0=$(counters_json "$_tgt")
	_s0=$(cpustat)
	_u0=$(uptime_s)
	perf_start "$_b" "$_d" "$_rep" "$_n"
	BENCH_TARGET=$_tgt BENCH_RW=$_rw BENCH_BS=$_bs BENCH_QD=$_qd \
		BENCH_JOBS=$_jobs BENCH_RAMP=$RAMP BENCH_RUNTIME=$RUNTIME \
		timeout -k 10 $((RAMP + RUNTIME + 120)) \
		fio --output-format=json --output="$_o" "$JOB" \
		>"$OUT/fio.err" 2>&1
	_rc=$?
	_u1=$(uptime_s)
	_s1=$(cpustat)
	_c1=$(counters_json "$_tgt")
	variant_reset
	perf_report
	if [ $_rc -ne 0 ] || [ ! -s "$_o" ]; then
		err "$_b $_d $_n rep $_rep: fio exit $_rc: $(tr '\n' ' ' <"$OUT/fio.err" | cut -c1-300)"
		_fio=null
	else
		_fio=$(tr -d '\n\t' <"$_o" | tr -s ' ')
	fi
	say "AIOBENCH-POINT {\"backing\":\"$_b\",\"driver\":\"$_d\",\"workload\":\"$_n\",\"rep\":$_rep,\"rw\":\"$_rw\",\"bs\":\"$_bs\",\"iodepth\":$_qd,\"numjobs\":$_jobs,\"target\":\"$_tgt\",\"rc\":$_rc,\"uptime0\":$_u0,\"uptime1\":$_u1,\"stat0\":[$_s0],\"stat1\":[$_s1],\"counters0\":$_c0,\"counters1\":$_c1,\"fio\":$_fio}"
	_dir="read"
	case "$_rw" in *write) _dir="write" ;; esac
	_iops=-
	[ "$_fio" = null ] || _iops=$(fio_iops "$_o" "$_dir")
	progress "[$NPOINT/$TOTAL] $_b rep $_rep $_n $_d: $_iops IOPS"
	[ $_rc -eq 0 ]
}

# ---- main ---------------------------------------------------------------------

dmesg -n 1
say AIOBENCH-BEGIN
WL=$(workloads)
NWL=$(echo "$WL" | grep -c .)
NB=$(echo "$BACKINGS" | wc -w)
ND=$(echo "$DRIVERS" | wc -w)
TOTAL=$((NWL * NB * ND * REPS))
say "AIOBENCH-META {\"kernel\":\"$(uname -r)\",\"ncpu\":$NCPU,\"mem_kb\":$(awk '/^MemTotal/ {print $2}' /proc/meminfo),\"fio\":\"$(fio --version)\",\"matrix\":\"$MATRIX\",\"only\":\"$ONLY\",\"reps\":$REPS,\"runtime\":$RUNTIME,\"ramp\":$RAMP,\"size_mb\":$SIZE_MB,\"backings\":\"$BACKINGS\",\"drivers\":\"$DRIVERS\",\"points\":$TOTAL,\"hz\":$(getconf CLK_TCK 2>/dev/null || echo 100),\"clocksource\":\"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)\"}"
progress "$NWL workloads x $NB backings x $ND drivers x $REPS reps = $TOTAL points, ${RAMP}+${RUNTIME} s each, $NCPU CPUs"
[ "$NWL" -gt 0 ] || {
	err "no workload selected (matrix=$MATRIX only=$ONLY)"
	exit 1
}

modprobe loop || err "modprobe loop failed"
# shellcheck disable=SC2086
load_aioloop $MODPARAMS
_p="\"srcversion\":\"$(cat /sys/module/aioloop/srcversion 2>/dev/null)\""
for f in /sys/module/aioloop/parameters/*; do
	_p="$_p,\"${f##*/}\":\"$(cat "$f")\""
done
say "AIOBENCH-MODULE {$_p}"
progress "aioloop: $(echo "$_p" | tr -d '"')"
dmesg -c >/dev/null

failed=0
for b in $BACKINGS; do
	if ! setup_backing "$b" || ! attach_devices; then
		err "$b: set-up failed"
		failed=1
		detach_devices
		teardown_backing
		continue
	fi
	rep=1
	while [ $rep -le "$REPS" ]; do
		echo "$WL" | while read -r n rw bs qd jobs; do
			# start each repetition with another driver, so that
			# none always runs right after the same one
			ds=$DRIVERS
			i=1
			while [ $i -lt $rep ]; do
				# shellcheck disable=SC2086
				set -- $ds
				first=$1
				shift
				ds="$* $first"
				i=$((i + 1))
			done
			for d in $ds; do
				run_point "$b" "$d" "$rep" "$n" "$rw" "$bs" "$qd" "$jobs" ||
					touch "$OUT/failed"
			done
		done
		# the pipeline ran in a subshell: carry the point count on
		NPOINT=$((NPOINT + NWL * ND))
		rep=$((rep + 1))
	done
	detach_devices
	teardown_backing
done
[ -e "$OUT/failed" ] && failed=1

BAD='BUG:|WARNING:|Oops|KASAN|general protection|Call Trace|hung_task|blocked for more than'
if dmesg | grep -E "$BAD" >"$OUT/bad"; then
	sed 's/^/AIOBENCH-ERROR kernel: /' "$OUT/bad" | head -40
	failed=1
fi
unload_aioloop
say AIOBENCH-END
exit $failed
