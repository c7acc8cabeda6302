// SPDX-License-Identifier: GPL-2.0
/*
 * aioloop: a loop-compatible block device that serves bios with
 * asynchronous O_DIRECT I/O on the backing file.
 *
 * This file holds the device: the gendisk, its life cycle, the control
 * node /dev/aioloop-control and the module.  The data path, from a bio
 * to the backing file and back, is in submit.c; the loop ioctls are in
 * ioctl.c.
 *
 * Copyright (C) 2026 The aioloop authors
 */
#define pr_fmt(fmt) "aioloop: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/init.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/idr.h>
#include <linux/miscdevice.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

#include "compat.h"
#include "aioloop.h"

#define AIOLOOP_VERSION		"0.1.0"
#define AIOLOOP_MAX_INDEX	(1 << (MINORBITS - AIOLOOP_PART_SHIFT))

static int max_devices = 8;
module_param(max_devices, int, 0444);
MODULE_PARM_DESC(max_devices,
		 "Number of /dev/aioloopN devices created at load (default 8); more can be added through /dev/aioloop-control");

bool aioloop_direct_io = true;
module_param_named(direct_io, aioloop_direct_io, bool, 0644);
MODULE_PARM_DESC(direct_io,
		 "Serve bios with O_DIRECT asynchronous I/O when the backing allows it (default Y); N attaches in sync mode");

static int aioloop_major;
static DEFINE_IDR(aioloop_idr);
DEFINE_MUTEX(aioloop_ctl_mutex);	/* aioloop_idr, idr_visible */

static const struct block_device_operations aioloop_fops;

bool aioloop_is_ours(struct file *file)
{
	struct inode *inode = file->f_mapping->host;

	return inode && S_ISBLK(inode->i_mode) &&
	       imajor(inode) == aioloop_major;
}

/* ---- in-flight accounting ---------------------------------------------- */

static void aioloop_inflight_release(struct percpu_ref *ref)
{
	struct aioloop_device *lo = container_of(ref, struct aioloop_device,
						 inflight);

	complete(&lo->drained);
}

/**
 * aioloop_drain - stop new bios and wait for every bio in flight
 * @lo: device; the caller holds its configuration
 *
 * Freezing the queue waits for ->submit_bio() callers and keeps new ones
 * out; the percpu_ref then waits for the bios they queued, whose
 * completions may still be running in the backing file system.
 */
void aioloop_drain(struct aioloop_device *lo)
{
	lo->freeze_memflags = aioloop_freeze_queue(lo->disk->queue);
	reinit_completion(&lo->drained);
	percpu_ref_kill(&lo->inflight);
	wait_for_completion(&lo->drained);
}

void aioloop_undrain(struct aioloop_device *lo)
{
	percpu_ref_resurrect(&lo->inflight);
	aioloop_unfreeze_queue(lo->disk->queue, lo->freeze_memflags);
}

/* ---- block device -------------------------------------------------------- */

static int aioloop_open(AIOLOOP_OPEN_ARGS)
{
	struct aioloop_device *lo = AIOLOOP_OPEN_DISK->private_data;
	int err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state == AIOLOOP_DELETING)
		err = -ENXIO;
	mutex_unlock(&lo->lock);
	return err;
}

static void aioloop_release(AIOLOOP_RELEASE_ARGS)
{
	struct aioloop_device *lo = disk->private_data;

	if (disk_openers(disk) > 0)
		return;
	aioloop_release_detach(lo);
}

static void aioloop_free_disk(struct gendisk *disk)
{
	struct aioloop_device *lo = disk->private_data;

	aioloop_free_workers(lo);
	if (lo->wq)
		destroy_workqueue(lo->wq);
	percpu_ref_exit(&lo->inflight);
	free_percpu(lo->queues);
	free_percpu(lo->stats);
	mutex_destroy(&lo->lock);
	kfree(lo);
}

static const struct block_device_operations aioloop_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= aioloop_submit_bio,
	.open		= aioloop_open,
	.release	= aioloop_release,
	.ioctl		= aioloop_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= aioloop_compat_ioctl,
#endif
	.free_disk	= aioloop_free_disk,
};

static struct aioloop_device *aioloop_alloc(void)
{
	struct aioloop_device *lo;

	lo = kzalloc(sizeof(*lo), GFP_KERNEL);
	if (!lo)
		return NULL;
	if (percpu_ref_init(&lo->inflight, aioloop_inflight_release,
			    PERCPU_REF_ALLOW_REINIT, GFP_KERNEL))
		goto err_free;
	lo->queues = alloc_percpu(struct aioloop_queue);
	lo->stats = alloc_percpu(struct aioloop_stats);
	if (!lo->queues || !lo->stats)
		goto err_percpu;
	aioloop_submit_init_dev(lo);
	mutex_init(&lo->lock);
	init_completion(&lo->drained);
	return lo;

err_percpu:
	free_percpu(lo->queues);
	free_percpu(lo->stats);
	percpu_ref_exit(&lo->inflight);
err_free:
	kfree(lo);
	return NULL;
}

/* Limits of an unbound device. */
void aioloop_default_limits(struct aioloop_device *lo)
{
	lo->lim = (struct aioloop_limits) {
		.bsize		= SECTOR_SIZE,
		.dma_alignment	= SECTOR_SIZE - 1,
	};
}

int aioloop_commit_limits(struct aioloop_device *lo)
{
	int err = aioloop_queue_set_limits(lo->disk->queue, &lo->lim);

	if (err)
		aio_err(lo, "queue limits refused: %d\n", err);
	return err;
}

/**
 * aioloop_add - create /dev/aioloop@index
 * @index: wanted index, or -1 for the lowest free one
 *
 * Returns the index, -EEXIST if it is taken, or another errno.
 */
int aioloop_add(int index)
{
	struct aioloop_device *lo;
	struct gendisk *disk;
	int err;

	if (index >= AIOLOOP_MAX_INDEX)
		return -EINVAL;
	lo = aioloop_alloc();
	if (!lo)
		return -ENOMEM;

	err = mutex_lock_killable(&aioloop_ctl_mutex);
	if (err)
		goto err_free;
	if (index >= 0) {
		err = idr_alloc(&aioloop_idr, lo, index, index + 1, GFP_KERNEL);
		if (err == -ENOSPC)
			err = -EEXIST;
	} else {
		err = idr_alloc(&aioloop_idr, lo, 0, AIOLOOP_MAX_INDEX,
				GFP_KERNEL);
	}
	mutex_unlock(&aioloop_ctl_mutex);
	if (err < 0)
		goto err_free;
	lo->number = err;

	disk = aioloop_alloc_disk();
	if (IS_ERR(disk)) {
		err = PTR_ERR(disk);
		goto err_idr;
	}
	lo->disk = disk;
	disk->major = aioloop_major;
	disk->first_minor = lo->number << AIOLOOP_PART_SHIFT;
	disk->minors = 1 << AIOLOOP_PART_SHIFT;
	disk->fops = &aioloop_fops;
	disk->private_data = lo;
	snprintf(disk->disk_name, DISK_NAME_LEN, AIOLOOP_NAME "%d", lo->number);
	/* Partitions are scanned only when LO_FLAGS_PARTSCAN asks for it. */
	set_bit(GD_SUPPRESS_PART_SCAN, &disk->state);
	aioloop_default_limits(lo);
	err = aioloop_commit_limits(lo);
	if (err)
		goto err_disk;

	err = device_add_disk(NULL, disk, aioloop_disk_groups);
	if (err) {
		pr_err("cannot add disk %s: %d\n", disk->disk_name, err);
		goto err_disk;
	}

	mutex_lock(&aioloop_ctl_mutex);
	lo->idr_visible = true;
	mutex_unlock(&aioloop_ctl_mutex);
	return lo->number;

err_disk:
	/* put_disk() frees @lo through ->free_disk. */
	mutex_lock(&aioloop_ctl_mutex);
	idr_remove(&aioloop_idr, lo->number);
	mutex_unlock(&aioloop_ctl_mutex);
	put_disk(disk);
	return err;
err_idr:
	mutex_lock(&aioloop_ctl_mutex);
	idr_remove(&aioloop_idr, lo->number);
	mutex_unlock(&aioloop_ctl_mutex);
err_free:
	percpu_ref_exit(&lo->inflight);
	free_percpu(lo->queues);
	free_percpu(lo->stats);
	kfree(lo);
	return err;
}

static void aioloop_del(struct aioloop_device *lo)
{
	del_gendisk(lo->disk);
	mutex_lock(&aioloop_ctl_mutex);
	idr_remove(&aioloop_idr, lo->number);
	mutex_unlock(&aioloop_ctl_mutex);
	put_disk(lo->disk);
}

/* LOOP_CTL_REMOVE: only an unbound device nobody has open. */
int aioloop_remove(int index)
{
	struct aioloop_device *lo;
	int err;

	if (index < 0)
		return -EINVAL;
	err = mutex_lock_killable(&aioloop_ctl_mutex);
	if (err)
		return err;
	lo = idr_find(&aioloop_idr, index);
	if (!lo || !lo->idr_visible)
		err = -ENODEV;
	else
		lo->idr_visible = false;
	mutex_unlock(&aioloop_ctl_mutex);
	if (err)
		return err;

	mutex_lock(&lo->lock);
	if (lo->state != AIOLOOP_UNBOUND || disk_openers(lo->disk) > 0) {
		mutex_unlock(&lo->lock);
		mutex_lock(&aioloop_ctl_mutex);
		lo->idr_visible = true;
		mutex_unlock(&aioloop_ctl_mutex);
		return -EBUSY;
	}
	lo->state = AIOLOOP_DELETING;
	mutex_unlock(&lo->lock);

	aioloop_del(lo);
	return index;
}

/* LOOP_CTL_GET_FREE: an unbound device, created if there is none. */
int aioloop_get_free(void)
{
	struct aioloop_device *lo;
	int id, err;

	err = mutex_lock_killable(&aioloop_ctl_mutex);
	if (err)
		return err;
	idr_for_each_entry(&aioloop_idr, lo, id) {
		/*
		 * lo->state is read without lo->lock: losing a race with
		 * an attach only makes the caller try another device.
		 */
		if (lo->idr_visible &&
		    data_race(lo->state) == AIOLOOP_UNBOUND) {
			mutex_unlock(&aioloop_ctl_mutex);
			return id;
		}
	}
	mutex_unlock(&aioloop_ctl_mutex);
	return aioloop_add(-1);
}

/* ---- control device ------------------------------------------------------ */

static long aioloop_control_ioctl(struct file *file, unsigned int cmd,
				  unsigned long parm)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	switch (cmd) {
	case LOOP_CTL_ADD:
		return aioloop_add((int)parm);
	case LOOP_CTL_REMOVE:
		return aioloop_remove((int)parm);
	case LOOP_CTL_GET_FREE:
		return aioloop_get_free();
	default:
		return -ENOTTY;
	}
}

static const struct file_operations aioloop_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= aioloop_control_ioctl,
	.compat_ioctl	= aioloop_control_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice aioloop_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= AIOLOOP_NAME "-control",
	.nodename	= AIOLOOP_NAME "-control",
	.mode		= 0600,
	.fops		= &aioloop_ctl_fops,
};

/* ---- module -------------------------------------------------------------- */

static void aioloop_del_all(void)
{
	struct aioloop_device *lo;
	int id;

	/* No device is bound: a bound device holds a module reference. */
	idr_for_each_entry(&aioloop_idr, lo, id)
		aioloop_del(lo);
}

static int __init aioloop_init(void)
{
	int i, err;

	if (max_devices < 0 || max_devices > AIOLOOP_MAX_INDEX) {
		pr_err("max_devices=%d out of range 0..%d\n", max_devices,
		       AIOLOOP_MAX_INDEX);
		return -EINVAL;
	}
	err = kaio_init();
	if (err)
		return err;
	err = aioloop_submit_init();
	if (err)
		goto err_kaio;

	err = register_blkdev(0, AIOLOOP_NAME);
	if (err < 0)
		goto err_submit;
	aioloop_major = err;

	err = misc_register(&aioloop_misc);
	if (err)
		goto err_blkdev;

	for (i = 0; i < max_devices; i++) {
		err = aioloop_add(i);
		if (err < 0)
			goto err_devices;
	}
	pr_info("version " AIOLOOP_VERSION ", %d devices, major %d\n",
		max_devices, aioloop_major);
	return 0;

err_devices:
	pr_err("creating aioloop%d failed: %d\n", i, err);
	misc_deregister(&aioloop_misc);
	aioloop_del_all();
err_blkdev:
	unregister_blkdev(aioloop_major, AIOLOOP_NAME);
err_submit:
	aioloop_submit_exit();
err_kaio:
	kaio_exit();
	return err;
}

static void __exit aioloop_exit(void)
{
	misc_deregister(&aioloop_misc);
	aioloop_del_all();
	idr_destroy(&aioloop_idr);
	unregister_blkdev(aioloop_major, AIOLOOP_NAME);
	aioloop_submit_exit();
	kaio_exit();
}

module_init(aioloop_init);
module_exit(aioloop_exit);

MODULE_DESCRIPTION("Loop-compatible block device backed by a file, served with O_DIRECT asynchronous I/O");
MODULE_AUTHOR("The aioloop authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(AIOLOOP_VERSION);
