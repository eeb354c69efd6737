// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Paths of configuration files below the context's root, resolved inside
 * it as in a chroot (systemd-sysctl --root and udevadm's chase() do the
 * same): one component at a time with O_NOFOLLOW, ".." never above the
 * root, a link read and spliced in, an absolute one from the root, at most 40
 * links; so that no link, relative or absolute, reaches a file of the machine
 * outside the root.  The walk starts at the context's root fd (opened once,
 * by ctx.c) and opens a directory in one call (O_DIRECTORY|O_NOFOLLOW: a link
 * fails it and is then looked at), so that a lookup costs a call or two per
 * component: why opens some 40 paths for a handful of keys.  The host's root
 * "/" keeps the kernel's own lookup.  conf.c reads what these find.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "perftune.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "why-internal.h"

#define LINKS_MAX 40 /* the kernel's MAXSYMLINKS */
#define DEPTH_MAX 64 /* directories deep below the root */

struct walk {
	int fd[DEPTH_MAX + 1]; /* fd[0] the root (the context's, not ours), fd[n] where the walk is */
	size_t n;
	int links;
	bool track;		 /* keep @done: the caller asked where the walk ends */
	char todo[2 * PATH_MAX]; /* the rest of the path, links spliced in */
	char done[PATH_MAX];	 /* where the walk is, relative to the root */
};

static void walk_close(struct walk *w)
{
	for (size_t i = 1; i <= w->n; i++)
		close(w->fd[i]);
	w->n = 0;
}

static void up(struct walk *w)
{
	char *slash;

	if (w->n == 0)
		return; /* ".." of the root is the root */
	close(w->fd[w->n--]);
	if (!w->track)
		return;
	slash = strrchr(w->done, '/');
	if (slash)
		*slash = '\0';
	else
		w->done[0] = '\0';
}

/* the link @fd (O_PATH) replaces its name: its target, then what followed */
static int splice_link(struct walk *w, int fd, const char *rest)
{
	char target[PATH_MAX];
	size_t tl, rl = strlen(rest);
	ssize_t n;

	if (++w->links > LINKS_MAX)
		return -ELOOP;
	n = readlinkat(fd, "", target, sizeof(target));
	if (n < 0)
		return -errno;
	if (n == 0 || (size_t)n >= sizeof(target))
		return -ENOENT;
	target[n] = '\0';
	if (target[0] == '/') /* absolute: from the root */
		while (w->n > 0)
			up(w);
	tl = (size_t)n;
	if (tl + rl + 1 > sizeof(w->todo))
		return -ENAMETOOLONG;
	memmove(w->todo + tl, rest, rl + 1);
	memcpy(w->todo, target, tl);
	return 0;
}

/* the walk goes on into @fd, opened as @name */
static int push(struct walk *w, int fd, const char *name)
{
	size_t dl = w->track ? strlen(w->done) : 0;

	if (w->n >= DEPTH_MAX || (w->track && pt_snprintf(w->done + dl, sizeof(w->done) - dl,
							  "%s%s", dl ? "/" : "", name) < 0)) {
		close(fd);
		return -ENAMETOOLONG;
	}
	w->fd[++w->n] = fd;
	return 0;
}

/*
 * Open @name in the directory the walk is in, @flags with O_NOFOLLOW: a
 * directory on the way (O_PATH|O_DIRECTORY) or a directory asked for at the
 * end (O_RDONLY|O_DIRECTORY) is opened at once, the common case; a link or
 * anything else fails that (ENOTDIR: O_NOFOLLOW with O_DIRECTORY refuses a
 * link) and is looked at with O_PATH and fstat.  1: @name was a link, spliced
 * into the rest @p; 0: the walk went into it; -errno.
 */
static int step(struct walk *w, const char *name, const char *p, int flags)
{
	struct stat st;
	int fd;

	if (flags) {
		fd = openat(w->fd[w->n], name, flags | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			return push(w, fd, name);
		if (errno != ENOTDIR && errno != ELOOP)
			return -errno;
	}
	fd = openat(w->fd[w->n], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	if (S_ISLNK(st.st_mode)) {
		int r = splice_link(w, fd, p);
		close(fd);
		if (r < 0)
			return r;
		return 1;
	}
	if ((flags & O_DIRECTORY || *p) && !S_ISDIR(st.st_mode)) {
		close(fd); /* a file where a directory must be */
		return -ENOTDIR;
	}
	if (flags & O_DIRECTORY && !*p && !(flags & O_PATH)) { /* one that was not a moment ago */
		int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		if (dfd < 0)
			return -errno;
		fd = dfd;
	}
	return push(w, fd, name);
}

/*
 * Walk @rel down from the root fd @root (the context's: not closed): an fd of
 * where it ends (a link last in the path followed), O_PATH, or O_RDONLY if
 * @dir (a directory to read), or -errno.
 */
static int walk(int root, const char *rel, bool dir, char *where, size_t size)
{
	struct walk w; /* not zeroed: 12 kB, and no field is read before it is set */
	size_t rl = strlen(rel);
	char *p = w.todo;
	int r = 0;

	if (rl >= sizeof(w.todo))
		return -ENAMETOOLONG;
	memcpy(w.todo, rel, rl + 1);
	w.fd[0] = root;
	w.n = 0;
	w.links = 0;
	w.track = where != NULL;
	w.done[0] = '\0';
	while (r >= 0) {
		char name[NAME_MAX + 1];
		size_t len;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		if (!strcmp(name, "..")) {
			up(&w);
			continue;
		}
		if (!strcmp(name, "."))
			continue;
		/* on the way a directory, at the end what the caller asked for */
		if (*p)
			r = step(&w, name, p, O_PATH | O_DIRECTORY);
		else
			r = step(&w, name, p, dir ? O_RDONLY | O_DIRECTORY : 0);
		if (r == 1)
			p = w.todo;
	}
	if (r >= 0 && where)
		r = pt_snprintf(where, size, "%s", w.done);
	if (r >= 0 && w.n > 0) {
		r = w.fd[w.n--];
	} else if (r >= 0) { /* the root itself */
		r = dir ? openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
			: fcntl(root, F_DUPFD_CLOEXEC, 3);
		if (r < 0)
			r = -errno;
	}
	walk_close(&w);
	return r;
}

/* an O_PATH fd of the host's /@rel, followed as the machine follows it; where it is */
static int locate_host(const char *rel, char *where, size_t size)
{
	char path[PATH_MAX + 1], real[PATH_MAX];
	int fd, r = 0;

	if (pt_snprintf(path, sizeof(path), "/%s", rel) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (where && !realpath(path, real))
		r = -errno;
	else if (where)
		r = pt_snprintf(where, size, "%s", real + 1);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int pt_inroot_locate(struct perftune_ctx *ctx, const char *rel, char *where, size_t size)
{
	if (pt_root_is_host(ctx))
		return locate_host(rel, where, size);
	return walk(pt_attr_root_fd(ctx), rel, false, where, size);
}

int pt_inroot_open_dir(struct perftune_ctx *ctx, const char *rel)
{
	char path[PATH_MAX + 1];
	int fd;

	if (!pt_root_is_host(ctx))
		return walk(pt_attr_root_fd(ctx), rel, true, NULL, 0);
	if (pt_snprintf(path, sizeof(path), "/%s", rel) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return fd;
}

/* where @rel is, resolved as pt_conf_read() resolves it: relative to the root */
static int conf_resolve(struct perftune_ctx *ctx, const char *rel, char *out, size_t size)
{
	int fd = pt_inroot_locate(ctx, rel, out, size);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int pt_inroot_path(struct perftune_ctx *ctx, const char *rel, char *out, size_t size)
{
	const char *root = perftune_ctx_get_root(ctx);
	char where[PATH_MAX];
	int r = conf_resolve(ctx, rel, where, sizeof(where));

	if (r == -ENOENT) /* not there: the name as given, below the root */
		r = pt_snprintf(where, sizeof(where), "%s", rel);
	if (r < 0)
		return r;
	return pt_snprintf(out, size, "%s/%s", pt_root_is_host(ctx) ? "" : root, where);
}

/* the host's file, as the machine opens it */
static int open_host(const char *rel)
{
	char path[PATH_MAX + 1];
	int fd;

	if (pt_snprintf(path, sizeof(path), "/%s", rel) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	return fd;
}

/* the file inside another root: the walk's O_PATH fd opened for reading, as it is */
static int open_below(struct perftune_ctx *ctx, const char *rel)
{
	char proc[64];
	int fd = pt_inroot_locate(ctx, rel, NULL, 0), rfd;
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rfd = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		close(fd);
		return rfd;
	}
	/* that very file: never the target of a link swapped in since */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rfd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (rfd < 0)
		rfd = -errno;
	close(fd);
	return rfd;
}

int pt_inroot_open(struct perftune_ctx *ctx, const char *rel)
{
	if (pt_root_is_host(ctx))
		return open_host(rel);
	return open_below(ctx, rel);
}
