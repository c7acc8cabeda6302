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
#include <linux/blk-mq.h>
#include <linux/workqueue.h>

/*
 * blk_mq_freeze_queue() enters a noio scope from 6.14 on and returns the
 * memalloc flags that blk_mq_unfreeze_queue() restores.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define aioloop_freeze_queue(q)			blk_mq_freeze_queue(q)
#define aioloop_unfreeze_queue(q, memflags)	blk_mq_unfreeze_queue(q, memflags)
#else
static inline unsigned int aioloop_freeze_queue(struct request_queue *q)
{
	blk_mq_freeze_queue(q);
	return 0;
}

static inline void aioloop_unfreeze_queue(struct request_queue *q,
					  unsigned int memflags)
{
	blk_mq_unfreeze_queue(q);
}
#endif

/* del_timer_sync() was renamed timer_delete_sync() in 6.2. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define aioloop_timer_delete_sync	timer_delete_sync
#else
#define aioloop_timer_delete_sync	del_timer_sync
#endif

/*
 * WQ_PERCPU came in 6.17, for per-CPU workqueues to say so: later kernels
 * warn about a workqueue with neither it nor WQ_UNBOUND.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define AIOLOOP_WQ_PERCPU	WQ_PERCPU
#else
#define AIOLOOP_WQ_PERCPU	0
#endif

/* from_timer() was renamed timer_container_of() in 6.16. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define aioloop_from_timer	timer_container_of
#else
#define aioloop_from_timer	from_timer
#endif

/* bdev_rot() came in 7.0 and bdev_nonrot() went in 7.1. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
#define aioloop_bdev_rot(bdev)	bdev_rot(bdev)
#else
#define aioloop_bdev_rot(bdev)	(!bdev_nonrot(bdev))
#endif

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
#define AIOLOOP_OPEN_DISK	disk
#define AIOLOOP_RELEASE_ARGS	struct gendisk *disk
#define AIOLOOP_IOCTL_ARGS	struct block_device *bdev, blk_mode_t mode, \
				unsigned int cmd, unsigned long arg
#define aioloop_mode_write(mode)	((mode) & BLK_OPEN_WRITE)
#else
#define AIOLOOP_OPEN_ARGS	struct block_device *bdev, fmode_t mode
#define AIOLOOP_OPEN_DISK	(bdev->bd_disk)
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

/* disk_force_media_change() lost its events argument in 6.8. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define aioloop_media_changed(disk)	disk_force_media_change(disk)
#else
#define aioloop_media_changed(disk) \
	disk_force_media_change(disk, DISK_EVENT_MEDIA_CHANGE)
#endif

/* The queue limits aioloop sets, in a version-independent form. */
struct aioloop_limits {
	unsigned int	bsize;		/* logical = physical = io_min */
	unsigned int	dma_alignment;	/* mask */
	unsigned int	max_discard;	/* sectors, discard and write zeroes */
	unsigned int	discard_granularity;
	bool		write_cache;	/* volatile cache with FUA */
	bool		rotational;
};

/*
 * Queue limits: setter functions and queue flags up to 6.10, a
 * queue_limits update with feature bits from 6.11 on.  Every device
 * takes REQ_NOWAIT bios (QUEUE_FLAG_NOWAIT, BLK_FEAT_NOWAIT from 6.11):
 * submit.c never blocks their submitter.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static inline int aioloop_queue_set_limits(struct request_queue *q,
					   const struct aioloop_limits *l)
{
	struct queue_limits lim = queue_limits_start_update(q);

	lim.logical_block_size = l->bsize;
	lim.physical_block_size = l->bsize;
	lim.io_min = l->bsize;
	lim.dma_alignment = l->dma_alignment;
	lim.discard_granularity = l->discard_granularity;
	lim.max_hw_discard_sectors = l->max_discard;
	lim.max_write_zeroes_sectors = l->max_discard;
	lim.features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA |
			  BLK_FEAT_ROTATIONAL | BLK_FEAT_ADD_RANDOM);
	lim.features |= BLK_FEAT_IO_STAT | BLK_FEAT_NOWAIT;
	if (l->write_cache)
		lim.features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
	if (l->rotational)
		lim.features |= BLK_FEAT_ROTATIONAL;
	return queue_limits_commit_update(q, &lim);
}
#else
static inline int aioloop_queue_set_limits(struct request_queue *q,
					   const struct aioloop_limits *l)
{
	blk_queue_logical_block_size(q, l->bsize);
	blk_queue_physical_block_size(q, l->bsize);
	blk_queue_io_min(q, l->bsize);
	blk_queue_dma_alignment(q, l->dma_alignment);
	q->limits.discard_granularity = l->discard_granularity;
	blk_queue_max_discard_sectors(q, l->max_discard);
	blk_queue_max_write_zeroes_sectors(q, l->max_discard);
	blk_queue_write_cache(q, l->write_cache, l->write_cache);
	if (l->rotational)
		blk_queue_flag_clear(QUEUE_FLAG_NONROT, q);
	else
		blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, q);
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	return 0;
}
#endif

/* Whether the file system supports O_DIRECT on @file. */
#ifdef FOP_DIO
#define aioloop_can_odirect(file)	((file)->f_op->fop_flags & FOP_DIO)
#else
#define aioloop_can_odirect(file)	((file)->f_mode & FMODE_CAN_ODIRECT)
#endif

#endif /* AIOLOOP_COMPAT_H */
