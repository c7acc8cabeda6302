#!/bin/sh
# Print the kernel release to build for and boot: $KVER if set, else the
# newest Debian kernel that has both headers and an image installed.
if [ -n "$KVER" ]; then
	echo "$KVER"
	exit 0
fi
for d in $(ls -d /lib/modules/*/build 2>/dev/null | sort -V -r); do
	rel=$(basename "$(dirname "$d")")
	if [ -e "/boot/vmlinuz-$rel" ]; then
		echo "$rel"
		exit 0
	fi
done
exit 1
