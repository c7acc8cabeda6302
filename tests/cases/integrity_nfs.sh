#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fio crc32c verification through a device backed by a file on NFS 4.2
# (4.0 on the debug kernel), in aio mode; the backing file holds what the
# device holds. The guest serves an ext4 scratch file system with its
# own kernel NFS server to itself over loopback (NFSv4 only: rpc.mountd
# and rpc.nfsd, no rpcbind).
. /tests/lib.sh

for b in rpc.nfsd rpc.mountd exportfs; do
	command -v $b >/dev/null || skip "no $b (nfs-kernel-server)"
done
modprobe nfsd || skip "no nfsd module"
modprobe nfsv4 || skip "no nfsv4 module"

EXPORT=/mnt/export
CLIENT=/mnt/nfs
mountd=

# Stop in order, the client before the server: an NFS mount whose server
# is gone can hang its unmount.
nfs_stop() {
	set +e
	aioloop-setup detach-all 2>/dev/null
	umount "$CLIENT" 2>/dev/null || umount -f "$CLIENT" 2>/dev/null
	rpc.nfsd 0 2>/dev/null
	exportfs -ua 2>/dev/null
	[ -n "$mountd" ] && kill "$mountd" 2>/dev/null && wait "$mountd"
	umount /proc/fs/nfsd 2>/dev/null
	umount "$EXPORT" 2>/dev/null
	rm -f /etc/exports
}
trap nfs_stop EXIT

ip link set lo up
mkscratch ext4 "$EXPORT"
mkdir -p /var/lib/nfs/v4recovery "$CLIENT"
touch /var/lib/nfs/etab /var/lib/nfs/rmtab
grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd
# shortest grace period; it is also ended explicitly once the server runs
echo 10 >/proc/fs/nfsd/nfsv4leasetime
echo 10 >/proc/fs/nfsd/nfsv4gracetime

: >/etc/exports
exportfs -o rw,no_root_squash,no_subtree_check,insecure,fsid=0 \
	127.0.0.1:"$EXPORT" || fail "exportfs failed"
# NFSv4 only: mountd answers the kernel's export lookups and registers
# nothing with rpcbind
rpc.mountd -F -N 2 -N 3 -u 2>/tmp/aiotest-mountd.log &
mountd=$!
rpc.nfsd -N 3 -u 4 || fail "rpc.nfsd failed: $(cat /tmp/aiotest-mountd.log)"
echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null || true
log "nfsd versions: $(cat /proc/fs/nfsd/versions)"

# NFS 4.2; 4.0 on the debug kernel, whose NFS client has no 4.1 or 4.2
nfs_mount() {
	mount -t nfs4 -o vers=$1,proto=tcp,addr=127.0.0.1,clientaddr=127.0.0.1 \
		127.0.0.1:/ "$CLIENT"
}
vers=4.2
case $(uname -r) in *-aioloop-debug) vers=4.0 ;; esac
nfs_mount $vers ||
	fail "mount of 127.0.0.1:/ failed: $(cat /tmp/aiotest-mountd.log)"
log "$(grep " $CLIENT " /proc/mounts)"
grep -q " $CLIENT nfs4 .*vers=$vers" /proc/mounts || fail "not an NFS $vers mount"

mkfile "$CLIENT/backing" 128M
aio_integrity "$CLIENT/backing" 32m
# the server's file system, read locally, holds what the device held
umount "$CLIENT"
drop_caches
expect_eq "exported file md5" "$(file_md5 "$EXPORT/backing")" "$AIO_MD5"
