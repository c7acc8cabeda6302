#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms add/build/install/remove of this tree (scripts/test-dkms.sh).
exec "$(dirname "$0")/../test-dkms.sh"
