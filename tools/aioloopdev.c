// SPDX-License-Identifier: GPL-2.0
/*
 * aioloop-setup's device layer: device names and sizes on the command
 * line, sysfs, and the loop ioctls on /dev/aioloopN and
 * /dev/aioloop-control, shared by its two command lines.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "aioloopdev.h"

/* Attempts to grab a free device before giving up on a busy race */
#define FREE_RETRIES	16
/* How long to wait for a new device node to appear (10 ms steps) */
#define NODE_WAIT_STEPS	100

const char *prog_name = "aioloop-setup";

/* ------------------------------------------------------------------ */
/* messages */

/* err_msg() with a va_list */
void err_vmsg(int errnum, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog_name);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

/* "aioloop-setup: <what>: <strerror(errnum)>" */
void err_msg(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vmsg(errnum, fmt, ap);
	va_end(ap);
}

int require_module(void)
{
	if (access(CTL_PATH, F_OK) == 0 || access(MODULE_PATH, F_OK) == 0)
		return RC_OK;
	err_msg(0, "aioloop module is not loaded (try: modprobe aioloop)");
	return RC_NOMODULE;
}

/* ------------------------------------------------------------------ */
/* argument parsing */

int parse_index(const char *s, int *idx)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return -1;
	*idx = (int)v;
	return 0;
}

/* Accept /dev/aioloopN, aioloopN or N */
int parse_dev(const char *arg, int *idx)
{
	const char *s = arg;

	if (!strncmp(s, DEV_DIR, strlen(DEV_DIR)))
		s += strlen(DEV_DIR);
	if (!strncmp(s, DEV_NAME, strlen(DEV_NAME)))
		s += strlen(DEV_NAME);
	else if (s != arg)
		return -1;
	return parse_index(s, idx);
}

static int suffix_shift(const char *s)
{
	static const char units[] = "KMGTPE";
	const char *u;

	if (!*s)
		return 0;
	u = strchr(units, toupper((unsigned char)*s));
	if (!u)
		return -1;
	s++;
	if (*s && strcmp(s, "iB") && strcmp(s, "B"))
		return -1;
	return 10 * (int)(u - units + 1);
}

/* Decimal number with an optional K/M/G/T/P/E (binary) suffix */
int parse_size(const char *s, u64 *out)
{
	char *end;
	u64 v;
	int shift;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	shift = suffix_shift(end);
	if (shift < 0)
		return -1;
	if (shift && v > (~0ULL >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

void dev_path(int idx, char *buf, size_t len)
{
	snprintf(buf, len, DEV_DIR DEV_NAME "%d", idx);
}

/* ------------------------------------------------------------------ */
/* sysfs */

/* Read /sys/block/aioloopN/<attr> without the trailing newline */
int sysfs_read(int idx, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), SYS_BLOCK "/" DEV_NAME "%d/%s", idx, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int sysfs_u64(int idx, const char *attr, u64 *val)
{
	char buf[64], *end;
	int ret;

	ret = sysfs_read(idx, attr, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

static bool sysfs_bool(int idx, const char *attr)
{
	u64 v = 0;

	return sysfs_u64(idx, attr, &v) == 0 && v;
}

/* The backing file's device and inode, from LOOP_GET_STATUS64 */
static void read_status(struct devinfo *di)
{
	struct loop_info64 info;
	char path[64];
	int fd;

	dev_path(di->idx, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, LOOP_GET_STATUS64, &info) == 0) {
		di->have_status = true;
		di->back_dev = info.lo_device;
		di->back_ino = info.lo_inode;
	}
	close(fd);
}

/*
 * Fill @di from sysfs (and LOOP_GET_STATUS64 for the backing file's
 * device and inode); -ENXIO if the device is not bound, with what an
 * unbound device has (number, read-only, block size) filled in.
 */
int read_devinfo(int idx, struct devinfo *di)
{
	unsigned int ma, mi;
	char buf[32];
	u64 v;

	memset(di, 0, sizeof(*di));
	di->idx = idx;
	di->ro = sysfs_bool(idx, "ro");
	if (sysfs_u64(idx, "queue/logical_block_size", &v) == 0)
		di->log_sec = (unsigned int)v;
	if (sysfs_read(idx, "dev", buf, sizeof(buf)) == 0 &&
	    sscanf(buf, "%u:%u", &ma, &mi) == 2) {
		di->major = ma;
		di->minor = mi;
	}
	if (sysfs_read(idx, "loop/backing_file", di->back_file,
		       sizeof(di->back_file)))
		return -ENXIO;
	di->bound = true;
	sysfs_u64(idx, "loop/offset", &di->offset);
	sysfs_u64(idx, "loop/sizelimit", &di->sizelimit);
	di->autoclear = sysfs_bool(idx, "loop/autoclear");
	di->partscan = sysfs_bool(idx, "loop/partscan");
	di->dio = sysfs_bool(idx, "loop/dio");
	if (sysfs_u64(idx, "size", &v) == 0)
		di->size = v * 512;
	di->have_mode = sysfs_read(idx, "aioloop/mode", di->mode,
				   sizeof(di->mode)) == 0;
	read_status(di);
	return 0;
}

bool is_bound(int idx)
{
	char buf[8];

	return sysfs_read(idx, "loop/backing_file", buf, sizeof(buf)) == 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Indexes of all aioloop devices in /sys/block, sorted; returns the count
 * (stored in *out, to be freed) or -errno.
 */
int list_devices(int **out)
{
	struct dirent *de;
	int *idx = NULL, n = 0, cap = 0, i;
	DIR *d;

	d = opendir(SYS_BLOCK);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, DEV_NAME, strlen(DEV_NAME)) ||
		    parse_index(de->d_name + strlen(DEV_NAME), &i))
			continue;
		if (n == cap) {
			int *tmp;

			cap = cap ? 2 * cap : 16;
			tmp = realloc(idx, cap * sizeof(*idx));
			if (!tmp) {
				free(idx);
				closedir(d);
				return -ENOMEM;
			}
			idx = tmp;
		}
		idx[n++] = i;
	}
	closedir(d);
	if (n)
		qsort(idx, n, sizeof(*idx), cmp_int);
	*out = idx;
	return n;
}

/*
 * Every bound device, in index order: the count (the array in *out, to be
 * freed) or -1 (message printed).
 */
int list_bound(struct devinfo **out)
{
	struct devinfo *di;
	int n, i, bound = 0, *idx;

	n = list_devices(&idx);
	if (n < 0) {
		err_msg(-n, "cannot read %s", SYS_BLOCK);
		return -1;
	}
	di = calloc(n ? n : 1, sizeof(*di));
	if (!di) {
		free(idx);
		err_msg(ENOMEM, "list");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (read_devinfo(idx[i], &di[bound]) == 0)
			bound++;
	free(idx);
	*out = di;
	return bound;
}

/* ------------------------------------------------------------------ */
/* device and control node access */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Open /dev/aioloopN: the fd or -errno. Opening read-write falls back to
 * read-only on EROFS/EACCES. With @wait, give a just created node time to
 * appear.
 */
static int open_node(int idx, int flags, bool wait)
{
	char path[64];
	int fd, i;

	dev_path(idx, path, sizeof(path));
	for (i = 0; ; i++) {
		fd = open(path, flags | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT || !wait || i >= NODE_WAIT_STEPS)
			break;
		sleep_ms(10);
	}
	if (fd < 0 && (flags & O_ACCMODE) == O_RDWR &&
	    (errno == EROFS || errno == EACCES))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* open_node() with a message on failure; the fd or -1 */
int open_dev(int idx, int flags, bool wait)
{
	char path[64];
	int fd;

	fd = open_node(idx, flags, wait);
	if (fd < 0) {
		dev_path(idx, path, sizeof(path));
		err_msg(-fd, "cannot open %s", path);
		return -1;
	}
	return fd;
}

/* Issue a control-node ioctl; returns its result or -1 (message printed) */
int ctl_ioctl(unsigned long req, long arg, const char *what)
{
	int fd, ret, e;

	fd = open(CTL_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err_msg(errno, "cannot open %s", CTL_PATH);
		return -1;
	}
	ret = ioctl(fd, req, arg);
	e = errno;
	close(fd);
	if (ret < 0) {
		errno = e;
		err_msg(e, "%s", what);
	}
	return ret;
}

/*
 * Open @idx and issue a device ioctl. Prints "<dev>: <what>: <error>" on
 * failure; returns the ioctl result or -1.
 */
int dev_ioctl(int idx, int flags, unsigned long req, unsigned long arg,
		     const char *what)
{
	char path[64];
	int fd, ret, e;

	fd = open_dev(idx, flags, false);
	if (fd < 0)
		return -1;
	ret = ioctl(fd, req, arg);
	e = errno;
	close(fd);
	if (ret < 0) {
		dev_path(idx, path, sizeof(path));
		err_msg(e, "%s: %s", path, what);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* attach, detach */

static void attach_config(const struct attach_opts *ao, int file_fd,
			  bool read_only, struct loop_config *cfg)
{
	char *real;

	memset(cfg, 0, sizeof(*cfg));
	cfg->fd = (__u32)file_fd;
	cfg->block_size = (__u32)ao->block_size;
	cfg->info.lo_offset = ao->offset;
	cfg->info.lo_sizelimit = ao->sizelimit;
	if (read_only)
		cfg->info.lo_flags |= LO_FLAGS_READ_ONLY;
	if (ao->autoclear)
		cfg->info.lo_flags |= LO_FLAGS_AUTOCLEAR;
	if (ao->partscan)
		cfg->info.lo_flags |= LO_FLAGS_PARTSCAN;
	if (!ao->no_dio)
		cfg->info.lo_flags |= LO_FLAGS_DIRECT_IO;
	real = realpath(ao->file, NULL);
	strncpy((char *)cfg->info.lo_file_name, real ? real : ao->file,
		LO_NAME_SIZE - 1);
	free(real);
}

/*
 * Configure device @idx: the open device fd, or -errno (-EBUSY also when
 * a device picked as free was taken first).
 */
static int attach_one(int idx, bool picked, const struct loop_config *cfg)
{
	int fd, e;

	fd = open_node(idx, O_RDWR, picked);
	if (fd < 0)
		return fd;
	if (ioctl(fd, LOOP_CONFIGURE, cfg) == 0)
		return fd;
	e = errno;
	close(fd);
	return -e;
}

/* Attach to a free device: GET_FREE, then retry if another user won */
static int attach_free(const struct loop_config *cfg, int *idx,
		       enum attach_stage *stage)
{
	int i, fd, ctl;

	for (i = 0; i < FREE_RETRIES; i++) {
		*stage = AT_FREE;
		ctl = open(CTL_PATH, O_RDWR | O_CLOEXEC);
		if (ctl < 0)
			return -errno;
		*idx = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (*idx < 0) {
			fd = -errno;
			close(ctl);
			return fd;
		}
		close(ctl);
		*stage = AT_CONFIGURE;
		fd = attach_one(*idx, true, cfg);
		if (fd != -EBUSY)
			return fd;
	}
	*stage = AT_FREE;
	return -EBUSY;
}

/* Sync mode right after the attach; undone if it fails */
static int attach_no_dio(int fd)
{
	int e;

	if (ioctl(fd, LOOP_SET_DIRECT_IO, 0UL) == 0)
		return 0;
	e = errno;
	ioctl(fd, LOOP_CLR_FD, 0);
	return -e;
}

/*
 * Attach as @ao says, to ao->idx or a free device; the device in *idx.
 * Returns 0, or -errno with the step that failed in *stage (no message:
 * each command line words its own).
 */
int attach_device(const struct attach_opts *ao, int *idx,
		  enum attach_stage *stage)
{
	bool read_only = ao->read_only;
	struct loop_config cfg;
	int file_fd, fd, rc = 0;

	*stage = AT_OPEN;
	file_fd = open(ao->file, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (file_fd < 0 && ao->ro_fallback && !read_only &&
	    (errno == EROFS || errno == EACCES)) {
		read_only = true;
		file_fd = open(ao->file, O_RDONLY | O_CLOEXEC);
	}
	if (file_fd < 0)
		return -errno;
	attach_config(ao, file_fd, read_only, &cfg);
	*idx = ao->idx;
	*stage = AT_CONFIGURE;
	if (*idx >= 0)
		fd = attach_one(*idx, false, &cfg);
	else
		fd = attach_free(&cfg, idx, stage);
	close(file_fd);
	if (fd < 0)
		return fd;
	if (ao->no_dio) {
		*stage = AT_NO_DIO;
		rc = attach_no_dio(fd);
	}
	close(fd);
	return rc;
}

int detach_one(int idx)
{
	return dev_ioctl(idx, O_RDONLY, LOOP_CLR_FD, 0, "cannot detach") < 0;
}
