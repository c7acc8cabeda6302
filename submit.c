// SPDX-License-Identifier: GPL-2.0
/*
 * aioloop data path: from a bio to the backing file and back.
 *
 *   ->submit_bio()  aioloop_submit_bio()
 *        |  a kaio request per bio; its bio_vec array becomes an
 *        |  iov_iter (iov_iter_bvec.c), no copy
 *        v
 *   direct submission from the caller's context, or a per-CPU
 *   submission worker, both with IOCB_NOWAIT (kaio.c)
 *        |  -EAGAIN, short transfers, flush, discard, write zeroes,
 *        |  sync mode
 *        v
 *   the device's blocking worker of the bio's cgroup, one request at
 *   a time
 *        |
 *        v
 *   completion: aioloop_rw_done() ends the bio, in whatever context
 *   the backing file system completes it
 *
 * Dispatch:
 *  - Reads and writes are submitted with IOCB_NOWAIT straight from
 *    ->submit_bio(), in the caller's context (aioloop_submit_direct()),
 *    when that context allows it; completions run in the file system's
 *    completion context and end the bio there.  A deep queue of one
 *    submitter goes to the unbound per-CPU workers instead while CPUs
 *    idle, so that its file system work runs on another CPU
 *    (aioloop_handoff()).
 *  - Otherwise the bio's kaio request is queued on a per-CPU list, and
 *    the CPU's worker takes the whole list, plugs, and submits every
 *    request with IOCB_NOWAIT.
 *  - Whatever may block in the backing file system goes to the device's
 *    worker for the bio's cgroup, which serves it in order, one request
 *    at a time:
 *    blocking retries of -EAGAIN and short transfers, flushes, discards,
 *    write zeroes, writes with REQ_PREFLUSH, and in sync mode (no
 *    O_DIRECT possible, or asked for) every bio, with buffered
 *    vfs_iter_read()/vfs_iter_write().  No thread is shared between
 *    devices on this path: a device stacked on a file system on another
 *    aioloop device waits for the lower device's worker, never for a
 *    thread that the upper device's blocked work occupies.
 *  - Every path issues the backing I/O on behalf of the bio's cgroup
 *    (see "cgroups" below).
 *
 * Copyright (C) 2026 The aioloop authors
 */
#define pr_fmt(fmt) "aioloop: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/fs.h>
#include <linux/falloc.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blk-cgroup.h>
#include <linux/cgroup.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/slab.h>
#include <linux/tick.h>

#include "compat.h"
#include "aioloop.h"

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

static bool handoff = true;
module_param(handoff, bool, 0644);
MODULE_PARM_DESC(handoff,
		 "Hand a deep queue's bios to a worker on an idle CPU instead of submitting them directly (default Y)");

static bool stack_watch;
module_param(stack_watch, bool, 0644);
MODULE_PARM_DESC(stack_watch,
		 "Record the deepest kernel stack of the tasks that submit to or serve each device, in sysfs aioloop/stack_max_used (default N: it scans the stack after every bio)");

/* ---- stack depth ----------------------------------------------------------- */

/*
 * How deep the current task's stack has ever been: kernel stacks are
 * zeroed when a task is created (new ones are allocated zeroed, cached
 * ones are cleared), so the lowest nonzero word above the end marker is
 * the high-water mark, as CONFIG_DEBUG_STACK_USAGE finds it at exit. A
 * frame that reserves stack without writing to it is not seen.
 */
static unsigned long aioloop_stack_used(void)
{
	unsigned long *top = (unsigned long *)((char *)task_stack_page(current) +
					       THREAD_SIZE);
	unsigned long *p = end_of_stack(current) + 1;

	while (p < top && !*p)
		p++;
	return (char *)top - (char *)p;
}

/* Called after each bio is submitted, by its submitter and the workers. */
static void aioloop_stack_note(struct aioloop_device *lo)
{
	unsigned long used, flags;

	if (!READ_ONCE(stack_watch))
		return;
	used = aioloop_stack_used();
	if (used <= READ_ONCE(lo->stack_max))
		return;
	spin_lock_irqsave(&lo->stack_lock, flags);
	if (used > lo->stack_max) {
		WRITE_ONCE(lo->stack_max, used);
		get_task_comm(lo->stack_task, current);
	}
	spin_unlock_irqrestore(&lo->stack_lock, flags);
}

void aioloop_stack_reset(struct aioloop_device *lo)
{
	unsigned long flags;

	spin_lock_irqsave(&lo->stack_lock, flags);
	lo->stack_max = 0;
	lo->stack_task[0] = '\0';
	spin_unlock_irqrestore(&lo->stack_lock, flags);
}


/*
 * Submission workers: one work item per CPU and device, on the bound
 * workqueue with same_cpu, else on the unbound one.  They submit with
 * IOCB_NOWAIT only; blocking work goes to the device's own worker.
 */
static struct workqueue_struct *aioloop_wq;
static struct workqueue_struct *aioloop_unbound_wq;

/* ---- cgroups ------------------------------------------------------------- */

/*
 * The backing I/O of a bio is issued on behalf of the bio's own blkcg,
 * whichever thread issues it: its io.max and io.weight apply and its
 * io.stat counts it, as through loop.  NULL stands for the root cgroup,
 * which needs no association.
 */
#ifdef CONFIG_BLK_CGROUP
static struct cgroup_subsys_state *aioloop_bio_css(struct bio *bio)
{
	struct cgroup_subsys_state *css = bio_blkcg_css(bio);

	return css == blkcg_root_css ? NULL : css;
}

/*
 * Would the backing I/O issued from here be charged to @css?  A user
 * task's is charged to its own cgroup.  A kernel thread's is charged to
 * the root, or to a cgroup associated with it, which cannot be read from
 * a module; only root bios are taken as its own (a kthread serving a
 * cgroup, as loop's workers do, tags its bios with that cgroup).
 */
static bool aioloop_css_is_current(struct cgroup_subsys_state *css)
{
	bool same;

	if (current->flags & PF_KTHREAD)
		return !css;
	rcu_read_lock();
	same = task_css(current, io_cgrp_id) == (css ?: blkcg_root_css);
	rcu_read_unlock();
	return same;
}
#else
static inline struct cgroup_subsys_state *aioloop_bio_css(struct bio *bio)
{
	return NULL;
}

static inline bool aioloop_css_is_current(struct cgroup_subsys_state *css)
{
	return true;
}
#endif

/* Page-cache pages of buffered I/O are charged to the blkcg's memcg. */
#ifdef CONFIG_MEMCG
static struct mem_cgroup *aioloop_memcg_enter(struct cgroup_subsys_state *css,
					      struct cgroup_subsys_state **mcss)
{
	*mcss = css ? cgroup_get_e_css(css->cgroup, &memory_cgrp_subsys) : NULL;
	if (!*mcss)
		return NULL;
	return set_active_memcg(mem_cgroup_from_css(*mcss));
}

static void aioloop_memcg_leave(struct mem_cgroup *old,
				struct cgroup_subsys_state *mcss)
{
	if (!mcss)
		return;
	set_active_memcg(old);
	css_put(mcss);
}
#else
static inline struct mem_cgroup *
aioloop_memcg_enter(struct cgroup_subsys_state *css,
		    struct cgroup_subsys_state **mcss)
{
	*mcss = NULL;
	return NULL;
}

static inline void aioloop_memcg_leave(struct mem_cgroup *old,
				       struct cgroup_subsys_state *mcss)
{
}
#endif

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

/*
 * A bio-based device takes every bio it is given, and reclaim writes
 * out as fast as it scans: unchecked, hundreds of swap-outs wait in the
 * workers' queues, each holding a bio of fs_bio_set, whose slab then
 * grows into the last free memory that the workers' own bios for the
 * backing writes come from.  A blk-mq device bounds them by its tags.
 * Here a reclaimer waits while AIOLOOP_RECLAIM_DEPTH of reclaim's bios
 * are in flight on the device, for AIOLOOP_RECLAIM_WAIT at most, as
 * reclaim_throttle() waits for writeback: it may hold a lock or journal
 * handle of the backing file system that those writes need, so it must
 * not wait for them for good.
 */
#define AIOLOOP_RECLAIM_DEPTH	32
#define AIOLOOP_RECLAIM_WAIT	(HZ / 10)

static void aioloop_reclaim_throttle(struct aioloop_device *lo)
{
	if (atomic_read(&lo->reclaim_inflight) < AIOLOOP_RECLAIM_DEPTH)
		return;
	this_cpu_inc(lo->stats->reclaim_waits);
	wait_event_timeout(lo->reclaim_wait,
			   atomic_read(&lo->reclaim_inflight) <
			   AIOLOOP_RECLAIM_DEPTH, AIOLOOP_RECLAIM_WAIT);
}

static inline struct aioloop_device *aioloop_bio_dev(struct bio *bio)
{
	return bio->bi_bdev->bd_disk->private_data;
}

/* Ends the bio with @status and drops everything it held.  Any context. */
static void aioloop_finish(struct kaio_req *req, blk_status_t status)
{
	struct bio *bio = req->data;
	struct aioloop_device *lo = aioloop_bio_dev(bio);

	if (status)
		bio->bi_status = status;
	bio_end_io_acct(bio, req->owner_data);
	if ((req->owner_flags & AIOLOOP_REQ_RECLAIM) &&
	    atomic_dec_return(&lo->reclaim_inflight) < AIOLOOP_RECLAIM_DEPTH)
		wake_up(&lo->reclaim_wait);
	/* A handed-off request is in flight on its CPU's queue until now. */
	if (req->owner_ptr)
		atomic_dec(&((struct aioloop_queue *)req->owner_ptr)->handed);
	kaio_free(req);
	bio_endio(bio);
	percpu_ref_put(&lo->inflight);
}

static void aioloop_end(struct kaio_req *req, long err)
{
	if (err)
		this_cpu_inc(aioloop_bio_dev(req->data)->stats->errors);
	aioloop_finish(req, aioloop_errno_to_status(err));
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

/*
 * kaio's retry of @req, from any context: the device's worker reissues
 * it.  A REQ_NOWAIT bio whose attempt would block while its submitter
 * is still in ->submit_bio() ends BLK_STS_AGAIN instead, so that the
 * submitter retries it where it may block (io_uring: from its own
 * workers); elsewhere the submitter waits for nothing of ours, and the
 * worker serves the retry.
 */
static void aioloop_punt(struct kaio_req *req)
{
	struct bio *bio = req->data;
	struct aioloop_device *lo = aioloop_bio_dev(bio);

	if ((bio->bi_opf & REQ_NOWAIT) && (req->flags & KAIO_INLINE) &&
	    (req->owner_flags & AIOLOOP_REQ_DIRECT)) {
		this_cpu_inc(lo->stats->nowait_again);
		aioloop_finish(req, BLK_STS_AGAIN);
		return;
	}
	req->owner_flags &= ~AIOLOOP_REQ_DIRECT;
	req->owner_flags |= AIOLOOP_REQ_RETRY;
	aioloop_queue_blocking(lo, req);
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
	struct cgroup_subsys_state *css, *cur = NULL;
	struct llist_node *list;
	struct kaio_req *req, *next;
	struct blk_plug plug;
	unsigned int noio;

	list = llist_reverse_order(llist_del_all(&q->list));
	noio = memalloc_noio_save();
	blk_start_plug(&plug);
	llist_for_each_entry_safe(req, next, list, node) {
		/* Each request as its bio's cgroup; root needs none. */
		css = aioloop_bio_css(req->data);
		if (css != cur) {
			kthread_associate_blkcg(css);
			cur = css;
		}
		aioloop_submit_aio(q->lo, req, flags);
	}
	blk_finish_plug(&plug);
	aioloop_stack_note(q->lo);
	if (cur)
		kthread_associate_blkcg(NULL);
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

/* ---- blocking workers ---------------------------------------------------- */

#define AIOLOOP_IDLE_WORKER_TIMEOUT	(60 * HZ)

/*
 * A device's blocking worker for one cgroup: serves that cgroup's
 * blocking requests in order (as loop's worker serves one command after
 * another) while associated with the cgroup.  Each cgroup has its own,
 * so a cgroup throttled in the backing file system holds up only its own
 * blocking work, and at most one thread per device and cgroup sleeps in
 * the backing file system.
 */
static void aioloop_worker_fn(struct work_struct *work)
{
	struct aioloop_worker *w = container_of(work, struct aioloop_worker,
						work);
	struct aioloop_device *lo = w->lo;
	unsigned int pflags = current->flags;
	struct cgroup_subsys_state *mcss;
	struct kaio_req *req, *next;
	struct llist_node *list;
	struct mem_cgroup *old;

	list = llist_reverse_order(llist_del_all(&w->list));
	/* No allocation recurses into I/O; dirty pages throttle on the
	 * backing device only, as in loop's worker.
	 */
	current->flags |= PF_LOCAL_THROTTLE | PF_MEMALLOC_NOIO;
	if (w->css)
		kthread_associate_blkcg(w->css);
	old = aioloop_memcg_enter(w->css, &mcss);
	llist_for_each_entry_safe(req, next, list, node) {
		if (req->owner_flags & AIOLOOP_REQ_RETRY) {
			req->owner_flags &= ~AIOLOOP_REQ_RETRY;
			kaio_resubmit(req);
		} else {
			aioloop_serve_blocking(lo, req);
		}
		cond_resched();
	}
	aioloop_stack_note(lo);
	aioloop_memcg_leave(old, mcss);
	if (w->css)
		kthread_associate_blkcg(NULL);
	current->flags = pflags;

	if (!w->css)
		return;
	/*
	 * Idle with nothing queued and not queued again: the timer may
	 * free it from now on.  The work function does not touch @w after
	 * the unlock.
	 */
	spin_lock_irq(&lo->worker_lock);
	if (llist_empty(&w->list) && !work_pending(&w->work) &&
	    list_empty(&w->idle)) {
		w->last_ran = jiffies;
		list_add_tail(&w->idle, &lo->idle_workers);
		timer_reduce(&lo->idle_timer,
			     jiffies + AIOLOOP_IDLE_WORKER_TIMEOUT);
	}
	spin_unlock_irq(&lo->worker_lock);
}

static void aioloop_worker_init(struct aioloop_worker *w,
				struct aioloop_device *lo,
				struct cgroup_subsys_state *css)
{
	init_llist_head(&w->list);
	INIT_LIST_HEAD(&w->idle);
	INIT_WORK(&w->work, aioloop_worker_fn);
	w->lo = lo;
	w->css = css;
}

/*
 * The worker of @css, created if there is none.  Under lo->worker_lock.
 * When no memory is left for one, the root worker serves the request,
 * as the root cgroup: loop does the same.
 */
static struct aioloop_worker *aioloop_find_worker(struct aioloop_device *lo,
						  struct cgroup_subsys_state *css)
{
	struct rb_node **node = &lo->workers.rb_node, *parent = NULL;
	struct aioloop_worker *w;

	while (*node) {
		parent = *node;
		w = rb_entry(parent, struct aioloop_worker, node);
		if (w->css == css)
			return w;
		node = css < w->css ? &parent->rb_left : &parent->rb_right;
	}
	w = kzalloc(sizeof(*w), GFP_NOWAIT | __GFP_NOWARN);
	if (!w)
		return &lo->worker;
	aioloop_worker_init(w, lo, css);
	css_get(css);
	rb_link_node(&w->node, parent, node);
	rb_insert_color(&w->node, &lo->workers);
	return w;
}

/* Any context; the first request of a batch queues the work. */
static void aioloop_queue_blocking(struct aioloop_device *lo,
				   struct kaio_req *req)
{
	struct cgroup_subsys_state *css = aioloop_bio_css(req->data);
	struct aioloop_worker *w = &lo->worker;
	unsigned long flags;

	if (!css) {
		if (llist_add(&req->node, &w->list))
			queue_work(lo->wq, &w->work);
		return;
	}
	spin_lock_irqsave(&lo->worker_lock, flags);
	w = aioloop_find_worker(lo, css);
	/* Off the idle list before the lock drops: the timer skips it. */
	list_del_init(&w->idle);
	if (llist_add(&req->node, &w->list))
		queue_work(lo->wq, &w->work);
	spin_unlock_irqrestore(&lo->worker_lock, flags);
}

static void aioloop_free_worker(struct aioloop_device *lo,
				struct aioloop_worker *w)
{
	list_del(&w->idle);
	rb_erase(&w->node, &lo->workers);
	css_put(w->css);
	kfree(w);
}

static void aioloop_idle_timer_fn(struct timer_list *t)
{
	struct aioloop_device *lo = aioloop_from_timer(lo, t, idle_timer);
	struct aioloop_worker *w, *tmp;

	spin_lock_irq(&lo->worker_lock);
	list_for_each_entry_safe(w, tmp, &lo->idle_workers, idle) {
		if (time_is_after_jiffies(w->last_ran +
					  AIOLOOP_IDLE_WORKER_TIMEOUT))
			break;
		aioloop_free_worker(lo, w);
	}
	if (!list_empty(&lo->idle_workers))
		timer_reduce(&lo->idle_timer,
			     jiffies + AIOLOOP_IDLE_WORKER_TIMEOUT);
	spin_unlock_irq(&lo->worker_lock);
}

/**
 * aioloop_free_workers - free every cgroup's worker and its reference
 * @lo: a drained device (no bio in flight), or one being freed
 */
void aioloop_free_workers(struct aioloop_device *lo)
{
	struct rb_node *node;

	if (lo->wq)
		flush_workqueue(lo->wq);
	aioloop_timer_delete_sync(&lo->idle_timer);
	spin_lock_irq(&lo->worker_lock);
	while ((node = rb_first(&lo->workers)))
		aioloop_free_worker(lo, rb_entry(node, struct aioloop_worker,
						 node));
	spin_unlock_irq(&lo->worker_lock);
}

/* ---- submission ---------------------------------------------------------- */

static void aioloop_queue_fast(struct aioloop_device *lo, struct kaio_req *req,
			      bool unbound)
{
	struct aioloop_queue *q = get_cpu_ptr(lo->queues);

	/*
	 * Only the first request of a batch queues the work.  The work
	 * function is safe to run concurrently with itself, which happens
	 * for a moment if a batch goes to the other workqueue while it runs.
	 */
	if (llist_add(&req->node, &q->list))
		queue_work_on(smp_processor_id(),
			      unbound ? aioloop_unbound_wq : aioloop_wq,
			      &q->work);
	put_cpu_ptr(lo->queues);
}

/*
 * Hand-off to an idle CPU.  Direct submission runs the application, the
 * block layer and the backing file system's I/O path of one submitter
 * one after the other on its CPU.  A single task keeping a deep queue
 * (one fio job, one database, one VM disk at QD32) is then bound by one
 * CPU while others idle; handing its bios to the unbound workers
 * overlaps the two halves.  At QD1 the same hand-off only adds a wakeup
 * that the submitter waits for on every bio, and with every CPU busy
 * (several submitters) it only adds context switches.  So the
 * submitters on each CPU submit directly, and:
 *  - at most once per probe period of the device, if the CPUs idled
 *    for half a CPU or more since the last sample and a CPU is left
 *    over (aioloop_cpu_to_lend()), the next AIOLOOP_WINDOW bios are
 *    handed off;
 *  - a window in which at least half the bios found an earlier
 *    handed-off bio of this CPU still in flight was a deep queue: the
 *    next window is handed off too, as long as the CPU it borrows is
 *    still left over, and the period is back to its minimum;
 *  - otherwise (QD1, or workers that keep up with a shallow queue) the
 *    CPU goes back to direct submission as soon as that is certain (at
 *    QD1 after 9 bios) and the period doubles, up to AIOLOOP_PROBE_MAX:
 *    a QD1 submitter pays a few wakeups per second.
 * The window's bios all go to the unbound workqueue, whose workers the
 * scheduler places on idle CPUs.
 */
#define AIOLOOP_WINDOW		16
#define AIOLOOP_PROBE_MIN	1
#define AIOLOOP_PROBE_MAX	HZ
#define AIOLOOP_SUBMITTER_LIFE	max(HZ / 50, 2)	/* jiffies, 20 ms */

/*
 * Who submits to aioloop devices on each CPU, by the direct path: the
 * last task, the last jiffy a bio came and the last one a task other
 * than the one before it sent one within AIOLOOP_SUBMITTER_LIFE (two
 * tasks take turns on the CPU); and until when the CPU borrows a second
 * one for its hand-off.  Refreshed by every bio and every window, the
 * stamps lapse on their own.
 */
struct aioloop_submitters {
	unsigned long		jiffy;
	unsigned long		other;
	struct task_struct	*task;
	unsigned long		lending;
};

static DEFINE_PER_CPU(struct aioloop_submitters, aioloop_submitting);

static bool aioloop_submitted_lately(unsigned long stamp)
{
	return jiffies - stamp <= AIOLOOP_SUBMITTER_LIFE;
}

static void aioloop_count_submitter(void)
{
	struct aioloop_submitters *s = this_cpu_ptr(&aioloop_submitting);

	if (s->task != current) {
		if (s->task && aioloop_submitted_lately(s->jiffy))
			WRITE_ONCE(s->other, jiffies);
		WRITE_ONCE(s->task, current);
	}
	if (s->jiffy != jiffies)
		WRITE_ONCE(s->jiffy, jiffies);
}

/* Did the CPUs idle for half a CPU or more since the last sample? */
static bool aioloop_spare_cpu(void)
{
	static DEFINE_RAW_SPINLOCK(lock);
	static unsigned long stamp;
	static u64 last_idle, last_wall;
	static bool spare;
	u64 idle = 0, wall, t;
	int cpu;

	if (READ_ONCE(stamp) == jiffies || !raw_spin_trylock(&lock))
		return READ_ONCE(spare);
	if (stamp == jiffies)
		goto out;
	wall = ktime_get_ns() / NSEC_PER_USEC;
	for_each_online_cpu(cpu) {
		t = get_cpu_idle_time_us(cpu, NULL);
		if (t == (u64)-1) {	/* no NO_HZ idle accounting */
			idle = U64_MAX;
			break;
		}
		idle += t;
	}
	WRITE_ONCE(spare, idle == U64_MAX ||
			  2 * (idle - last_idle) >= wall - last_wall);
	last_idle = idle;
	last_wall = wall;
	WRITE_ONCE(stamp, jiffies);
out:
	raw_spin_unlock(&lock);
	return READ_ONCE(spare);
}

/*
 * Is a CPU left over for this CPU's hand-off?  Every task that submitted
 * in the last AIOLOOP_SUBMITTER_LIFE jiffies needs a CPU of its own (one
 * that the scheduler or the hypervisor kept off its CPU for a few
 * milliseconds still counts; the current task, which may have come from
 * another CPU, counts once), and a CPU handing off (this one, and any
 * whose window is open) needs two, its submitter's and a second one,
 * even while its submitter waits for the bios it handed off; at most
 * half the CPUs hand off.  Several submitters that keep the CPUs busy
 * between them submit directly: a hand-off would only add wakeups and
 * context switches, and the workers would take CPU time from the other
 * submitters.
 */
static bool aioloop_cpu_to_lend(void)
{
	unsigned int cpus = num_online_cpus(), need = 0, lending = 0;
	int this = smp_processor_id(), cpu;
	struct aioloop_submitters *s;

	for_each_online_cpu(cpu) {
		s = per_cpu_ptr(&aioloop_submitting, cpu);
		if (cpu == this ||
		    time_before(jiffies, READ_ONCE(s->lending))) {
			need += 2;
			lending++;
		} else if (READ_ONCE(s->task) != current &&
			   aioloop_submitted_lately(READ_ONCE(s->jiffy))) {
			need++;
		}
		if (aioloop_submitted_lately(READ_ONCE(s->other)))
			need++;
	}
	return need <= cpus && lending <= max(cpus / 2, 1U);
}

static void aioloop_window_open(struct aioloop_queue *q)
{
	q->handoff = true;
	q->left = AIOLOOP_WINDOW;
	q->deep = 0;
	__this_cpu_write(aioloop_submitting.lending, jiffies + 2);
}

/* Open a window if the CPUs idle and one is left over for this one. */
static bool aioloop_window_start(struct aioloop_queue *q)
{
	if (!aioloop_spare_cpu() || !aioloop_cpu_to_lend())
		return false;
	aioloop_window_open(q);
	return true;
}

/* Close a window: a deep queue goes on, anything else goes direct. */
static void aioloop_window_end(struct aioloop_device *lo,
			       struct aioloop_queue *q)
{
	bool deep = q->deep >= AIOLOOP_WINDOW / 2;
	unsigned int period = AIOLOOP_PROBE_MIN;

	if (!deep)
		period = min_t(unsigned int, READ_ONCE(lo->probe_period) * 2,
			       AIOLOOP_PROBE_MAX);
	WRITE_ONCE(lo->probe_period, period);
	/* A deep queue goes on while a CPU is still left over for it. */
	if (deep && aioloop_cpu_to_lend()) {
		aioloop_window_open(q);
		return;
	}
	q->handoff = false;
	WRITE_ONCE(lo->next_probe, jiffies + period);
}

/*
 * Should this bio go to an idle CPU's worker?  Preemption is disabled.
 * The probe period is the device's: a QD1 submitter that the probe's
 * wakeups move from CPU to CPU is probed once per period, not once per
 * CPU.
 */
static bool aioloop_handoff_now(struct aioloop_device *lo,
				struct aioloop_queue *q)
{
	aioloop_count_submitter();
	if (!q->handoff) {
		if (time_before(jiffies, READ_ONCE(lo->next_probe)))
			return false;
		if (!aioloop_window_start(q)) {
			WRITE_ONCE(lo->next_probe,
				   jiffies + READ_ONCE(lo->probe_period));
			return false;
		}
	}
	if (atomic_read(&q->handed))
		q->deep++;
	/* End the window as soon as its verdict is known to be shallow. */
	if (!--q->left || q->deep + q->left < AIOLOOP_WINDOW / 2)
		aioloop_window_end(lo, q);
	return true;
}

/* Direct submission allowed: hand @req off instead if this CPU should. */
static bool aioloop_handoff(struct aioloop_device *lo, struct kaio_req *req)
{
	struct aioloop_queue *q;
	bool ret = false;

	if (!READ_ONCE(handoff))
		return false;
	q = get_cpu_ptr(lo->queues);
	if (aioloop_handoff_now(lo, q)) {
		atomic_inc(&q->handed);
		req->owner_ptr = q;
		this_cpu_inc(lo->stats->handoff);
		ret = true;
	}
	put_cpu_ptr(lo->queues);
	if (ret)
		aioloop_queue_fast(lo, req, true);
	return ret;
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
 * Memory reclaim writes pages out through us, swap above all: kswapd, or
 * a task reclaiming for its own allocation or its memory cgroup
 * (PF_MEMALLOC). Its bios go to the device's workers, as every bio of
 * loop does, and are never served from the reclaimer: a direct reclaimer
 * may be inside the backing file system already, holding its locks or a
 * journal handle, its stack is deep in reclaim, and the backing file
 * system's allocations or journal may wait for the memory it is trying
 * to free. The workers are on a WQ_MEM_RECLAIM workqueue, whose rescuer
 * keeps them going when no new worker thread can be created.
 */
static bool aioloop_from_reclaim(struct aioloop_device *lo,
				 const struct kaio_req *req)
{
	if (!(req->owner_flags & AIOLOOP_REQ_RECLAIM))
		return false;
	this_cpu_inc(lo->stats->reclaim);
	return true;
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
	req->owner_flags |= AIOLOOP_REQ_DIRECT;
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

void aioloop_submit_bio(struct bio *bio)
{
	struct aioloop_device *lo = aioloop_bio_dev(bio);
	bool reclaim = current->flags & PF_MEMALLOC;
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

	if (reclaim)
		aioloop_reclaim_throttle(lo);
	/* Waiting for a pooled request would block a REQ_NOWAIT submitter. */
	req = kaio_alloc(bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO);
	if (!req) {
		this_cpu_inc(lo->stats->nowait_again);
		bio_wouldblock_error(bio);
		percpu_ref_put(&lo->inflight);
		return;
	}
	req->data = bio;
	req->owner_data = bio_start_io_acct(bio);
	if (reclaim) {
		req->owner_flags |= AIOLOOP_REQ_RECLAIM;
		atomic_inc(&lo->reclaim_inflight);
	}
	if (!aioloop_fast_path(lo, bio))
		aioloop_queue_blocking(lo, req);
	else if (aioloop_from_reclaim(lo, req) || !aioloop_may_submit_direct() ||
		 !aioloop_css_is_current(aioloop_bio_css(bio)))
		aioloop_queue_fast(lo, req, !READ_ONCE(same_cpu));
	else if (!aioloop_handoff(lo, req))
		aioloop_submit_direct(lo, req);
	aioloop_stack_note(lo);
}

/* ---- set-up -------------------------------------------------------------- */

void aioloop_submit_init_dev(struct aioloop_device *lo)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct aioloop_queue *q = per_cpu_ptr(lo->queues, cpu);

		init_llist_head(&q->list);
		INIT_WORK(&q->work, aioloop_queue_work);
		q->lo = lo;
		atomic_set(&q->handed, 0);
		q->handoff = false;
	}
	atomic_set(&lo->reclaim_inflight, 0);
	init_waitqueue_head(&lo->reclaim_wait);
	lo->probe_period = AIOLOOP_PROBE_MIN;
	lo->next_probe = jiffies;
	aioloop_worker_init(&lo->worker, lo, NULL);
	spin_lock_init(&lo->worker_lock);
	spin_lock_init(&lo->stack_lock);
	lo->workers = RB_ROOT;
	INIT_LIST_HEAD(&lo->idle_workers);
	timer_setup(&lo->idle_timer, aioloop_idle_timer_fn, 0);
}

int __init aioloop_submit_init(void)
{
	aioloop_wq = alloc_workqueue(AIOLOOP_NAME, AIOLOOP_WQ_PERCPU |
				     WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!aioloop_wq)
		return -ENOMEM;
	aioloop_unbound_wq = alloc_workqueue(AIOLOOP_NAME "_sub",
					     WQ_UNBOUND | WQ_MEM_RECLAIM |
					     WQ_HIGHPRI, 0);
	if (!aioloop_unbound_wq) {
		destroy_workqueue(aioloop_wq);
		return -ENOMEM;
	}
	return 0;
}

void aioloop_submit_exit(void)
{
	destroy_workqueue(aioloop_unbound_wq);
	destroy_workqueue(aioloop_wq);
}
