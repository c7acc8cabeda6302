#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark suite (make bench): boot the test VM once, run the fio
# workloads of bench/matrix on the raw backing file, aioloop (aio and
# sync mode) and loop (direct I/O and buffered), on a fast and a slow
# backing, and write bench/results/latest.{json,md} and iops.svg. The
# last line printed is
#   headline: aio/raw=X.XX aio/loopdio=Y.YY aio/sync=Z.ZZ onejob/loopdio=W.WW
# See bench/README.md.
#
#   QUICK=1            reduced matrix: 1 repetition of 1 + 3 s
#   MATRIX=name        quick, default or all (bench/matrix)
#   ONLY=a,b           just these workloads of bench/matrix
#   REPS= RUNTIME= RAMP=   repetitions, measured and ramp seconds
#                      (default 3, 5, 1: about 37 min on a 2-core host;
#                      with QUICK=1 1, 3, 1: about 6 min)
#   SIZE_MB=n          backing file size (default 1024)
#   BACKINGS=fast,slow DRIVERS=raw,aio,sync,loopdio,loopbuf
#   SMP=n MEM=size     the VM (default 4 vCPUs, 4G)
#   MODPARAMS=a=1,b=2  aioloop module parameters in the VM
#   PERF=aio,loopdio   profile these drivers' points in their first
#                      repetition (perf record -e cpu-clock -a -g, whole
#                      VM); the reports go to RESULTS/perf/, and the
#                      profiled points' figures include perf's cost
#   CLOCK=tsc|hpet     the guest's clock source (default tsc; under TCG
#                      each HPET read is an emulated MMIO access, see
#                      bench/README.md)
#   KVER=6.12          the kernel (default 6.1, see Makefile)
#   RESULTS=dir        where the results go (default bench/results on 6.1,
#                      bench/results/<KVER> otherwise; the default also
#                      updates that kernel's summary in README.md)
# The VM's files (initramfs, console log) are in $BUILD/bench.
set -euo pipefail

cd "$(dirname "$0")/.."
SRC=$PWD
BUILD=${BUILD:-$PWD/build}
BB=$BUILD/bench
series=${KVER:-6.1}
if [ "$series" = 6.1 ]; then
	RESULTS_DEF=bench/results
else
	RESULTS_DEF=bench/results/$series
fi
RESULTS=${RESULTS:-$SRC/$RESULTS_DEF}
mkdir -p "$BB"

if [ -n "${QUICK:-}" ] && [ "${QUICK}" != 0 ]; then
	MATRIX=${MATRIX:-quick} REPS=${REPS:-1} RUNTIME=${RUNTIME:-3} RAMP=${RAMP:-1}
else
	MATRIX=${MATRIX:-default} REPS=${REPS:-3} RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
fi
SIZE_MB=${SIZE_MB:-1024}
BACKINGS=${BACKINGS:-fast,slow}
DRIVERS=${DRIVERS:-raw,aio,sync,loopdio,loopbuf}
export SMP=${SMP:-4} MEM=${MEM:-4G}

# estimate the run time: boot and set-up, plus per point its ramp,
# runtime and about 2 s of fio start-up, cache dropping and mode switching
nwl=$(awk -v m="$MATRIX" -v only="${ONLY:-}" '
	/^#/ || NF < 6 { next }
	only != "" { if (index("," only ",", "," $1 ",")) n++; next }
	index("," $6 ",", "," m ",") { n++ }
	END { print n + 0 }' bench/matrix)
nb=$(echo "$BACKINGS" | tr , '\n' | grep -c .)
nd=$(echo "$DRIVERS" | tr , '\n' | grep -c .)
points=$((nwl * nb * nd * REPS))
est=$((90 + nb * 20 + points * (RAMP + RUNTIME + 2)))
[ "$points" -gt 0 ] || {
	echo "bench: no workload selected (MATRIX=$MATRIX ONLY=${ONLY:-})" >&2
	exit 1
}
echo "bench: $nwl workloads x $nb backings x $nd drivers x $REPS reps =" \
	"$points points of ${RAMP}+${RUNTIME} s; about $(((est + 59) / 60)) min"

# what is measured, before anything can change under us
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- Kbuild ':(glob)*.c' ':(glob)*.h' include 2>/dev/null ||
	commit="$commit (module sources with uncommitted changes)"
srcversion=$(modinfo -F srcversion aioloop.ko 2>/dev/null || echo unknown)
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# the test initramfs, with bench/ appended as a second cpio archive
BUILD=$BB scripts/mkinitramfs.sh
rm -rf "$BB/extra"
mkdir -p "$BB/extra/bench"
cp -a bench/guest.sh bench/matrix bench/jobs "$BB/extra/bench/"
if [ -n "${PERF:-}" ]; then
	command -v perf >/dev/null || {
		echo "bench: PERF needs perf on the host (package linux-perf)" >&2
		exit 1
	}
	mkdir -p "$BB/extra/usr/bin"
	install -m 0755 "$(readlink -f "$(command -v perf)")" "$BB/extra/usr/bin/perf"
	ldd "$(command -v perf)" | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' |
	while read -r lib; do
		# the initramfs has a merged /usr: /lib is a link to usr/lib,
		# and a directory "lib" in this archive would replace it
		dst=${lib#/usr}
		install -D -m 0755 "$(readlink -f "$lib")" "$BB/extra/usr$dst"
	done
fi
(cd "$BB/extra" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -6 >>"$BB/initramfs.cpio.gz"

append="aiobench.matrix=$MATRIX aiobench.reps=$REPS aiobench.runtime=$RUNTIME"
append+=" aiobench.ramp=$RAMP aiobench.size=$SIZE_MB"
append+=" aiobench.backings=$BACKINGS aiobench.drivers=$DRIVERS"
[ -n "${ONLY:-}" ] && append+=" aiobench.only=$ONLY"
[ -n "${MODPARAMS:-}" ] && append+=" aiobench.modparams=$MODPARAMS"
[ -n "${PERF:-}" ] && append+=" aiobench.perf=$PERF"
case ${CLOCK:-tsc} in
tsc) append+=" clocksource=tsc tsc=reliable" ;;
hpet) append+=" clocksource=hpet" ;;
*)
	echo "bench: CLOCK is tsc or hpet, not '$CLOCK'" >&2
	exit 1
	;;
esac

rc=0
BUILD=$BB AIOTEST=bench TAG=bench VM_TIMEOUT=${VM_TIMEOUT:-$((est * 2 + 600))} \
	VM_APPEND="$append ${VM_APPEND:-}" scripts/vm.sh |
	grep --line-buffered -a -E 'AIOBENCH-(PROGRESS|ERROR)' |
	sed -u -e 's/\r$//' -e 's/^.*AIOBENCH-PROGRESS /bench: /' \
		-e 's/^.*AIOBENCH-ERROR /bench: error: /' || rc=$?

host="$(nproc) CPUs, $(uname -r), load average $load0 at the start and"
host+=" $(cut -d' ' -f1-3 /proc/loadavg) at the end; VM: $SMP vCPUs, $MEM"
ok=1
if ! tr -d '\r' <"$BB/results-bench.log" | grep -q '^AIOTEST-BENCH: OK'; then
	echo "bench: the guest did not finish cleanly (qemu exit $rc), see" \
		"$BB/console-bench.log"
	ok=0
fi
# the report prints the headline last
hrc=0
# README.md's summary follows the default results only, not experiments
readme=()
[ "$(realpath -m "$RESULTS")" = "$SRC/$RESULTS_DEF" ] &&
	readme=(--readme "$SRC/README.md" --readme-tag "$series"
		--results-link "$RESULTS_DEF/latest.md")
python3 bench/report.py "$BB/console-bench.log" "$RESULTS" --work "$BB" \
	--jsonl "$BB/points.jsonl" --commit "$commit, aioloop.ko srcversion $srcversion" \
	--host "$host" "${readme[@]}" || hrc=$?
# the profiles: "AIOBENCH-PERF point line" records, a file per point
if [ -n "${PERF:-}" ]; then
	rm -rf "$RESULTS/perf"
	mkdir -p "$RESULTS/perf"
	tr -d '\r' <"$BB/console-bench.log" | sed -n 's/^.*AIOBENCH-PERF //p' |
	# IFS= keeps the indentation of perf's call graphs
	while IFS= read -r rec; do
		printf '%s\n' "${rec#* }" >>"$RESULTS/perf/${rec%% *}.txt"
	done
	echo "bench: profiles in $RESULTS/perf/"
fi
[ $ok = 1 ] || exit 1
exit $hrc
