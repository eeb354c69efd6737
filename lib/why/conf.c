// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Configuration files below the context's root: sysctl.d, udev rules,
 * TuneD's active_profile, the udev database.  Not kernel files (those go
 * through attr.c): plain reads of /etc, /run and /usr, so that a fixture
 * tree given as the root (--root, the unit tier) stands for the machine;
 * their paths resolved inside that root by inroot.c.  The files of conf.d
 * directories as systemd lists them, and their lines as it reads them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/util.h"
#include "core/ctx.h"
#include "why-internal.h"

const char *pt_conf_shown(const char *rel)
{
	static __thread char buf[PATH_MAX + 1];

	snprintf(buf, sizeof(buf), "/%s", rel);
	return buf;
}

int pt_conf_stat(struct perftune_ctx *ctx, const char *rel, struct stat *st)
{
	char path[PATH_MAX + 1];
	int fd, r = 0;

	if (pt_root_is_host(ctx)) {
		if (pt_snprintf(path, sizeof(path), "/%s", rel) < 0)
			return -ENAMETOOLONG;
		if (stat(path, st) < 0)
			return -errno;
		return 0;
	}
	fd = pt_inroot_locate(ctx, rel, NULL, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* the whole of the regular file @fd (closed here; -errno: passed on) */
static int read_fd(int fd, char **text, size_t *len, struct stat *stp, struct pt_why_work *work)
{
	_cleanup_close_ int cfd = fd;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;
	ssize_t n = 0;

	*text = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return -EINVAL;
	}
	if (st.st_size > PT_CONF_MAX)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	if (n < 0)
		return -errno;
	buf[got] = '\0';
	if (work)
		work->files++;
	if (stp)
		*stp = st;
	*text = buf;
	*len = got;
	buf = NULL;
	return 0;
}

int pt_conf_read(struct perftune_ctx *ctx, const char *rel, char **text, size_t *len,
		 struct stat *st, struct pt_why_work *work)
{
	return read_fd(pt_inroot_open(ctx, rel), text, len, st, work);
}

/* ---- the files of conf.d directories ---- */

/* empty, a symlink to /dev/null, or /dev/null itself: systemd's mask; *@plain: a file, no link */
static bool masked(struct perftune_ctx *ctx, int dfd, const struct dirent *e, const char *rel,
		   bool *plain)
{
	char target[PATH_MAX];
	ssize_t n = -1;
	struct stat st;
	int fd;

	*plain = false;
	if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN)
		n = readlinkat(dfd, e->d_name, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		if (!strcmp(target, "/dev/null"))
			return true;
		fd = pt_inroot_locate(ctx, rel, NULL, 0); /* where the link leads, inside the root */
		if (fd < 0)
			return false;
		n = fstat(fd, &st);
		close(fd);
		if (n < 0)
			return false;
	} else if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		return false;
	} else {
		*plain = S_ISREG(st.st_mode);
	}
	if (S_ISCHR(st.st_mode))
		return st.st_rdev == makedev(1, 3);
	return S_ISREG(st.st_mode) && st.st_size == 0;
}

struct found {
	char *name; /* "<dir>/<name>", relative to the root */
	size_t dir; /* index of its directory: the first one wins */
	bool mask, plain, kept;
};

#define LIST_DIRS 8

struct pt_conf_list {
	struct found *f; /* the files kept, sorted by name */
	size_t n;
	int dirfd[LIST_DIRS]; /* each directory, open: its files are opened in it */
};

/*
 * The entries of directory @fd, read with getdents64() into a buffer of
 * its own: fdopendir() mallocs 32 kB for each directory and fcntl()s it
 * twice, and why lists a handful of directories for each call.
 */
struct dents {
	int fd;
	ssize_t n, pos;
	char buf[4096] __attribute__((aligned(__alignof__(struct dirent))));
};

static struct dirent *dents_next(struct dents *d)
{
	struct dirent *e;

	if (d->pos >= d->n) {
		d->n = getdents64(d->fd, d->buf, sizeof(d->buf));
		d->pos = 0;
		if (d->n <= 0)
			return NULL;
	}
	e = (struct dirent *)(d->buf + d->pos);
	d->pos += e->d_reclen;
	return e;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pt_conf_dir(struct perftune_ctx *ctx, const char *rel, char ***names, size_t *n)
{
	_cleanup_close_ int fd = pt_inroot_open_dir(ctx, rel);
	struct dents d = { .fd = fd };
	struct dirent *e;

	*names = NULL;
	*n = 0;
	while (fd >= 0 && (e = dents_next(&d)))
		if (e->d_name[0] != '.' && !pt_strv_add(names, n, e->d_name))
			return -ENOMEM;
	if (*n)
		qsort(*names, *n, sizeof(**names), name_cmp);
	return 0;
}

/* the entries "*@suffix" of directory @d into *@f; its fd kept in @l */
static int scan_dir(struct perftune_ctx *ctx, const char *dir, size_t d, const char *suffix,
		    struct pt_conf_list *l, size_t *cap)
{
	size_t sl = strlen(suffix);
	int fd = pt_inroot_open_dir(ctx, dir);
	struct dents dd = { .fd = fd };
	struct dirent *e;

	if (fd >= 0)
		l->dirfd[d] = fd; /* closed with the list */
	while (fd >= 0 && (e = dents_next(&dd))) {
		size_t len = strlen(e->d_name);
		struct found *f;
		char rel[PATH_MAX];
		if (e->d_name[0] == '.' || len <= sl || strcmp(e->d_name + len - sl, suffix) ||
		    pt_snprintf(rel, sizeof(rel), "%s/%s", dir, e->d_name) < 0)
			continue;
		if (pt_grow(&l->f, cap, l->n + 1, 16) < 0)
			return -ENOMEM;
		f = &l->f[l->n];
		*f = (struct found){ .name = strdup(rel), .dir = d };
		if (!f->name)
			return -ENOMEM;
		f->mask = masked(ctx, fd, e, rel, &f->plain);
		l->n++;
	}
	return 0;
}

static const char *base(const char *path)
{
	return strrchr(path, '/') + 1;
}

static int base_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int c = strcmp(base(x->name), base(y->name));

	if (c)
		return c;
	if (x->dir < y->dir)
		return -1;
	return x->dir > y->dir;
}

void pt_conf_list_free(struct pt_conf_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->f[i].name);
	for (size_t d = 0; d < LIST_DIRS; d++)
		if (l->dirfd[d] >= 0)
			close(l->dirfd[d]);
	free(l->f);
	free(l);
}

int pt_conf_files(struct perftune_ctx *ctx, const char *const *dirs, const char *suffix,
		  struct pt_conf_list **out)
{
	struct pt_conf_list *l = calloc(1, sizeof(*l));
	size_t cap = 0, k = 0;
	int r = l ? 0 : -ENOMEM;

	*out = l;
	for (size_t d = 0; l && d < LIST_DIRS; d++)
		l->dirfd[d] = -1;
	for (size_t d = 0; dirs[d] && d < LIST_DIRS && r >= 0; d++)
		r = scan_dir(ctx, dirs[d], d, suffix, l, &cap);
	if (r < 0)
		return r;
	/* by name, the earliest directory first: it masks the others (sorted: linear) */
	if (l->n)
		qsort(l->f, l->n, sizeof(*l->f), base_cmp);
	for (size_t i = 0; i < l->n; i++) /* the first of each name, if not a mask */
		l->f[i].kept = !l->f[i].mask &&
			       (i == 0 || strcmp(base(l->f[i - 1].name), base(l->f[i].name)));
	for (size_t i = 0; i < l->n; i++) {
		if (l->f[i].kept)
			l->f[k++] = l->f[i];
		else
			free(l->f[i].name);
	}
	l->n = k;
	return 0;
}

size_t pt_conf_list_n(const struct pt_conf_list *l)
{
	return l->n;
}

const char *pt_conf_list_path(const struct pt_conf_list *l, size_t i)
{
	return l->f[i].name;
}

bool pt_conf_list_is_link(const struct pt_conf_list *l, size_t i)
{
	return !l->f[i].plain;
}

int pt_conf_list_read(struct perftune_ctx *ctx, const struct pt_conf_list *l, size_t i, char **text,
		      size_t *len, struct stat *st, struct pt_why_work *work)
{
	const struct found *f = &l->f[i];
	int fd;

	if (!f->plain || l->dirfd[f->dir] < 0)
		return pt_conf_read(ctx, f->name, text, len, st, work); /* a link: from the root */
	/* a file when listed: opened in its directory, never through a link swapped in */
	fd = openat(l->dirfd[f->dir], base(f->name),
		    O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0 && errno == ELOOP)
		return pt_conf_read(ctx, f->name, text, len, st, work);
	if (fd < 0)
		fd = -errno;
	return read_fd(fd, text, len, st, work);
}

/* ---- lines as systemd's read_line() ends them ---- */

enum { EOL_NUL = 1, EOL_LF = 2, EOL_CR = 4 };

static unsigned eol(char c)
{
	if (c == '\n')
		return EOL_LF;
	if (c == '\r')
		return EOL_CR;
	if (c == '\0')
		return EOL_NUL;
	return 0;
}

void pt_lines_init(struct pt_lines *l, char *text, size_t len)
{
	*l = (struct pt_lines){ .p = text, .end = text + len };
}

char *pt_lines_next(struct pt_lines *l)
{
	char *line = l->p, *p = l->p;
	unsigned seen = 0;

	if (p >= l->end)
		return NULL;
	while (p < l->end && !eol(*p))
		p++;
	/* the end of the line: markers not seen in it yet, up to and with a NUL */
	while (p < l->end && eol(*p) && !(seen & eol(*p)) && !(seen & EOL_NUL)) {
		seen |= eol(*p);
		*p++ = '\0';
	}
	l->p = p;
	l->lineno++;
	return line;
}
