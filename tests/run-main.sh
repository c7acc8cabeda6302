#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Main job (make run), in the test VM: a 256 MiB file on ext4 attached to
# an aioloop device, filled, then read randomly by fio. Prints fio's
# summary and the device counters between AIOTEST-SUMMARY-BEGIN/END.
. /tests/lib.sh

mkscratch ext4 /mnt/main
mkfile /mnt/main/backing.img 256M
load_aioloop

if command -v aioloop-setup >/dev/null; then
	dev=$(aioloop-setup attach /mnt/main/backing.img)
elif [ -x "$LIOCTL" ]; then
	dev=/dev/aioloop0
	lioctl "$dev" configure /mnt/main/backing.img
else
	dev=/dev/aioloop0
	losetup "$dev" /mnt/main/backing.img
fi
log "attached /mnt/main/backing.img to $dev"

out=/tmp/fio-main.out
DEV=$dev fio --eta=never --output="$out" /tests/fio/main.fio || {
	cat "$out"
	fail "fio failed"
}

echo AIOTEST-SUMMARY-BEGIN
sed -n '/^randread: (groupid/,$p' "$out" | sed '/^Run status group 0/,/^$/d'
echo "aioloop counters ($dev):"
show_counters "$dev"
echo AIOTEST-SUMMARY-END

detach "$dev"
unload_aioloop
umount /mnt/main
