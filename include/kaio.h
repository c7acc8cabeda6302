/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kaio: a small in-kernel asynchronous I/O interface on top of
 * ->read_iter()/->write_iter() with a kiocb completion.
 *
 * Usage:
 *	req = kaio_alloc(GFP_NOIO);		never fails with GFP_NOIO
 *	kaio_init_iter(req, file, KAIO_READ, &iter, pos);
 *	kaio_init_callback(req, done, punt, data);
 *	kaio_submit(req);
 *
 * @done(req, ret) is called exactly once, from the submitter's context if
 * the file system completed the I/O inline or completed it before its
 * ->read_iter() returned, else from its completion context (possibly
 * hard or soft interrupt).  @ret is the number of bytes
 * transferred, or a negative errno.  A request that must be issued again
 * (the blocking retry of an IOCB_NOWAIT attempt, or the remainder of a
 * short transfer) goes to @punt(req), from any context: the caller's
 * worker then calls kaio_resubmit(req).  If the file system makes no
 * progress (end of file on a read), @done gets the short count and the
 * caller decides.  In either callback, KAIO_INLINE in req->flags says
 * that it runs within the kaio_submit() or kaio_resubmit() call that
 * issued the request, in the issuer's context.
 * The caller owns @req again inside @done and frees it with kaio_free().
 *
 * The iterator is copied into the request and never modified in the
 * caller's copy; the pages it points to must stay valid until @done.
 */
#ifndef AIOLOOP_KAIO_H
#define AIOLOOP_KAIO_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/uio.h>
#include <linux/llist.h>

enum kaio_op {
	KAIO_READ,
	KAIO_WRITE,
};

/* kaio_req.flags */
#define KAIO_NOWAIT	(1U << 0)	/* try IOCB_NOWAIT, retry blocking */
#define KAIO_DSYNC	(1U << 1)	/* write through: FUA semantics */
#define KAIO_SB_WRITE	(1U << 8)	/* kaio's own: freeze protection held */
#define KAIO_INLINE	(1U << 9)	/* set by kaio: @done or @punt runs
					 * within kaio_submit()/_resubmit() */

struct kaio_req;
typedef void (*kaio_done_fn)(struct kaio_req *req, long ret);
typedef void (*kaio_punt_fn)(struct kaio_req *req);

struct kaio_stats {
	u64 submitted;		/* calls into ->read_iter/->write_iter */
	u64 inline_done;	/* returned without -EIOCBQUEUED */
	u64 queued;		/* completed through ->ki_complete */
	u64 eagain;		/* IOCB_NOWAIT attempts that got -EAGAIN */
	u64 resubmits;		/* short transfers resubmitted */
};

struct kaio_req {
	struct kiocb		iocb;
	struct iov_iter		iter;		/* working copy */
	struct iov_iter		iter_orig;	/* as given by the caller */
	struct file		*file;
	enum kaio_op		op;
	unsigned int		flags;
	loff_t			pos;
	size_t			count;
	size_t			done;
	kaio_done_fn		done_fn;
	kaio_punt_fn		punt_fn;
	void			*data;
	atomic_t		ref;		/* submission + ->ki_complete */
	long			result;		/* ->ki_complete's, for the last ref */
	struct kaio_stats __percpu *stats;	/* optional */

	/* For the owner's use; kaio never touches them. */
	unsigned int		owner_flags;
	unsigned long		owner_data;
	void			*owner_ptr;
	struct llist_node	node;
};

int kaio_init(void);
void kaio_exit(void);

struct kaio_req *kaio_alloc(gfp_t gfp);
void kaio_free(struct kaio_req *req);
void kaio_init_iter(struct kaio_req *req, struct file *file, enum kaio_op op,
		    const struct iov_iter *iter, loff_t pos);
void kaio_init_callback(struct kaio_req *req, kaio_done_fn fn,
			kaio_punt_fn punt, void *data);
void kaio_submit(struct kaio_req *req);
void kaio_resubmit(struct kaio_req *req);

#endif /* AIOLOOP_KAIO_H */
