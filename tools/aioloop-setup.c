// SPDX-License-Identifier: GPL-2.0
/*
 * aioloop-setup - set up and control aioloop block devices
 *
 * aioloop devices (/dev/aioloopN) use the ioctl interface of the loop
 * driver (<linux/loop.h>); the control node is /dev/aioloop-control.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/loop.h>

#ifndef VERSION
#define VERSION		"0.1.0"
#endif

#define PROG		"aioloop-setup"
#define DEV_NAME	"aioloop"
#define DEV_DIR		"/dev/"
#define CTL_PATH	"/dev/aioloop-control"
#define MODULE_PATH	"/sys/module/aioloop"
#define SYS_BLOCK	"/sys/block"

/* Exit codes */
#define RC_OK		0
#define RC_FAIL		1
#define RC_USAGE	2
#define RC_NOMODULE	3

/* Attempts to grab a free device before giving up on a busy race */
#define FREE_RETRIES	16
/* How long to wait for a new device node to appear (10 ms steps) */
#define NODE_WAIT_STEPS	100

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

typedef unsigned long long u64;

struct cmd {
	const char *name;
	int (*run)(const struct cmd *cmd, int argc, char **argv);
	const char *args;
	const char *summary;
	const char *help;
};

/* A bound device as seen through sysfs */
struct devinfo {
	int idx;
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
};

static const char * const counters[] = {
	"aio_submitted", "aio_inline", "aio_queued", "nowait_eagain",
	"sync_ios", "flushes", "discards", "errors",
};

/* ------------------------------------------------------------------ */
/* messages */

static void vmsg(int errnum, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", PROG);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

/* "aioloop-setup: <what>: <strerror(errnum)>" */
__attribute__((format(printf, 2, 3)))
static void err_msg(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(errnum, fmt, ap);
	va_end(ap);
}

/* Print a usage error with a hint and return the usage exit code */
__attribute__((format(printf, 2, 3)))
static int usage_err(const struct cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "Try '%s %s --help' for more information.\n",
			PROG, cmd->name);
	else
		fprintf(stderr, "Try '%s --help' for more information.\n",
			PROG);
	return RC_USAGE;
}

/* Report a getopt_long() error (opterr is off) */
static int opt_err(const struct cmd *cmd, char **argv, int c)
{
	const char *arg = argv[optind - 1];

	if (c == ':' && arg[0] == '-' && arg[1] == '-')
		return usage_err(cmd, "option '%s' requires an argument", arg);
	if (c == ':')
		return usage_err(cmd, "option '-%c' requires an argument",
				 optopt);
	if (optopt)
		return usage_err(cmd, "invalid option '-%c'", optopt);
	return usage_err(cmd, "unrecognized option '%s'", arg);
}

static int require_module(void)
{
	if (access(CTL_PATH, F_OK) == 0 || access(MODULE_PATH, F_OK) == 0)
		return RC_OK;
	err_msg(0, "aioloop module is not loaded (try: modprobe aioloop)");
	return RC_NOMODULE;
}

/* ------------------------------------------------------------------ */
/* argument parsing */

static int parse_index(const char *s, int *idx)
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
static int parse_dev(const char *arg, int *idx)
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
static int parse_size(const char *s, u64 *out)
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

static void dev_path(int idx, char *buf, size_t len)
{
	snprintf(buf, len, DEV_DIR DEV_NAME "%d", idx);
}

/* ------------------------------------------------------------------ */
/* sysfs */

/* Read /sys/block/aioloopN/<attr> without the trailing newline */
static int sysfs_read(int idx, const char *attr, char *buf, size_t len)
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

static int sysfs_u64(int idx, const char *attr, u64 *val)
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

/* Fill @di from sysfs; -ENXIO if the device is not bound */
static int read_devinfo(int idx, struct devinfo *di)
{
	u64 v;

	memset(di, 0, sizeof(*di));
	di->idx = idx;
	if (sysfs_read(idx, "loop/backing_file", di->back_file,
		       sizeof(di->back_file)))
		return -ENXIO;
	sysfs_u64(idx, "loop/offset", &di->offset);
	sysfs_u64(idx, "loop/sizelimit", &di->sizelimit);
	di->autoclear = sysfs_bool(idx, "loop/autoclear");
	di->partscan = sysfs_bool(idx, "loop/partscan");
	di->dio = sysfs_bool(idx, "loop/dio");
	di->ro = sysfs_bool(idx, "ro");
	if (sysfs_u64(idx, "size", &v) == 0)
		di->size = v * 512;
	if (sysfs_u64(idx, "queue/logical_block_size", &v) == 0)
		di->log_sec = (unsigned int)v;
	di->have_mode = sysfs_read(idx, "aioloop/mode", di->mode,
				   sizeof(di->mode)) == 0;
	return 0;
}

static bool is_bound(int idx)
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
static int list_devices(int **out)
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

/* ------------------------------------------------------------------ */
/* device and control node access */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Open /dev/aioloopN. Opening read-write falls back to read-only on
 * EROFS/EACCES. With @wait, give a just created node time to appear.
 */
static int open_dev(int idx, int flags, bool wait)
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
	if (fd < 0)
		err_msg(errno, "cannot open %s", path);
	return fd;
}

/* Issue a control-node ioctl; returns its result or -1 (message printed) */
static int ctl_ioctl(unsigned long req, long arg, const char *what)
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
static int dev_ioctl(int idx, int flags, unsigned long req, unsigned long arg,
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
/* help */

static const struct cmd commands[];
static const size_t n_commands;

static void print_cmd_help(const struct cmd *cmd)
{
	printf("Usage: %s %s %s\n\n%s\n%s", PROG, cmd->name, cmd->args,
	       cmd->summary, cmd->help);
}

static void print_help(void)
{
	size_t i;

	printf("Usage: %s COMMAND [OPTIONS] [ARGS]\n"
	       "       %s --help | --version\n\n"
	       "Set up and control aioloop block devices (/dev/aioloopN).\n\n"
	       "Commands:\n", PROG, PROG);
	for (i = 0; i < n_commands; i++)
		printf("  %-14s %s\n", commands[i].name, commands[i].summary);
	printf("\nDEV may be given as /dev/aioloopN, aioloopN or N.\n"
	       "Run '%s COMMAND --help' for the options of a command.\n\n"
	       "Exit status: 0 success, 1 operation failed, 2 usage error,\n"
	       "3 aioloop module not loaded.\n", PROG);
}

/*
 * Parse the options of a command that only takes --help (and, with @json,
 * --json). Returns -1 to go on, or an exit code.
 */
static int simple_opts(const struct cmd *cmd, int argc, char **argv,
		       bool *json)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, json ? ":hJ" : ":h", opts,
				NULL)) != -1) {
		if (c == 'h') {
			print_cmd_help(cmd);
			return RC_OK;
		}
		if (c == 'J' && json) {
			*json = true;
			continue;
		}
		if (c == 'J')
			return usage_err(cmd, "unrecognized option '--json'");
		return opt_err(cmd, argv, c);
	}
	return -1;
}

/* Common start of a command: options and argument count */
static int cmd_start(const struct cmd *cmd, int argc, char **argv,
		     int min_args, int max_args, bool *json)
{
	int rc, n;

	rc = simple_opts(cmd, argc, argv, json);
	if (rc >= 0)
		return rc;
	n = argc - optind;
	if (n < min_args)
		return usage_err(cmd, "missing argument");
	if (max_args >= 0 && n > max_args)
		return usage_err(cmd, "unexpected argument '%s'",
				 argv[optind + max_args]);
	return -1;
}

static int dev_arg(const struct cmd *cmd, const char *arg, int *idx)
{
	if (parse_dev(arg, idx))
		return usage_err(cmd, "invalid device '%s' (expected "
				 "/dev/aioloopN, aioloopN or N)", arg);
	return 0;
}

/* ------------------------------------------------------------------ */
/* attach */

struct attach_opts {
	u64 offset;
	u64 sizelimit;
	u64 block_size;
	bool read_only;
	bool no_dio;
	bool partscan;
	bool autoclear;
	bool find;
	const char *file;
	int idx;		/* -1: find a free device */
};

static int attach_parse(const struct cmd *cmd, int argc, char **argv,
			struct attach_opts *ao)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "sizelimit", required_argument, NULL, 'S' },
		{ "read-only", no_argument, NULL, 'r' },
		{ "block-size", required_argument, NULL, 'b' },
		{ "no-direct-io", no_argument, NULL, 'D' },
		{ "partscan", no_argument, NULL, 'P' },
		{ "autoclear", no_argument, NULL, 'A' },
		{ "find", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	u64 *num;
	int c;

	memset(ao, 0, sizeof(*ao));
	ao->idx = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:rb:Pfh", opts, NULL)) != -1) {
		num = NULL;
		switch (c) {
		case 'o':
			num = &ao->offset;
			break;
		case 'S':
			num = &ao->sizelimit;
			break;
		case 'b':
			num = &ao->block_size;
			break;
		case 'r':
			ao->read_only = true;
			break;
		case 'D':
			ao->no_dio = true;
			break;
		case 'P':
			ao->partscan = true;
			break;
		case 'A':
			ao->autoclear = true;
			break;
		case 'f':
			ao->find = true;
			break;
		case 'h':
			print_cmd_help(cmd);
			return RC_OK;
		default:
			return opt_err(cmd, argv, c);
		}
		if (num && parse_size(optarg, num))
			return usage_err(cmd, "invalid size '%s'", optarg);
	}
	if (ao->block_size > UINT_MAX)
		return usage_err(cmd, "invalid block size '%llu'",
				 ao->block_size);
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return usage_err(cmd, "missing FILE");
	if (argc > 2)
		return usage_err(cmd, "unexpected argument '%s'", argv[2]);
	ao->file = argv[0];
	if (argc == 2) {
		if (ao->find)
			return usage_err(cmd, "--find and DEV are mutually "
					 "exclusive");
		if (dev_arg(cmd, argv[1], &ao->idx))
			return RC_USAGE;
	}
	return -1;
}

static void attach_config(const struct attach_opts *ao, int file_fd,
			  struct loop_config *cfg)
{
	char *real;

	memset(cfg, 0, sizeof(*cfg));
	cfg->fd = (__u32)file_fd;
	cfg->block_size = (__u32)ao->block_size;
	cfg->info.lo_offset = ao->offset;
	cfg->info.lo_sizelimit = ao->sizelimit;
	if (ao->read_only)
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
 * Configure device @idx. Returns the open device fd, -1 on error (message
 * printed) or -2 when a device picked as free turned out busy.
 */
static int attach_one(int idx, bool picked, const struct loop_config *cfg,
		      const char *file)
{
	char path[64];
	int fd, e;

	fd = open_dev(idx, O_RDWR, picked);
	if (fd < 0)
		return -1;
	if (ioctl(fd, LOOP_CONFIGURE, cfg) == 0)
		return fd;
	e = errno;
	close(fd);
	if (picked && e == EBUSY)
		return -2;
	dev_path(idx, path, sizeof(path));
	err_msg(e, "cannot attach %s to %s", file, path);
	return -1;
}

/* Attach to a free device: GET_FREE, then retry if another user won */
static int attach_free(const struct loop_config *cfg, const char *file,
		       int *idx)
{
	int i, fd;

	for (i = 0; i < FREE_RETRIES; i++) {
		*idx = ctl_ioctl(LOOP_CTL_GET_FREE, 0,
				 "cannot find a free aioloop device");
		if (*idx < 0)
			return -1;
		fd = attach_one(*idx, true, cfg, file);
		if (fd != -2)
			return fd;
	}
	err_msg(EBUSY, "cannot find a free aioloop device");
	return -1;
}

static int attach_no_dio(int fd, int idx)
{
	char path[64];
	int e;

	if (ioctl(fd, LOOP_SET_DIRECT_IO, 0UL) == 0)
		return 0;
	e = errno;
	dev_path(idx, path, sizeof(path));
	err_msg(e, "%s: cannot disable direct I/O", path);
	if (ioctl(fd, LOOP_CLR_FD, 0) < 0)
		err_msg(errno, "%s: cannot detach", path);
	return -1;
}

static int cmd_attach(const struct cmd *cmd, int argc, char **argv)
{
	struct attach_opts ao;
	struct loop_config cfg;
	int rc, file_fd, fd, idx;

	rc = attach_parse(cmd, argc, argv, &ao);
	if (rc >= 0)
		return rc;
	if (require_module())
		return RC_NOMODULE;
	file_fd = open(ao.file, (ao.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (file_fd < 0) {
		err_msg(errno, "cannot open %s", ao.file);
		return RC_FAIL;
	}
	attach_config(&ao, file_fd, &cfg);
	idx = ao.idx;
	if (idx >= 0)
		fd = attach_one(idx, false, &cfg, ao.file);
	else
		fd = attach_free(&cfg, ao.file, &idx);
	close(file_fd);
	if (fd < 0)
		return RC_FAIL;
	rc = RC_OK;
	if (ao.no_dio && attach_no_dio(fd, idx))
		rc = RC_FAIL;
	close(fd);
	if (rc == RC_OK)
		printf(DEV_DIR DEV_NAME "%d\n", idx);
	return rc;
}

/* ------------------------------------------------------------------ */
/* detach, detach-all */

static int detach_one(int idx)
{
	return dev_ioctl(idx, O_RDONLY, LOOP_CLR_FD, 0, "cannot detach") < 0;
}

static int cmd_detach(const struct cmd *cmd, int argc, char **argv)
{
	int rc, i, idx, failed = 0;

	rc = cmd_start(cmd, argc, argv, 1, -1, NULL);
	if (rc >= 0)
		return rc;
	for (i = optind; i < argc; i++)
		if (dev_arg(cmd, argv[i], &idx))
			return RC_USAGE;
	if (require_module())
		return RC_NOMODULE;
	for (i = optind; i < argc; i++) {
		parse_dev(argv[i], &idx);
		failed |= detach_one(idx);
	}
	return failed ? RC_FAIL : RC_OK;
}

static int cmd_detach_all(const struct cmd *cmd, int argc, char **argv)
{
	int rc, n, i, *idx, failed = 0;

	rc = cmd_start(cmd, argc, argv, 0, 0, NULL);
	if (rc >= 0)
		return rc;
	if (require_module())
		return RC_NOMODULE;
	n = list_devices(&idx);
	if (n < 0) {
		err_msg(-n, "cannot read %s", SYS_BLOCK);
		return RC_FAIL;
	}
	for (i = 0; i < n; i++)
		if (is_bound(idx[i]))
			failed |= detach_one(idx[i]);
	free(idx);
	return failed ? RC_FAIL : RC_OK;
}

/* ------------------------------------------------------------------ */
/* list */

/* Length of the valid UTF-8 sequence at @s, or 0 if invalid */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	unsigned int cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Print @s as a JSON string; invalid UTF-8 bytes become U+FFFD */
static void json_string(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			printf("\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", stdout);
		} else if (*s == '\t') {
			fputs("\\t", stdout);
		} else if (*s < 0x20 || *s == 0x7f) {
			printf("\\u%04x", *s);
		} else if (*s < 0x80) {
			putchar(*s);
		} else if ((n = utf8_len(s))) {
			fwrite(s, 1, n, stdout);
			s += n - 1;
		} else {
			fputs("\\ufffd", stdout);
		}
	}
	putchar('"');
}

static const char *json_bool(bool b)
{
	return b ? "true" : "false";
}

static void json_device(const struct devinfo *di, bool first)
{
	printf("%s      {\n         \"name\": \"" DEV_DIR DEV_NAME "%d\",\n",
	       first ? "" : ",\n", di->idx);
	fputs("         \"back-file\": ", stdout);
	json_string(di->back_file);
	printf(",\n         \"offset\": %llu,\n"
	       "         \"sizelimit\": %llu,\n"
	       "         \"size\": %llu,\n"
	       "         \"ro\": %s,\n"
	       "         \"autoclear\": %s,\n"
	       "         \"partscan\": %s,\n"
	       "         \"dio\": %s,\n"
	       "         \"mode\": ",
	       di->offset, di->sizelimit, di->size, json_bool(di->ro),
	       json_bool(di->autoclear), json_bool(di->partscan),
	       json_bool(di->dio));
	if (di->have_mode)
		json_string(di->mode);
	else
		fputs("null", stdout);
	printf(",\n         \"log-sec\": %u\n      }", di->log_sec);
}

static void list_json(const struct devinfo *di, int n)
{
	int i;

	printf("{\n   \"aioloop\": [\n");
	for (i = 0; i < n; i++)
		json_device(&di[i], i == 0);
	printf("%s   ]\n}\n", n ? "\n" : "");
}

static const char * const list_cols[] = {
	"NAME", "SIZELIMIT", "OFFSET", "AUTOCLEAR", "RO", "BACK-FILE",
	"DIO", "MODE", "LOG-SEC", "SIZE",
};

#define N_COLS	ARRAY_SIZE(list_cols)
#define COL_LEN	(PATH_MAX + 16)

static void list_row(const struct devinfo *di, char cell[][COL_LEN])
{
	snprintf(cell[0], COL_LEN, DEV_DIR DEV_NAME "%d", di->idx);
	snprintf(cell[1], COL_LEN, "%llu", di->sizelimit);
	snprintf(cell[2], COL_LEN, "%llu", di->offset);
	snprintf(cell[3], COL_LEN, "%d", di->autoclear);
	snprintf(cell[4], COL_LEN, "%d", di->ro);
	snprintf(cell[5], COL_LEN, "%s", di->back_file);
	snprintf(cell[6], COL_LEN, "%d", di->dio);
	snprintf(cell[7], COL_LEN, "%s", di->have_mode ? di->mode : "-");
	snprintf(cell[8], COL_LEN, "%u", di->log_sec);
	snprintf(cell[9], COL_LEN, "%llu", di->size);
}

/* NAME, BACK-FILE and MODE are left aligned, the numbers right aligned */
static void print_cells(char cell[][COL_LEN], const int *width)
{
	size_t c;
	bool left;

	for (c = 0; c < N_COLS; c++) {
		left = c == 0 || c == 5 || c == 7;
		if (c == N_COLS - 1 && left)
			printf("%s", cell[c]);
		else
			printf(left ? "%-*s" : "%*s", width[c], cell[c]);
		putchar(c == N_COLS - 1 ? '\n' : ' ');
	}
}

static void list_table(const struct devinfo *di, int n)
{
	static char cell[N_COLS][COL_LEN];
	int width[N_COLS], i;
	size_t c;

	if (!n)
		return;
	for (c = 0; c < N_COLS; c++)
		width[c] = (int)strlen(list_cols[c]);
	for (i = 0; i < n; i++) {
		list_row(&di[i], cell);
		for (c = 0; c < N_COLS; c++)
			if ((int)strlen(cell[c]) > width[c])
				width[c] = (int)strlen(cell[c]);
	}
	for (c = 0; c < N_COLS; c++)
		snprintf(cell[c], COL_LEN, "%s", list_cols[c]);
	print_cells(cell, width);
	for (i = 0; i < n; i++) {
		list_row(&di[i], cell);
		print_cells(cell, width);
	}
}

static int cmd_list(const struct cmd *cmd, int argc, char **argv)
{
	struct devinfo *di;
	int rc, n, i, bound = 0, *idx;
	bool json = false;

	rc = cmd_start(cmd, argc, argv, 0, 0, &json);
	if (rc >= 0)
		return rc;
	if (require_module())
		return RC_NOMODULE;
	n = list_devices(&idx);
	if (n < 0) {
		err_msg(-n, "cannot read %s", SYS_BLOCK);
		return RC_FAIL;
	}
	di = calloc(n ? n : 1, sizeof(*di));
	if (!di) {
		free(idx);
		err_msg(ENOMEM, "list");
		return RC_FAIL;
	}
	for (i = 0; i < n; i++)
		if (read_devinfo(idx[i], &di[bound]) == 0)
			bound++;
	if (json)
		list_json(di, bound);
	else
		list_table(di, bound);
	free(di);
	free(idx);
	return RC_OK;
}

/* ------------------------------------------------------------------ */
/* status */

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void status_sysfs(int idx)
{
	char buf[PATH_MAX + 16];
	size_t i;
	u64 v;

	if (sysfs_u64(idx, "size", &v) == 0)
		printf("size: %llu\n", v * 512);
	if (sysfs_u64(idx, "queue/logical_block_size", &v) == 0)
		printf("logical_block_size: %llu\n", v);
	if (sysfs_read(idx, "aioloop/mode", buf, sizeof(buf)) == 0)
		printf("mode: %s\n", buf);
	if (sysfs_read(idx, "aioloop/sync_reason", buf, sizeof(buf)) == 0)
		printf("sync_reason: %s\n", buf);
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		snprintf(buf, sizeof(buf), "aioloop/%s", counters[i]);
		if (sysfs_u64(idx, buf, &v) == 0)
			printf("%s: %llu\n", counters[i], v);
	}
}

static void status_print(int idx, const struct loop_info64 *info)
{
	char back[PATH_MAX + 16];
	char name[LO_NAME_SIZE + 1];

	memcpy(name, info->lo_file_name, LO_NAME_SIZE);
	name[LO_NAME_SIZE] = '\0';
	if (sysfs_read(idx, "loop/backing_file", back, sizeof(back)))
		snprintf(back, sizeof(back), "%s", name);
	printf("device: " DEV_DIR DEV_NAME "%d\n", idx);
	printf("backing_file: %s\n", back);
	printf("backing_dev: %u:%u\n", major(info->lo_device),
	       minor(info->lo_device));
	printf("backing_inode: %llu\n", (u64)info->lo_inode);
	printf("offset: %llu\n", (u64)info->lo_offset);
	printf("sizelimit: %llu\n", (u64)info->lo_sizelimit);
	printf("read_only: %s\n", yes_no(info->lo_flags & LO_FLAGS_READ_ONLY));
	printf("autoclear: %s\n", yes_no(info->lo_flags & LO_FLAGS_AUTOCLEAR));
	printf("partscan: %s\n", yes_no(info->lo_flags & LO_FLAGS_PARTSCAN));
	printf("direct_io: %s\n", yes_no(info->lo_flags & LO_FLAGS_DIRECT_IO));
	status_sysfs(idx);
}

static int cmd_status(const struct cmd *cmd, int argc, char **argv)
{
	struct loop_info64 info;
	char path[64];
	int rc, idx, fd, e;

	rc = cmd_start(cmd, argc, argv, 1, 1, NULL);
	if (rc >= 0)
		return rc;
	if (dev_arg(cmd, argv[optind], &idx))
		return RC_USAGE;
	if (require_module())
		return RC_NOMODULE;
	fd = open_dev(idx, O_RDONLY, false);
	if (fd < 0)
		return RC_FAIL;
	memset(&info, 0, sizeof(info));
	rc = ioctl(fd, LOOP_GET_STATUS64, &info);
	e = errno;
	close(fd);
	if (rc < 0) {
		dev_path(idx, path, sizeof(path));
		err_msg(e, e == ENXIO ? "%s: device is not bound" :
			"%s: cannot get status", path);
		return RC_FAIL;
	}
	status_print(idx, &info);
	return RC_OK;
}

/* ------------------------------------------------------------------ */
/* set-capacity, set-direct-io */

static int cmd_set_capacity(const struct cmd *cmd, int argc, char **argv)
{
	int rc, idx;

	rc = cmd_start(cmd, argc, argv, 1, 1, NULL);
	if (rc >= 0)
		return rc;
	if (dev_arg(cmd, argv[optind], &idx))
		return RC_USAGE;
	if (require_module())
		return RC_NOMODULE;
	if (dev_ioctl(idx, O_RDWR, LOOP_SET_CAPACITY, 0,
		      "cannot set capacity") < 0)
		return RC_FAIL;
	return RC_OK;
}

static int parse_on_off(const char *s)
{
	if (!strcmp(s, "on") || !strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "off") || !strcmp(s, "0"))
		return 0;
	return -1;
}

static int cmd_set_direct_io(const struct cmd *cmd, int argc, char **argv)
{
	int rc, idx, on;

	rc = simple_opts(cmd, argc, argv, NULL);
	if (rc >= 0)
		return rc;
	if (argc - optind != 2)
		return usage_err(cmd, "expected DEV and on|off");
	if (dev_arg(cmd, argv[optind], &idx))
		return RC_USAGE;
	on = parse_on_off(argv[optind + 1]);
	if (on < 0)
		return usage_err(cmd, "expected on or off, not '%s'",
				 argv[optind + 1]);
	if (require_module())
		return RC_NOMODULE;
	if (dev_ioctl(idx, O_RDWR, LOOP_SET_DIRECT_IO, (unsigned long)on,
		      on ? "cannot enable direct I/O" :
		      "cannot disable direct I/O") < 0)
		return RC_FAIL;
	return RC_OK;
}

/* ------------------------------------------------------------------ */
/* add, remove, find */

static int cmd_add(const struct cmd *cmd, int argc, char **argv)
{
	int rc, idx = -1;

	rc = cmd_start(cmd, argc, argv, 0, 1, NULL);
	if (rc >= 0)
		return rc;
	if (optind < argc && dev_arg(cmd, argv[optind], &idx))
		return RC_USAGE;
	if (require_module())
		return RC_NOMODULE;
	idx = ctl_ioctl(LOOP_CTL_ADD, idx, "cannot add device");
	if (idx < 0)
		return RC_FAIL;
	printf(DEV_DIR DEV_NAME "%d\n", idx);
	return RC_OK;
}

static int cmd_remove(const struct cmd *cmd, int argc, char **argv)
{
	char what[96];
	int rc, i, idx, failed = 0;

	rc = cmd_start(cmd, argc, argv, 1, -1, NULL);
	if (rc >= 0)
		return rc;
	for (i = optind; i < argc; i++)
		if (dev_arg(cmd, argv[i], &idx))
			return RC_USAGE;
	if (require_module())
		return RC_NOMODULE;
	for (i = optind; i < argc; i++) {
		parse_dev(argv[i], &idx);
		snprintf(what, sizeof(what), "cannot remove " DEV_DIR DEV_NAME
			 "%d", idx);
		if (ctl_ioctl(LOOP_CTL_REMOVE, idx, what) < 0)
			failed = 1;
	}
	return failed ? RC_FAIL : RC_OK;
}

static int cmd_find(const struct cmd *cmd, int argc, char **argv)
{
	int rc, idx;

	rc = cmd_start(cmd, argc, argv, 0, 0, NULL);
	if (rc >= 0)
		return rc;
	if (require_module())
		return RC_NOMODULE;
	idx = ctl_ioctl(LOOP_CTL_GET_FREE, 0,
			"cannot find a free aioloop device");
	if (idx < 0)
		return RC_FAIL;
	printf(DEV_DIR DEV_NAME "%d\n", idx);
	return RC_OK;
}

/* ------------------------------------------------------------------ */
/* command table and main */

static int cmd_help(const struct cmd *cmd, int argc, char **argv);

static const struct cmd commands[] = {
	{ "attach", cmd_attach, "[OPTIONS] FILE [DEV]",
	  "Attach FILE to DEV, or to a free device, and print the device.",
	  "\nOptions:\n"
	  "  -o, --offset N       start N bytes into FILE\n"
	  "      --sizelimit N    use at most N bytes of FILE\n"
	  "  -r, --read-only      open FILE and the device read-only\n"
	  "  -b, --block-size N   logical block size (512..page size, "
	  "power of two)\n"
	  "      --no-direct-io   serve I/O through the page cache "
	  "(sync mode)\n"
	  "  -P, --partscan       scan the device for partitions\n"
	  "      --autoclear      detach when the last user closes the "
	  "device\n"
	  "  -f, --find           use a free device (the default without "
	  "DEV)\n"
	  "  -h, --help           show this help\n\n"
	  "Sizes are in bytes; the suffixes K, M, G, T (KiB, MiB...) "
	  "multiply by 1024.\n" },
	{ "detach", cmd_detach, "DEV...",
	  "Detach the backing file from each DEV.", "" },
	{ "detach-all", cmd_detach_all, "",
	  "Detach every bound aioloop device.", "" },
	{ "list", cmd_list, "[--json]",
	  "List bound devices (table, or JSON with --json).",
	  "\nColumns: NAME SIZELIMIT OFFSET AUTOCLEAR RO BACK-FILE DIO MODE "
	  "LOG-SEC SIZE\n(sizes and offsets in bytes). The JSON schema is "
	  "documented in\naioloop-setup(8) and is stable.\n" },
	{ "status", cmd_status, "DEV",
	  "Show the configuration, I/O mode and counters of DEV.", "" },
	{ "set-capacity", cmd_set_capacity, "DEV",
	  "Resize DEV after its backing file changed size.", "" },
	{ "set-direct-io", cmd_set_direct_io, "DEV on|off",
	  "Switch DEV between direct (aio) and buffered (sync) I/O.", "" },
	{ "add", cmd_add, "[N]",
	  "Create device N (or the first unused index) and print it.", "" },
	{ "remove", cmd_remove, "N...",
	  "Remove unbound device(s) N.", "" },
	{ "find", cmd_find, "",
	  "Print a free device, creating one if needed.", "" },
	{ "help", cmd_help, "[COMMAND]",
	  "Show help for COMMAND, or general help.", "" },
};

static const size_t n_commands = ARRAY_SIZE(commands);

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < n_commands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_help(const struct cmd *cmd, int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		print_help();
		return RC_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_cmd_help(cmd);
		return RC_OK;
	}
	if (argc > 2)
		return usage_err(cmd, "unexpected argument '%s'", argv[2]);
	c = find_cmd(argv[1]);
	if (!c)
		return usage_err(NULL, "unknown command '%s'", argv[1]);
	print_cmd_help(c);
	return RC_OK;
}

static int flush_stdout(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		err_msg(errno, "write error");
		return rc ? rc : RC_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;
	const char *name = argv[1];

	if (argc < 2)
		return usage_err(NULL, "missing command");
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		print_help();
		return flush_stdout(RC_OK);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("%s %s\n", PROG, VERSION);
		return flush_stdout(RC_OK);
	}
	cmd = find_cmd(name);
	if (!cmd) {
		if (name[0] == '-')
			return usage_err(NULL, "unrecognized option '%s'",
					 name);
		return usage_err(NULL, "unknown command '%s'", name);
	}
	return flush_stdout(cmd->run(cmd, argc - 1, argv + 1));
}
