#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# vm-sysrq.sh KEYS [TAG]: press Alt-SysRq-KEY in the running test VM for
# each letter of KEYS (l: backtraces of the CPUs, w: blocked tasks, m:
# memory, t: every task), through the monitor socket of scripts/vm.sh
# ($BUILD/qemu-TAG.monitor, TAG default "check"). The guest prints the
# answers on its console ($BUILD/console-TAG.log), even when its user
# space no longer runs.
import os
import socket
import sys
import time

if len(sys.argv) < 2 or not sys.argv[1].isalpha():
    sys.exit("usage: vm-sysrq.sh KEYS [TAG]")
build = os.environ.get("BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
tag = sys.argv[2] if len(sys.argv) > 2 else "check"
path = os.path.join(build, "qemu-%s.monitor" % tag)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(path)
except OSError as e:
    sys.exit("vm-sysrq: %s: %s" % (path, e.strerror))
for key in sys.argv[1]:
    s.sendall(("sendkey alt-sysrq-%s\n" % key.lower()).encode())
    time.sleep(2)
s.close()
