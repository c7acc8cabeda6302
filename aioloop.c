// SPDX-License-Identifier: GPL-2.0
/*
 * aioloop: a loop-compatible block device that serves bios with
 * asynchronous O_DIRECT I/O on the backing file.
 *
 * Dispatch:
 *  - Reads and writes are submitted with IOCB_NOWAIT straight from
 *    ->submit_bio(), in the caller's context (aioloop_submit_direct()),
 *    when that context allows it; completions run in the file system's
 *    completion context and end the bio there.
 *  - Otherwise the bio's kaio request is queued on a per-CPU list, and
 *    the CPU's worker takes the whole list, plugs, and submits every
 *    request with IOCB_NOWAIT.
 *  - Whatever may block in the backing file system goes to the device's
 *    own worker, which serves it in order, one request at a time:
 *    blocking retries of -EAGAIN and short transfers, flushes, discards,
 *    write zeroes, writes with REQ_PREFLUSH, and in sync mode (no
 *    O_DIRECT possible, or asked for) every bio, with buffered
 *    vfs_iter_read()/vfs_iter_write().  No thread is shared between
 *    devices on this path: a device stacked on a file system on another
 *    aioloop device waits for the lower device's worker, never for a
 *    thread that the upper device's blocked work occupies.
 *
 * Copyright (C) 2026 The aioloop authors
 */
#define pr_fmt(fmt) "aioloop: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/init.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/falloc.h>
#include <linux/idr.h>
#include <linux/miscdevice.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
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

static bool nowait = true;
module_param(nowait, bool, 0644);
MODULE_PARM_DESC(nowait,
		 "Try IOCB_NOWAIT from the per-CPU workers first and punt to a blocking worker on -EAGAIN (default Y)");

static bool same_cpu = true;
module_param(same_cpu, bool, 0644);
MODULE_PARM_DESC(same_cpu,
		 "Run each CPU's submission worker on that CPU (default Y); N lets the scheduler place it, so that submission and file system work can overlap on different CPUs");

static bool direct_submit = true;
module_param(direct_submit, bool, 0644);
MODULE_PARM_DESC(direct_submit,
		 "Submit reads and writes to the backing file from the caller's context when it can (default Y); N hands every one to a per-CPU worker");

static int aioloop_major;
static DEFINE_IDR(aioloop_idr);
DEFINE_MUTEX(aioloop_ctl_mutex);	/* aioloop_idr, idr_visible */

/*
 * Submission workers: one work item per CPU and device, on the bound
 * workqueue with same_cpu, else on the unbound one.  They submit with
 * IOCB_NOWAIT only; blocking work goes to the device's own worker.
 */
static struct workqueue_struct *aioloop_wq;
static struct workqueue_struct *aioloop_unbound_wq;

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
	blk_mq_freeze_queue(lo->disk->queue);
	reinit_completion(&lo->drained);
	percpu_ref_kill(&lo->inflight);
	wait_for_completion(&lo->drained);
}

void aioloop_undrain(struct aioloop_device *lo)
{
	percpu_ref_resurrect(&lo->inflight);
	blk_mq_unfreeze_queue(lo->disk->queue);
}

/* ---- completion ---------------------------------------------------------- */

static blk_status_t aioloop_errno_to_status(long err)
{
	switch (err) {
	case 0:
		return BLK_STS_OK;
	case -ENOSPC:
		return BLK_STS_NOSPC;
	case -EOPNOTSUPP:
		return BLK_STS_NOTSUPP;
	default:
		return BLK_STS_IOERR;
	}
}

static inline struct aioloop_device *aioloop_bio_dev(struct bio *bio)
{
	return bio->bi_bdev->bd_disk->private_data;
}

/* Ends the bio and drops everything it held.  Any context. */
static void aioloop_end(struct kaio_req *req, long err)
{
	struct bio *bio = req->data;
	struct aioloop_device *lo = aioloop_bio_dev(bio);

	if (err) {
		bio->bi_status = aioloop_errno_to_status(err);
		this_cpu_inc(lo->stats->errors);
	}
	bio_end_io_acct(bio, req->owner_data);
	kaio_free(req);
	bio_endio(bio);
	percpu_ref_put(&lo->inflight);
}

/* Zero the part of a read bio past the first @done bytes. */
static void aioloop_zero_tail(struct bio *bio, size_t done)
{
	struct bvec_iter iter = bio->bi_iter;
	struct bio_vec bv;

	bio_advance_iter(bio, &iter, done);
	__bio_for_each_segment(bv, bio, iter, iter)
		memzero_bvec(&bv);
}

static void aioloop_queue_blocking(struct aioloop_device *lo,
				   struct kaio_req *req);

/*
 * A transfer finished with @ret bytes or an errno.  A read that stops
 * short at the end of the backing file reads zeroes beyond, as loop's
 * does; a short write is an error, never a silent success.
 */
static void aioloop_rw_done(struct kaio_req *req, long ret)
{
	struct bio *bio = req->data;
	struct aioloop_device *lo = aioloop_bio_dev(bio);

	if (ret == -EINVAL && !(req->owner_flags & AIOLOOP_REQ_BUFFERED)) {
		/* O_DIRECT refused this one (alignment): serve it buffered. */
		this_cpu_inc(lo->stats->dio_retries);
		req->owner_flags |= AIOLOOP_REQ_BUFFERED;
		aioloop_queue_blocking(lo, req);
		return;
	}
	if (ret >= 0 && ret < bio->bi_iter.bi_size) {
		if (op_is_write(bio_op(bio))) {
			ret = -EIO;
		} else {
			aioloop_zero_tail(bio, ret);
			ret = 0;
		}
	}
	aioloop_end(req, ret < 0 ? ret : 0);
}

static inline loff_t aioloop_bio_pos(struct aioloop_device *lo,
				     struct bio *bio)
{
	return ((loff_t)bio->bi_iter.bi_sector << SECTOR_SHIFT) + lo->offset;
}

/* ---- aio path ------------------------------------------------------------ */

/* kaio's retry of @req, from any context: the device's worker reissues it. */
static void aioloop_punt(struct kaio_req *req)
{
	req->owner_flags |= AIOLOOP_REQ_RETRY;
	aioloop_queue_blocking(aioloop_bio_dev(req->data), req);
}

static void aioloop_submit_aio(struct aioloop_device *lo,
			       struct kaio_req *req, unsigned int flags)
{
	struct bio *bio = req->data;
	bool write = op_is_write(bio_op(bio));
	struct iov_iter iter;

	aioloop_bio_iter(bio, &iter, write ? ITER_SOURCE : ITER_DEST);
	kaio_init_iter(req, lo->dio_file, write ? KAIO_WRITE : KAIO_READ,
		       &iter, aioloop_bio_pos(lo, bio));
	kaio_init_callback(req, aioloop_rw_done, aioloop_punt, bio);
	req->flags = flags;
	if (write && (bio->bi_opf & REQ_FUA))
		req->flags |= KAIO_DSYNC;
	req->stats = &lo->stats->kaio;
	kaio_submit(req);
}

/* The CPU's worker: submit everything queued on this CPU, plugged. */
static void aioloop_queue_work(struct work_struct *work)
{
	struct aioloop_queue *q = container_of(work, struct aioloop_queue,
					       work);
	unsigned int flags = READ_ONCE(nowait) ? KAIO_NOWAIT : 0;
	struct llist_node *list;
	struct kaio_req *req, *next;
	struct blk_plug plug;
	unsigned int noio;

	list = llist_reverse_order(llist_del_all(&q->list));
	noio = memalloc_noio_save();
	blk_start_plug(&plug);
	llist_for_each_entry_safe(req, next, list, node)
		aioloop_submit_aio(q->lo, req, flags);
	blk_finish_plug(&plug);
	memalloc_noio_restore(noio);
}

/* ---- blocking path: flush, discard, zeroes, sync mode -------------------- */

static int aioloop_flush(struct aioloop_device *lo)
{
	this_cpu_inc(lo->stats->flushes);
	return vfs_fsync(lo->file, 0);
}

static int aioloop_fallocate(struct aioloop_device *lo, struct bio *bio)
{
	struct file *file = lo->file;
	loff_t pos = aioloop_bio_pos(lo, bio);
	loff_t len = bio->bi_iter.bi_size;
	int mode = FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE;
	int ret;

	if (!file->f_op->fallocate)
		return -EOPNOTSUPP;
	this_cpu_inc(lo->stats->discards);
	/* Keep the blocks allocated only when asked to (REQ_NOUNMAP). */
	if (bio_op(bio) == REQ_OP_WRITE_ZEROES && (bio->bi_opf & REQ_NOUNMAP)) {
		ret = vfs_fallocate(file, FALLOC_FL_KEEP_SIZE |
				    FALLOC_FL_ZERO_RANGE, pos, len);
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	ret = vfs_fallocate(file, mode, pos, len);
	if (ret == -EINVAL)
		ret = -EOPNOTSUPP;
	return ret;
}

/* Buffered transfer of the whole bio; returns bytes done or an errno. */
static long aioloop_sync_rw(struct aioloop_device *lo, struct bio *bio)
{
	struct file *file = lo->file;
	bool write = op_is_write(bio_op(bio));
	loff_t pos = aioloop_bio_pos(lo, bio);
	loff_t start = pos;
	struct iov_iter iter;
	size_t count, done = 0;
	ssize_t ret = 0;

	count = aioloop_bio_iter(bio, &iter, write ? ITER_SOURCE : ITER_DEST);
	this_cpu_inc(lo->stats->sync_ios);
	if (write)
		file_start_write(file);
	while (done < count) {
		if (write)
			ret = vfs_iter_write(file, &iter, &pos, 0);
		else
			ret = vfs_iter_read(file, &iter, &pos, 0);
		if (ret <= 0)
			break;
		done += ret;
	}
	if (write)
		file_end_write(file);
	if (ret < 0)
		return ret;
	if (write && (bio->bi_opf & REQ_FUA) && done) {
		ret = vfs_fsync_range(file, start, start + done - 1, 1);
		if (ret)
			return ret;
	}
	return done;
}

static void aioloop_serve_blocking(struct aioloop_device *lo,
				   struct kaio_req *req)
{
	struct bio *bio = req->data;
	int err = 0;

	if (bio->bi_opf & REQ_PREFLUSH) {
		err = aioloop_flush(lo);
		if (err)
			goto end;
	}

	switch (bio_op(bio)) {
	case REQ_OP_FLUSH:
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		err = aioloop_fallocate(lo, bio);
		break;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		if (!bio->bi_iter.bi_size)
			break;
		if (lo->mode == AIOLOOP_MODE_AIO &&
		    !(req->owner_flags & AIOLOOP_REQ_BUFFERED)) {
			aioloop_submit_aio(lo, req, 0);
			return;
		}
		req->owner_flags |= AIOLOOP_REQ_BUFFERED;
		aioloop_rw_done(req, aioloop_sync_rw(lo, bio));
		return;
	default:
		err = -EOPNOTSUPP;
		break;
	}
end:
	aioloop_end(req, err);
}

/*
 * The device's worker: serves everything queued, in order.  A request
 * that blocks holds up only this device's later blocking work (as in
 * loop, whose worker serves one command after another), and at most one
 * thread of the device sleeps in the backing file system.
 */
static void aioloop_worker_fn(struct work_struct *work)
{
	struct aioloop_worker *w = container_of(work, struct aioloop_worker,
						work);
	struct llist_node *list;
	struct kaio_req *req, *next;
	unsigned int noio;

	list = llist_reverse_order(llist_del_all(&w->list));
	noio = memalloc_noio_save();
	llist_for_each_entry_safe(req, next, list, node) {
		if (req->owner_flags & AIOLOOP_REQ_RETRY) {
			req->owner_flags &= ~AIOLOOP_REQ_RETRY;
			kaio_resubmit(req);
		} else {
			aioloop_serve_blocking(w->lo, req);
		}
		cond_resched();
	}
	memalloc_noio_restore(noio);
}

/* Any context; the first request of a batch queues the work. */
static void aioloop_queue_blocking(struct aioloop_device *lo,
				   struct kaio_req *req)
{
	if (llist_add(&req->node, &lo->worker.list))
		queue_work(lo->wq, &lo->worker.work);
}

/* ---- submission ---------------------------------------------------------- */

static void aioloop_queue_fast(struct aioloop_device *lo, struct kaio_req *req)
{
	struct aioloop_queue *q = get_cpu_ptr(lo->queues);

	/*
	 * Only the first request of a batch queues the work.  The work
	 * function is safe to run concurrently with itself, which happens
	 * for a moment if same_cpu changes while it runs.
	 */
	if (llist_add(&req->node, &q->list))
		queue_work_on(smp_processor_id(),
			      READ_ONCE(same_cpu) ? aioloop_wq :
						    aioloop_unbound_wq,
			      &q->work);
	put_cpu_ptr(lo->queues);
}

/*
 * Calling the backing file system from ->submit_bio() saves the hand-off
 * to a worker: one wakeup and two context switches per bio.  It needs:
 *  - a task context with stack to spare: the call goes down through a
 *    second file system and block stack (a chain of aioloop devices
 *    ends up on the workers);
 *  - under lockdep, a caller holding no lock: a file system on top and
 *    the backing one take locks of the same classes (i_rwsem,
 *    i_data_sem) on different inodes, which lockdep cannot tell apart.
 */
#define AIOLOOP_DIRECT_STACK	(THREAD_SIZE / 2)

static bool aioloop_may_submit_direct(void)
{
	unsigned long sp = (unsigned long)__builtin_frame_address(0);
	unsigned long low = (unsigned long)task_stack_page(current);

	if (!READ_ONCE(direct_submit) || !in_task())
		return false;
	if (sp < low || sp - low < AIOLOOP_DIRECT_STACK)
		return false;
	return !lockdep_depth(current);
}

/*
 * The per-task state a ->submit_bio() caller carries is set aside for
 * the call: bios the file system submits go out at once instead of
 * waiting on the caller's current->bio_list until we return (a file
 * system waiting for one of its own reads would deadlock), a journal
 * handle of the caller's file system is not taken for the backing
 * one's, and no allocation recurses into I/O.
 */
static void aioloop_submit_direct(struct aioloop_device *lo,
				  struct kaio_req *req)
{
	struct bio_list *bio_list = current->bio_list;
	void *journal_info = current->journal_info;
	unsigned int noio = memalloc_noio_save();

	this_cpu_inc(lo->stats->direct);
	current->bio_list = NULL;
	current->journal_info = NULL;
	aioloop_submit_aio(lo, req, KAIO_NOWAIT);
	current->journal_info = journal_info;
	current->bio_list = bio_list;
	memalloc_noio_restore(noio);
}

static bool aioloop_fast_path(struct aioloop_device *lo, struct bio *bio)
{
	if (lo->mode != AIOLOOP_MODE_AIO)
		return false;
	if (bio_op(bio) != REQ_OP_READ && bio_op(bio) != REQ_OP_WRITE)
		return false;
	if (bio->bi_opf & REQ_PREFLUSH)
		return false;
	/* Without IOCB_NOWAIT a submission may block: one worker each. */
	return READ_ONCE(nowait) && lo->nowait_ok;
}

static void aioloop_submit_bio(struct bio *bio)
{
	struct aioloop_device *lo = aioloop_bio_dev(bio);
	struct kaio_req *req;

	if (!percpu_ref_tryget_live(&lo->inflight)) {
		bio_io_error(bio);
		return;
	}
	if (READ_ONCE(lo->state) != AIOLOOP_BOUND ||
	    (op_is_write(bio_op(bio)) && (lo->flags & LO_FLAGS_READ_ONLY))) {
		bio_io_error(bio);
		percpu_ref_put(&lo->inflight);
		return;
	}

	req = kaio_alloc(GFP_NOIO);
	req->data = bio;
	req->owner_data = bio_start_io_acct(bio);
	if (!aioloop_fast_path(lo, bio))
		aioloop_queue_blocking(lo, req);
	else if (aioloop_may_submit_direct())
		aioloop_submit_direct(lo, req);
	else
		aioloop_queue_fast(lo, req);
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
	.free_disk	= aioloop_free_disk,
};

static struct aioloop_device *aioloop_alloc(void)
{
	struct aioloop_device *lo;
	int cpu;

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
	for_each_possible_cpu(cpu) {
		struct aioloop_queue *q = per_cpu_ptr(lo->queues, cpu);

		init_llist_head(&q->list);
		INIT_WORK(&q->work, aioloop_queue_work);
		q->lo = lo;
	}
	init_llist_head(&lo->worker.list);
	INIT_WORK(&lo->worker.work, aioloop_worker_fn);
	lo->worker.lo = lo;
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
	err = -ENOMEM;
	aioloop_wq = alloc_workqueue(AIOLOOP_NAME, WQ_MEM_RECLAIM | WQ_HIGHPRI,
				     0);
	if (!aioloop_wq)
		goto err_kaio;
	aioloop_unbound_wq = alloc_workqueue(AIOLOOP_NAME "_sub",
					     WQ_UNBOUND | WQ_MEM_RECLAIM |
					     WQ_HIGHPRI, 0);
	if (!aioloop_unbound_wq)
		goto err_wq;

	err = register_blkdev(0, AIOLOOP_NAME);
	if (err < 0)
		goto err_unbound_wq;
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
err_unbound_wq:
	destroy_workqueue(aioloop_unbound_wq);
err_wq:
	destroy_workqueue(aioloop_wq);
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
	destroy_workqueue(aioloop_unbound_wq);
	destroy_workqueue(aioloop_wq);
	kaio_exit();
}

module_init(aioloop_init);
module_exit(aioloop_exit);

MODULE_DESCRIPTION("Loop-compatible block device backed by a file, served with O_DIRECT asynchronous I/O");
MODULE_AUTHOR("The aioloop authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(AIOLOOP_VERSION);
