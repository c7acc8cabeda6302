// SPDX-License-Identifier: GPL-2.0
/*
 * aioloop-setup - set up and control aioloop block devices
 *
 * aioloop devices (/dev/aioloopN) use the ioctl interface of the loop
 * driver (<linux/loop.h>); the control node is /dev/aioloop-control.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>

#include "aioloopdev.h"
#include "losetup.h"
#include "output.h"

#ifndef VERSION
#define VERSION		"0.1.0"
#endif

#define PROG		"aioloop-setup"

struct cmd {
	const char *name;
	int (*run)(const struct cmd *cmd, int argc, char **argv);
	const char *args;
	const char *summary;
	const char *help;
};

static const char * const counters[] = {
	"aio_submitted", "aio_inline", "aio_queued", "nowait_eagain",
	"sync_ios", "flushes", "discards", "errors",
};

/* ------------------------------------------------------------------ */
/* messages */

/* Print a usage error with a hint and return the usage exit code */
__attribute__((format(printf, 2, 3)))
static int usage_err(const struct cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vmsg(0, fmt, ap);
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

static void attach_error(const struct attach_opts *ao, int idx,
			 enum attach_stage stage, int err)
{
	char path[64];

	dev_path(idx, path, sizeof(path));
	switch (stage) {
	case AT_OPEN:
		err_msg(err, "cannot open %s", ao->file);
		break;
	case AT_FREE:
		err_msg(err, "cannot find a free aioloop device");
		break;
	case AT_CONFIGURE:
		err_msg(err, "cannot attach %s to %s", ao->file, path);
		break;
	case AT_NO_DIO:
		err_msg(err, "%s: cannot disable direct I/O", path);
		break;
	}
}

static int cmd_attach(const struct cmd *cmd, int argc, char **argv)
{
	struct attach_opts ao;
	enum attach_stage stage;
	int rc, idx;

	rc = attach_parse(cmd, argc, argv, &ao);
	if (rc >= 0)
		return rc;
	if (require_module())
		return RC_NOMODULE;
	rc = attach_device(&ao, &idx, &stage);
	if (rc) {
		attach_error(&ao, idx, stage, -rc);
		return RC_FAIL;
	}
	printf(DEV_DIR DEV_NAME "%d\n", idx);
	return RC_OK;
}

/* ------------------------------------------------------------------ */
/* detach, detach-all */

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

/* list's table, and its JSON object (a stable schema, aioloop-setup(8)) */
static const struct col list_cols[] = {
	{ "NAME", false, COL_STR }, { "SIZELIMIT", true, COL_NUM },
	{ "OFFSET", true, COL_NUM }, { "AUTOCLEAR", true, COL_BOOL },
	{ "RO", true, COL_BOOL }, { "BACK-FILE", false, COL_STR },
	{ "DIO", true, COL_BOOL }, { "MODE", false, COL_STR },
	{ "LOG-SEC", true, COL_NUM }, { "SIZE", true, COL_NUM },
};

static const struct col list_json_cols[] = {
	{ "NAME", false, COL_STR }, { "BACK-FILE", false, COL_STR },
	{ "OFFSET", true, COL_NUM }, { "SIZELIMIT", true, COL_NUM },
	{ "SIZE", true, COL_NUM }, { "RO", true, COL_BOOL },
	{ "AUTOCLEAR", true, COL_BOOL }, { "PARTSCAN", true, COL_BOOL },
	{ "DIO", true, COL_BOOL }, { "MODE", false, COL_STR_NULL },
	{ "LOG-SEC", true, COL_NUM },
};

/* The devices of list's table, and whether it is printed as JSON */
struct list_rows {
	const struct devinfo *di;
	bool json;
};

/* With JSON, a device without a mode has none (null), not "-" */
static int list_cell(struct table *t, int row, int c, const void *ctx)
{
	const struct list_rows *r = ctx;
	const struct devinfo *di = &r->di[row];
	const char *name = t->cols[c]->name;
	bool json = r->json;

	if (!strcmp(name, "NAME"))
		return table_set(t, row, c, DEV_DIR DEV_NAME "%d", di->idx);
	if (!strcmp(name, "SIZELIMIT"))
		return table_set(t, row, c, "%llu", di->sizelimit);
	if (!strcmp(name, "OFFSET"))
		return table_set(t, row, c, "%llu", di->offset);
	if (!strcmp(name, "AUTOCLEAR"))
		return table_set(t, row, c, "%d", di->autoclear);
	if (!strcmp(name, "PARTSCAN"))
		return table_set(t, row, c, "%d", di->partscan);
	if (!strcmp(name, "RO"))
		return table_set(t, row, c, "%d", di->ro);
	if (!strcmp(name, "BACK-FILE"))
		return table_set(t, row, c, "%s", di->back_file);
	if (!strcmp(name, "DIO"))
		return table_set(t, row, c, "%d", di->dio);
	if (!strcmp(name, "MODE"))
		return table_set(t, row, c, "%s", di->have_mode ? di->mode :
				 json ? "" : "-");
	if (!strcmp(name, "LOG-SEC"))
		return table_set(t, row, c, "%u", di->log_sec);
	return table_set(t, row, c, "%llu", di->size);
}

static int cmd_list(const struct cmd *cmd, int argc, char **argv)
{
	const struct col *cols[ARRAY_SIZE(list_json_cols)];
	const struct col *set = list_cols;
	int rc, n, c, ncols = ARRAY_SIZE(list_cols);
	struct list_rows rows;
	struct devinfo *di;
	struct table t;
	bool json = false;

	rc = cmd_start(cmd, argc, argv, 0, 0, &json);
	if (rc >= 0)
		return rc;
	if (require_module())
		return RC_NOMODULE;
	n = list_bound(&di);
	if (n < 0)
		return RC_FAIL;
	if (json) {
		set = list_json_cols;
		ncols = ARRAY_SIZE(list_json_cols);
	}
	for (c = 0; c < ncols; c++)
		cols[c] = &set[c];
	table_init(&t, cols, ncols);
	rows.di = di;
	rows.json = json;
	rc = RC_OK;
	if (table_fill(&t, n, list_cell, &rows)) {
		err_msg(ENOMEM, "list");
		rc = RC_FAIL;
	} else {
		table_print(&t, json ? OUT_JSON : 0, "aioloop");
	}
	table_free(&t);
	free(di);
	return rc;
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

/*
 * losetup's command line: invoked as aiolosetup, or with one of losetup's
 * options or a path where a subcommand would be (--help and --version
 * stay aioloop-setup's)
 */
static bool losetup_syntax(int argc, char **argv, const char *base)
{
	if (!strcmp(base, "aiolosetup"))
		return true;
	if (argc < 2 || find_cmd(argv[1]))
		return false;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return false;
	return losetup_option(argv[1]) || strchr(argv[1], '/');
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const char *name = argv[1];
	const struct cmd *cmd;

	base = base ? base + 1 : argv[0];
	if (losetup_syntax(argc, argv, base)) {
		/* messages name the program as invoked, as losetup's do */
		prog_name = base;
		return flush_stdout(losetup_main(argc, argv));
	}
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
