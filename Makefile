# SPDX-License-Identifier: GPL-2.0
#
# make            build aioloop.ko (W=1) and the userspace tools
# make run        main job: build, boot the test VM, attach a file, run fio
# make check      test suite in the VM; prints "N passed, M failed"
# make bench      benchmarks in the VM (QUICK=1: a few minutes); bench/results/
# make sparse     build the module with sparse (C=2)
# make install    install module, tool and udev rule on this host

# KVER selects the kernel: unset for Debian's 6.1, a series (KVER=6.12,
# KVER=7.2, KVER=6.12-rt) or an exact release; scripts/kver.sh resolves
# it to an installed one. 7.2 and 6.12-rt live in the chroot of
# scripts/chroot-kernels.sh, and the module is built inside it.
# KERNEL=debug: the debug kernel of scripts/build-debug-kernel.sh (KASAN,
# lockdep, kmemleak, fault injection), built once and cached;
# KERNEL=debug-rt: its PREEMPT_RT variant (6.12, lockdep with RT's lock
# nesting checks, atomic-sleep and preemption checks).
KENV	:= $(shell KVER='$(KVER)' KERNEL='$(KERNEL)' scripts/kenv.sh 2>/dev/null)
kenv	= $(patsubst $(1)=%,%,$(filter $(1)=%,$(KENV)))
KREL	:= $(call kenv,KVER)
KDIR	?= $(call kenv,KDIR)
KCHROOT	:= $(call kenv,KCHROOT)
# make in the kernel's build directory: here, or in its chroot
KMAKE	= $(if $(KCHROOT),scripts/in-chroot.sh $(KCHROOT) -C $(CURDIR) make,$(MAKE)) -C $(KDIR) M=$(CURDIR)
W	?= 1
BUILD	?= $(CURDIR)/build
export BUILD

.PHONY: all module tools sparse check run bench deps clean install debug-kernel

all: module tools

module:
	$(KMAKE) W=$(W) modules

sparse:
	$(KMAKE) W=$(W) C=2 modules

tools:
	$(MAKE) -C tools

deps:
	@scripts/deps.sh

debug-kernel: deps
	@scripts/build-debug-kernel.sh >/dev/null

# The dependency script may install the kernel this tree builds against,
# so the real work runs in a sub-make that detects KVER afresh.
check: deps $(if $(filter debug debug-rt,$(KERNEL)),debug-kernel)
	@$(MAKE) --no-print-directory all
	@scripts/check.sh

run: deps
	@$(MAKE) --no-print-directory all
	@scripts/run.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@scripts/bench.sh

# DESTDIR installs into a staging tree; without it, depmod makes the module
# known to modprobe (kbuild skips depmod when the headers have no System.map).
install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	$(if $(DESTDIR),,depmod -a $(KREL))
	$(MAKE) -C tools install

clean:
	$(KMAKE) clean
	$(MAKE) -C tools clean
	rm -rf $(BUILD)
