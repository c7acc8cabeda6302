// SPDX-License-Identifier: GPL-2.0
/*
 * aioloop: loop-compatible configuration ioctls.
 *
 * Same numbers, structures and errno values as drivers/block/loop.c, so
 * that losetup and other loop tools can drive an aioloop device.
 *
 * Locking: aioloop_validate_mutex, then lo->lock.  The first one covers
 * binding and unbinding so that a backing-chain walk in
 * aioloop_validate_file() sees a consistent state on every device it
 * passes through.  A device's I/O path takes neither: configuration
 * changes that touch what bios use first drain the device.
 */
#define pr_fmt(fmt) "aioloop: " fmt

#include <linux/module.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/statfs.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/blkdev.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/compat.h>

#include "compat.h"
#include "aioloop.h"

static DEFINE_MUTEX(aioloop_validate_mutex);

/* ---- backing file properties --------------------------------------------- */

/*
 * Offset alignment O_DIRECT needs on @file, or 0 if the file system does
 * not do direct I/O.  @mem_align gets the buffer alignment.
 */
static unsigned int aioloop_dio_align(struct file *file,
				      unsigned int *mem_align)
{
	struct inode *inode = file->f_mapping->host;
	struct kstat st;

	*mem_align = SECTOR_SIZE;
	if (S_ISBLK(inode->i_mode))
		return bdev_logical_block_size(I_BDEV(inode));
	if (!aioloop_can_odirect(file))
		return 0;
#ifdef STATX_DIOALIGN
	if (!vfs_getattr(&file->f_path, &st, STATX_DIOALIGN,
			 AT_STATX_SYNC_AS_STAT) &&
	    (st.result_mask & STATX_DIOALIGN)) {
		*mem_align = max_t(u32, st.dio_mem_align, SECTOR_SIZE);
		return st.dio_offset_align;
	}
#endif
	if (inode->i_sb->s_bdev)
		return bdev_logical_block_size(inode->i_sb->s_bdev);
	return SECTOR_SIZE;
}

/*
 * Whether IOCB_NOWAIT is worth trying on @file: the file system must
 * support it and, for a block device, so must its queue (else every
 * REQ_NOWAIT bio fails with -EOPNOTSUPP and is redone blocking).
 */
static bool aioloop_file_nowait(struct file *file)
{
	struct inode *inode = file->f_mapping->host;

	if (!(file->f_mode & FMODE_NOWAIT))
		return false;
	return !S_ISBLK(inode->i_mode) || bdev_nowait(I_BDEV(inode));
}

static struct file *aioloop_open_direct(struct file *file)
{
	int flags = O_DIRECT | O_LARGEFILE;

	flags |= (file->f_mode & FMODE_WRITE) ? O_RDWR : O_RDONLY;
	return dentry_open(&file->f_path, flags, file->f_cred);
}

static const char * const aioloop_reason_text[] = {
	[AIOLOOP_SYNC_NONE]	 = "",
	[AIOLOOP_SYNC_USER]	 = "as requested",
	[AIOLOOP_SYNC_NO_DIO]	 = "backing file system has no O_DIRECT",
	[AIOLOOP_SYNC_UNALIGNED] = "block size or offset not aligned for O_DIRECT",
};

/**
 * aioloop_set_mode - choose aio or sync mode
 * @lo: device, configuration held, drained or not yet bound
 * @want_aio: use O_DIRECT asynchronous I/O if at all possible
 *
 * Opens nothing: lo->dio_file was opened, if the file system allows
 * O_DIRECT at all, before any lock was taken.  Returns 0 if the device
 * ends up in the mode asked for, else -EINVAL (and it is in sync mode).
 */
static int aioloop_set_mode(struct aioloop_device *lo, bool want_aio)
{
	unsigned int lbs = lo->lim.bsize;
	enum aioloop_sync_reason reason = AIOLOOP_SYNC_NONE;
	enum aioloop_mode old = lo->mode;
	unsigned int align = 0, mem_align = SECTOR_SIZE;

	if (!want_aio) {
		reason = AIOLOOP_SYNC_USER;
	} else {
		align = aioloop_dio_align(lo->file, &mem_align);
		if (!align || !lo->dio_file)
			reason = AIOLOOP_SYNC_NO_DIO;
		else if (lbs % align || lo->offset % align)
			reason = AIOLOOP_SYNC_UNALIGNED;
	}
	lo->sync_reason = reason;
	lo->nowait_ok = reason == AIOLOOP_SYNC_NONE &&
			aioloop_file_nowait(lo->dio_file);
	if (reason == AIOLOOP_SYNC_NONE) {
		lo->mode = AIOLOOP_MODE_AIO;
		lo->dio_align = align;
		lo->flags |= LO_FLAGS_DIRECT_IO;
		lo->lim.dma_alignment = mem_align - 1;
	} else {
		lo->mode = AIOLOOP_MODE_SYNC;
		lo->dio_align = 0;
		lo->flags &= ~LO_FLAGS_DIRECT_IO;
		lo->lim.dma_alignment = SECTOR_SIZE - 1;
	}
	if (lo->mode == old)
		return want_aio == (lo->mode == AIOLOOP_MODE_AIO) ? 0 : -EINVAL;
	if (lo->mode == AIOLOOP_MODE_AIO)
		aio_info(lo, "aio mode (O_DIRECT, alignment %u)\n", align);
	else
		aio_info(lo, "sync mode: %s\n", aioloop_reason_text[reason]);
	return want_aio == (lo->mode == AIOLOOP_MODE_AIO) ? 0 : -EINVAL;
}

/* O_DIRECT twin of @file, or NULL; never called with a lock held. */
static struct file *aioloop_get_dio_file(struct file *file)
{
	struct file *dio;

	if (!aioloop_can_odirect(file))
		return NULL;
	dio = aioloop_open_direct(file);
	if (IS_ERR(dio)) {
		/* EINVAL: the file system refuses O_DIRECT on this file */
		if (PTR_ERR(dio) != -EINVAL)
			pr_warn("cannot reopen %pD with O_DIRECT: %ld\n", file,
				PTR_ERR(dio));
		return NULL;
	}
	return dio;
}

static bool aioloop_want_aio(struct aioloop_device *lo)
{
	return lo->sync_reason != AIOLOOP_SYNC_USER;
}

static loff_t aioloop_file_size(struct file *file)
{
	return i_size_read(file->f_mapping->host);
}

/* Device size in sectors for @file with the device's offset and limit. */
static sector_t aioloop_sectors(struct aioloop_device *lo, struct file *file)
{
	loff_t size = aioloop_file_size(file);

	if (lo->offset >= size)
		return 0;
	size -= lo->offset;
	if (lo->sizelimit && lo->sizelimit < size)
		size = lo->sizelimit;
	size = round_down(size, lo->lim.bsize);
	return size >> SECTOR_SHIFT;
}

static void aioloop_update_size(struct aioloop_device *lo)
{
	if (!set_capacity_and_notify(lo->disk, aioloop_sectors(lo, lo->file)))
		kobject_uevent(&disk_to_dev(lo->disk)->kobj, KOBJ_CHANGE);
}

static void aioloop_config_discard(struct aioloop_device *lo)
{
	struct file *file = lo->file;
	struct inode *inode = file->f_mapping->host;
	u32 granularity = 0, max_sectors = 0;
	struct kstatfs sbuf;

	if (lo->flags & LO_FLAGS_READ_ONLY) {
		/* nothing */
	} else if (S_ISBLK(inode->i_mode)) {
		/* The file path zeroes the range on the block device. */
		max_sectors = bdev_write_zeroes_sectors(I_BDEV(inode));
		granularity = bdev_physical_block_size(I_BDEV(inode));
	} else if (file->f_op->fallocate && !vfs_statfs(&file->f_path, &sbuf)) {
		max_sectors = UINT_MAX >> SECTOR_SHIFT;
		granularity = sbuf.f_bsize;
	}
	lo->lim.discard_granularity = max_sectors ? granularity : 0;
	lo->lim.max_discard = max_sectors;
}

static void aioloop_update_rotational(struct aioloop_device *lo)
{
	struct block_device *bdev = lo->file->f_mapping->host->i_sb->s_bdev;

	lo->lim.rotational = bdev && aioloop_bdev_rot(bdev);
}

static void aioloop_reset_stats(struct aioloop_device *lo)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(lo->stats, cpu), 0, sizeof(*lo->stats));
	aioloop_stack_reset(lo);
}

static void aioloop_reread_partitions(struct aioloop_device *lo)
{
	int err;

	mutex_lock(&lo->disk->open_mutex);
	err = bdev_disk_changed(lo->disk, false);
	mutex_unlock(&lo->disk->open_mutex);
	if (err)
		aio_warn(lo, "partition scan failed: %d\n", err);
}

/* loop's rule: no chain of aioloop devices may lead back to @lo. */
static int aioloop_validate_file(struct aioloop_device *lo, struct file *file)
{
	struct inode *inode = file->f_mapping->host;
	struct file *f = file;

	lockdep_assert_held(&aioloop_validate_mutex);
	while (aioloop_is_ours(f)) {
		struct aioloop_device *l;

		l = I_BDEV(f->f_mapping->host)->bd_disk->private_data;
		if (l == lo) {
			aio_warn(lo, "refusing itself as backing file\n");
			return -EBADF;
		}
		if (l->state != AIOLOOP_BOUND) {
			aio_warn(lo, "backing %s is not bound\n",
				 l->disk->disk_name);
			return -EINVAL;
		}
		/* Pairs with smp_store_release() of state in configure. */
		smp_rmb();
		f = l->file;
	}
	if (!S_ISREG(inode->i_mode) && !S_ISBLK(inode->i_mode)) {
		aio_warn(lo, "%pD: not a regular file or block device\n", file);
		return -EINVAL;
	}
	/* The O_DIRECT twin must not grant more than the caller's file. */
	if (!(file->f_mode & FMODE_READ)) {
		aio_warn(lo, "%pD: not open for reading\n", file);
		return -EBADF;
	}
	return 0;
}

static int aioloop_check_info(struct aioloop_device *lo,
			      const struct loop_info64 *info,
			      struct file *file)
{
	if ((unsigned int)info->lo_encrypt_key_size > LO_KEY_SIZE ||
	    info->lo_encrypt_type != LO_CRYPT_NONE) {
		aio_warn(lo, "encryption is not supported\n");
		return -EINVAL;
	}
	if (info->lo_offset > LLONG_MAX || info->lo_sizelimit > LLONG_MAX)
		return -EOVERFLOW;
	if (info->lo_offset && info->lo_offset >= aioloop_file_size(file)) {
		aio_warn(lo, "offset %llu is past the end of %pD\n",
			 info->lo_offset, file);
		return -EINVAL;
	}
	return 0;
}

static void aioloop_info_apply(struct aioloop_device *lo,
			       const struct loop_info64 *info)
{
	lo->offset = info->lo_offset;
	lo->sizelimit = info->lo_sizelimit;
	memcpy(lo->file_name, info->lo_file_name, LO_NAME_SIZE);
	lo->file_name[LO_NAME_SIZE - 1] = 0;
	lo->flags = info->lo_flags;
}

/* ---- LOOP_SET_FD / LOOP_CONFIGURE ---------------------------------------- */

static unsigned int aioloop_default_bsize(struct file *file)
{
	unsigned int mem_align, align;

	if (!aioloop_direct_io)
		return SECTOR_SIZE;
	align = aioloop_dio_align(file, &mem_align);
	if (align >= SECTOR_SIZE && align <= PAGE_SIZE && is_power_of_2(align))
		return align;
	return SECTOR_SIZE;
}

static int aioloop_check_config(struct aioloop_device *lo,
				const struct loop_config *config,
				struct file *file)
{
	int err;

	if (lo->state != AIOLOOP_UNBOUND) {
		aio_warn(lo, "already bound\n");
		return -EBUSY;
	}
	err = aioloop_validate_file(lo, file);
	if (err)
		return err;
	if (config->info.lo_flags & ~LOOP_CONFIGURE_SETTABLE_FLAGS) {
		aio_warn(lo, "unsupported flags %#x\n", config->info.lo_flags);
		return -EINVAL;
	}
	if (config->block_size && blk_validate_block_size(config->block_size)) {
		aio_warn(lo, "invalid block size %u\n", config->block_size);
		return -EINVAL;
	}
	return aioloop_check_info(lo, &config->info, file);
}

/* Bind @file; the caller holds both locks and checked the config. */
static void aioloop_bind(struct aioloop_device *lo, bool dev_write,
			 const struct loop_config *config, struct file *file,
			 struct file *dio)
{
	struct address_space *mapping = file->f_mapping;

	aioloop_info_apply(lo, &config->info);
	if (!(file->f_mode & FMODE_WRITE) || !dev_write ||
	    !file->f_op->write_iter)
		lo->flags |= LO_FLAGS_READ_ONLY;
	lo->flags &= ~LO_FLAGS_DIRECT_IO;

	lo->file = file;
	lo->dio_file = dio;
	lo->old_gfp_mask = mapping_gfp_mask(mapping);
	/* Page cache allocations for the sync path must not recurse into us. */
	mapping_set_gfp_mask(mapping, lo->old_gfp_mask & ~(__GFP_IO | __GFP_FS));

	lo->lim.bsize = config->block_size ?: aioloop_default_bsize(file);
	aioloop_set_mode(lo, aioloop_direct_io);
	aioloop_config_discard(lo);
	aioloop_update_rotational(lo);
	lo->lim.write_cache = !(lo->flags & LO_FLAGS_READ_ONLY) &&
			      file->f_op->fsync;
	aioloop_commit_limits(lo);
	set_disk_ro(lo->disk, lo->flags & LO_FLAGS_READ_ONLY);
	aioloop_reset_stats(lo);
	aioloop_sysfs_bind(lo);
	aioloop_media_changed(lo->disk);
	aioloop_update_size(lo);
	if (lo->flags & LO_FLAGS_PARTSCAN)
		clear_bit(GD_SUPPRESS_PART_SCAN, &lo->disk->state);

	/* A bound device pins the module: rmmod fails until it is detached. */
	__module_get(THIS_MODULE);
	/* Pairs with smp_rmb() in aioloop_validate_file(). */
	smp_store_release(&lo->state, AIOLOOP_BOUND);
}

static void aioloop_log_attach(struct aioloop_device *lo, struct file *file)
{
	char *buf = __getname();
	char *path = buf ? file_path(file, buf, PATH_MAX) : ERR_PTR(-ENOMEM);

	aio_info(lo, "attached %s, %llu bytes, block size %u%s\n",
		 IS_ERR(path) ? "(unknown path)" : path,
		 (u64)get_capacity(lo->disk) << SECTOR_SHIFT, lo->lim.bsize,
		 (lo->flags & LO_FLAGS_READ_ONLY) ? ", read-only" : "");
	if (buf)
		__putname(buf);
}

static int aioloop_configure(struct aioloop_device *lo, bool dev_write,
			     const struct loop_config *config)
{
	struct file *file, *dio;
	bool partscan;
	int err;

	file = fget(config->fd);
	if (!file) {
		aio_warn(lo, "fd %d is not an open file\n", (int)config->fd);
		return -EBADF;
	}
	dio = aioloop_get_dio_file(file);
	err = mutex_lock_killable(&aioloop_validate_mutex);
	if (err)
		goto out_put;
	mutex_lock(&lo->lock);
	err = aioloop_check_config(lo, config, file);
	if (err)
		goto out_unlock;
	if (!lo->wq) {
		lo->wq = alloc_workqueue(AIOLOOP_NAME "%d",
					 WQ_UNBOUND | WQ_MEM_RECLAIM, 0,
					 lo->number);
		if (!lo->wq) {
			err = -ENOMEM;
			goto out_unlock;
		}
	}
	aioloop_bind(lo, dev_write, config, file, dio);
	partscan = lo->flags & LO_FLAGS_PARTSCAN;
	mutex_unlock(&lo->lock);
	mutex_unlock(&aioloop_validate_mutex);

	aioloop_log_attach(lo, file);
	if (partscan)
		aioloop_reread_partitions(lo);
	return 0;

out_unlock:
	mutex_unlock(&lo->lock);
	mutex_unlock(&aioloop_validate_mutex);
out_put:
	if (dio)
		fput(dio);
	fput(file);
	return err;
}

/* ---- LOOP_CLR_FD and autoclear ------------------------------------------- */

/*
 * Called with the disk's open_mutex held (by ->release, or by
 * LOOP_CLR_FD), so that no open of the device or of a partition can come
 * in between the check for other openers and the partitions' removal: an
 * opener there would make the rescan fail with EBUSY and leave a stale
 * partition on the unbound device (blktests loop/010).
 */
static void aioloop_teardown(struct aioloop_device *lo)
{
	struct file *file, *dio;
	bool partscan;

	lockdep_assert_held(&lo->disk->open_mutex);
	aioloop_drain(lo);
	/* Detached devices keep no cgroup alive. */
	aioloop_free_workers(lo);
	mutex_lock(&lo->lock);
	file = lo->file;
	dio = lo->dio_file;
	lo->file = NULL;
	lo->dio_file = NULL;
	mapping_set_gfp_mask(file->f_mapping, lo->old_gfp_mask);
	lo->offset = 0;
	lo->sizelimit = 0;
	memset(lo->file_name, 0, LO_NAME_SIZE);
	lo->mode = AIOLOOP_MODE_NONE;
	lo->sync_reason = AIOLOOP_SYNC_NONE;
	partscan = lo->flags & LO_FLAGS_PARTSCAN;
	mutex_unlock(&lo->lock);

	aioloop_default_limits(lo);
	aioloop_commit_limits(lo);
	invalidate_disk(lo->disk);
	aioloop_sysfs_unbind(lo);
	aioloop_undrain(lo);

	aioloop_media_changed(lo->disk);
	kobject_uevent(&disk_to_dev(lo->disk)->kobj, KOBJ_CHANGE);
	if (partscan && bdev_disk_changed(lo->disk, false))
		aio_warn(lo, "partition rescan failed\n");

	mutex_lock(&lo->lock);
	lo->flags = 0;
	set_bit(GD_SUPPRESS_PART_SCAN, &lo->disk->state);
	set_disk_ro(lo->disk, false);
	WRITE_ONCE(lo->state, AIOLOOP_UNBOUND);
	mutex_unlock(&lo->lock);

	aio_info(lo, "detached\n");
	/*
	 * The last reference may close another block device (a stacked
	 * backing): fput() leaves that to task work or a workqueue, outside
	 * the open_mutex held here.
	 */
	if (dio)
		fput(dio);
	fput(file);
	module_put(THIS_MODULE);
}

static int aioloop_clr_fd(struct aioloop_device *lo)
{
	int err;

	/* The lock order of ->release: open_mutex, then ours. */
	err = mutex_lock_killable(&lo->disk->open_mutex);
	if (err)
		return err;
	err = mutex_lock_killable(&aioloop_validate_mutex);
	if (err)
		goto out_open;
	mutex_lock(&lo->lock);
	if (lo->state != AIOLOOP_BOUND) {
		err = -ENXIO;
		goto out;
	}
	/* Open elsewhere: detach on last close, as loop does. */
	if (disk_openers(lo->disk) > 1) {
		lo->flags |= LO_FLAGS_AUTOCLEAR;
		aio_info(lo, "in use, detaching on last close\n");
		goto out;
	}
	lo->state = AIOLOOP_RUNDOWN;
	mutex_unlock(&lo->lock);
	mutex_unlock(&aioloop_validate_mutex);
	aioloop_teardown(lo);
	mutex_unlock(&lo->disk->open_mutex);
	return 0;
out:
	mutex_unlock(&lo->lock);
	mutex_unlock(&aioloop_validate_mutex);
out_open:
	mutex_unlock(&lo->disk->open_mutex);
	return err;
}

/* Last close: detach if LO_FLAGS_AUTOCLEAR is set. */
void aioloop_release_detach(struct aioloop_device *lo)
{
	bool detach = false;

	mutex_lock(&aioloop_validate_mutex);
	mutex_lock(&lo->lock);
	if (lo->state == AIOLOOP_BOUND && (lo->flags & LO_FLAGS_AUTOCLEAR)) {
		lo->state = AIOLOOP_RUNDOWN;
		detach = true;
	}
	mutex_unlock(&lo->lock);
	mutex_unlock(&aioloop_validate_mutex);
	if (detach)
		aioloop_teardown(lo);
}

/* ---- LOOP_CHANGE_FD ------------------------------------------------------ */

static int aioloop_swap_file(struct aioloop_device *lo, struct file *file,
			     struct file **dio)
{
	struct file *old = lo->file;
	struct file *old_dio = lo->dio_file;
	int err;

	err = aioloop_validate_file(lo, file);
	if (err)
		return err;
	if (aioloop_sectors(lo, file) != aioloop_sectors(lo, old)) {
		aio_warn(lo, "%pD: size differs from the current backing file\n",
			 file);
		return -EINVAL;
	}
	aioloop_drain(lo);
	mapping_set_gfp_mask(old->f_mapping, lo->old_gfp_mask);
	lo->file = file;
	lo->old_gfp_mask = mapping_gfp_mask(file->f_mapping);
	mapping_set_gfp_mask(file->f_mapping,
			     lo->old_gfp_mask & ~(__GFP_IO | __GFP_FS));
	lo->dio_file = *dio;
	*dio = old_dio;		/* the caller puts it */
	aioloop_set_mode(lo, aioloop_want_aio(lo));
	aioloop_commit_limits(lo);
	aioloop_undrain(lo);
	return 0;
}

static int aioloop_change_fd(struct aioloop_device *lo, unsigned int fd)
{
	struct file *file = fget(fd);
	struct file *old = NULL, *dio;
	bool partscan = false;
	int err;

	if (!file)
		return -EBADF;
	dio = aioloop_get_dio_file(file);
	err = mutex_lock_killable(&aioloop_validate_mutex);
	if (err)
		goto out_put;
	mutex_lock(&lo->lock);
	err = -ENXIO;
	if (lo->state != AIOLOOP_BOUND)
		goto out_unlock;
	err = -EINVAL;
	if (!(lo->flags & LO_FLAGS_READ_ONLY)) {
		aio_warn(lo, "LOOP_CHANGE_FD needs a read-only device\n");
		goto out_unlock;
	}
	old = lo->file;
	err = aioloop_swap_file(lo, file, &dio);
	if (err) {
		old = NULL;
		goto out_unlock;
	}
	partscan = lo->flags & LO_FLAGS_PARTSCAN;
	file = NULL;
out_unlock:
	mutex_unlock(&lo->lock);
	mutex_unlock(&aioloop_validate_mutex);
	if (old) {
		aioloop_media_changed(lo->disk);
		fput(old);
		if (partscan)
			aioloop_reread_partitions(lo);
	}
out_put:
	if (dio)
		fput(dio);
	if (file)
		fput(file);
	return err;
}

/* ---- LOOP_SET_STATUS(64) / LOOP_GET_STATUS(64) --------------------------- */

static int aioloop_set_status(struct aioloop_device *lo,
			      const struct loop_info64 *info)
{
	bool size_changed, offset_changed, partscan = false;
	u32 prev;
	int err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	err = -ENXIO;
	if (lo->state != AIOLOOP_BOUND)
		goto out_unlock;
	err = aioloop_check_info(lo, info, lo->file);
	if (err)
		goto out_unlock;

	offset_changed = lo->offset != info->lo_offset;
	size_changed = offset_changed || lo->sizelimit != info->lo_sizelimit;
	if (size_changed) {
		sync_blockdev(lo->disk->part0);
		invalidate_bdev(lo->disk->part0);
	}
	aioloop_drain(lo);
	prev = lo->flags;
	aioloop_info_apply(lo, info);
	/* Only LOOP_SET_STATUS_SETTABLE_FLAGS change; autoclear can clear. */
	lo->flags &= LOOP_SET_STATUS_SETTABLE_FLAGS;
	lo->flags |= prev & ~LOOP_SET_STATUS_SETTABLE_FLAGS;
	lo->flags |= prev & ~LOOP_SET_STATUS_CLEARABLE_FLAGS;
	if (offset_changed) {
		aioloop_set_mode(lo, aioloop_want_aio(lo));
		aioloop_commit_limits(lo);
	}
	if (size_changed)
		aioloop_update_size(lo);
	aioloop_undrain(lo);

	if ((lo->flags & LO_FLAGS_PARTSCAN) && !(prev & LO_FLAGS_PARTSCAN)) {
		clear_bit(GD_SUPPRESS_PART_SCAN, &lo->disk->state);
		partscan = true;
	}
out_unlock:
	mutex_unlock(&lo->lock);
	if (partscan)
		aioloop_reread_partitions(lo);
	return err;
}

static int aioloop_get_status(struct aioloop_device *lo,
			      struct loop_info64 *info)
{
	struct path path;
	struct kstat stat;
	int err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state != AIOLOOP_BOUND) {
		mutex_unlock(&lo->lock);
		return -ENXIO;
	}
	memset(info, 0, sizeof(*info));
	info->lo_number = lo->number;
	info->lo_offset = lo->offset;
	info->lo_sizelimit = lo->sizelimit;
	info->lo_flags = lo->flags;
	memcpy(info->lo_file_name, lo->file_name, LO_NAME_SIZE);
	path = lo->file->f_path;
	path_get(&path);
	mutex_unlock(&lo->lock);

	/* Not under lo->lock: this calls into the file system. */
	err = vfs_getattr(&path, &stat, STATX_INO, AT_STATX_SYNC_AS_STAT);
	if (!err) {
		info->lo_device = huge_encode_dev(stat.dev);
		info->lo_inode = stat.ino;
		info->lo_rdevice = huge_encode_dev(stat.rdev);
	}
	path_put(&path);
	return err;
}

static void aioloop_info64_from_old(const struct loop_info *info,
				    struct loop_info64 *info64)
{
	memset(info64, 0, sizeof(*info64));
	info64->lo_number = info->lo_number;
	info64->lo_device = info->lo_device;
	info64->lo_inode = info->lo_inode;
	info64->lo_rdevice = info->lo_rdevice;
	info64->lo_offset = info->lo_offset;
	info64->lo_flags = info->lo_flags;
	info64->lo_encrypt_type = info->lo_encrypt_type;
	info64->lo_encrypt_key_size = info->lo_encrypt_key_size;
	memcpy(info64->lo_file_name, info->lo_name, LO_NAME_SIZE);
}

static int aioloop_info64_to_old(const struct loop_info64 *info64,
				 struct loop_info *info)
{
	memset(info, 0, sizeof(*info));
	info->lo_number = info64->lo_number;
	info->lo_device = info64->lo_device;
	info->lo_inode = info64->lo_inode;
	info->lo_rdevice = info64->lo_rdevice;
	info->lo_offset = info64->lo_offset;
	info->lo_flags = info64->lo_flags;
	memcpy(info->lo_name, info64->lo_file_name, LO_NAME_SIZE);

	/* Values that do not fit the old structure. */
	if (info->lo_device != info64->lo_device ||
	    info->lo_rdevice != info64->lo_rdevice ||
	    info->lo_inode != info64->lo_inode ||
	    info->lo_offset != info64->lo_offset)
		return -EOVERFLOW;
	return 0;
}

static int aioloop_set_status_old(struct aioloop_device *lo,
				  const struct loop_info __user *arg)
{
	struct loop_info info;
	struct loop_info64 info64;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	aioloop_info64_from_old(&info, &info64);
	return aioloop_set_status(lo, &info64);
}

static int aioloop_set_status64(struct aioloop_device *lo,
				const struct loop_info64 __user *arg)
{
	struct loop_info64 info64;

	if (copy_from_user(&info64, arg, sizeof(info64)))
		return -EFAULT;
	return aioloop_set_status(lo, &info64);
}

static int aioloop_get_status_old(struct aioloop_device *lo,
				  struct loop_info __user *arg)
{
	struct loop_info info;
	struct loop_info64 info64;
	int err;

	if (!arg)
		return -EINVAL;
	err = aioloop_get_status(lo, &info64);
	if (!err)
		err = aioloop_info64_to_old(&info64, &info);
	if (!err && copy_to_user(arg, &info, sizeof(info)))
		err = -EFAULT;
	return err;
}

static int aioloop_get_status64(struct aioloop_device *lo,
				struct loop_info64 __user *arg)
{
	struct loop_info64 info64;
	int err;

	if (!arg)
		return -EINVAL;
	err = aioloop_get_status(lo, &info64);
	if (!err && copy_to_user(arg, &info64, sizeof(info64)))
		err = -EFAULT;
	return err;
}

/* ---- LOOP_SET_CAPACITY, LOOP_SET_DIRECT_IO, LOOP_SET_BLOCK_SIZE ---------- */

static int aioloop_set_capacity(struct aioloop_device *lo)
{
	aioloop_update_size(lo);
	return 0;
}

static int aioloop_set_direct_io(struct aioloop_device *lo, unsigned long arg)
{
	bool want = arg != 0;
	int err;

	if ((lo->mode == AIOLOOP_MODE_AIO) == want)
		return 0;
	/* Dirty page cache of the sync path reaches the file first. */
	vfs_fsync(lo->file, 0);
	aioloop_drain(lo);
	err = aioloop_set_mode(lo, want);
	aioloop_commit_limits(lo);
	aioloop_undrain(lo);
	if (err)
		aio_warn(lo, "cannot switch to direct I/O\n");
	return err;
}

static int aioloop_set_block_size(struct aioloop_device *lo, unsigned long arg)
{
	if (blk_validate_block_size(arg)) {
		aio_warn(lo, "invalid block size %lu\n", arg);
		return -EINVAL;
	}
	if (lo->lim.bsize == arg)
		return 0;
	sync_blockdev(lo->disk->part0);
	invalidate_bdev(lo->disk->part0);
	aioloop_drain(lo);
	lo->lim.bsize = arg;
	aioloop_set_mode(lo, aioloop_want_aio(lo));
	aioloop_commit_limits(lo);
	aioloop_update_size(lo);
	aioloop_undrain(lo);
	return 0;
}

/* Ioctls that need a bound device and nothing but lo->lock. */
static int aioloop_simple_ioctl(struct aioloop_device *lo, unsigned int cmd,
				unsigned long arg)
{
	int err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state != AIOLOOP_BOUND) {
		err = -ENXIO;
		goto out;
	}
	switch (cmd) {
	case LOOP_SET_CAPACITY:
		err = aioloop_set_capacity(lo);
		break;
	case LOOP_SET_DIRECT_IO:
		err = aioloop_set_direct_io(lo, arg);
		break;
	case LOOP_SET_BLOCK_SIZE:
		err = aioloop_set_block_size(lo, arg);
		break;
	default:
		err = -ENOTTY;
		break;
	}
out:
	mutex_unlock(&lo->lock);
	return err;
}

static int aioloop_config_ioctl(struct aioloop_device *lo, bool dev_write,
				unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	struct loop_config config;

	switch (cmd) {
	case LOOP_SET_FD:
		/* Legacy: LOOP_CONFIGURE with defaults. */
		memset(&config, 0, sizeof(config));
		config.fd = arg;
		return aioloop_configure(lo, dev_write, &config);
	case LOOP_CONFIGURE:
		if (copy_from_user(&config, argp, sizeof(config)))
			return -EFAULT;
		return aioloop_configure(lo, dev_write, &config);
	case LOOP_CHANGE_FD:
		return aioloop_change_fd(lo, arg);
	case LOOP_CLR_FD:
		return aioloop_clr_fd(lo);
	case LOOP_SET_STATUS:
		return aioloop_set_status_old(lo, argp);
	case LOOP_SET_STATUS64:
		return aioloop_set_status64(lo, argp);
	default:
		return aioloop_simple_ioctl(lo, cmd, arg);
	}
}

int aioloop_ioctl(AIOLOOP_IOCTL_ARGS)
{
	struct aioloop_device *lo = bdev->bd_disk->private_data;

	switch (cmd) {
	case LOOP_GET_STATUS:
		return aioloop_get_status_old(lo, (void __user *)arg);
	case LOOP_GET_STATUS64:
		return aioloop_get_status64(lo, (void __user *)arg);
	case LOOP_SET_FD:
	case LOOP_CONFIGURE:
	case LOOP_CHANGE_FD:
	case LOOP_CLR_FD:
	case LOOP_SET_STATUS:
	case LOOP_SET_STATUS64:
	case LOOP_SET_CAPACITY:
	case LOOP_SET_DIRECT_IO:
	case LOOP_SET_BLOCK_SIZE:
		/* Stricter than loop: configuring always needs the capability. */
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return aioloop_config_ioctl(lo, aioloop_mode_write(mode), cmd,
					    arg);
	default:
		return -ENOTTY;
	}
}

/* ---- 32-bit callers ------------------------------------------------------ */

#ifdef CONFIG_COMPAT
/* struct loop_info as a 32-bit caller lays it out (drivers/block/loop.c). */
struct aioloop_compat_info {
	compat_int_t	lo_number;
	compat_dev_t	lo_device;
	compat_ulong_t	lo_inode;
	compat_dev_t	lo_rdevice;
	compat_int_t	lo_offset;
	compat_int_t	lo_encrypt_type;
	compat_int_t	lo_encrypt_key_size;
	compat_int_t	lo_flags;
	char		lo_name[LO_NAME_SIZE];
	unsigned char	lo_encrypt_key[LO_KEY_SIZE];
	compat_ulong_t	lo_init[2];
	char		reserved[4];
};

static int aioloop_set_status_compat(struct aioloop_device *lo,
				     const struct aioloop_compat_info __user *arg)
{
	struct aioloop_compat_info info;
	struct loop_info64 info64;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	memset(&info64, 0, sizeof(info64));
	info64.lo_number = info.lo_number;
	info64.lo_device = info.lo_device;
	info64.lo_inode = info.lo_inode;
	info64.lo_rdevice = info.lo_rdevice;
	info64.lo_offset = info.lo_offset;
	info64.lo_flags = info.lo_flags;
	memcpy(info64.lo_file_name, info.lo_name, LO_NAME_SIZE);
	return aioloop_set_status(lo, &info64);
}

static int aioloop_get_status_compat(struct aioloop_device *lo,
				     struct aioloop_compat_info __user *arg)
{
	struct aioloop_compat_info info;
	struct loop_info64 info64;
	int err;

	if (!arg)
		return -EINVAL;
	err = aioloop_get_status(lo, &info64);
	if (err)
		return err;
	memset(&info, 0, sizeof(info));
	info.lo_number = info64.lo_number;
	info.lo_device = info64.lo_device;
	info.lo_inode = info64.lo_inode;
	info.lo_rdevice = info64.lo_rdevice;
	info.lo_offset = info64.lo_offset;
	info.lo_flags = info64.lo_flags;
	memcpy(info.lo_name, info64.lo_file_name, LO_NAME_SIZE);

	/* Values that do not fit the 32-bit structure. */
	if (info.lo_device != info64.lo_device ||
	    info.lo_rdevice != info64.lo_rdevice ||
	    info.lo_inode != info64.lo_inode ||
	    info.lo_offset != info64.lo_offset)
		return -EOVERFLOW;
	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/*
 * ->compat_ioctl: LOOP_SET_STATUS and LOOP_GET_STATUS carry struct
 * loop_info, whose longs and dev_t differ for a 32-bit caller; every
 * other ioctl has the same layout and only needs its pointer converted,
 * as loop's lo_compat_ioctl() does.
 */
int aioloop_compat_ioctl(AIOLOOP_IOCTL_ARGS)
{
	struct aioloop_device *lo = bdev->bd_disk->private_data;

	switch (cmd) {
	case LOOP_SET_STATUS:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return aioloop_set_status_compat(lo, compat_ptr(arg));
	case LOOP_GET_STATUS:
		return aioloop_get_status_compat(lo, compat_ptr(arg));
	case LOOP_SET_CAPACITY:
	case LOOP_CLR_FD:
	case LOOP_GET_STATUS64:
	case LOOP_SET_STATUS64:
	case LOOP_CONFIGURE:
		arg = (unsigned long)compat_ptr(arg);
		fallthrough;
	case LOOP_SET_FD:
	case LOOP_CHANGE_FD:
	case LOOP_SET_BLOCK_SIZE:
	case LOOP_SET_DIRECT_IO:
		return aioloop_ioctl(bdev, mode, cmd, arg);
	default:
		return -ENOIOCTLCMD;
	}
}
#endif /* CONFIG_COMPAT */
