#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fio crc32c verification through a device backed by a file on btrfs, in
# aio mode; the backing file holds what the device holds.
. /tests/lib.sh

mkscratch btrfs /mnt/s
mkfile /mnt/s/backing 128M
aio_integrity /mnt/s/backing 64m
drop_caches
expect_eq "backing file md5" "$(file_md5 /mnt/s/backing)" "$AIO_MD5"
