/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aioloop: internal interfaces between aioloop.c (device, control node,
 * module), submit.c (data path), ioctl.c (loop-compatible configuration),
 * sysfs.c and iov_iter_bvec.c.
 */
#ifndef AIOLOOP_H
#define AIOLOOP_H

#include <linux/blkdev.h>
#include <linux/loop.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <linux/llist.h>
#include <linux/rbtree.h>
#include <linux/timer.h>

#include "compat.h"
#include "kaio.h"

#define AIOLOOP_NAME		"aioloop"
#define AIOLOOP_PART_SHIFT	4	/* 15 partitions a device */

enum aioloop_state {
	AIOLOOP_UNBOUND,
	AIOLOOP_BOUND,
	AIOLOOP_RUNDOWN,	/* detaching */
	AIOLOOP_DELETING,	/* LOOP_CTL_REMOVE in progress */
};

enum aioloop_mode {
	AIOLOOP_MODE_NONE,	/* unbound */
	AIOLOOP_MODE_AIO,	/* O_DIRECT file, kaio from per-CPU workers */
	AIOLOOP_MODE_SYNC,	/* buffered, one ordered worker */
};

/* Why a bound device runs in sync mode. */
enum aioloop_sync_reason {
	AIOLOOP_SYNC_NONE,
	AIOLOOP_SYNC_USER,		/* direct_io=0 or LOOP_SET_DIRECT_IO 0 */
	AIOLOOP_SYNC_NO_DIO,		/* file system refuses O_DIRECT */
	AIOLOOP_SYNC_UNALIGNED,		/* block size or offset vs DIO alignment */
};

/* kaio_req.owner_flags */
#define AIOLOOP_REQ_BUFFERED	(1U << 0)	/* serve through the page cache */
#define AIOLOOP_REQ_RETRY	(1U << 1)	/* kaio_resubmit() it */
#define AIOLOOP_REQ_DIRECT	(1U << 2)	/* issued by ->submit_bio() */
#define AIOLOOP_REQ_RECLAIM	(1U << 3)	/* written out by memory reclaim */

/* Per-CPU I/O counters, summed for sysfs. */
struct aioloop_stats {
	struct kaio_stats kaio;
	u64 direct;		/* submitted from the caller's context */
	u64 handoff;		/* handed to an idle CPU's worker instead */
	u64 sync_ios;
	u64 flushes;
	u64 discards;
	u64 errors;
	u64 dio_retries;	/* -EINVAL from O_DIRECT, served buffered */
	u64 nowait_again;	/* REQ_NOWAIT bios ended BLK_STS_AGAIN */
	u64 reclaim;		/* from memory reclaim, sent to the workers */
	u64 reclaim_waits;	/* reclaimers throttled, AIOLOOP_RECLAIM_DEPTH */
};

/*
 * A device's blocking work: requests that may sleep in the backing file
 * system (blocking retries, flushes, discards, sync mode) wait here, one
 * worker per cgroup, and its work item on the device's own workqueue
 * serves them in order.
 */
struct aioloop_worker {
	struct llist_head	list;
	struct work_struct	work;
	struct aioloop_device	*lo;
	struct cgroup_subsys_state *css;	/* NULL: the root cgroup */
	struct rb_node		node;		/* in lo->workers, by css */
	struct list_head	idle;		/* in lo->idle_workers */
	unsigned long		last_ran;	/* jiffies, when idle */
};

/* Per-CPU submission queue: bios wait here for the CPU's worker. */
struct aioloop_queue {
	struct llist_head	list;
	struct work_struct	work;
	struct aioloop_device	*lo;

	/* Hand-off state of the submitters on this CPU (submit.c). */
	atomic_t		handed;		/* handed off, not yet ended */
	bool			handoff;	/* in a hand-off window */
	u8			left;		/* bios left in the window */
	u8			deep;		/* ... that found one in flight */
};

struct aioloop_device {
	int			number;
	struct gendisk		*disk;
	struct mutex		lock;		/* configuration */
	enum aioloop_state	state;
	bool			idr_visible;	/* under aioloop_ctl_mutex */

	/* Valid while bound; stable while a bio holds @inflight. */
	struct file		*file;		/* the caller's file */
	struct file		*dio_file;	/* own O_DIRECT open, or NULL */
	loff_t			offset;
	loff_t			sizelimit;
	u32			flags;		/* LO_FLAGS_* */
	char			file_name[LO_NAME_SIZE];
	struct aioloop_limits	lim;
	enum aioloop_mode	mode;
	enum aioloop_sync_reason sync_reason;
	unsigned int		dio_align;	/* 0 when O_DIRECT impossible */
	bool			nowait_ok;	/* dio_file takes IOCB_NOWAIT */
	gfp_t			old_gfp_mask;
	bool			sysfs_inited;

	struct percpu_ref	inflight;	/* one per bio being served */
	struct completion	drained;
	struct aioloop_queue __percpu *queues;
	unsigned int		probe_period;	/* jiffies between hand-off probes */
	unsigned long		next_probe;	/* jiffies */
	struct aioloop_stats __percpu *stats;
	struct workqueue_struct	*wq;		/* the device's own, for workers */
	struct aioloop_worker	worker;		/* the root cgroup's */
	spinlock_t		worker_lock;	/* workers, idle_workers */
	struct rb_root		workers;	/* other cgroups' */
	struct list_head	idle_workers;	/* oldest first */
	struct timer_list	idle_timer;	/* frees idle workers */

	/* Cold: reclaim's throttle, and what a drain keeps for undrain */
	atomic_t		reclaim_inflight; /* reclaim's bios in @inflight */
	wait_queue_head_t	reclaim_wait;	/* reclaimers, for one to end */
	unsigned int		freeze_memflags; /* aioloop_drain() to undrain */

	/* With stack_watch: the deepest stack of a task serving the device */
	spinlock_t		stack_lock;
	unsigned long		stack_max;	/* bytes */
	char			stack_task[TASK_COMM_LEN];
};

#define aio_err(lo, fmt, ...) \
	pr_err("%s: " fmt, (lo)->disk->disk_name, ##__VA_ARGS__)
/* Bad input from user space: rate limited, so a fuzzer cannot flood. */
#define aio_warn(lo, fmt, ...) \
	pr_warn_ratelimited("%s: " fmt, (lo)->disk->disk_name, ##__VA_ARGS__)
#define aio_info(lo, fmt, ...) \
	pr_info("%s: " fmt, (lo)->disk->disk_name, ##__VA_ARGS__)

extern bool aioloop_direct_io;
extern struct mutex aioloop_ctl_mutex;

/* aioloop.c */
bool aioloop_is_ours(struct file *file);
int aioloop_add(int index);
int aioloop_remove(int index);
int aioloop_get_free(void);
void aioloop_drain(struct aioloop_device *lo);
void aioloop_undrain(struct aioloop_device *lo);
void aioloop_default_limits(struct aioloop_device *lo);
int aioloop_commit_limits(struct aioloop_device *lo);

/* submit.c */
void aioloop_submit_bio(struct bio *bio);
void aioloop_stack_reset(struct aioloop_device *lo);
void aioloop_submit_init_dev(struct aioloop_device *lo);
void aioloop_free_workers(struct aioloop_device *lo);
int aioloop_submit_init(void);
void aioloop_submit_exit(void);

/* ioctl.c */
int aioloop_ioctl(AIOLOOP_IOCTL_ARGS);
#ifdef CONFIG_COMPAT
int aioloop_compat_ioctl(AIOLOOP_IOCTL_ARGS);
#endif
void aioloop_release_detach(struct aioloop_device *lo);

/* sysfs.c */
extern const struct attribute_group *aioloop_disk_groups[];
void aioloop_sysfs_bind(struct aioloop_device *lo);
void aioloop_sysfs_unbind(struct aioloop_device *lo);

/* iov_iter_bvec.c */
size_t aioloop_bio_iter(struct bio *bio, struct iov_iter *iter,
			unsigned int dir);

#endif /* AIOLOOP_H */
