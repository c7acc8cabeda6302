// SPDX-License-Identifier: GPL-2.0
/*
 * losetup's command line for aioloop devices: aioloop-setup invoked as
 * aiolosetup, or with losetup's options. The options, the output formats
 * (--list columns and their JSON keys, --raw, -a) and the exit status (0,
 * or 1 on any failure or usage error) are those of util-linux 2.38's
 * losetup, so that scripts written for losetup work on /dev/aioloopN.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "aioloopdev.h"
#include "losetup.h"
#include "output.h"

#ifndef VERSION
#define VERSION		"0.1.0"
#endif

#define LS_OK		0
#define LS_FAIL		1

enum action {
	A_NONE,
	A_CREATE,		/* attach a file */
	A_DELETE,		/* -d */
	A_DELETE_ALL,		/* -D */
	A_SHOW,			/* -a, -j, --list */
	A_SHOW_ONE,		/* DEV */
	A_FIND_FREE,		/* -f */
	A_SET_CAPACITY,		/* -c */
	A_SET_DIRECT_IO,	/* --direct-io DEV */
	A_SET_BLOCKSIZE,	/* -b N DEV */
};

/* --list columns, in losetup's order (--output-all, --help) */
enum {
	COL_NAME, COL_AUTOCLR, COL_BACK_FILE, COL_BACK_INO, COL_BACK_MAJMIN,
	COL_MAJMIN, COL_OFFSET, COL_PARTSCAN, COL_RO, COL_SIZELIMIT, COL_DIO,
	COL_LOGSEC, N_LSCOLS
};

static const struct col ls_cols[N_LSCOLS] = {
	[COL_NAME]	  = { "NAME", false, COL_STR },
	[COL_AUTOCLR]	  = { "AUTOCLEAR", true, COL_BOOL },
	[COL_BACK_FILE]	  = { "BACK-FILE", false, COL_STR_NULL },
	[COL_BACK_INO]	  = { "BACK-INO", true, COL_NUM },
	[COL_BACK_MAJMIN] = { "BACK-MAJ:MIN", false, COL_STR_NULL },
	[COL_MAJMIN]	  = { "MAJ:MIN", false, COL_STR_NULL },
	[COL_OFFSET]	  = { "OFFSET", true, COL_NUM },
	[COL_PARTSCAN]	  = { "PARTSCAN", true, COL_BOOL },
	[COL_RO]	  = { "RO", true, COL_BOOL },
	[COL_SIZELIMIT]	  = { "SIZELIMIT", true, COL_NUM },
	[COL_DIO]	  = { "DIO", true, COL_BOOL },
	[COL_LOGSEC]	  = { "LOG-SEC", true, COL_NUM },
};

static const char * const ls_col_help[N_LSCOLS] = {
	[COL_NAME]	  = "loop device name",
	[COL_AUTOCLR]	  = "autoclear flag set",
	[COL_BACK_FILE]	  = "device backing file",
	[COL_BACK_INO]	  = "backing file inode number",
	[COL_BACK_MAJMIN] = "backing file major:minor device number",
	[COL_MAJMIN]	  = "loop device major:minor number",
	[COL_OFFSET]	  = "offset from the beginning",
	[COL_PARTSCAN]	  = "partscan flag set",
	[COL_RO]	  = "read-only device",
	[COL_SIZELIMIT]	  = "size limit of the file in bytes",
	[COL_DIO]	  = "access backing file with direct-io",
	[COL_LOGSEC]	  = "logical sector size in bytes",
};

/* What the command line asked for */
struct ls_opts {
	enum action act;
	struct attach_opts ao;
	bool list, show, nooverlap, set_dio, use_dio, set_bs;
	bool has_offset, has_sizelimit;
	unsigned int out_flags;
	int cols[2 * N_LSCOLS];
	int ncols;
	const char *file;	/* -j, or the file to attach */
	int idx;		/* the device named, or -1 */
};

/* losetup's warnx(): "prog: message" */
#define warnx_(...)	err_msg(0, __VA_ARGS__)

/* A usage error: the message, the hint, status 1 */
__attribute__((format(printf, 1, 2)))
static int usage_fail(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		err_vmsg(0, fmt, ap);
		va_end(ap);
	}
	fprintf(stderr, "Try '%s --help' for more information.\n", prog_name);
	return LS_FAIL;
}

static void usage(void)
{
	int i;

	printf("\nUsage:\n"
	       " %1$s [options] [<loopdev>]\n"
	       " %1$s [options] -f | <loopdev> <file>\n\n"
	       "Set up and control aioloop devices, with losetup's options.\n\n"
	       "Options:\n"
	       " -a, --all                     list all used devices\n"
	       " -d, --detach <loopdev>...     detach one or more devices\n"
	       " -D, --detach-all              detach all used devices\n"
	       " -f, --find                    find first unused device\n"
	       " -c, --set-capacity <loopdev>  resize the device\n"
	       " -j, --associated <file>       list all devices associated with <file>\n"
	       " -L, --nooverlap               avoid possible conflict between devices\n\n"
	       " -o, --offset <num>            start at offset <num> into file\n"
	       "     --sizelimit <num>         device is limited to <num> bytes of the file\n"
	       " -b, --sector-size <num>       set the logical sector size to <num>\n"
	       " -P, --partscan                create a partitioned loop device\n"
	       " -r, --read-only               set up a read-only loop device\n"
	       "     --direct-io[=<on|off>]    open backing file with O_DIRECT\n"
	       "                               (aioloop's default: on where possible)\n"
	       "     --show                    print device name after setup (with -f)\n"
	       " -v, --verbose                 verbose mode\n\n"
	       " -J, --json                    use JSON --list output format\n"
	       " -l, --list                    list info about all or specified (default)\n"
	       " -n, --noheadings              don't print headings for --list output\n"
	       " -O, --output <cols>           specify columns to output for --list\n"
	       "     --output-all              output all columns\n"
	       "     --raw                     use raw --list output format\n\n"
	       " -h, --help                    display this help\n"
	       " -V, --version                 display version\n\n"
	       "Available output columns:\n", prog_name);
	for (i = 0; i < N_LSCOLS; i++)
		printf(" %12s  %s\n", ls_cols[i].name, ls_col_help[i]);
	printf("\nFor more details see aioloop-setup(8).\n");
}

/* ------------------------------------------------------------------ */
/* option parsing */

enum {
	OPT_SIZELIMIT = 256,
	OPT_SHOW,
	OPT_RAW,
	OPT_DIO,
	OPT_OUTPUT_ALL,
};

static const struct option ls_longopts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "set-capacity", required_argument, NULL, 'c' },
	{ "detach", required_argument, NULL, 'd' },
	{ "detach-all", no_argument, NULL, 'D' },
	{ "find", no_argument, NULL, 'f' },
	{ "nooverlap", no_argument, NULL, 'L' },
	{ "help", no_argument, NULL, 'h' },
	{ "associated", required_argument, NULL, 'j' },
	{ "json", no_argument, NULL, 'J' },
	{ "list", no_argument, NULL, 'l' },
	{ "sector-size", required_argument, NULL, 'b' },
	{ "noheadings", no_argument, NULL, 'n' },
	{ "offset", required_argument, NULL, 'o' },
	{ "output", required_argument, NULL, 'O' },
	{ "output-all", no_argument, NULL, OPT_OUTPUT_ALL },
	{ "sizelimit", required_argument, NULL, OPT_SIZELIMIT },
	{ "partscan", no_argument, NULL, 'P' },
	{ "read-only", no_argument, NULL, 'r' },
	{ "direct-io", optional_argument, NULL, OPT_DIO },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "show", no_argument, NULL, OPT_SHOW },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Groups of options that exclude each other, as losetup's */
static const int ls_excl[][7] = {
	{ 'D', 'a', 'c', 'd', 'f', 'j', 0 },
	{ 'D', 'c', 'd', 'f', 'l', 0 },
	{ 'D', 'c', 'd', 'f', 'O', 0 },
	{ 'J', OPT_RAW, 0 },
};

#define LS_SHORTOPTS	":ab:c:d:Dfhj:JlLno:O:PrvV"

/*
 * Whether @arg is one of losetup's options: a short one (the first
 * letter of a cluster) or a long one, in full, with or without "=value"
 */
bool losetup_option(const char *arg)
{
	const struct option *o;
	size_t len;

	if (arg[0] != '-' || !arg[1])
		return false;
	if (arg[1] != '-')
		return arg[1] != ':' && strchr(LS_SHORTOPTS, arg[1]);
	arg += 2;
	len = strcspn(arg, "=");
	for (o = ls_longopts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, arg, len))
			return true;
	return false;
}

static const char *opt_name(int c)
{
	const struct option *o;

	for (o = ls_longopts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

/* 0, or a usage error if @c and an option seen before exclude each other */
static int check_excl(int c, int *seen)
{
	size_t g;
	int i;

	for (g = 0; g < ARRAY_SIZE(ls_excl); g++) {
		for (i = 0; ls_excl[g][i] && ls_excl[g][i] != c; i++)
			;
		if (!ls_excl[g][i])
			continue;
		if (seen[g] && seen[g] != c) {
			fprintf(stderr, "%s: mutually exclusive arguments:",
				prog_name);
			for (i = 0; ls_excl[g][i]; i++)
				fprintf(stderr, " --%s", opt_name(ls_excl[g][i]));
			fputc('\n', stderr);
			return LS_FAIL;
		}
		seen[g] = c;
	}
	return 0;
}

static int opt_error(char **argv, int c)
{
	const char *arg = argv[optind - 1];

	if (c == ':' && arg[0] == '-' && arg[1] == '-')
		return usage_fail("option '%s' requires an argument", arg);
	if (c == ':')
		return usage_fail("option requires an argument -- '%c'", optopt);
	if (optopt)
		return usage_fail("invalid option -- '%c'", optopt);
	return usage_fail("unrecognized option '%s'", arg);
}

/* A device on the command line: /dev/aioloopN or aioloopN */
static int ls_dev(const char *arg, int *idx)
{
	if (strchr(arg, '/') && strncmp(arg, DEV_DIR DEV_NAME,
					strlen(DEV_DIR DEV_NAME)))
		goto bad;
	if (parse_dev(arg, idx) == 0 && (arg[0] == '/' ||
					 !strncmp(arg, DEV_NAME, strlen(DEV_NAME))))
		return 0;
bad:
	errno = ENODEV;
	warnx_("%s: failed to use device: %s", arg, strerror(ENODEV));
	return -1;
}

static int ls_size(const char *arg, const char *what, u64 *v)
{
	if (parse_size(arg, v) == 0)
		return 0;
	warnx_("%s: '%s'", what, arg);
	return -1;
}

/* -O's list: case-insensitive names, comma separated */
static int add_columns(struct ls_opts *o, const char *arg)
{
	const char *p = arg, *e;
	size_t len;
	int i;

	while (*p) {
		e = strchr(p, ',');
		len = e ? (size_t)(e - p) : strlen(p);
		for (i = 0; i < N_LSCOLS; i++)
			if (strlen(ls_cols[i].name) == len &&
			    !strncasecmp(p, ls_cols[i].name, len))
				break;
		if (i == N_LSCOLS) {
			warnx_("unknown column: %.*s", (int)len, p);
			return -1;
		}
		if (o->ncols < (int)ARRAY_SIZE(o->cols))
			o->cols[o->ncols++] = i;
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

/* Returns -1 to go on, or an exit status */
static int parse_options(int argc, char **argv, struct ls_opts *o)
{
	int seen[ARRAY_SIZE(ls_excl)] = { 0 };
	const char *outarg = NULL;
	int c, i;

	memset(o, 0, sizeof(*o));
	o->ao.idx = -1;
	o->idx = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, LS_SHORTOPTS,
				ls_longopts, NULL)) != -1) {
		if (check_excl(c, seen))
			return LS_FAIL;
		switch (c) {
		case 'a':
			o->act = A_SHOW;
			break;
		case 'b':
			o->set_bs = true;
			if (ls_size(optarg, "failed to parse logical block size",
				    &o->ao.block_size))
				return LS_FAIL;
			break;
		case 'c':
			o->act = A_SET_CAPACITY;
			if (ls_dev(optarg, &o->idx))
				return LS_FAIL;
			break;
		case 'd':
			o->act = A_DELETE;
			if (ls_dev(optarg, &o->idx))
				return LS_FAIL;
			break;
		case 'D':
			o->act = A_DELETE_ALL;
			break;
		case 'f':
			o->act = A_FIND_FREE;
			break;
		case 'h':
			usage();
			return LS_OK;
		case 'j':
			o->act = A_SHOW;
			o->file = optarg;
			break;
		case 'J':
			o->out_flags |= OUT_JSON;
			break;
		case 'l':
			o->list = true;
			break;
		case 'L':
			o->nooverlap = true;
			break;
		case 'n':
			o->out_flags |= OUT_NOHEADINGS;
			break;
		case 'o':
			o->has_offset = true;
			if (ls_size(optarg, "failed to parse offset",
				    &o->ao.offset))
				return LS_FAIL;
			break;
		case 'O':
			outarg = optarg;
			o->list = true;
			break;
		case OPT_OUTPUT_ALL:
			o->list = true;
			for (i = 0; i < N_LSCOLS; i++)
				o->cols[i] = i;
			o->ncols = N_LSCOLS;
			break;
		case 'P':
			o->ao.partscan = true;
			break;
		case 'r':
			o->ao.read_only = true;
			break;
		case OPT_RAW:
			o->out_flags |= OUT_RAW;
			break;
		case OPT_SHOW:
			o->show = true;
			break;
		case OPT_SIZELIMIT:
			o->has_sizelimit = true;
			if (ls_size(optarg, "failed to parse size",
				    &o->ao.sizelimit))
				return LS_FAIL;
			break;
		case OPT_DIO:
			o->set_dio = o->use_dio = true;
			if (optarg && !strcmp(optarg, "off"))
				o->use_dio = false;
			else if (optarg && strcmp(optarg, "on")) {
				warnx_("argument error: '%s'", optarg);
				return LS_FAIL;
			}
			break;
		case 'v':
			break;
		case 'V':
			printf("%s from aioloop %s\n", prog_name, VERSION);
			return LS_OK;
		default:
			return opt_error(argv, c);
		}
	}
	if (outarg && add_columns(o, outarg))
		return LS_FAIL;
	return -1;
}

/* The action from what is left on the command line, as losetup decides */
static int pick_action(int argc, char **argv, struct ls_opts *o)
{
	static const int defaults[] = {
		COL_NAME, COL_SIZELIMIT, COL_OFFSET, COL_AUTOCLR, COL_RO,
		COL_BACK_FILE, COL_DIO, COL_LOGSEC,
	};
	bool flags = o->ao.read_only || o->ao.partscan ||
		     (o->set_dio && o->use_dio);
	size_t i;

	if (argc == 1 || (!o->act && argc == 2 &&
			  (o->out_flags & (OUT_RAW | OUT_JSON)))) {
		o->act = A_SHOW;
		o->list = true;
	}
	if (o->list && !o->ncols)
		for (i = 0; i < ARRAY_SIZE(defaults); i++)
			o->cols[o->ncols++] = defaults[i];
	if (o->act == A_FIND_FREE && optind < argc) {
		o->act = A_CREATE;
		o->file = argv[optind++];
		if (optind < argc) {
			warnx_("unexpected arguments");
			return LS_FAIL;
		}
	}
	if (o->list && !o->act && optind == argc)
		o->act = A_SHOW;
	if (!o->act && optind + 1 == argc) {
		if (o->set_dio) {
			o->act = A_SET_DIRECT_IO;
			flags = o->ao.read_only || o->ao.partscan;
		} else if (o->set_bs) {
			o->act = A_SET_BLOCKSIZE;
		} else {
			o->act = A_SHOW_ONE;
		}
		if (ls_dev(argv[optind++], &o->idx))
			return LS_FAIL;
	}
	if (!o->act) {
		o->act = A_CREATE;
		if (optind >= argc) {
			warnx_("no loop device specified");
			return LS_FAIL;
		}
		if (ls_dev(argv[optind++], &o->idx))
			return LS_FAIL;
		if (optind >= argc) {
			warnx_("no file specified");
			return LS_FAIL;
		}
		o->file = argv[optind++];
	}
	if (o->act != A_CREATE && (o->has_sizelimit || flags || o->show)) {
		warnx_("the options --{sizelimit,partscan,read-only,show} are allowed during loop device setup only");
		return LS_FAIL;
	}
	if (o->has_offset && o->act != A_CREATE &&
	    (o->act != A_SHOW || !o->file)) {
		warnx_("the option --offset is not allowed in this context");
		return LS_FAIL;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* output */

/* -a, -j and "DEV": losetup's one line per device */
static void print_line(const struct devinfo *di)
{
	char name[64];

	dev_path(di->idx, name, sizeof(name));
	if (di->have_status)
		printf("%s: [%04lld]:%llu (%s)", name, (long long)di->back_dev,
		       di->back_ino, di->back_file);
	else
		printf("%s: []: (%s)", name, di->back_file);
	if (di->offset)
		printf(", offset %llu", di->offset);
	if (di->sizelimit)
		printf(", sizelimit %llu", di->sizelimit);
	putchar('\n');
}

static int set_cell(struct table *t, int row, int c, int id,
		    const struct devinfo *di)
{
	char name[64];
	dev_t dev;

	switch (id) {
	case COL_NAME:
		dev_path(di->idx, name, sizeof(name));
		return table_set(t, row, c, "%s", name);
	case COL_AUTOCLR:
		return table_set(t, row, c, "%d", di->autoclear);
	case COL_BACK_FILE:
		return di->bound ? table_set(t, row, c, "%s", di->back_file) : 0;
	case COL_BACK_INO:
		return di->have_status && di->back_ino ?
			table_set(t, row, c, "%llu", di->back_ino) : 0;
	case COL_BACK_MAJMIN:
		dev = (dev_t)di->back_dev;
		return di->have_status && dev ?
			table_set(t, row, c, "%8u:%-3u", major(dev),
				  minor(dev)) : 0;
	case COL_MAJMIN:
		return di->major || di->minor ?
			table_set(t, row, c, "%3u:%-3u", di->major,
				  di->minor) : 0;
	case COL_OFFSET:
		return di->bound ? table_set(t, row, c, "%llu", di->offset) : 0;
	case COL_PARTSCAN:
		return table_set(t, row, c, "%d", di->partscan);
	case COL_RO:
		return table_set(t, row, c, "%d", di->ro);
	case COL_SIZELIMIT:
		return di->bound ?
			table_set(t, row, c, "%llu", di->sizelimit) : 0;
	case COL_DIO:
		return table_set(t, row, c, "%d", di->dio);
	case COL_LOGSEC:
		return table_set(t, row, c, "%u", di->log_sec);
	}
	return 0;
}

/* The devices of a table, and its columns */
struct ls_rows {
	const struct ls_opts *o;
	const struct devinfo *di;
};

static int ls_cell(struct table *t, int row, int c, const void *ctx)
{
	const struct ls_rows *r = ctx;

	return set_cell(t, row, c, r->o->cols[c], &r->di[row]);
}

static int print_table(const struct ls_opts *o, const struct devinfo *di,
		       int n)
{
	const struct col *cols[ARRAY_SIZE(o->cols)];
	struct ls_rows rows = { o, di };
	struct table t;
	int c, rc = LS_OK;

	for (c = 0; c < o->ncols; c++)
		cols[c] = &ls_cols[o->cols[c]];
	table_init(&t, cols, o->ncols);
	if (table_fill(&t, n, ls_cell, &rows)) {
		err_msg(ENOMEM, "output");
		rc = LS_FAIL;
	} else {
		table_print(&t, o->out_flags, "loopdevices");
	}
	table_free(&t);
	return rc;
}

/* ------------------------------------------------------------------ */
/* actions */

/* A file as -j and -L look for it: its path, real path and inode */
struct file_id {
	const char *path;
	char *real;		/* NULL if it does not resolve */
	struct stat st;
	bool have_st;
};

static void file_id_init(struct file_id *f, const char *path)
{
	f->path = path;
	f->real = realpath(path, NULL);
	f->have_st = stat(path, &f->st) == 0;
}

/* Is @di backed by @f (the same inode, or the same path)? */
static bool backed_by(const struct devinfo *di, const struct file_id *f)
{
	if (f->have_st && di->have_status && di->back_ino == f->st.st_ino &&
	    (dev_t)di->back_dev == f->st.st_dev)
		return true;
	return !strcmp(di->back_file, f->path) ||
	       (f->real && !strcmp(di->back_file, f->real));
}

static int show(const struct ls_opts *o)
{
	int n, i, kept = 0, rc = LS_OK;
	struct devinfo *di;
	struct file_id f;

	n = list_bound(&di);
	if (n < 0)
		return LS_FAIL;
	if (o->file)
		file_id_init(&f, o->file);
	for (i = 0; i < n; i++) {
		if (o->file && (!backed_by(&di[i], &f) ||
				(o->has_offset && di[i].offset != o->ao.offset)))
			continue;
		di[kept++] = di[i];
	}
	if (o->file)
		free(f.real);
	if (o->list)
		rc = print_table(o, di, kept);
	else
		for (i = 0; i < kept; i++)
			print_line(&di[i]);
	free(di);
	return rc;
}

static int show_one(const struct ls_opts *o)
{
	struct devinfo di;
	char name[64];
	int bound;

	dev_path(o->idx, name, sizeof(name));
	if (access(name, F_OK)) {
		warnx_("%s: %s", name, strerror(errno));
		return LS_FAIL;
	}
	bound = read_devinfo(o->idx, &di) == 0;
	if (o->list)
		return print_table(o, &di, 1);
	if (!bound) {
		/* losetup: the missing loop/backing_file */
		warnx_("%s: %s", name, strerror(ENOENT));
		return LS_FAIL;
	}
	print_line(&di);
	return LS_OK;
}

/*
 * -L: 2 if a device has the same range of the file (its index in *idx),
 * else 1 if an attached range of the file overlaps, 0 if none; -1 on
 * error. A device with the same range wins wherever it comes in the list
 * (losetup takes the first one it meets in /sys/block's order).
 */
static int find_overlap(const struct ls_opts *o, int *idx)
{
	const struct attach_opts *ao = &o->ao;
	int n, i, same = -1, overlap = 0;
	struct devinfo *di;
	struct file_id f;
	u64 end, dend;

	file_id_init(&f, o->file);
	if (!f.have_st) {
		free(f.real);
		return 0;
	}
	n = list_bound(&di);
	if (n < 0) {
		free(f.real);
		return -1;
	}
	end = ao->sizelimit ? ao->offset + ao->sizelimit : ~0ULL;
	for (i = 0; i < n; i++) {
		if (!backed_by(&di[i], &f))
			continue;
		dend = di[i].sizelimit ? di[i].offset + di[i].sizelimit :
					 ~0ULL;
		if (di[i].offset >= end || ao->offset >= dend)
			continue;
		if (di[i].offset == ao->offset &&
		    di[i].sizelimit == ao->sizelimit && same < 0)
			same = i;
		else
			overlap = 1;
	}
	if (same >= 0) {
		*idx = di[same].idx;
		if (di[same].ro && !ao->read_only) {
			warnx_("%s: overlapping read-only loop device exists",
			       o->file);
			same = -2;
		}
	}
	free(di);
	free(f.real);
	if (same == -2)
		return -1;
	if (same >= 0)
		return 2;
	if (overlap)
		warnx_("%s: overlapping loop device exists", o->file);
	return overlap;
}

/* -L found the same range attached: use that device, without autoclear */
static int reuse(int idx, const char *file)
{
	struct loop_info64 info;
	int fd, rc = -1;

	fd = open_dev(idx, O_RDONLY, false);
	if (fd < 0)
		return -1;
	if (ioctl(fd, LOOP_GET_STATUS64, &info) == 0) {
		info.lo_flags &= ~LO_FLAGS_AUTOCLEAR;
		rc = ioctl(fd, LOOP_SET_STATUS64, &info);
	}
	close(fd);
	if (rc)
		warnx_("%s: failed to re-use loop device", file);
	return rc;
}

static void warn_size(const struct ls_opts *o)
{
	u64 size = o->ao.sizelimit;
	struct stat st;

	if (!size) {
		if (stat(o->file, &st) || S_ISBLK(st.st_mode))
			return;
		size = (u64)st.st_size - o->ao.offset;
	}
	if (size < 512)
		warnx_("%s: Warning: file is smaller than 512 bytes; the loop device may be useless or invisible for system tools.",
		       o->file);
	else if (size % 512)
		warnx_("%s: Warning: file does not fit into a 512-byte sector; the end of the file will be ignored.",
		       o->file);
}

static int create(struct ls_opts *o)
{
	enum attach_stage stage;
	char name[64];
	int rc, idx = o->idx;

	if (o->nooverlap) {
		rc = find_overlap(o, &idx);
		if (rc == 1 || rc < 0)
			return LS_FAIL;
		if (rc == 2) {
			if (o->idx >= 0 && o->idx != idx) {
				warnx_("%s: overlapping loop device exists",
				       o->file);
				return LS_FAIL;
			}
			if (reuse(idx, o->file))
				return LS_FAIL;
			goto done;
		}
	}
	o->ao.file = o->file;
	o->ao.idx = o->idx;
	/* as losetup: a file that cannot be written is attached read-only */
	o->ao.ro_fallback = true;
	o->ao.no_dio = o->set_dio && !o->use_dio;
	rc = attach_device(&o->ao, &idx, &stage);
	if (rc) {
		dev_path(o->idx, name, sizeof(name));
		warnx_("%s: failed to set up loop device: %s",
		       stage == AT_CONFIGURE && o->idx >= 0 && rc == -ENOENT ?
		       name : o->file, strerror(-rc));
		return LS_FAIL;
	}
done:
	if (o->show) {
		dev_path(idx, name, sizeof(name));
		printf("%s\n", name);
	}
	warn_size(o);
	return LS_OK;
}

/* An ioctl on DEV, with losetup's message on failure */
static int dev_op(int idx, unsigned long req, unsigned long arg,
		  const char *what)
{
	char name[64];
	int fd, e;

	dev_path(idx, name, sizeof(name));
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		warnx_("%s: %s failed: %s", name, what, strerror(errno));
		return LS_FAIL;
	}
	if (ioctl(fd, req, arg) == 0) {
		close(fd);
		return LS_OK;
	}
	e = errno;
	close(fd);
	warnx_("%s: %s failed: %s", name, what, strerror(e));
	return LS_FAIL;
}

static int delete(int argc, char **argv, const struct ls_opts *o)
{
	int rc, idx;

	rc = dev_op(o->idx, LOOP_CLR_FD, 0, "detach");
	while (optind < argc) {
		if (ls_dev(argv[optind++], &idx))
			return LS_FAIL;
		rc |= dev_op(idx, LOOP_CLR_FD, 0, "detach");
	}
	return rc;
}

static int delete_all(void)
{
	struct devinfo *di;
	int n, i, rc = LS_OK;

	n = list_bound(&di);
	if (n < 0)
		return LS_FAIL;
	for (i = 0; i < n; i++)
		rc |= dev_op(di[i].idx, LOOP_CLR_FD, 0, "detach");
	free(di);
	return rc;
}

static int find_free(void)
{
	int ctl, idx;

	ctl = open(CTL_PATH, O_RDWR | O_CLOEXEC);
	idx = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (idx < 0) {
		warnx_("cannot find an unused loop device: %s",
		       strerror(errno));
		if (ctl >= 0)
			close(ctl);
		return LS_FAIL;
	}
	close(ctl);
	printf(DEV_DIR DEV_NAME "%d\n", idx);
	return LS_OK;
}

int losetup_main(int argc, char **argv)
{
	struct ls_opts o;
	int rc;

	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	rc = pick_action(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (require_module())
		return LS_FAIL;

	switch (o.act) {
	case A_CREATE:
		return create(&o);
	case A_DELETE:
		return delete(argc, argv, &o);
	case A_DELETE_ALL:
		return delete_all();
	case A_FIND_FREE:
		return find_free();
	case A_SHOW:
		return show(&o);
	case A_SHOW_ONE:
		return show_one(&o);
	case A_SET_CAPACITY:
		return dev_op(o.idx, LOOP_SET_CAPACITY, 0, "set capacity");
	case A_SET_DIRECT_IO:
		return dev_op(o.idx, LOOP_SET_DIRECT_IO, o.use_dio,
			      "set direct io");
	case A_SET_BLOCKSIZE:
		return dev_op(o.idx, LOOP_SET_BLOCK_SIZE,
			      (unsigned long)o.ao.block_size,
			      "set logical block size");
	default:
		warnx_("bad usage");
		return usage_fail(NULL);
	}
}
