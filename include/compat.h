/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, in one place.  Every helper here has the
 * same meaning on every supported kernel; callers never test
 * LINUX_VERSION_CODE themselves.
 */
#ifndef AIOLOOP_COMPAT_H
#define AIOLOOP_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/uio.h>
#include <linux/blkdev.h>

/* Direction names for iov_iter_bvec(); ITER_DEST/ITER_SOURCE came in 6.1. */
#ifndef ITER_DEST
#define ITER_DEST	READ
#define ITER_SOURCE	WRITE
#endif

/* call_read_iter()/call_write_iter() were removed in 6.10. */
static inline ssize_t aioloop_call_iter(struct file *file, struct kiocb *iocb,
					struct iov_iter *iter, bool write)
{
	if (write)
		return file->f_op->write_iter(iocb, iter);
	return file->f_op->read_iter(iocb, iter);
}

/* iocb_flags() became iocb->ki_flags = file->f_iocb_flags in 6.5. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define aioloop_iocb_flags(file)	((file)->f_iocb_flags)
#else
#define aioloop_iocb_flags(file)	iocb_flags(file)
#endif

/* Block device open/release prototypes changed in 6.5. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define AIOLOOP_OPEN_ARGS	struct gendisk *disk, blk_mode_t mode
#define AIOLOOP_RELEASE_ARGS	struct gendisk *disk
#define AIOLOOP_IOCTL_ARGS	struct block_device *bdev, blk_mode_t mode, \
				unsigned int cmd, unsigned long arg
#define aioloop_mode_write(mode)	((mode) & BLK_OPEN_WRITE)
#else
#define AIOLOOP_OPEN_ARGS	struct block_device *bdev, fmode_t mode
#define AIOLOOP_RELEASE_ARGS	struct gendisk *disk, fmode_t mode
#define AIOLOOP_IOCTL_ARGS	struct block_device *bdev, fmode_t mode, \
				unsigned int cmd, unsigned long arg
#define aioloop_mode_write(mode)	((mode) & FMODE_WRITE)
#endif

/*
 * Queue limits are passed at allocation time from 6.9 on, and the result
 * became an ERR_PTR.  aioloop_alloc_disk() returns an ERR_PTR everywhere.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
static inline struct gendisk *aioloop_alloc_disk(void)
{
	return blk_alloc_disk(NULL, NUMA_NO_NODE);
}
#else
static inline struct gendisk *aioloop_alloc_disk(void)
{
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);

	return disk ? disk : ERR_PTR(-ENOMEM);
}
#endif

/* Whether the file system supports O_DIRECT on @file. */
#ifdef FOP_DIO
#define aioloop_can_odirect(file)	((file)->f_op->fop_flags & FOP_DIO)
#else
#define aioloop_can_odirect(file)	((file)->f_mode & FMODE_CAN_ODIRECT)
#endif

#endif /* AIOLOOP_COMPAT_H */
