// SPDX-License-Identifier: GPL-2.0
/*
 * lioctl - issue one raw loop ioctl to an aioloop device or to the
 * control node and report the result, for errno tests.
 *
 *   lioctl [--unpriv|--nobody] [--rdonly] [--fail-nth N] DEV CMD [ARGS]
 *
 * Prints "OK <return value>" and exits 0, or "ERR <ERRNO_NAME>" and exits
 * 1. Usage errors and failures to open DEV or FILE exit 2.
 *
 * --fail-nth N (a CONFIG_FAULT_INJECTION kernel) makes the N-th fault
 * injection point the ioctl passes fail (/proc/thread-self/fail-nth) and
 * prints a second line, "FAULT injected" or "FAULT none" when the ioctl
 * passed fewer than N points.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/loop.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NOBODY		65534

typedef unsigned long long u64;

enum priv { PRIV_KEEP, PRIV_NO_SYS_ADMIN, PRIV_NOBODY };

struct req {
	int dev_fd;
	int fail_nth_fd;	/* -1 without --fail-nth */
	unsigned int fail_nth;
	int argc;		/* arguments after CMD */
	char **argv;
	enum priv priv;
};

struct op {
	const char *name;
	int (*run)(struct req *r);
	const char *args;
};

static void usage(void);

static void die(const char *what)
{
	fprintf(stderr, "lioctl: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void die_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "lioctl: %s%s%s\n", msg, arg ? ": " : "",
		arg ? arg : "");
	usage();
	exit(2);
}

#define E(x)	{ x, #x }
static const struct {
	int num;
	const char *name;
} errnames[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(EBADF), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK),
	E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR),
	E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY), E(EFBIG),
	E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE), E(EDOM),
	E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOSYS), E(ENOTEMPTY),
	E(ELOOP), E(EOVERFLOW), E(EOPNOTSUPP), E(ETIMEDOUT), E(ENOSR),
	E(ENODATA), E(ENOMEDIUM), E(ESTALE), E(ECANCELED),
};
#undef E

static void print_errno(int e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errnames); i++) {
		if (errnames[i].num == e) {
			printf("ERR %s\n", errnames[i].name);
			return;
		}
	}
	printf("ERR %d\n", e);
}

static u64 parse_num(const char *s)
{
	char *end;
	u64 v;

	errno = 0;
	if (*s == '-')
		v = (u64)strtoll(s, &end, 0);
	else
		v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die_usage("invalid number", s);
	return v;
}

/* Parse "key=N" into *val if @arg has that key */
static bool kv(const char *arg, const char *key, u64 *val)
{
	size_t n = strlen(key);

	if (strncmp(arg, key, n) || arg[n] != '=')
		return false;
	*val = parse_num(arg + n + 1);
	return true;
}

/* Open FILE ("ro:FILE" read-only); "-1" gives fd -1 */
static int open_backing(const char *arg)
{
	int fd, flags = O_RDWR;

	if (!strcmp(arg, "-1"))
		return -1;
	if (!strncmp(arg, "ro:", 3)) {
		flags = O_RDONLY;
		arg += 3;
	}
	fd = open(arg, flags);
	if (fd < 0) {
		fprintf(stderr, "lioctl: cannot open %s: %s\n", arg,
			strerror(errno));
		exit(2);
	}
	return fd;
}

static const char *file_arg(struct req *r)
{
	if (r->argc < 1)
		die_usage("missing FILE", NULL);
	return r->argv[0];
}

/* ------------------------------------------------------------------ */
/* privileges */

static void drop_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	unsigned int bit = 1U << (CAP_SYS_ADMIN % 32);
	int w = CAP_SYS_ADMIN / 32;

	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) < 0)
		die("cannot drop CAP_SYS_ADMIN from the bounding set");
	if (syscall(SYS_capget, &hdr, data) < 0)
		die("capget");
	data[w].effective &= ~bit;
	data[w].permitted &= ~bit;
	data[w].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data) < 0)
		die("capset");
	if (syscall(SYS_capget, &hdr, data) < 0 || (data[w].effective & bit)) {
		errno = EPERM;
		die("CAP_SYS_ADMIN still effective");
	}
}

static void become_nobody(void)
{
	if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 ||
	    setuid(NOBODY) < 0)
		die("cannot switch to uid/gid 65534");
}

static void drop_privileges(enum priv p)
{
	if (p == PRIV_NO_SYS_ADMIN)
		drop_sys_admin();
	else if (p == PRIV_NOBODY)
		become_nobody();
}

static void open_fail_nth(struct req *r, const char *n)
{
	r->fail_nth = (unsigned int)parse_num(n);
	if (!r->fail_nth)
		die_usage("--fail-nth needs N > 0", n);
	r->fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (r->fail_nth_fd < 0)
		die("/proc/thread-self/fail-nth");
}

static void write_fail_nth(struct req *r, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(r->fail_nth_fd, buf, len, 0) != len)
		die("write fail-nth");
}

/* true if the fault was injected: the counter ran down to 0 */
static bool fail_nth_done(struct req *r)
{
	char buf[16] = "";

	if (pread(r->fail_nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
		die("read fail-nth");
	write_fail_nth(r, 0);
	return strtoul(buf, NULL, 10) == 0;
}

/* Drop privileges (if asked), issue the ioctl and print the result */
static int do_ioctl(struct req *r, unsigned long cmd, unsigned long arg)
{
	bool injected = false;
	int ret, err;

	drop_privileges(r->priv);
	if (r->fail_nth_fd >= 0)
		write_fail_nth(r, r->fail_nth);
	ret = ioctl(r->dev_fd, cmd, arg);
	err = errno;
	if (r->fail_nth_fd >= 0)
		injected = fail_nth_done(r);
	if (ret < 0)
		print_errno(err);
	else
		printf("OK %d\n", ret);
	if (r->fail_nth_fd >= 0)
		printf("FAULT %s\n", injected ? "injected" : "none");
	return ret < 0;
}

/* ------------------------------------------------------------------ */
/* device ioctls */

static int op_set_fd(struct req *r)
{
	int fd = open_backing(file_arg(r));

	return do_ioctl(r, LOOP_SET_FD, (unsigned long)fd);
}

static int op_change_fd(struct req *r)
{
	int fd = open_backing(file_arg(r));

	return do_ioctl(r, LOOP_CHANGE_FD, (unsigned long)fd);
}

static int op_clr_fd(struct req *r)
{
	return do_ioctl(r, LOOP_CLR_FD, 0);
}

static int op_noarg(struct req *r, unsigned long cmd)
{
	if (r->argc)
		die_usage("unexpected argument", r->argv[0]);
	return do_ioctl(r, cmd, 0);
}

static int op_set_capacity(struct req *r)
{
	return op_noarg(r, LOOP_SET_CAPACITY);
}

static unsigned long one_num(struct req *r)
{
	if (r->argc != 1)
		die_usage("expected one number", NULL);
	return (unsigned long)parse_num(r->argv[0]);
}

static int op_set_direct_io(struct req *r)
{
	return do_ioctl(r, LOOP_SET_DIRECT_IO, one_num(r));
}

static int op_set_block_size(struct req *r)
{
	return do_ioctl(r, LOOP_SET_BLOCK_SIZE, one_num(r));
}

static bool want_null(struct req *r)
{
	if (r->argc == 1 && !strcmp(r->argv[0], "null"))
		return true;
	if (r->argc)
		die_usage("unexpected argument", r->argv[0]);
	return false;
}

static void print_name(const char *key, const unsigned char *s, size_t len)
{
	size_t n = strnlen((const char *)s, len);

	printf("%s=%.*s\n", key, (int)n, (const char *)s);
}

static int op_get_status64(struct req *r)
{
	struct loop_info64 info;

	memset(&info, 0, sizeof(info));
	if (want_null(r))
		return do_ioctl(r, LOOP_GET_STATUS64, 0);
	if (do_ioctl(r, LOOP_GET_STATUS64, (unsigned long)&info))
		return 1;
	printf("number=%u\noffset=%llu\nsizelimit=%llu\nflags=%u\n"
	       "device=%llu\ninode=%llu\nrdevice=%llu\n",
	       info.lo_number, (u64)info.lo_offset, (u64)info.lo_sizelimit,
	       info.lo_flags, (u64)info.lo_device, (u64)info.lo_inode,
	       (u64)info.lo_rdevice);
	print_name("file", info.lo_file_name, LO_NAME_SIZE);
	return 0;
}

static int op_get_status(struct req *r)
{
	struct loop_info info;

	memset(&info, 0, sizeof(info));
	if (want_null(r))
		return do_ioctl(r, LOOP_GET_STATUS, 0);
	if (do_ioctl(r, LOOP_GET_STATUS, (unsigned long)&info))
		return 1;
	printf("number=%d\noffset=%d\nflags=%d\ninode=%lu\n",
	       info.lo_number, info.lo_offset, info.lo_flags, info.lo_inode);
	print_name("file", (const unsigned char *)info.lo_name, LO_NAME_SIZE);
	return 0;
}

static void set_name(__u8 *dst, const char *src)
{
	memset(dst, 0, LO_NAME_SIZE);
	strncpy((char *)dst, src, LO_NAME_SIZE - 1);
}

/* Apply offset=, sizelimit=, flags=, name= arguments to @info */
static void info_args(char **argv, int argc, struct loop_info64 *info)
{
	u64 v;
	int i;

	for (i = 0; i < argc; i++) {
		if (kv(argv[i], "offset", &v))
			info->lo_offset = v;
		else if (kv(argv[i], "sizelimit", &v))
			info->lo_sizelimit = v;
		else if (kv(argv[i], "flags", &v))
			info->lo_flags = (__u32)v;
		else if (!strncmp(argv[i], "name=", 5))
			set_name(info->lo_file_name, argv[i] + 5);
		else
			die_usage("unknown argument", argv[i]);
	}
}

/*
 * Fields not given keep their current values (read with GET_STATUS64 if
 * the device is bound, else zero).
 */
static int op_set_status64(struct req *r)
{
	struct loop_info64 info;

	memset(&info, 0, sizeof(info));
	if (ioctl(r->dev_fd, LOOP_GET_STATUS64, &info) < 0)
		memset(&info, 0, sizeof(info));
	info_args(r->argv, r->argc, &info);
	return do_ioctl(r, LOOP_SET_STATUS64, (unsigned long)&info);
}

/* LOOP_SET_STATUS (struct loop_info): offset= and flags= only */
static int op_set_status(struct req *r)
{
	struct loop_info info;
	u64 v;
	int i;

	memset(&info, 0, sizeof(info));
	if (ioctl(r->dev_fd, LOOP_GET_STATUS, &info) < 0)
		memset(&info, 0, sizeof(info));
	for (i = 0; i < r->argc; i++) {
		if (kv(r->argv[i], "offset", &v))
			info.lo_offset = (int)v;
		else if (kv(r->argv[i], "flags", &v))
			info.lo_flags = (int)v;
		else
			die_usage("unknown argument", r->argv[i]);
	}
	return do_ioctl(r, LOOP_SET_STATUS, (unsigned long)&info);
}

static int op_configure(struct req *r)
{
	struct loop_config cfg;
	const char *file = file_arg(r);
	char **argv = r->argv + 1;
	int i, argc = r->argc - 1;
	u64 v;

	memset(&cfg, 0, sizeof(cfg));
	for (i = 0; i < argc; i++) {
		if (kv(argv[i], "bs", &v)) {
			cfg.block_size = (__u32)v;
			argv[i] = argv[--argc];
			i--;
		}
	}
	info_args(argv, argc, &cfg.info);
	if (!cfg.info.lo_file_name[0] && strcmp(file, "-1"))
		set_name(cfg.info.lo_file_name,
			 strncmp(file, "ro:", 3) ? file : file + 3);
	cfg.fd = (__u32)open_backing(file);
	return do_ioctl(r, LOOP_CONFIGURE, (unsigned long)&cfg);
}

/* ------------------------------------------------------------------ */
/* control node ioctls */

static int op_ctl_add(struct req *r)
{
	return do_ioctl(r, LOOP_CTL_ADD, one_num(r));
}

static int op_ctl_remove(struct req *r)
{
	return do_ioctl(r, LOOP_CTL_REMOVE, one_num(r));
}

static int op_ctl_get_free(struct req *r)
{
	return op_noarg(r, LOOP_CTL_GET_FREE);
}

static const struct op ops[] = {
	{ "set-fd", op_set_fd, "FILE|ro:FILE|-1" },
	{ "clr-fd", op_clr_fd, "" },
	{ "get-status64", op_get_status64, "[null]" },
	{ "get-status", op_get_status, "[null]" },
	{ "set-status64", op_set_status64,
	  "[offset=N] [sizelimit=N] [flags=N] [name=S]" },
	{ "set-status", op_set_status, "[offset=N] [flags=N]" },
	{ "configure", op_configure,
	  "FILE|ro:FILE|-1 [bs=N] [offset=N] [sizelimit=N] [flags=N] "
	  "[name=S]" },
	{ "change-fd", op_change_fd, "FILE|ro:FILE|-1" },
	{ "set-capacity", op_set_capacity, "" },
	{ "set-direct-io", op_set_direct_io, "0|1" },
	{ "set-block-size", op_set_block_size, "N" },
	{ "ctl-add", op_ctl_add, "N  (on the control node)" },
	{ "ctl-remove", op_ctl_remove, "N  (on the control node)" },
	{ "ctl-get-free", op_ctl_get_free, "  (on the control node)" },
};

static void usage(void)
{
	size_t i;

	fprintf(stderr, "usage: lioctl [--unpriv|--nobody] [--rdonly] "
		"[--fail-nth N] DEV CMD [ARGS]\n"
		"  --unpriv      drop CAP_SYS_ADMIN before the ioctl\n"
		"  --nobody      switch to uid/gid 65534 before the ioctl\n"
		"  --rdonly      open DEV read-only\n"
		"  --fail-nth N  fail the ioctl's N-th fault injection point\n"
		"commands:\n");
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		fprintf(stderr, "  %s %s\n", ops[i].name, ops[i].args);
}

static const struct op *find_op(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	die_usage("unknown command", name);
	return NULL;
}

static int open_dev(const char *path, bool rdonly)
{
	int fd;

	fd = open(path, rdonly ? O_RDONLY : O_RDWR);
	if (fd < 0 && !rdonly && (errno == EACCES || errno == EROFS))
		fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "lioctl: cannot open %s: %s\n", path,
			strerror(errno));
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct req r = { .priv = PRIV_KEEP, .fail_nth_fd = -1 };
	const struct op *op;
	bool rdonly = false;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--unpriv"))
			r.priv = PRIV_NO_SYS_ADMIN;
		else if (!strcmp(argv[i], "--nobody"))
			r.priv = PRIV_NOBODY;
		else if (!strcmp(argv[i], "--rdonly"))
			rdonly = true;
		else if (!strcmp(argv[i], "--fail-nth") && i + 1 < argc)
			open_fail_nth(&r, argv[++i]);
		else
			die_usage("unknown option", argv[i]);
	}
	if (argc - i < 2)
		die_usage("missing DEV or CMD", NULL);
	op = find_op(argv[i + 1]);
	r.dev_fd = open_dev(argv[i], rdonly);
	r.argc = argc - i - 2;
	r.argv = argv + i + 2;
	return op->run(&r);
}
