// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The only module that opens, reads and writes kernel files.  Every path is
 * relative to the context root and confined below its top directory (sys/,
 * proc/, dev/) by beneath.c (openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * or the same walk in user space): sysfs is full of relative symlinks, which
 * stay allowed, but nothing resolves outside.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include "perftune.h"
#include "macro.h"
#include "shared/cpulist.h"
#include "shared/kmod.h"
#include "shared/util.h"
#include "io/attr.h"
#include "io/parallel.h"
#include "io/beneath.h"
#include "io/uring.h"
#include "core/ctx.h"
#include "core/log.h"

static const char *const tops[PT_TOP_MAX] = { "sys/", "proc/", "dev/" };

struct pt_attr {
	int root_fd;
	int top_fd[PT_TOP_MAX];	  /* sys, proc, dev under the root: opened once, on first use */
	bool host;		  /* the root is "/": the real kernel's files */
	struct pt_fcache *fcache; /* kernel files kept open for the length of one call */
	pt_write_fn write_fn;
	void *write_data;
	pt_affinity_fn affinity_fn; /* the unit tier's threads, instead of the syscalls */
	void *affinity_data;
	pt_kmod_fn kmod_fn; /* the unit tier's modules, instead of libkmod */
	void *kmod_data;
	struct pt_beneath_state beneath; /* beneath.c: openat2 or the user-space walk */
};

static struct pt_attr *attr_of(struct perftune_ctx *ctx)
{
	return pt_ctx_head(ctx)->attr;
}

struct pt_attr *pt_attr_new(void)
{
	struct pt_attr *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->root_fd = -1;
	for (int i = 0; i < PT_TOP_MAX; i++)
		a->top_fd[i] = -1;
	return a;
}

static void close_tops(struct pt_attr *a)
{
	for (int i = 0; i < PT_TOP_MAX; i++) {
		if (a->top_fd[i] >= 0)
			close(a->top_fd[i]);
		a->top_fd[i] = -1;
	}
}

void pt_attr_set_root(struct pt_attr *a, int root_fd, bool host)
{
	close_tops(a);
	if (a->root_fd >= 0)
		close(a->root_fd);
	a->root_fd = root_fd;
	a->host = host;
}

int pt_attr_root_fd(struct perftune_ctx *ctx)
{
	return attr_of(ctx)->root_fd;
}

void pt_attr_free(struct pt_attr *a)
{
	if (!a)
		return;
	pt_attr_cache_destroy(a->fcache);
	pt_attr_set_root(a, -1, false);
	free(a);
}

/*
 * The fd of a top directory (sys, proc, dev) of the root, opened on first use
 * and kept: it saves an open and a close per kernel file.  Worker threads of
 * a parallel commit may race here; the loser closes its own fd.
 */
static int top_fd(struct pt_attr *a, int i, const char *name)
{
	int fd = __atomic_load_n(&a->top_fd[i], __ATOMIC_ACQUIRE), expected = -1;

	if (fd >= 0)
		return fd;
	fd = openat(a->root_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (!__atomic_compare_exchange_n(&a->top_fd[i], &expected, fd, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		close(fd);
		fd = expected;
	}
	return fd;
}

void pt_attr_set_write_fn(struct perftune_ctx *ctx, pt_write_fn fn, void *userdata)
{
	attr_of(ctx)->write_fn = fn;
	attr_of(ctx)->write_data = userdata;
}

pt_write_fn pt_attr_get_write_fn(struct perftune_ctx *ctx, void **userdata)
{
	*userdata = attr_of(ctx)->write_data;
	return attr_of(ctx)->write_fn;
}

void pt_attr_set_affinity_fn(struct perftune_ctx *ctx, pt_affinity_fn fn, void *userdata)
{
	attr_of(ctx)->affinity_fn = fn;
	attr_of(ctx)->affinity_data = userdata;
}

int pt_attr_affinity(struct perftune_ctx *ctx, int tid, unsigned char *mask, bool set)
{
	struct pt_attr *a = attr_of(ctx);
	size_t size = CPU_ALLOC_SIZE(PT_CPUS_MAX);
	cpu_set_t *cs;
	int r = 0;

	if (a->affinity_fn)
		return a->affinity_fn(ctx, tid, mask, set, a->affinity_data);
	if (!a->host) /* the threads of another root's /proc are not ours to move */
		return -EOPNOTSUPP;
	cs = CPU_ALLOC(PT_CPUS_MAX);
	if (!cs)
		return -ENOMEM;
	CPU_ZERO_S(size, cs);
	for (int c = 0; set && c < PT_CPUS_MAX; c++)
		if (pt_cpus_has(mask, c))
			CPU_SET_S((size_t)c, size, cs);
	if (set ? sched_setaffinity(tid, size, cs) : sched_getaffinity(tid, size, cs))
		r = -errno;
	for (int c = 0; !set && r == 0 && c < PT_CPUS_MAX; c++)
		pt_cpus_set(mask, c, CPU_ISSET_S((size_t)c, size, cs));
	CPU_FREE(cs);
	return r;
}

void pt_attr_set_kmod_fn(struct perftune_ctx *ctx, pt_kmod_fn fn, void *userdata)
{
	attr_of(ctx)->kmod_fn = fn;
	attr_of(ctx)->kmod_data = userdata;
}

int pt_attr_kmod_need(struct perftune_ctx *ctx, const char *key)
{
	if (attr_of(ctx)->kmod_fn) /* the unit tier's modules need no libkmod */
		return 0;
	return pt_kmod_need(ctx, key);
}

int pt_attr_kmod(struct perftune_ctx *ctx, int op, const char *name, const char *options, char *out,
		 size_t size)
{
	struct pt_attr *a = attr_of(ctx);

	out[0] = '\0';
	if (a->kmod_fn)
		return a->kmod_fn(ctx, op, name, options, out, size, a->kmod_data);
	if (!a->host) /* another root's modules are not this kernel's to load */
		return -EOPNOTSUPP;
	return pt_kmod_real(op, name, options, out, size);
}

void pt_attr_beneath_force(struct perftune_ctx *ctx, bool user)
{
	pt_beneath_force(&attr_of(ctx)->beneath, user);
}

const char *pt_attr_beneath_name(struct perftune_ctx *ctx)
{
	struct pt_attr *a = attr_of(ctx);
	int top = top_fd(a, 0, "sys");

	if (top < 0)
		top = top_fd(a, 1, "proc");
	return pt_beneath_name(&a->beneath, top);
}

PERFTUNE_EXPORT const char *perftune_ctx_get_resolver(struct perftune_ctx *ctx)
{
	return ctx ? pt_attr_beneath_name(ctx) : NULL;
}

int pt_attr_beneath_refused(struct perftune_ctx *ctx)
{
	return __atomic_load_n(&attr_of(ctx)->beneath.refused, __ATOMIC_RELAXED);
}

/* Split "sys/block/x" into the (cached) top dir fd and the rest. */
static int open_top(struct perftune_ctx *ctx, const char *path, const char **rest)
{
	for (size_t i = 0; i < ARRAY_SIZE(tops); i++) {
		size_t n = strlen(tops[i]);
		bool whole = strncmp(path, tops[i], n - 1) == 0 && path[n - 1] == '\0';
		if (whole || (strncmp(path, tops[i], n) == 0 && path[n] && path[n] != '/')) {
			char top[8];
			memcpy(top, tops[i], n - 1);
			top[n - 1] = '\0';
			*rest = whole ? "." : path + n;
			return top_fd(attr_of(ctx), (int)i, top);
		}
	}
	return -EPERM;
}

/* a regular file, or a character device under dev/ (/dev/cpu_dma_latency); *@st its stat */
static bool file_ok(int fd, const char *path, struct stat *st)
{
	if (fstat(fd, st) < 0)
		return false;
	return S_ISREG(st->st_mode) || (S_ISCHR(st->st_mode) && !strncmp(path, "dev/", 4));
}

/* pt_attr_open(); a file's stat in *@st (untouched for O_PATH and O_DIRECTORY) */
static int attr_open_st(struct perftune_ctx *ctx, const char *path, int flags, struct stat *st)
{
	const char *rest;
	int top = open_top(ctx, path, &rest), fd;

	if (top < 0)
		return top;
	/* never wait on what a fake root may hold (a FIFO): O_NONBLOCK, then its type checked */
	fd = pt_beneath_open(&attr_of(ctx)->beneath, top, rest,
			     (flags & O_PATH) ? flags : flags | O_NONBLOCK);
	if (fd >= 0 && !(flags & (O_PATH | O_DIRECTORY)) && !file_ok(fd, path, st)) {
		close(fd);
		return -EMEDIUMTYPE;
	}
	return fd;
}

int pt_attr_open(struct perftune_ctx *ctx, const char *path, int flags)
{
	struct stat st;

	return attr_open_st(ctx, path, flags, &st);
}

/*
 * The file cache of one call (pt_attr_cache_begin/end): staging reads a file
 * to validate it and take the original, commit reads it, writes it and reads
 * it back, restore does the same: with the file kept open read-write that is
 * one open per call instead of one per access, and most of the cost of a
 * sysctl or sysfs change is its opens.  Only regular files below sys/ and
 * proc/sys/ that open read-write are kept, never dev/ (opening
 * /dev/cpu_dma_latency is a PM QoS request of its own).  A kept file that
 * disappears (iosched/ goes with its scheduler) answers ENODEV or ENOENT: it
 * is dropped and the path opened again.
 */
#define FCACHE_MAX 256 /* files kept at once; more are opened per access */

struct fent {
	int fd;
	unsigned hash; /* of the path: most lookups miss */
	struct stat st;
	char path[];
};

static unsigned path_hash(const char *s)
{
	unsigned h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct pt_fcache {
	pthread_mutex_t lock;
	int depth;
	size_t n;
	struct fent *e[FCACHE_MAX];
};

#define NOCACHE INT_MIN

static struct pt_fcache *cache_new(int depth)
{
	struct pt_fcache *fc = calloc(1, sizeof(*fc));

	if (fc) { /* else no cache: every access opens its file */
		pthread_mutex_init(&fc->lock, NULL);
		fc->depth = depth;
	}
	return fc;
}

void pt_attr_cache_begin(struct perftune_ctx *ctx)
{
	struct pt_fcache **fcp = &attr_of(ctx)->fcache;

	if (!*fcp)
		*fcp = cache_new(0);
	if (*fcp)
		(*fcp)->depth++;
}

struct pt_fcache *pt_attr_cache_use(struct perftune_ctx *ctx, struct pt_fcache **own)
{
	struct pt_fcache **fcp = &attr_of(ctx)->fcache, *prev = *fcp;

	if (!*own)
		*own = cache_new(1); /* always open: its files stay until it is destroyed */
	if (*own)
		*fcp = *own;
	return prev;
}

size_t pt_attr_cache_files(struct pt_fcache *fc)
{
	return fc ? fc->n : 0;
}

void pt_attr_cache_unuse(struct perftune_ctx *ctx, struct pt_fcache *prev)
{
	attr_of(ctx)->fcache = prev;
}

static void cache_close_all(struct pt_fcache *fc)
{
	for (size_t i = 0; i < fc->n; i++) {
		close(fc->e[i]->fd);
		free(fc->e[i]);
	}
	fc->n = 0;
}

void pt_attr_cache_end(struct perftune_ctx *ctx)
{
	struct pt_fcache *fc = attr_of(ctx)->fcache;

	if (fc && fc->depth > 0 && --fc->depth == 0)
		cache_close_all(fc);
}

void pt_attr_cache_destroy(struct pt_fcache *fc)
{
	if (!fc)
		return;
	cache_close_all(fc);
	pthread_mutex_destroy(&fc->lock);
	free(fc);
}

static struct pt_fcache *cache_of(struct perftune_ctx *ctx, const char *path)
{
	struct pt_fcache *fc = attr_of(ctx)->fcache;

	/* not the rest of proc/: its seq_files refuse pwrite (seq_open() clears FMODE_PWRITE) */
	if (!fc || !fc->depth || (strncmp(path, "sys/", 4) && strncmp(path, "proc/sys/", 9)))
		return NULL;
	return fc;
}

/* the kept fd of @path and its stat, or NOCACHE */
static int cache_find(struct pt_fcache *fc, const char *path, struct stat *st)
{
	unsigned h = path_hash(path);
	int fd = NOCACHE;

	pthread_mutex_lock(&fc->lock);
	for (size_t i = 0; i < fc->n; i++)
		if (fc->e[i]->hash == h && !strcmp(fc->e[i]->path, path)) {
			fd = fc->e[i]->fd;
			if (st)
				*st = fc->e[i]->st;
			break;
		}
	pthread_mutex_unlock(&fc->lock);
	return fd;
}

static void cache_drop(struct pt_fcache *fc, int fd)
{
	pthread_mutex_lock(&fc->lock);
	for (size_t i = 0; i < fc->n; i++)
		if (fc->e[i]->fd == fd) {
			close(fd);
			free(fc->e[i]);
			fc->e[i] = fc->e[--fc->n];
			break;
		}
	pthread_mutex_unlock(&fc->lock);
}

/*
 * The kept fd of @path, opened now if it is not kept yet; NOCACHE: no scope,
 * not a kept kind of file, or full.  In a fake root the files are plain
 * files that a simulated kernel may replace: a kept one no longer linked
 * is opened again.
 */
static int cache_get(struct perftune_ctx *ctx, const char *path, struct stat *st)
{
	struct pt_fcache *fc = cache_of(ctx, path);
	struct stat s;
	struct fent *e;
	int fd;

	if (!fc)
		return NOCACHE;
	fd = cache_find(fc, path, &s);
	if (fd != NOCACHE && !attr_of(ctx)->host && (fstat(fd, &s) < 0 || s.st_nlink == 0)) {
		cache_drop(fc, fd);
		fd = NOCACHE;
	}
	if (fd != NOCACHE) {
		if (st)
			*st = s;
		return fd;
	}
	if (__atomic_load_n(&fc->n, __ATOMIC_RELAXED) >= FCACHE_MAX)
		return NOCACHE;
	fd = attr_open_st(ctx, path, O_RDWR | O_NOFOLLOW, &s);
	if (fd < 0) /* read-only, a directory, missing: the caller's own open says which */
		return NOCACHE;
	e = malloc(sizeof(*e) + strlen(path) + 1);
	if (e)
		e->st = s;
	if (!e || !S_ISREG(e->st.st_mode)) {
		free(e);
		close(fd);
		return NOCACHE;
	}
	e->fd = fd;
	e->hash = path_hash(path);
	strcpy(e->path, path);
	pthread_mutex_lock(&fc->lock);
	if (fc->n < FCACHE_MAX) {
		fc->e[fc->n++] = e;
	} else {
		close(fd);
		free(e);
		fd = NOCACHE;
	}
	pthread_mutex_unlock(&fc->lock);
	if (fd != NOCACHE && st)
		*st = e->st;
	return fd;
}

int pt_attr_kept_fd(struct perftune_ctx *ctx, const char *path)
{
	int fd = cache_get(ctx, path, NULL);

	return fd == NOCACHE ? -1 : fd;
}

bool pt_attr_gone(int r)
{
	return r == -ENODEV || r == -ENOENT || r == -ESTALE;
}

/*
 * Run @op on @path: on its kept fd (once more on a fresh one if the file went
 * away), else on a fresh open with @flags.  @kept tells @op which it has.
 */
typedef int (*fd_op)(int fd, bool kept, void *arg);

static int on_file(struct perftune_ctx *ctx, const char *path, int flags, fd_op op, void *arg)
{
	_cleanup_close_ int fd = -1;

	for (int tries = 0; tries < 2; tries++) {
		int kfd = cache_get(ctx, path, NULL);
		int r;
		if (kfd == NOCACHE)
			break;
		r = op(kfd, true, arg);
		if (!pt_attr_gone(r))
			return r;
		cache_drop(cache_of(ctx, path), kfd);
	}
	fd = pt_attr_open(ctx, path, flags);
	return fd < 0 ? fd : op(fd, false, arg);
}

/*
 * A busy queue answers EAGAIN to a read or write of queue/scheduler while
 * another switch holds it (seen with 256 devices switched at once): try
 * again for up to about a second before giving up.
 */
#define BUSY_TRIES 40

static bool busy_again(int r, int *tries)
{
	if (r != -EAGAIN || ++*tries >= BUSY_TRIES)
		return false;
	struct timespec ts = { 0, (*tries < 10 ? 2 : 30) * 1000000L };
	nanosleep(&ts, NULL);
	return true;
}

struct rd {
	char *buf;
	size_t size;
	bool whole; /* one short read is the whole file */
};

static int read_op(int fd, bool kept, void *arg)
{
	struct rd *a = arg;
	size_t len = 0;

	while (len < a->size - 1) {
		ssize_t n = kept ? pread(fd, a->buf + len, a->size - 1 - len, (off_t)len)
				 : read(fd, a->buf + len, a->size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (a->whole && len < a->size - 1)
			break;
	}
	a->buf[len] = '\0';
	return (int)len;
}

int pt_attr_read_raw(struct perftune_ctx *ctx, const char *path, char *buf, size_t size)
{
	/*
	 * A sysfs attribute or a sysctl comes whole from one read (one show() or
	 * proc handler call); other files (/proc/<pid>/..., seq_files of many
	 * records) may return short reads before their end.
	 */
	struct rd a = { buf, size, !strncmp(path, "sys/", 4) || !strncmp(path, "proc/sys/", 9) };
	int r, tries = 0;

	if (size == 0)
		return -EINVAL;
	do
		r = on_file(ctx, path, O_RDONLY, read_op, &a);
	while (busy_again(r, &tries));
	return r;
}

int pt_attr_read(struct perftune_ctx *ctx, const char *path, char *buf, size_t size)
{
	int r = pt_attr_read_raw(ctx, path, buf, size);

	if (r < 0)
		return r;
	pt_normalize(buf);
	return (int)strlen(buf);
}

struct wr {
	const char *buf;
	size_t len;
	bool plain; /* a fake root's plain file: cut it to what was written */
};

static int write_op(int fd, bool kept, void *arg)
{
	struct wr *a = arg;
	ssize_t n;

	do
		n = kept ? pwrite(fd, a->buf, a->len, 0) : write(fd, a->buf, a->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != a->len)
		return -EIO;
	if (kept && a->plain && ftruncate(fd, (off_t)a->len) < 0) /* fresh opens have O_TRUNC */
		return -errno;
	return 0;
}

int pt_attr_write_real(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len)
{
	/* the simulated kernel of the unit tier writes its files here: never through the cache */
	_cleanup_close_ int fd = pt_attr_open(ctx, path, O_WRONLY | O_NOFOLLOW | O_TRUNC);
	struct wr a = { buf, len, false };

	return fd < 0 ? fd : write_op(fd, false, &a);
}

int pt_attr_write(struct perftune_ctx *ctx, const char *path, const char *value)
{
	void *ud;
	pt_write_fn fn = pt_attr_get_write_fn(ctx, &ud);
	struct wr a = { value, strlen(value), !attr_of(ctx)->host };
	int r, tries = 0;

	pt_log(ctx, PERFTUNE_LOG_DEBUG, "write %s <- %s", path, value);
	do
		/* O_TRUNC: sysfs and procfs ignore it; a plain file (a fake root) needs it */
		r = fn ? fn(ctx, path, value, a.len, ud)
		       : on_file(ctx, path, O_WRONLY | O_NOFOLLOW | O_TRUNC, write_op, &a);
	while (busy_again(r, &tries));
	return r;
}

struct batch {
	const int *fds;
	const struct iovec *iov;
	int *res;
};

/* a ring this large refused (RLIMIT_MEMLOCK before 5.12): the same writes from threads */
static void thread_write(size_t q, void *ud)
{
	struct batch *b = ud;
	ssize_t n;

	do
		n = pwrite(b->fds[q], b->iov[q].iov_base, b->iov[q].iov_len, 0);
	while (n < 0 && errno == EINTR);
	b->res[q] = n < 0 ? -errno : (int)n;
}

void pt_attr_write_batch(struct perftune_ctx *ctx, size_t n, const char *const *paths,
			 const int *fds, const struct iovec *iov, int *res)
{
	struct batch b = { fds, iov, res };
	void *ud;
	pt_write_fn fn = pt_attr_get_write_fn(ctx, &ud);

	pt_log(ctx, PERFTUNE_LOG_DEBUG, "%zu writes at once (io_uring)", n);
	if (fn) { /* the simulated kernel: each write in turn, at its position */
		for (size_t q = 0; q < n; q++) {
			int r = fn(ctx, paths[q], iov[q].iov_base, iov[q].iov_len, ud);
			res[q] = r == -EAGAIN || pt_attr_gone(r) ? -EINPROGRESS : r < 0 ? r : 0;
		}
		return;
	}
	if (pt_uring_write(n, fds, iov, res) < 0 &&
	    pt_parallel(n, PT_WAVE_MAX, thread_write, &b) < 0)
		for (size_t q = 0; q < n; q++)
			res[q] = -EINPROGRESS;
	for (size_t q = 0; q < n; q++) {
		int r = res[q];
		if (r >= 0 && (size_t)r != iov[q].iov_len)
			r = -EIO;
		if (r >= 0 && !attr_of(ctx)->host && ftruncate(fds[q], r) < 0)
			r = -errno; /* a fake root's plain file */
		/* not known, busy or gone: the caller writes it again itself (retries, reopens) */
		if (r == -EINPROGRESS || r == -EAGAIN || pt_attr_gone(r))
			r = -EINPROGRESS;
		res[q] = r < 0 ? r : 0;
	}
}

int pt_attr_write_hold(struct perftune_ctx *ctx, const char *path, const void *buf, size_t len,
		       int *hold_fd)
{
	void *ud;
	pt_write_fn fn = pt_attr_get_write_fn(ctx, &ud);
	int fd;
	ssize_t n;

	*hold_fd = -1;
	if (fn) /* a simulated kernel keeps the request itself */
		return fn(ctx, path, buf, len, ud);
	fd = pt_attr_open(ctx, path, O_RDWR | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	n = write(fd, buf, len);
	if (n < 0 || (size_t)n != len) {
		int r = n < 0 ? -errno : -EIO;
		close(fd);
		return r;
	}
	*hold_fd = fd;
	return 0;
}

static int attr_stat(struct perftune_ctx *ctx, const char *path, struct stat *st)
{
	struct pt_fcache *fc = cache_of(ctx, path);
	_cleanup_close_ int fd = -1;

	if (fc && cache_find(fc, path, st) != NOCACHE)
		return 0;
	fd = pt_attr_open(ctx, path, O_PATH);
	if (fd < 0)
		return fd;
	return fstat(fd, st) < 0 ? -errno : 0;
}

int pt_attr_stat_file(struct perftune_ctx *ctx, const char *path, struct stat *st)
{
	if (cache_get(ctx, path, st) != NOCACHE)
		return 0;
	return attr_stat(ctx, path, st);
}

bool pt_attr_exists(struct perftune_ctx *ctx, const char *path)
{
	struct stat st;
	return attr_stat(ctx, path, &st) == 0;
}

bool pt_attr_is_dir(struct perftune_ctx *ctx, const char *path)
{
	struct stat st;
	return attr_stat(ctx, path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool pt_attr_tunable(struct perftune_ctx *ctx, const char *path)
{
	struct stat st;
	return attr_stat(ctx, path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0222) &&
	       (st.st_mode & 0444);
}

int pt_attr_writable(struct perftune_ctx *ctx, const char *path, char *reason, size_t size)
{
	struct stat st;
	int r = attr_stat(ctx, path, &st);

	if (r < 0)
		return r;
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		snprintf(reason, size, "not a regular attribute file");
		return 0;
	}
	if (!(st.st_mode & 0222)) {
		snprintf(reason, size, "read-only in this kernel (mode %04o)", st.st_mode & 07777);
		return 0;
	}
	if (attr_of(ctx)->host && geteuid() != 0 && geteuid() != st.st_uid) {
		snprintf(reason, size, "needs root (owned by uid %u, mode %04o)", st.st_uid,
			 st.st_mode & 07777);
		return 0;
	}
	return 1;
}

int pt_attr_dir_has_entries(struct perftune_ctx *ctx, const char *path)
{
	_cleanup_close_ int fd = pt_attr_open(ctx, path, O_RDONLY | O_DIRECTORY);
	char buf[1024] __attribute__((aligned(8)));
	long n;

	if (fd < 0)
		return fd;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct {
				unsigned long long ino;
				long long off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *de = (void *)(buf + off);
			if (strcmp(de->name, ".") && strcmp(de->name, ".."))
				return 1;
			off += de->reclen;
		}
	return n < 0 ? -errno : 0;
}

DIR *pt_attr_opendir(struct perftune_ctx *ctx, const char *path)
{
	int fd = pt_attr_open(ctx, path, O_RDONLY | O_DIRECTORY);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

int pt_attr_readlink(struct perftune_ctx *ctx, const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	_cleanup_close_ int dfd = -1;
	ssize_t n;

	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	dfd = pt_attr_open(ctx, dir, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return dfd;
	n = readlinkat(dfd, slash + 1, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

/* ---- waves (uring.c): the files of one write per device ---- */

int pt_wave_add(struct perftune_ctx *ctx, struct pt_wave *w, size_t who, const char *path,
		const char *value)
{
	int fd;

	if (w->n == w->cap)
		return 0;
	fd = pt_attr_kept_fd(ctx, path);
	w->own[w->n] = fd < 0; /* the kept files are full: one for this wave */
	if (fd < 0)
		fd = pt_attr_open(ctx, path, O_WRONLY | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	pt_log(ctx, PERFTUNE_LOG_DEBUG, "write %s <- %s", path, value);
	w->who[w->n] = who;
	w->path[w->n] = path;
	w->fd[w->n] = fd;
	w->iov[w->n].iov_base = (void *)value;
	w->iov[w->n].iov_len = strlen(value);
	w->n++;
	return 1;
}

void pt_wave_run(struct perftune_ctx *ctx, struct pt_wave *w)
{
	pt_attr_write_batch(ctx, w->n, w->path, w->fd, w->iov, w->res);
}
