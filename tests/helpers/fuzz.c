// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz - bounded random ioctl fuzzer for aioloop devices and the control
 * node.
 *
 *   fuzz [-s SEED] [-n ITERATIONS] [-t SECONDS] [-p PROCS] [-v]
 *        [-d DEVPREFIX] [-D NDEVS] [-c CONTROL] -f FILE [-f FILE]...
 *
 * Each iteration picks a target (one of /dev/<DEVPREFIX>0..NDEVS-1, or
 * the control node), a command (a LOOP_* ioctl, a number next to one, or
 * a random number) and an argument (random struct loop_info64 /
 * loop_config contents with interesting offsets, sizes, flags and block
 * sizes, good and bad file descriptors, bad pointers). Now and then it
 * reads or writes a block of a device, or closes and reopens one, so that
 * strange configurations see I/O and the last-close path runs.
 *
 * The seed is printed first; the same seed, options and initial state
 * replay the same sequence (with -p 1). Process i of -p N uses SEED + i.
 *
 * A few results are checked, since they hold whatever the input:
 *  - an unknown command on a device fails with ENOTTY, on the control
 *    node with ENOSYS (loop's values);
 *  - a successful configuring device ioctl returns 0; a successful
 *    LOOP_CTL_ADD of index N returns N;
 *  - a LOOP_CONFIGURE / LOOP_SET_STATUS(64) whose argument pointer is bad
 *    fails with EFAULT (with CAP_SYS_ADMIN);
 *  - no errno outside the set the loop interface can return.
 * Exit status: 0 if no check failed, 1 if one did, 2 on setup errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <linux/loop.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_FILES	16
#define MAX_DEVS	32
#define BUF_SIZE	65536
#define CTL_MAX_INDEX	32	/* indices used with LOOP_CTL_ADD/REMOVE */

typedef uint64_t u64;
typedef uint32_t u32;

/* ---- options and state ----------------------------------------------- */

static u64 opt_seed;
static long opt_iter = 20000;
static long opt_secs = 0;
static int opt_procs = 1;
static int opt_verbose;
static const char *opt_prefix = "/dev/aioloop";
static int opt_ndevs = 4;
static const char *opt_ctl = "/dev/aioloop-control";
static const char *files[MAX_FILES];
static int nfiles;

static u64 rng;
static int dev_fd[MAX_DEVS];
static int ctl_fd = -1;
static int file_fd[MAX_FILES][3];	/* read-write, read-only, write-only */
static off_t file_size[MAX_FILES];
static int dir_fd = -1, null_fd = -1, pipe_fd[2] = { -1, -1 };
static unsigned char *buf;		/* argument buffer */
static unsigned char *iobuf;		/* aligned I/O buffer */
static unsigned char *guard;		/* PROT_NONE page */

/* statistics */
static long n_ioctl, n_ok, n_io, n_reopen, n_bad;
static long n_err[512];
static long n_cmd_ok[16];	/* successes of loop's commands */

/* what the last LOOP_CONFIGURE was asked for (for the checks) */
static int cfg_which;
static struct loop_config cfg_sent;

/* ---- random numbers --------------------------------------------------- */

static u64 rnd64(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static u32 rnd(u32 n)
{
	return n ? (u32)(rnd64() % n) : 0;
}

static bool chance(u32 percent)
{
	return rnd(100) < percent;
}

static void rnd_bytes(void *p, size_t n)
{
	unsigned char *c = p;

	while (n--)
		*c++ = (unsigned char)rnd64();
}

/* ---- helpers ------------------------------------------------------------ */

static void die(const char *what)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, strerror(errno));
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void dev_path(int i, char *p, size_t n)
{
	snprintf(p, n, "%s%d", opt_prefix, i);
}

static void open_dev(int i)
{
	char p[64];

	dev_path(i, p, sizeof(p));
	dev_fd[i] = open(p, O_RDWR | O_CLOEXEC);
	if (dev_fd[i] < 0)
		dev_fd[i] = open(p, O_RDONLY | O_CLOEXEC);
}

static void close_dev(int i)
{
	if (dev_fd[i] >= 0)
		close(dev_fd[i]);
	dev_fd[i] = -1;
}

/* errnos the loop interface (and the block layer around it) may return */
static bool errno_expected(int e)
{
	switch (e) {
	case EPERM: case ENXIO: case EBADF: case ENOMEM: case EACCES:
	case EFAULT: case EBUSY: case EEXIST: case ENODEV: case EINVAL:
	case ENOTTY: case EFBIG: case ENOSPC: case EROFS: case EOVERFLOW:
	case ENOSYS: case EIO: case EAGAIN: case EINTR: case EOPNOTSUPP:
	case ENOTBLK: case ENOENT: case ELOOP:
		return true;
	default:
		return false;
	}
}

static void bad(const char *fmt, const char *tgt, unsigned long cmd,
		unsigned long arg, long ret, int err)
{
	n_bad++;
	printf("fuzz: CHECK FAILED: %s on %s cmd %#lx arg %#lx: ret %ld (%s)\n",
	       fmt, tgt, cmd, arg, ret, ret < 0 ? strerror(err) : "ok");
	fflush(stdout);
}

/* ---- arguments ---------------------------------------------------------- */

static u64 interesting_u64(off_t fsize)
{
	static const u64 v[] = {
		0, 1, 511, 512, 513, 4095, 4096, 4097, 65536, 1 << 20,
		1ULL << 31, 1ULL << 32, 1ULL << 40, (1ULL << 63) - 1,
		1ULL << 63, ~0ULL, ~0ULL - 511,
	};

	switch (rnd(5)) {
	case 0:
		return rnd64();
	case 1:
		return fsize;
	case 2:
		return fsize > 512 ? (u64)fsize - 512 * (1 + rnd(4)) : 0;
	case 3:
		return (u64)rnd(fsize > 0 ? (u32)(fsize >> 9) : 1) << 9;
	default:
		return v[rnd(ARRAY_SIZE(v))];
	}
}

static u32 interesting_bsize(void)
{
	static const u32 v[] = {
		0, 512, 1024, 2048, 4096, 8192, 65536, 1, 100, 511, 513, 1000,
		1536, 3000, 4095, 4097, 0x80000000u, 0xffffffffu, 256,
	};

	return chance(20) ? (u32)rnd64() : v[rnd(ARRAY_SIZE(v))];
}

static u32 interesting_flags(void)
{
	static const u32 f[] = {
		LO_FLAGS_READ_ONLY, LO_FLAGS_AUTOCLEAR, LO_FLAGS_PARTSCAN,
		LO_FLAGS_DIRECT_IO, 2, 32, 0x80000000u,
	};
	u32 v = 0;
	size_t i;

	if (chance(15))
		return (u32)rnd64();
	for (i = 0; i < ARRAY_SIZE(f); i++)
		if (chance(i < 4 ? 30 : 5))
			v |= f[i];
	/* autoclear and partscan less often: they detach and rescan */
	if ((v & LO_FLAGS_AUTOCLEAR) && chance(50))
		v &= ~LO_FLAGS_AUTOCLEAR;
	return v;
}

/* A file descriptor for LOOP_SET_FD / LOOP_CHANGE_FD / loop_config.fd */
static int pick_fd(int *which)
{
	int k = rnd(100);

	*which = -1;
	if (k < 55 && nfiles) {
		int i = rnd(nfiles);

		*which = i;
		return file_fd[i][chance(10) ? 2 : chance(40)];
	}
	if (k < 70)
		return dev_fd[rnd(opt_ndevs)];	/* chains, itself */
	switch (rnd(9)) {
	case 0: return -1;
	case 1: return dir_fd;
	case 2: return null_fd;
	case 3: return pipe_fd[rnd(2)];
	case 4: return ctl_fd;
	case 5: return 999;		/* not open */
	case 6: return (int)rnd64();
	case 7: return 0x7fffffff;
	default: return 0;
	}
}

static off_t fd_size(int which)
{
	return which >= 0 ? file_size[which] : (off_t)1 << 24;
}

static void fill_info64(struct loop_info64 *info, off_t fsize)
{
	rnd_bytes(info, sizeof(*info));
	if (chance(80)) {
		info->lo_encrypt_type = chance(95) ? 0 : rnd(20);
		info->lo_encrypt_key_size = chance(95) ? 0 : rnd(64);
	}
	if (chance(85))
		info->lo_offset = chance(40) ? 0 : interesting_u64(fsize);
	if (chance(85))
		info->lo_sizelimit = chance(40) ? 0 : interesting_u64(fsize);
	if (chance(85))
		info->lo_flags = interesting_flags();
	if (chance(60)) {
		/* a NUL-terminated name, else 64 random bytes */
		memset(info->lo_file_name, 0, LO_NAME_SIZE);
		snprintf((char *)info->lo_file_name, LO_NAME_SIZE, "fuzz-%u",
			 rnd(1000));
	}
}

static void fill_info_old(struct loop_info *info, off_t fsize)
{
	rnd_bytes(info, sizeof(*info));
	if (chance(80)) {
		info->lo_encrypt_type = 0;
		info->lo_encrypt_key_size = 0;
	}
	if (chance(85))
		info->lo_offset = chance(40) ? 0 : (int)interesting_u64(fsize);
	if (chance(85))
		info->lo_flags = (int)interesting_flags();
}

/*
 * A pointer argument: mostly our buffer filled for @cmd, sometimes a bad
 * one. *good tells whether it is a valid, readable and writable buffer.
 */
static unsigned long pick_ptr(bool *good)
{
	static const unsigned long badp[] = {
		0, 1, 4095, 0xffffffffff600000UL, 0xffff888000000000UL,
		0xffffffff81000000UL, 0x00007ffffffff000UL,
	};

	*good = true;
	if (chance(88))
		return (unsigned long)buf;
	*good = false;
	if (chance(30))
		return (unsigned long)guard;
	if (chance(20))	/* structure crossing into the PROT_NONE page */
		return (unsigned long)guard - 8;
	if (chance(20))
		return rnd64();
	return badp[rnd(ARRAY_SIZE(badp))];
}

/* ---- the commands ------------------------------------------------------- */

static const unsigned long dev_cmds[] = {
	LOOP_CONFIGURE, LOOP_CONFIGURE, LOOP_SET_FD,	/* bind more often */
	LOOP_SET_FD, LOOP_CLR_FD, LOOP_SET_STATUS, LOOP_GET_STATUS,
	LOOP_SET_STATUS64, LOOP_GET_STATUS64, LOOP_CHANGE_FD,
	LOOP_SET_CAPACITY, LOOP_SET_DIRECT_IO, LOOP_SET_BLOCK_SIZE,
	LOOP_CONFIGURE,
};

static const unsigned long ctl_cmds[] = {
	LOOP_CTL_ADD, LOOP_CTL_REMOVE, LOOP_CTL_GET_FREE,
};

static bool is_dev_cmd(unsigned long c)
{
	return c >= LOOP_SET_FD && c <= LOOP_CONFIGURE;
}

static bool is_ctl_cmd(unsigned long c)
{
	return c >= LOOP_CTL_ADD && c <= LOOP_CTL_GET_FREE;
}

/*
 * Types whose commands the block layer serves itself (some destructive:
 * BLKDISCARD, BLKPG...) or that name other drivers: not sent at random.
 */
static bool generic_type(unsigned long c)
{
	unsigned int type = (c >> 8) & 0xff;

	return type == 0x12 || type == 0x03 || type == 'p' || type == 'X' ||
	       type == 'f' || type == 0x94 || type == 0x00 || type == 'T';
}

static unsigned long pick_cmd(bool ctl)
{
	unsigned long c;
	int k = rnd(100);

	if (k < 75)
		return ctl ? ctl_cmds[rnd(ARRAY_SIZE(ctl_cmds))] :
			     dev_cmds[rnd(ARRAY_SIZE(dev_cmds))];
	if (k < 80)	/* the other node's commands */
		return ctl ? dev_cmds[rnd(ARRAY_SIZE(dev_cmds))] :
			     ctl_cmds[rnd(ARRAY_SIZE(ctl_cmds))];
	if (k < 92) {	/* nearby numbers, also with _IOC bits */
		c = 0x4C00 + rnd(256);
		if (chance(30))
			c |= (unsigned long)(rnd(4)) << 30 |
			     (unsigned long)rnd(0x400) << 16;
		return c;
	}
	do {
		c = (u32)rnd64();
	} while (generic_type(c) || is_dev_cmd(c) || is_ctl_cmd(c));
	return c;
}

/* Argument for @cmd; *ptr_good is false when a bad pointer was chosen. */
static unsigned long make_arg(unsigned long cmd, bool *is_ptr,
			      bool *ptr_good)
{
	struct loop_config *cfg = (struct loop_config *)buf;
	int which;
	int fd;

	*is_ptr = false;
	*ptr_good = true;
	switch (cmd) {
	case LOOP_SET_FD:
	case LOOP_CHANGE_FD:
		return (unsigned long)(unsigned int)pick_fd(&which);
	case LOOP_CLR_FD:
	case LOOP_SET_CAPACITY:
	case LOOP_CTL_GET_FREE:
		return chance(90) ? 0 : rnd64();
	case LOOP_SET_DIRECT_IO:
		return chance(85) ? rnd(2) : rnd64();
	case LOOP_SET_BLOCK_SIZE:
		return chance(90) ? interesting_bsize() : rnd64();
	case LOOP_CTL_ADD:
	case LOOP_CTL_REMOVE:
		if (chance(85))
			return rnd(CTL_MAX_INDEX);
		switch (rnd(4)) {
		case 0: return (unsigned long)-1L;
		case 1: return 1UL << 20;	/* past MINORBITS */
		case 2: return (unsigned long)(int)rnd64();
		default: return rnd64();
		}
	case LOOP_CONFIGURE:
		*is_ptr = true;
		memset(cfg, 0, sizeof(*cfg));
		fd = pick_fd(&which);
		fill_info64(&cfg->info, fd_size(which));
		cfg->fd = (u32)fd;
		cfg->block_size = chance(50) ? 0 : interesting_bsize();
		if (chance(10))
			rnd_bytes(cfg->__reserved, sizeof(cfg->__reserved));
		cfg_which = which;
		cfg_sent = *cfg;
		return pick_ptr(ptr_good);
	case LOOP_SET_STATUS64:
		*is_ptr = true;
		fill_info64((struct loop_info64 *)buf,
			    file_size[nfiles ? rnd(nfiles) : 0]);
		return pick_ptr(ptr_good);
	case LOOP_SET_STATUS:
		*is_ptr = true;
		fill_info_old((struct loop_info *)buf,
			      file_size[nfiles ? rnd(nfiles) : 0]);
		return pick_ptr(ptr_good);
	case LOOP_GET_STATUS:
	case LOOP_GET_STATUS64:
		*is_ptr = true;
		return pick_ptr(ptr_good);
	default:
		rnd_bytes(buf, 256);
		switch (rnd(3)) {
		case 0:
			return rnd64();
		case 1:
			return rnd(65536);
		default:
			*is_ptr = true;
			return pick_ptr(ptr_good);
		}
	}
}

/* ---- checks after a successful configuration ------------------------- */

/*
 * With one process nothing else changes the device in between: what
 * LOOP_GET_STATUS64 and the size report must follow from what was set.
 */
static void check_status(int dev, unsigned long cmd, const char *tgt,
			 const struct loop_info64 *want, bool configure)
{
	struct loop_info64 got;
	u64 size, expect, avail;
	u32 bs;

	memset(&got, 0, sizeof(got));
	if (ioctl(dev_fd[dev], LOOP_GET_STATUS64, &got) < 0) {
		bad("LOOP_GET_STATUS64 fails after success", tgt, cmd, 0, -1,
		    errno);
		return;
	}
	if (got.lo_offset != want->lo_offset ||
	    got.lo_sizelimit != want->lo_sizelimit) {
		printf("fuzz: offset %llu/%llu sizelimit %llu/%llu\n",
		       (unsigned long long)got.lo_offset,
		       (unsigned long long)want->lo_offset,
		       (unsigned long long)got.lo_sizelimit,
		       (unsigned long long)want->lo_sizelimit);
		bad("LOOP_GET_STATUS64 disagrees with what was set", tgt, cmd,
		    0, 0, 0);
	}
	if (strnlen((const char *)got.lo_file_name, LO_NAME_SIZE) >=
	    LO_NAME_SIZE)
		bad("lo_file_name not NUL-terminated", tgt, cmd, 0, 0, 0);
	if ((int)got.lo_number != dev)
		bad("lo_number is not the device's", tgt, cmd, 0, 0, 0);
	if (configure && (want->lo_flags & LO_FLAGS_READ_ONLY) &&
	    !(got.lo_flags & LO_FLAGS_READ_ONLY))
		bad("LO_FLAGS_READ_ONLY asked for, not set", tgt, cmd, 0, 0, 0);

	/* the size, when the backing file and block size are known */
	bs = cfg_sent.block_size;
	if (!configure || cfg_which < 0 || !bs)
		return;
	if (ioctl(dev_fd[dev], BLKGETSIZE64, &size) < 0)
		return;
	avail = (u64)file_size[cfg_which] > want->lo_offset ?
		(u64)file_size[cfg_which] - want->lo_offset : 0;
	if (want->lo_sizelimit && want->lo_sizelimit < avail)
		avail = want->lo_sizelimit;
	expect = avail / bs * bs;
	if (size != expect) {
		printf("fuzz: size %llu, expected %llu (file %jd offset %llu "
		       "sizelimit %llu bs %u)\n", (unsigned long long)size,
		       (unsigned long long)expect,
		       (intmax_t)file_size[cfg_which],
		       (unsigned long long)want->lo_offset,
		       (unsigned long long)want->lo_sizelimit, bs);
		bad("device size", tgt, cmd, 0, 0, 0);
	}
}

/* ---- one step ----------------------------------------------------------- */

static void do_io(void)
{
	int i = rnd(opt_ndevs);
	int fd = dev_fd[i];
	off_t off;
	size_t len;
	ssize_t r;

	if (fd < 0)
		return;
	n_io++;
	off = (off_t)rnd(1 << 15) << 9;	/* within 16 MiB, past small devices */
	len = (size_t)(1 + rnd(16)) << 9;
	if (chance(70)) {
		r = pread(fd, iobuf, len, off);
	} else {
		rnd_bytes(iobuf, len);
		r = pwrite(fd, iobuf, len, off);
	}
	if (opt_verbose > 1)
		printf("io dev%d off %jd len %zu: %zd\n", i, (intmax_t)off,
		       len, r);
}

static void step(void)
{
	bool ctl = chance(15);
	int dev = rnd(opt_ndevs);
	int fd = ctl ? ctl_fd : dev_fd[dev];
	unsigned long cmd, arg;
	bool is_ptr, ptr_good;
	char tgt[64];
	long ret;
	int err;

	if (chance(4)) {
		do_io();
		return;
	}
	if (chance(2)) {
		/* close (last close: autoclear) and reopen */
		n_reopen++;
		close_dev(dev);
		open_dev(dev);
		return;
	}
	if (ctl)
		snprintf(tgt, sizeof(tgt), "%s", opt_ctl);
	else
		dev_path(dev, tgt, sizeof(tgt));

	cmd = pick_cmd(ctl);
	arg = make_arg(cmd, &is_ptr, &ptr_good);
	if (fd < 0)
		return;
	n_ioctl++;
	errno = 0;
	ret = ioctl(fd, cmd, arg);
	err = errno;
	if (opt_verbose)
		printf("%s cmd %#lx arg %#lx -> %ld %s\n", tgt, cmd, arg, ret,
		       ret < 0 ? strerror(err) : "");

	if (ret >= 0) {
		n_ok++;
		if (!ctl && is_dev_cmd(cmd))
			n_cmd_ok[cmd - LOOP_SET_FD]++;
		else if (ctl && is_ctl_cmd(cmd))
			n_cmd_ok[11 + cmd - LOOP_CTL_ADD]++;
	} else {
		n_err[err >= 0 && err < 512 ? err : 0]++;
		if (!errno_expected(err))
			bad("unexpected errno", tgt, cmd, arg, ret, err);
	}

	if (!ctl) {
		if (!is_dev_cmd(cmd) && !(ret < 0 && err == ENOTTY) &&
		    (cmd >> 8 & 0xff) == 0x4C)
			bad("unknown command not ENOTTY", tgt, cmd, arg, ret,
			    err);
		else if (is_dev_cmd(cmd) && cmd != LOOP_GET_STATUS &&
			 cmd != LOOP_GET_STATUS64 && ret > 0)
			bad("positive return", tgt, cmd, arg, ret, err);
		if ((cmd == LOOP_CONFIGURE || cmd == LOOP_SET_STATUS64 ||
		     cmd == LOOP_SET_STATUS) && is_ptr && !ptr_good &&
		    !(ret < 0 && err == EFAULT))
			bad("bad pointer not EFAULT", tgt, cmd, arg, ret, err);
		if (!is_dev_cmd(cmd) && (cmd >> 8 & 0xff) != 0x4C && ret >= 0)
			bad("random command succeeded", tgt, cmd, arg, ret, err);
		if (opt_procs == 1 && ret == 0 && cmd == LOOP_CONFIGURE)
			check_status(dev, cmd, tgt, &cfg_sent.info, true);
		if (opt_procs == 1 && ret == 0 && cmd == LOOP_SET_STATUS64)
			check_status(dev, cmd, tgt, (struct loop_info64 *)buf,
				     false);
	} else {
		if (!is_ctl_cmd(cmd) && (cmd >> 8 & 0xff) == 0x4C &&
		    !(ret < 0 && (err == ENOSYS || err == ENOTTY)))
			bad("unknown control command not ENOSYS", tgt, cmd,
			    arg, ret, err);
		if (cmd == LOOP_CTL_ADD && ret >= 0 && (long)(int)arg >= 0 &&
		    ret != (long)(int)arg)
			bad("LOOP_CTL_ADD returned another index", tgt, cmd,
			    arg, ret, err);
	}
}

/* ---- setup -------------------------------------------------------------- */

static void setup(void)
{
	int i;

	buf = mmap(NULL, BUF_SIZE + 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	guard = buf + BUF_SIZE;
	if (mprotect(guard, 4096, PROT_NONE))
		die("mprotect");
	if (posix_memalign((void **)&iobuf, 4096, 16 * 512))
		die("posix_memalign");

	for (i = 0; i < nfiles; i++) {
		struct stat st;

		file_fd[i][0] = open(files[i], O_RDWR | O_CLOEXEC);
		file_fd[i][1] = open(files[i], O_RDONLY | O_CLOEXEC);
		file_fd[i][2] = open(files[i], O_WRONLY | O_CLOEXEC);
		if (file_fd[i][0] < 0 || file_fd[i][1] < 0 || file_fd[i][2] < 0 ||
		    fstat(file_fd[i][1], &st))
			die(files[i]);
		file_size[i] = st.st_size;
	}
	for (i = 0; i < opt_ndevs; i++)
		open_dev(i);
	ctl_fd = open(opt_ctl, O_RDWR | O_CLOEXEC);
	if (ctl_fd < 0)
		die(opt_ctl);
	dir_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (pipe(pipe_fd))
		die("pipe");
}

static const char *const cmd_names[14] = {
	"SET_FD", "CLR_FD", "SET_STATUS", "GET_STATUS", "SET_STATUS64",
	"GET_STATUS64", "CHANGE_FD", "SET_CAPACITY", "SET_DIRECT_IO",
	"SET_BLOCK_SIZE", "CONFIGURE", "CTL_ADD", "CTL_REMOVE", "CTL_GET_FREE",
};

static int run(u64 seed, int id)
{
	double t0 = now();
	long i;
	int e;

	rng = seed ? seed : 0x9E3779B97F4A7C15ULL;
	setup();
	for (i = 0; i < opt_iter; i++) {
		if (opt_secs && (i & 63) == 0 && now() - t0 > opt_secs)
			break;
		step();
	}
	for (e = 0; e < opt_ndevs; e++)
		close_dev(e);

	printf("fuzz[%d]: seed %" PRIu64 ": %ld iterations in %.1fs: %ld ioctls "
	       "(%ld ok), %ld I/Os, %ld reopens; errors:", id, seed, i,
	       now() - t0, n_ioctl, n_ok, n_io, n_reopen);
	for (e = 0; e < 512; e++)
		if (n_err[e])
			printf(" %s=%ld", e ? strerrorname_np(e) ?: "?" : "?",
			       n_err[e]);
	printf("\nfuzz[%d]: succeeded:", id);
	for (e = 0; e < 14; e++)
		printf(" %s=%ld", cmd_names[e], n_cmd_ok[e]);
	printf("\nfuzz[%d]: %ld check(s) failed\n", id, n_bad);
	fflush(stdout);
	return n_bad ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fuzz [-s SEED] [-n ITERATIONS] [-t SECONDS] [-p PROCS] "
		"[-v] [-d DEVPREFIX] [-D NDEVS] [-c CONTROL] -f FILE...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c, i, rc = 0, st;

	opt_seed = (u64)time(NULL) ^ ((u64)getpid() << 16);
	while ((c = getopt(argc, argv, "s:n:t:p:vd:D:c:f:")) != -1) {
		switch (c) {
		case 's': opt_seed = strtoull(optarg, NULL, 0); break;
		case 'n': opt_iter = strtol(optarg, NULL, 0); break;
		case 't': opt_secs = strtol(optarg, NULL, 0); break;
		case 'p': opt_procs = atoi(optarg); break;
		case 'v': opt_verbose++; break;
		case 'd': opt_prefix = optarg; break;
		case 'D': opt_ndevs = atoi(optarg); break;
		case 'c': opt_ctl = optarg; break;
		case 'f':
			if (nfiles == MAX_FILES)
				usage();
			files[nfiles++] = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || opt_ndevs < 1 || opt_ndevs > MAX_DEVS ||
	    opt_procs < 1 || opt_procs > 16 || !nfiles)
		usage();
	for (i = 0; i < MAX_DEVS; i++)
		dev_fd[i] = -1;
	signal(SIGPIPE, SIG_IGN);

	printf("fuzz: seed %" PRIu64 ", %ld iterations, %d process(es)%s\n",
	       opt_seed, opt_iter, opt_procs, opt_secs ? ", time limit" : "");
	fflush(stdout);
	if (opt_procs == 1)
		return run(opt_seed, 0);

	for (i = 0; i < opt_procs; i++) {
		pid_t p = fork();

		if (p < 0)
			die("fork");
		if (!p)
			exit(run(opt_seed + i, i));
	}
	for (i = 0; i < opt_procs; i++) {
		if (wait(&st) < 0)
			die("wait");
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = WIFEXITED(st) && WEXITSTATUS(st) == 1 ? 1 : 2;
	}
	return rc;
}
