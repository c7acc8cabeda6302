#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel release to build for and boot.
#   KVER unset        the newest installed Debian 6.1 kernel
#   KVER=6.12         the newest installed kernel of that series
#   KVER=7.2          (on this system or in the chroot of
#                     scripts/chroot-kernels.sh)
#   KVER=6.12-rt      the newest PREEMPT_RT kernel of that series; a
#                     series without -rt never picks an RT kernel
#   KVER=<release>    exactly that release (e.g. 6.1.0-57-amd64)
# A release counts as installed when it has both headers and an image.
#   KERNEL=debug      the debug kernel of scripts/build-debug-kernel.sh
#   KERNEL=debug-rt   its PREEMPT_RT variant
case "${KERNEL:-}" in
debug | debug-rt)
	env=$("$(dirname "$0")/build-debug-kernel.sh" --env) || exit 1
	echo "$env" | sed -n 's/^KVER=//p'
	exit 0
	;;
esac
CHROOT=$("$(dirname "$0")/chroot-kernels.sh" --dir)
series=${KVER:-6.1}
for root in "" "$CHROOT"; do
	if [ -e "$root/lib/modules/$series/build" ] ||
	   [ -L "$root/lib/modules/$series/build" ]; then
		echo "$series"
		exit 0
	fi
done
case "$series" in
*-rt) want="${series%-rt}[.-]*-rt-*" ;;
*) want="$series[.-]*" ;;
esac
for root in "" "$CHROOT"; do
	for d in $(ls -d "$root"/lib/modules/*/build 2>/dev/null | sort -V -r); do
		rel=$(basename "$(dirname "$d")")
		[ -e "$root/boot/vmlinuz-$rel" ] || continue
		case "$series:$rel" in
		*-rt:*) ;;
		*:*-rt-*) continue ;;
		esac
		# shellcheck disable=SC2254
		case "$rel" in
		$want) echo "$rel"; exit 0 ;;
		esac
	done
done
echo "kver: no installed kernel with headers matches '$series'" >&2
exit 1
