#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A chain of 3 devices, each backed by a file on ext4 on the one below
# (tests/helpers/chain.sh), serves fio verify and an fsync-heavy ext4 on
# its top device and comes apart with every file system clean: on stock
# loop first, then three times on aioloop, with no hung task.
. /tests/lib.sh
. /tests/helpers/chain.sh

chain_test 3 3
