#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel release to build for and boot.
#   KVER unset        the newest installed Debian 6.1 kernel
#   KVER=6.12         the newest installed kernel of that series
#   KVER=<release>    exactly that release (e.g. 6.1.0-57-amd64)
# A release counts as installed when it has both headers and an image.
#   KERNEL=debug      the debug kernel of scripts/build-debug-kernel.sh
if [ "${KERNEL:-}" = debug ]; then
	env=$("$(dirname "$0")/build-debug-kernel.sh" --env) || exit 1
	echo "$env" | sed -n 's/^KVER=//p'
	exit 0
fi
series=${KVER:-6.1}
if [ -e "/lib/modules/$series/build" ]; then
	echo "$series"
	exit 0
fi
for d in $(ls -d /lib/modules/*/build 2>/dev/null | sort -V -r); do
	rel=$(basename "$(dirname "$d")")
	[ -e "/boot/vmlinuz-$rel" ] || continue
	case "$rel" in
	"$series".*|"$series"-*) echo "$rel"; exit 0 ;;
	esac
done
echo "kver: no installed kernel with headers matches '$series'" >&2
exit 1
