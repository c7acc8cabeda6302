/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device layer shared by aioloop-setup's two command lines (its own
 * subcommands, and losetup's syntax as aiolosetup): device names, sysfs,
 * the ioctls on /dev/aioloopN and /dev/aioloop-control, messages.
 */
#ifndef AIOLOOPDEV_H
#define AIOLOOPDEV_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/loop.h>

#define DEV_NAME	"aioloop"
#define DEV_DIR		"/dev/"
#define CTL_PATH	"/dev/aioloop-control"
#define MODULE_PATH	"/sys/module/aioloop"
#define SYS_BLOCK	"/sys/block"

/* Exit codes of aioloop-setup's subcommands */
#define RC_OK		0
#define RC_FAIL		1
#define RC_USAGE	2
#define RC_NOMODULE	3

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

typedef unsigned long long u64;

/* The name messages start with: "aioloop-setup" or "aiolosetup" */
extern const char *prog_name;

/* A device as seen through sysfs and LOOP_GET_STATUS64 */
struct devinfo {
	int idx;
	bool bound;
	char back_file[PATH_MAX + 16];
	u64 offset;
	u64 sizelimit;
	u64 size;
	bool ro;
	bool autoclear;
	bool partscan;
	bool dio;
	bool have_mode;
	char mode[16];
	unsigned int log_sec;
	bool have_status;	/* back_dev and back_ino are valid */
	u64 back_dev;		/* lo_device: the backing file's st_dev */
	u64 back_ino;
	unsigned int major, minor;	/* of /dev/aioloopN */
};

/* What to attach, and how */
struct attach_opts {
	u64 offset;
	u64 sizelimit;
	u64 block_size;
	bool read_only;
	bool ro_fallback;	/* read-only if the file cannot be written */
	bool no_dio;
	bool partscan;
	bool autoclear;
	bool find;
	const char *file;
	int idx;		/* -1: find a free device */
};

__attribute__((format(printf, 2, 3)))
void err_msg(int errnum, const char *fmt, ...);
__attribute__((format(printf, 2, 0)))
void err_vmsg(int errnum, const char *fmt, va_list ap);
int require_module(void);

int parse_index(const char *s, int *idx);
int parse_dev(const char *arg, int *idx);
int parse_size(const char *s, u64 *out);
void dev_path(int idx, char *buf, size_t len);

int sysfs_read(int idx, const char *attr, char *buf, size_t len);
int sysfs_u64(int idx, const char *attr, u64 *val);
int read_devinfo(int idx, struct devinfo *di);
bool is_bound(int idx);
int list_devices(int **out);
int list_bound(struct devinfo **out);

int open_dev(int idx, int flags, bool wait);
int ctl_ioctl(unsigned long req, long arg, const char *what);
int dev_ioctl(int idx, int flags, unsigned long req, unsigned long arg,
	      const char *what);

/* The step of attach_device() that failed */
enum attach_stage {
	AT_OPEN,	/* opening the backing file */
	AT_FREE,	/* finding a free device */
	AT_CONFIGURE,	/* LOOP_CONFIGURE */
	AT_NO_DIO,	/* LOOP_SET_DIRECT_IO 0 (then detached again) */
};

int attach_device(const struct attach_opts *ao, int *idx,
		  enum attach_stage *stage);
int detach_one(int idx);

#endif
