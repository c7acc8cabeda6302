#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A chain of 2 devices, each backed by a fresh fallocated file on ext4 on
# the one below (tests/helpers/chain.sh), serves fio verify (including
# 512 small writes in flight), an fsync-heavy ext4 and fstrim on its top
# device and comes apart with every file system clean: on stock loop
# first, then on aioloop three times with its defaults, with
# direct_submit=N, in sync mode, and on both drivers with one CPU online;
# no hang (the test's time limit) and no hung-task report.
. /tests/lib.sh
. /tests/helpers/chain.sh

chain_test 2 3
