# SPDX-License-Identifier: GPL-2.0
#
# make            build aioloop.ko (W=1) and the userspace tools
# make run        main job: build, boot the test VM, attach a file, run fio
# make check      test suite in the VM; prints "N passed, M failed"
# make bench      benchmarks in the VM (QUICK=1: a few minutes); bench/results/
# make sparse     build the module with sparse (C=2)
# make install    install module, tool and udev rule on this host

# KVER selects the kernel: unset for Debian's 6.1, a series (KVER=6.12)
# or an exact release; scripts/kver.sh resolves it to an installed one.
# KERNEL=debug: the debug kernel of scripts/build-debug-kernel.sh (KASAN,
# lockdep, kmemleak, fault injection), built once and cached.
KREL	:= $(shell KVER='$(KVER)' scripts/kver.sh 2>/dev/null)
ifeq ($(KERNEL),debug)
KDIR	?= $(shell scripts/build-debug-kernel.sh --env 2>/dev/null | sed -n 's/^KDIR=//p')
endif
KDIR	?= /lib/modules/$(KREL)/build
W	?= 1
BUILD	?= $(CURDIR)/build
export BUILD

.PHONY: all module tools sparse check run bench deps clean install debug-kernel

all: module tools

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=$(W) modules

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=$(W) C=2 modules

tools:
	$(MAKE) -C tools

deps:
	@scripts/deps.sh

debug-kernel: deps
	@scripts/build-debug-kernel.sh >/dev/null

# The dependency script may install the kernel this tree builds against,
# so the real work runs in a sub-make that detects KVER afresh.
check: deps $(if $(filter debug,$(KERNEL)),debug-kernel)
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
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools clean
	rm -rf $(BUILD)
