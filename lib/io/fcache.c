// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perftune.h"
#include "io/attr.h"
#include "io/attr-internal.h"

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
	struct pt_fcache **fcp = &pt_attr_of(ctx)->fcache;

	if (!*fcp)
		*fcp = cache_new(0);
	if (*fcp)
		(*fcp)->depth++;
}

struct pt_fcache *pt_attr_cache_use(struct perftune_ctx *ctx, struct pt_fcache **own)
{
	struct pt_fcache **fcp = &pt_attr_of(ctx)->fcache, *prev = *fcp;

	if (!*own)
		*own = cache_new(1); /* always open: its files stay until it is destroyed */
	if (*own)
		*fcp = *own;
	return prev;
}

size_t pt_attr_cache_files(struct pt_fcache *fc)
{
	if (fc)
		return fc->n;
	return 0;
}

void pt_attr_cache_unuse(struct perftune_ctx *ctx, struct pt_fcache *prev)
{
	pt_attr_of(ctx)->fcache = prev;
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
	struct pt_fcache *fc = pt_attr_of(ctx)->fcache;

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

struct pt_fcache *pt_fcache_of(struct perftune_ctx *ctx, const char *path)
{
	struct pt_fcache *fc = pt_attr_of(ctx)->fcache;

	/* not the rest of proc/: its seq_files refuse pwrite (seq_open() clears FMODE_PWRITE) */
	if (!fc || !fc->depth || (strncmp(path, "sys/", 4) && strncmp(path, "proc/sys/", 9)))
		return NULL;
	return fc;
}

int pt_fcache_find(struct pt_fcache *fc, const char *path, struct stat *st)
{
	unsigned h = path_hash(path);
	int fd = PT_NOCACHE;

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

void pt_fcache_drop(struct pt_fcache *fc, int fd)
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

int pt_fcache_get(struct perftune_ctx *ctx, const char *path, struct stat *st)
{
	struct pt_fcache *fc = pt_fcache_of(ctx, path);
	struct stat s;
	struct fent *e;
	int fd;

	if (!fc)
		return PT_NOCACHE;
	fd = pt_fcache_find(fc, path, &s);
	if (fd != PT_NOCACHE && !pt_attr_of(ctx)->host && (fstat(fd, &s) < 0 || s.st_nlink == 0)) {
		pt_fcache_drop(fc, fd);
		fd = PT_NOCACHE;
	}
	if (fd != PT_NOCACHE) {
		if (st)
			*st = s;
		return fd;
	}
	if (__atomic_load_n(&fc->n, __ATOMIC_RELAXED) >= FCACHE_MAX)
		return PT_NOCACHE;
	fd = pt_attr_open_st(ctx, path, O_RDWR | O_NOFOLLOW, &s);
	if (fd < 0) /* read-only, a directory, missing: the caller's own open says which */
		return PT_NOCACHE;
	e = malloc(sizeof(*e) + strlen(path) + 1);
	if (e)
		e->st = s;
	if (!e || !S_ISREG(e->st.st_mode)) {
		free(e);
		close(fd);
		return PT_NOCACHE;
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
		fd = PT_NOCACHE;
	}
	pthread_mutex_unlock(&fc->lock);
	if (fd != PT_NOCACHE && st)
		*st = e->st;
	return fd;
}

int pt_attr_kept_fd(struct perftune_ctx *ctx, const char *path)
{
	int fd = pt_fcache_get(ctx, path, NULL);

	if (fd == PT_NOCACHE)
		return -1;
	return fd;
}

bool pt_attr_gone(int r)
{
	return r == -ENODEV || r == -ENOENT || r == -ESTALE;
}
