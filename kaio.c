// SPDX-License-Identifier: GPL-2.0
/*
 * kaio: in-kernel asynchronous I/O on a struct file.
 *
 * A request carries a kiocb whose ->ki_complete is kaio_complete().  The
 * file system either returns -EIOCBQUEUED and calls ->ki_complete later
 * (possibly before ->read_iter() has even returned), or returns a result
 * and never calls it; in the second case kaio_submit() calls
 * kaio_complete() itself, so the completion path is the same either way.
 *
 * A file system may still use the kiocb after ->ki_complete has run on
 * another CPU or in an interrupt, until its ->read_iter() returns (ext4
 * calls file_accessed(iocb->ki_filp) after queueing a direct read), so a
 * queued request holds two references, as fs/aio.c's do: one for the
 * submission, dropped when ->read_iter() returns -EIOCBQUEUED, and one
 * for ->ki_complete.  Whichever goes last completes the request.
 *
 * A write to a regular file holds its file system's freeze protection
 * from submission to completion, as fs/aio.c's do, so that no write
 * reaches a frozen file system: a KAIO_NOWAIT write only tries to take
 * it and otherwise ends -EAGAIN (and goes to ->punt()), a blocking one
 * waits for the thaw.
 *
 * kaio has no thread of its own: a request that must be issued again from
 * a context that may block goes to its owner's ->punt(), so that each
 * owner (each aioloop device) retries on its own workers and one owner's
 * blocked retries never hold up another's.
 */
#define pr_fmt(fmt) "aioloop: " fmt

#include <linux/module.h>
#include <linux/mempool.h>
#include <linux/slab.h>
#include <linux/percpu.h>

#include "compat.h"
#include "kaio.h"

/* Enough requests to keep a device busy when memory is short. */
#define KAIO_POOL_MIN	256

static struct kmem_cache *kaio_cache;
static mempool_t *kaio_pool;

int kaio_init(void)
{
	kaio_cache = KMEM_CACHE(kaio_req, 0);
	if (!kaio_cache)
		goto err;
	kaio_pool = mempool_create_slab_pool(KAIO_POOL_MIN, kaio_cache);
	if (!kaio_pool)
		goto err_cache;
	return 0;

err_cache:
	kmem_cache_destroy(kaio_cache);
err:
	return -ENOMEM;
}

void kaio_exit(void)
{
	mempool_destroy(kaio_pool);
	kmem_cache_destroy(kaio_cache);
}

/**
 * kaio_alloc - allocate a request
 * @gfp: allocation flags; with a flag set that allows sleeping (GFP_NOIO)
 *	 the allocation waits for a pooled request and cannot fail.
 */
struct kaio_req *kaio_alloc(gfp_t gfp)
{
	struct kaio_req *req = mempool_alloc(kaio_pool, gfp);

	if (req)
		memset(req, 0, sizeof(*req));
	return req;
}

void kaio_free(struct kaio_req *req)
{
	mempool_free(req, kaio_pool);
}

/**
 * kaio_init_iter - describe the transfer
 * @req: request from kaio_alloc()
 * @file: file to read or write; the caller keeps it referenced
 * @op: KAIO_READ or KAIO_WRITE
 * @iter: data buffer, of the direction matching @op; copied
 * @pos: file offset
 */
void kaio_init_iter(struct kaio_req *req, struct file *file, enum kaio_op op,
		    const struct iov_iter *iter, loff_t pos)
{
	req->file = file;
	req->op = op;
	req->iter_orig = *iter;
	req->pos = pos;
	req->count = iov_iter_count(iter);
	req->done = 0;
}

/**
 * kaio_init_callback - set the completion and retry callbacks
 * @req: request
 * @fn: called exactly once with the bytes transferred or a negative errno
 * @punt: called, from any context, for a request that must be issued
 *	  again from a context that may block; it hands @req to a worker,
 *	  which calls kaio_resubmit()
 * @data: for the caller, in req->data
 */
void kaio_init_callback(struct kaio_req *req, kaio_done_fn fn,
			kaio_punt_fn punt, void *data)
{
	req->done_fn = fn;
	req->punt_fn = punt;
	req->data = data;
}

#define kaio_stat_inc(req, field)				\
	do {							\
		if ((req)->stats)				\
			this_cpu_inc((req)->stats->field);	\
	} while (0)

static void kaio_complete(struct kiocb *iocb, long ret);
static void kaio_ki_complete(struct kiocb *iocb, long ret);

/* Freeze protection for a write to a regular file; false: frozen, NOWAIT */
static bool kaio_start_write(struct kaio_req *req)
{
	struct inode *inode = file_inode(req->file);

	if (req->op != KAIO_WRITE || !S_ISREG(inode->i_mode))
		return true;
	if (!(req->flags & KAIO_NOWAIT))
		sb_start_write(inode->i_sb);
	else if (!sb_start_write_trylock(inode->i_sb))
		return false;
	/* Held until the completion, which may run in another context. */
	__sb_writers_release(inode->i_sb, SB_FREEZE_WRITE);
	req->flags |= KAIO_SB_WRITE;
	return true;
}

static void kaio_end_write(struct kaio_req *req)
{
	struct super_block *sb = file_inode(req->file)->i_sb;

	if (!(req->flags & KAIO_SB_WRITE))
		return;
	req->flags &= ~KAIO_SB_WRITE;
	__sb_writers_acquired(sb, SB_FREEZE_WRITE);
	sb_end_write(sb);
}

static void kaio_issue(struct kaio_req *req)
{
	struct kiocb *iocb = &req->iocb;
	bool write = req->op == KAIO_WRITE;
	ssize_t ret;

	req->iter = req->iter_orig;
	iov_iter_advance(&req->iter, req->done);

	memset(iocb, 0, sizeof(*iocb));
	iocb->ki_filp = req->file;
	iocb->ki_pos = req->pos + req->done;
	iocb->ki_flags = aioloop_iocb_flags(req->file);
	if (req->flags & KAIO_NOWAIT)
		iocb->ki_flags |= IOCB_NOWAIT;
	if (write && (req->flags & KAIO_DSYNC))
		iocb->ki_flags |= IOCB_DSYNC;
	iocb->ki_complete = kaio_ki_complete;

	if (!kaio_start_write(req)) {
		/* The file system is frozen: retry blocking, on a worker. */
		req->flags |= KAIO_INLINE;
		kaio_complete(iocb, -EAGAIN);
		return;
	}
	atomic_set(&req->ref, 2);
	kaio_stat_inc(req, submitted);
	ret = aioloop_call_iter(req->file, iocb, &req->iter, write);
	if (ret == -EIOCBQUEUED) {
		/* ->ki_complete may have run already: the last one ends it */
		if (atomic_dec_and_test(&req->ref)) {
			req->flags |= KAIO_INLINE;
			kaio_complete(iocb, req->result);
		}
		return;
	}

	/* Not queued: the file system does not call ->ki_complete. */
	kaio_stat_inc(req, inline_done);
	req->flags |= KAIO_INLINE;
	kaio_complete(iocb, ret);
}

/**
 * kaio_resubmit - issue a punted request again
 * @req: request handed to the owner's punt callback
 *
 * From a context that may block, with no bio list active: this call
 * blocks where the file system does.
 */
void kaio_resubmit(struct kaio_req *req)
{
	kaio_issue(req);
}

/*
 * ->ki_complete: may run in interrupt context, so anything that calls into
 * the file system again goes to the owner's ->punt().
 */
static void kaio_complete(struct kiocb *iocb, long ret)
{
	struct kaio_req *req = container_of(iocb, struct kaio_req, iocb);

	kaio_end_write(req);
	if (ret == -EIOCBQUEUED)	/* never a completion value */
		ret = -EIO;

	/*
	 * -EAGAIN: the file system would have blocked.  -EOPNOTSUPP: a
	 * block device below does not take REQ_NOWAIT bios.  Either way
	 * redo it blocking; a write that was partly done is idempotent.
	 */
	if ((ret == -EAGAIN || ret == -EOPNOTSUPP) &&
	    (req->flags & KAIO_NOWAIT)) {
		kaio_stat_inc(req, eagain);
		req->flags &= ~KAIO_NOWAIT;
		req->punt_fn(req);
		return;
	}
	if (ret > 0) {
		req->done += min_t(size_t, ret, req->count - req->done);
		if (req->done < req->count) {
			kaio_stat_inc(req, resubmits);
			req->punt_fn(req);
			return;
		}
	}
	if (ret >= 0)
		ret = req->done;
	req->done_fn(req, ret);
}

/*
 * The file system's completion of a request it returned -EIOCBQUEUED for
 * (or is about to): completes it unless ->read_iter() is still running.
 */
static void kaio_ki_complete(struct kiocb *iocb, long ret)
{
	struct kaio_req *req = container_of(iocb, struct kaio_req, iocb);

	kaio_stat_inc(req, queued);
	req->result = ret;
	if (atomic_dec_and_test(&req->ref)) {
		req->flags &= ~KAIO_INLINE;
		kaio_complete(iocb, ret);
	}
}

/**
 * kaio_submit - start the I/O described by kaio_init_iter()
 * @req: request
 *
 * May sleep unless KAIO_NOWAIT is set, and even then only where the
 * file system ignores IOCB_NOWAIT.  Never call it with current->bio_list
 * active (inside ->submit_bio()): bios the file system submits would not
 * be issued until that context returns.  aioloop_submit_direct() sets the
 * list aside for the call.
 */
void kaio_submit(struct kaio_req *req)
{
	if (!(req->file->f_mode & FMODE_NOWAIT))
		req->flags &= ~KAIO_NOWAIT;
	kaio_issue(req);
}
