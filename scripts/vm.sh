#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test VM (QEMU TCG) with $BUILD/initramfs.cpio.gz.
#
#   AIOTEST=check|run|shell  what the guest does (default: shell)
#   ONLY=a,b                 with check: only these tests
#   TAG=name                 log names: $BUILD/console-$TAG.log and
#                            $BUILD/results-$TAG.log (default: $AIOTEST)
#   VM_TIMEOUT=secs          kill QEMU after this long (default 2400)
#   TEST_TIMEOUT=secs        per-test limit in the guest (default 300)
#   BOOT_TIMEOUT=secs        boot once more if the guest has not started
#                            /init after this long (default 300)
#   VM_APPEND="..."          extra kernel parameters
#   SMP=n MEM=size           vCPUs and memory (default 2 and 3G)
#   KERNEL=debug             boot the debug kernel (scripts/build-debug-kernel.sh;
#                            longer default timeouts: 10800, 2400 and 900);
#                            KERNEL=debug-rt its PREEMPT_RT variant
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
KIMAGE=$(scripts/kenv.sh | sed -n 's/^KIMAGE=//p')
[ -n "$KIMAGE" ] || exit 1
case "${KERNEL:-}" in
debug | debug-rt)
	# KASAN, lockdep and kmemleak make everything several times slower
	# (the stacking tests' chains take about 20 minutes each there)
	VM_TIMEOUT=${VM_TIMEOUT:-10800}
	TEST_TIMEOUT=${TEST_TIMEOUT:-2400}
	BOOT_TIMEOUT=${BOOT_TIMEOUT:-900}
	# The ACPI interpreter is so slow there that each PCI interrupt
	# routing (_PRT) evaluation hits its 30 s loop timeout: route
	# interrupts without ACPI. slub_debug=A marks the kaio_req cache for
	# failslab's cache filter (tests/cases/failslab_*.sh). brd is built
	# in: one 1 GiB RAM disk, as tests/helpers/chain.sh loads it; so is
	# scsi_debug: one 16 MiB disk of 4096-byte sectors, as
	# tests/cases/peer_blktests_loop_004.sh loads it.
	VM_APPEND="acpi=noirq slub_debug=A,kaio_req brd.rd_nr=1 brd.rd_size=1048576 scsi_debug.sector_size=4096 scsi_debug.dev_size_mb=16 ${VM_APPEND:-}"
	[ "$KERNEL" = debug-rt ] || VM_APPEND="kasan_multi_shot $VM_APPEND"
	;;
esac
AIOTEST=${AIOTEST:-shell}
TAG=${TAG:-$AIOTEST}
VM_TIMEOUT=${VM_TIMEOUT:-2400}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-300}
CONSOLE=$BUILD/console-$TAG.log
RESULTS=$BUILD/results-$TAG.log

[ -f "$BUILD/initramfs.cpio.gz" ] || {
	echo "vm: no $BUILD/initramfs.cpio.gz (run scripts/mkinitramfs.sh)" >&2
	exit 1
}

# fresh sparse disks: vda raw, vdb and vdc for scratch filesystems
disks=()
for d in raw:1G scratch1:2G scratch2:2G; do
	img=$BUILD/disk-${d%%:*}.img
	rm -f "$img"
	truncate -s "${d#*:}" "$img"
	disks+=(-drive "file=$img,format=raw,if=virtio,cache=unsafe,discard=unmap")
done

append="console=ttyS0 panic=-1 watchdog_thresh=30 mitigations=off"
append+=" aiotest=$AIOTEST"
[ -n "${ONLY:-}" ] && append+=" aiotest.only=$ONLY"
[ -n "${TEST_TIMEOUT:-}" ] && append+=" aiotest.timeout=$TEST_TIMEOUT"
append+=" ${VM_APPEND:-}"

if [ "$AIOTEST" = shell ] && [ -t 0 ]; then
	serial=(-serial mon:stdio)
	tmo=()
else
	# the QEMU monitor on a socket: scripts/vm-sysrq.sh sends the guest
	# SysRq keys through it (backtraces of a guest that stopped
	# answering)
	serial=(-serial stdio
		-monitor "unix:$BUILD/qemu-$TAG.monitor,server=on,wait=off")
	tmo=(timeout -k 10 "$VM_TIMEOUT")
	exec </dev/null
fi

qemu=(qemu-system-x86_64
	-accel tcg,thread=multi -cpu max -smp "${SMP:-2}" -m "${MEM:-3G}"
	-nographic -no-reboot -nic none
	-kernel "$KIMAGE" -initrd "$BUILD/initramfs.cpio.gz"
	-append "$append"
	"${serial[@]}" -serial "file:$RESULTS"
	"${disks[@]}")

if [ ${#tmo[@]} -eq 0 ]; then
	: >"$RESULTS"
	"${qemu[@]}" | tee "$CONSOLE"
	exit
fi

# boot: run the VM; a guest that has not started /init after
# BOOT_TIMEOUT seconds hung in early boot (seen once with the debug
# kernel on a loaded host, in its RCU self tests): kill it, return 75
PIDFILE=$BUILD/qemu-$TAG.pid
boot() {
	local job t=0

	: >"$RESULTS"
	: >"$CONSOLE"
	rm -f "$PIDFILE"
	( "${tmo[@]}" "${qemu[@]}" -pidfile "$PIDFILE" | tee "$CONSOLE" ) &
	job=$!
	while ! grep -q 'Run /init as init process' "$CONSOLE" 2>/dev/null; do
		kill -0 $job 2>/dev/null || break
		if [ $t -ge "$BOOT_TIMEOUT" ]; then
			echo "vm: no /init after ${BOOT_TIMEOUT}s" >&2
			kill "$(cat "$PIDFILE" 2>/dev/null)" 2>/dev/null || true
			wait $job || true
			return 75
		fi
		sleep 2
		t=$((t + 2))
	done
	wait $job || return
	# a kernel that died before /init (seen under TCG: an int3 oops
	# while patching kernel text at boot, a KASAN report storm in early
	# interrupt handling) is booted once more too
	grep -q 'Run /init as init process' "$CONSOLE" || {
		echo "vm: the kernel stopped before /init" >&2
		return 75
	}
}

rc=0
boot || rc=$?
if [ $rc -eq 75 ]; then
	echo "vm: booting again" >&2
	rc=0
	boot || rc=$?
fi
exit $rc
