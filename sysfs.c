// SPDX-License-Identifier: GPL-2.0
/*
 * aioloop sysfs:
 *  /sys/block/aioloopN/loop/     loop's attributes, same names and formats,
 *                                present only while a file is attached
 *                                (util-linux reads them);
 *  /sys/block/aioloopN/aioloop/  mode and I/O counters, always present.
 */
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/sysfs.h>
#include <linux/percpu.h>

#include "compat.h"
#include "aioloop.h"

static struct aioloop_device *dev_to_aioloop(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

/* ---- loop/ ---------------------------------------------------------------- */

static ssize_t backing_file_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct aioloop_device *lo = dev_to_aioloop(dev);
	ssize_t ret = 0;
	char *p;

	mutex_lock(&lo->lock);
	if (lo->file) {
		p = file_path(lo->file, buf, PAGE_SIZE - 1);
		if (IS_ERR(p)) {
			ret = PTR_ERR(p);
		} else {
			ret = strlen(p);
			memmove(buf, p, ret);
			buf[ret++] = '\n';
			buf[ret] = 0;
		}
	}
	mutex_unlock(&lo->lock);
	return ret;
}

static ssize_t offset_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  (unsigned long long)dev_to_aioloop(dev)->offset);
}

static ssize_t sizelimit_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  (unsigned long long)dev_to_aioloop(dev)->sizelimit);
}

static ssize_t aioloop_flag_show(struct device *dev, char *buf, u32 flag)
{
	return sysfs_emit(buf, "%s\n",
			  (READ_ONCE(dev_to_aioloop(dev)->flags) & flag) ?
			  "1" : "0");
}

static ssize_t autoclear_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return aioloop_flag_show(dev, buf, LO_FLAGS_AUTOCLEAR);
}

static ssize_t partscan_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return aioloop_flag_show(dev, buf, LO_FLAGS_PARTSCAN);
}

static ssize_t dio_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return aioloop_flag_show(dev, buf, LO_FLAGS_DIRECT_IO);
}

static DEVICE_ATTR_RO(backing_file);
static DEVICE_ATTR_RO(offset);
static DEVICE_ATTR_RO(sizelimit);
static DEVICE_ATTR_RO(autoclear);
static DEVICE_ATTR_RO(partscan);
static DEVICE_ATTR_RO(dio);

static struct attribute *aioloop_loop_attrs[] = {
	&dev_attr_backing_file.attr,
	&dev_attr_offset.attr,
	&dev_attr_sizelimit.attr,
	&dev_attr_autoclear.attr,
	&dev_attr_partscan.attr,
	&dev_attr_dio.attr,
	NULL,
};

static const struct attribute_group aioloop_loop_group = {
	.name	= "loop",
	.attrs	= aioloop_loop_attrs,
};

/*
 * As in loop, a device without its loop/ directory still works (losetup
 * falls back to LOOP_GET_STATUS64): say so rather than fail the bind.
 */
void aioloop_sysfs_bind(struct aioloop_device *lo)
{
	int err = sysfs_create_group(&disk_to_dev(lo->disk)->kobj,
				     &aioloop_loop_group);

	if (err)
		aio_warn(lo, "no loop/ sysfs attributes: %d\n", err);
	lo->sysfs_inited = !err;
}

void aioloop_sysfs_unbind(struct aioloop_device *lo)
{
	if (lo->sysfs_inited)
		sysfs_remove_group(&disk_to_dev(lo->disk)->kobj,
				   &aioloop_loop_group);
	lo->sysfs_inited = false;
}

/* ---- aioloop/ ------------------------------------------------------------- */

static const char * const aioloop_mode_names[] = {
	[AIOLOOP_MODE_NONE]	= "none",
	[AIOLOOP_MODE_AIO]	= "aio",
	[AIOLOOP_MODE_SYNC]	= "sync",
};

static const char * const aioloop_reason_names[] = {
	[AIOLOOP_SYNC_NONE]	 = "none",
	[AIOLOOP_SYNC_USER]	 = "user",
	[AIOLOOP_SYNC_NO_DIO]	 = "no-direct-io",
	[AIOLOOP_SYNC_UNALIGNED] = "unaligned",
};

static ssize_t mode_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  aioloop_mode_names[READ_ONCE(dev_to_aioloop(dev)->mode)]);
}

static ssize_t sync_reason_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct aioloop_device *lo = dev_to_aioloop(dev);

	return sysfs_emit(buf, "%s\n",
			  aioloop_reason_names[READ_ONCE(lo->sync_reason)]);
}

static DEVICE_ATTR_RO(mode);
static DEVICE_ATTR_RO(sync_reason);

/* With stack_watch: the deepest stack and the task that reached it. */
static ssize_t stack_max_used_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(dev_to_aioloop(dev)->stack_max));
}

static ssize_t stack_max_task_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct aioloop_device *lo = dev_to_aioloop(dev);
	char comm[TASK_COMM_LEN];
	unsigned long flags;

	spin_lock_irqsave(&lo->stack_lock, flags);
	memcpy(comm, lo->stack_task, sizeof(comm));
	spin_unlock_irqrestore(&lo->stack_lock, flags);
	return sysfs_emit(buf, "%s\n", comm);
}

static DEVICE_ATTR_RO(stack_max_used);
static DEVICE_ATTR_RO(stack_max_task);

/* Sum of a u64 at @offset in every CPU's struct aioloop_stats. */
static u64 aioloop_stat_sum(struct aioloop_device *lo, size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((char *)per_cpu_ptr(lo->stats, cpu) + offset);
	return sum;
}

#define AIOLOOP_STAT_ATTR(_name, _field)				\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%llu\n", aioloop_stat_sum(		\
		dev_to_aioloop(dev),					\
		offsetof(struct aioloop_stats, _field)));		\
}									\
static DEVICE_ATTR_RO(_name)

AIOLOOP_STAT_ATTR(aio_submitted, kaio.submitted);
AIOLOOP_STAT_ATTR(aio_direct, direct);
AIOLOOP_STAT_ATTR(aio_handoff, handoff);
AIOLOOP_STAT_ATTR(aio_inline, kaio.inline_done);
AIOLOOP_STAT_ATTR(aio_queued, kaio.queued);
AIOLOOP_STAT_ATTR(nowait_eagain, kaio.eagain);
AIOLOOP_STAT_ATTR(aio_resubmits, kaio.resubmits);
AIOLOOP_STAT_ATTR(sync_ios, sync_ios);
AIOLOOP_STAT_ATTR(flushes, flushes);
AIOLOOP_STAT_ATTR(discards, discards);
AIOLOOP_STAT_ATTR(errors, errors);
AIOLOOP_STAT_ATTR(dio_retries, dio_retries);
AIOLOOP_STAT_ATTR(nowait_again, nowait_again);
AIOLOOP_STAT_ATTR(reclaim_queued, reclaim);
AIOLOOP_STAT_ATTR(reclaim_waits, reclaim_waits);

static struct attribute *aioloop_aioloop_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_sync_reason.attr,
	&dev_attr_aio_submitted.attr,
	&dev_attr_aio_direct.attr,
	&dev_attr_aio_handoff.attr,
	&dev_attr_aio_inline.attr,
	&dev_attr_aio_queued.attr,
	&dev_attr_nowait_eagain.attr,
	&dev_attr_aio_resubmits.attr,
	&dev_attr_sync_ios.attr,
	&dev_attr_flushes.attr,
	&dev_attr_discards.attr,
	&dev_attr_errors.attr,
	&dev_attr_dio_retries.attr,
	&dev_attr_nowait_again.attr,
	&dev_attr_reclaim_queued.attr,
	&dev_attr_reclaim_waits.attr,
	&dev_attr_stack_max_used.attr,
	&dev_attr_stack_max_task.attr,
	NULL,
};

static const struct attribute_group aioloop_aioloop_group = {
	.name	= "aioloop",
	.attrs	= aioloop_aioloop_attrs,
};

const struct attribute_group *aioloop_disk_groups[] = {
	&aioloop_aioloop_group,
	NULL,
};
