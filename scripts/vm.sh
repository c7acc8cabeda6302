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
#   VM_APPEND="..."          extra kernel parameters
#   SMP=n MEM=size           vCPUs and memory (default 2 and 3G)
#   KERNEL=debug             boot the debug kernel (scripts/build-debug-kernel.sh;
#                            longer default timeouts: 7200 and 900)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
KVER=$(scripts/kver.sh)
KIMAGE=/boot/vmlinuz-$KVER
if [ "${KERNEL:-}" = debug ]; then
	# KASAN, lockdep and kmemleak make everything several times slower
	KIMAGE=$(scripts/build-debug-kernel.sh --env | sed -n 's/^KIMAGE=//p')
	VM_TIMEOUT=${VM_TIMEOUT:-7200}
	TEST_TIMEOUT=${TEST_TIMEOUT:-900}
	# The ACPI interpreter is so slow there that each PCI interrupt
	# routing (_PRT) evaluation hits its 30 s loop timeout: route
	# interrupts without ACPI. slub_debug=A marks the kaio_req cache for
	# failslab's cache filter (tests/cases/failslab_*.sh).
	VM_APPEND="kasan_multi_shot acpi=noirq slub_debug=A,kaio_req ${VM_APPEND:-}"
fi
AIOTEST=${AIOTEST:-shell}
TAG=${TAG:-$AIOTEST}
VM_TIMEOUT=${VM_TIMEOUT:-2400}
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
	serial=(-serial stdio -monitor none)
	tmo=(timeout -k 10 "$VM_TIMEOUT")
	exec </dev/null
fi

: >"$RESULTS"
"${tmo[@]}" qemu-system-x86_64 \
	-accel tcg,thread=multi -cpu max -smp "${SMP:-2}" -m "${MEM:-3G}" \
	-nographic -no-reboot -nic none \
	-kernel "$KIMAGE" -initrd "$BUILD/initramfs.cpio.gz" \
	-append "$append" \
	"${serial[@]}" -serial "file:$RESULTS" \
	"${disks[@]}" | tee "$CONSOLE"
