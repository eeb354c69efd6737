// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Paths of configuration files below the context's root, resolved inside
 * it as in a chroot (systemd-sysctl --root and udevadm's chase() do the
 * same): one component at a time with O_PATH|O_NOFOLLOW, ".." never above
 * the root, a link read and spliced in, an absolute one from the root, at
 * most 40 links; so that no link, relative or absolute, reaches a file of
 * the machine outside the root.  The host's root "/" keeps the kernel's own
 * lookup.  conf.c reads what these find.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "why-internal.h"

#define LINKS_MAX 40 /* the kernel's MAXSYMLINKS */
#define DEPTH_MAX 64 /* directories deep below the root */

struct walk {
	int fd[DEPTH_MAX + 1]; /* fd[0] the root, fd[n] where the walk is */
	size_t n;
	int links;
	char todo[2 * PATH_MAX]; /* the rest of the path, links spliced in */
	char done[PATH_MAX];	 /* where the walk is, relative to the root */
};

static void walk_close(struct walk *w)
{
	for (size_t i = 0; i <= w->n; i++)
		if (w->fd[i] >= 0)
			close(w->fd[i]);
	w->n = 0;
	w->fd[0] = -1;
}

static void up(struct walk *w)
{
	char *slash = strrchr(w->done, '/');

	if (w->n == 0)
		return; /* ".." of the root is the root */
	close(w->fd[w->n--]);
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

/*
 * Walk @rel down from the root fd @root (not closed): the O_PATH fd of
 * where it ends (a link last in the path followed), or -errno.
 */
static int walk(int root, const char *rel, char *where, size_t size)
{
	struct walk w = { .fd = { -1 } };
	char *p = w.todo;
	int r = 0;

	if (pt_snprintf(w.todo, sizeof(w.todo), "%s", rel) < 0)
		return -ENAMETOOLONG;
	w.fd[0] = fcntl(root, F_DUPFD_CLOEXEC, 3);
	if (w.fd[0] < 0)
		return -errno;
	while (r >= 0) {
		char name[NAME_MAX + 1];
		size_t len;
		struct stat st;
		int fd;
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
		fd = openat(w.fd[w.n], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			r = splice_link(&w, fd, p);
			close(fd);
			p = w.todo;
			continue;
		}
		if (w.n >= DEPTH_MAX ||
		    pt_snprintf(w.done + strlen(w.done), sizeof(w.done) - strlen(w.done), "%s%s",
				w.done[0] ? "/" : "", name) < 0) {
			close(fd);
			r = -ENAMETOOLONG;
			break;
		}
		w.fd[++w.n] = fd;
		if (*p && !S_ISDIR(st.st_mode))
			r = -ENOTDIR;
	}
	if (r >= 0 && where)
		r = pt_snprintf(where, size, "%s", w.done);
	if (r >= 0) {
		r = w.fd[w.n];
		w.fd[w.n] = -1;
	}
	walk_close(&w);
	return r;
}

/* the root's O_PATH fd, or -errno */
static int root_fd(struct perftune_ctx *ctx)
{
	int fd = open(perftune_ctx_get_root(ctx), O_PATH | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
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
	_cleanup_close_ int root = -1;

	if (pt_root_is_host(ctx))
		return locate_host(rel, where, size);
	root = root_fd(ctx);
	return root < 0 ? root : walk(root, rel, where, size);
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
	return fd < 0 ? -errno : fd;
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
	return pt_root_is_host(ctx) ? open_host(rel) : open_below(ctx, rel);
}
