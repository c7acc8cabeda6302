#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blktests loop/004, "direct I/O and a custom block size": a scsi_debug
# disk with 4096-byte sectors as backing, LOOP_SET_BLOCK_SIZE 4096, then
# LOOP_SET_DIRECT_IO 1: loop/dio is 1, and a 4 KiB O_DIRECT write reads
# back with its checksum. (aioloop already runs in aio mode with a 4096
# block size here: the backing's alignment is its default, README.)
# what: 4K-sector disk backing, block size 4096 with direct I/O
. /tests/lib.sh
. /tests/helpers/peer.sh

# (built into the debug kernel: scripts/vm.sh gives it these parameters)
modprobe sd_mod && modprobe scsi_debug sector_size=4096 dev_size_mb=16 ||
	fail "modprobe scsi_debug failed"
sd=
for i in $(seq 50); do
	sd=$(ls -d /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/* \
		2>/dev/null | head -1)
	[ -n "$sd" ] && [ -b /dev/${sd##*/} ] && break
	sleep 0.2
done
[ -n "$sd" ] || fail "no scsi_debug disk"
sd=/dev/${sd##*/}
expect_eq "scsi_debug sector size" "$(blockdev --getss $sd)" 4096

peer_case() {
	dev=$(peer_attach $sd)
	peer_say "set-block-size 4096: $(lioctl $dev set-block-size 4096)"
	peer_say "set-direct-io 1: $(lioctl $dev set-direct-io 1)"
	peer_say "dio: $(peer_sys $dev loop/dio)"
	peer_say "logical_block_size: $(peer_sys $dev queue/logical_block_size)"
	xfs_io -d -c "pwrite -q -S 0x5a 0 4096" $dev || fail "O_DIRECT write"
	peer_say "read back: $(dd if=$dev bs=4096 count=1 iflag=direct \
		status=none | md5sum | cut -d' ' -f1)"
	expect_eq "backing" "$(dd if=$sd bs=4096 count=1 iflag=direct \
		status=none | md5sum)" \
		"$(head -c 4096 /dev/zero | tr '\0' Z | md5sum)"
	peer_detach $dev
	grep -qxF "dio: 1" $PEER_OUT || fail "loop/dio is not 1"
	grep -qxF "set-direct-io 1: OK 0" $PEER_OUT || fail "LOOP_SET_DIRECT_IO 1"
}
peer_run blktests/loop/004
