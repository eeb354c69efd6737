// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The user-space walk of a path, one walker with two policies.
 *
 * Beneath a top (where openat2 is refused: beneath.c), the way systemd's
 * chase() and libpathrs's fallback do it: one component at a time with
 * O_PATH|O_NOFOLLOW, so that the kernel never follows a link itself; links
 * read with readlinkat() and spliced into the rest of the path; ".." taken
 * lexically, never above the top; absolute links refused (they leave the top,
 * as openat2 answers EXDEV); procfs's magic links (/proc/<pid>/fd/N, exe,
 * cwd, root, ns/...) refused with ELOOP like RESOLVE_NO_MAGICLINKS; at most
 * 40 links (ELOOP).  The final O_PATH fd is then checked where it really is
 * (its /proc/self/fd link below the top's, its file system a kernel one
 * where the top is the real /sys or /proc) and reopened for I/O through
 * /proc/self/fd/N, which opens that very file and no other.
 *
 * Through root's directories only (the journal directory): systemd's chase()
 * with CHASE_SAFE (WALK_SAFE below).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "macro.h"
#include "io/walk.h"

#define LINKS_MAX 40		/* the kernel's MAXSYMLINKS */
#define SAFE_LINKS_MAX 32	/* WALK_SAFE's */
#define DEPTH_MAX 256		/* directories deep below the top */
#define TODO_MAX (4 * PATH_MAX) /* the rest of the path, links spliced in */

/* file system types (linux/magic.h; spelled out: 4.18's headers lack some) */
#define FS_SYSFS 0x62656572

#define FS_PROC 0x9fa0
#define FS_BINFMT 0x42494e4d
#define FS_SELINUX 0xf97cff8c
#define FS_SECURITY 0x73636673
#define FS_DEBUG 0x64626720
#define FS_TRACE 0x74726163
#define FS_CGROUP 0x27e0eb
#define FS_CGROUP2 0x63677270
#define FS_CONFIG 0x62656570
#define FS_BPF 0xcafe4a11
#define FS_PSTORE 0x6165676c
#define FS_EFIVAR 0xde5e81e4
#define FS_FUSECTL 0x65735543
#define PROC_ROOT_INO 1

/* ENOSYS or EPERM answered to a call of the walk itself: a filter refusing it */
static __thread int walk_refused;

static int sys_err(void)
{
	if (errno == ENOSYS || errno == EPERM)
		walk_refused = errno;
	return -errno;
}

/* readlink of /proc/self/fd/@fd: where the file really is */
static int fd_path(int fd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

static bool fs_in(long type, const long *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (type == set[i])
			return true;
	return false;
}

/* the file systems that live below /sys and /proc */
static const long sys_fs[] = {
	FS_SYSFS,   FS_SELINUX, FS_SECURITY, FS_DEBUG,	FS_TRACE,  FS_CGROUP,
	FS_CGROUP2, FS_CONFIG,	FS_BPF,	     FS_PSTORE, FS_EFIVAR, FS_FUSECTL
};

static const long proc_fs[] = { FS_PROC, FS_BINFMT };

/*
 * @fd is where it should be: below the top (its path, as the kernel knows
 * it), and on one of the kernel's file systems if the top is sysfs or procfs.
 */
static int check_final(int top, int fd)
{
	char tp[PATH_MAX], fp[PATH_MAX];
	struct statfs ts, fs;
	size_t n;
	int r;

	if (fstatfs(top, &ts) < 0 || fstatfs(fd, &fs) < 0)
		return sys_err();
	if ((long)ts.f_type == FS_SYSFS && !fs_in((long)fs.f_type, sys_fs, ARRAY_SIZE(sys_fs)))
		return -EPERM;
	if ((long)ts.f_type == FS_PROC && !fs_in((long)fs.f_type, proc_fs, ARRAY_SIZE(proc_fs)))
		return -EPERM;
	r = fd_path(top, tp, sizeof(tp));
	if (r == 0)
		r = fd_path(fd, fp, sizeof(fp));
	if (r < 0)
		return r == -ENOENT ? -ENOSYS : r; /* no /proc: the walk cannot be checked */
	n = strlen(tp);
	if (n == 1) /* the top is "/" of this mount namespace */
		return 0;
	if (strncmp(fp, tp, n) || (fp[n] && fp[n] != '/'))
		return -EPERM;
	return 0;
}

/* a procfs link that is not one of its root's plain ones (self, thread-self, mounts, net) */
static bool magic_link(int link, int dir)
{
	struct statfs fs;
	struct stat st;

	if (fstatfs(link, &fs) < 0 || (long)fs.f_type != FS_PROC)
		return false;
	return fstat(dir, &st) < 0 || st.st_ino != PROC_ROOT_INO;
}

/* what the walk takes on its way */
enum walk_policy {
	/*
	 * Below the top: ".." never above it, absolute links and procfs's magic
	 * links refused, as RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS.
	 */
	WALK_BENEATH,
	/*
	 * From "/", every component a directory, as systemd's chase() with
	 * CHASE_SAFE: a link on the way is followed (absolute or not) only if it
	 * is root's in a directory only root can write (/var/run -> /run is fine),
	 * the last component is never one however it is spelled ("dir/",
	 * "dir/."); ".." is the kernel's.
	 */
	WALK_SAFE,
};

struct walk {
	int top;
	int fd[DEPTH_MAX + 1]; /* fd[0] is the top (not ours), fd[n] where we are */
	size_t n;
	int links;
	enum walk_policy policy;
	bool create;	 /* WALK_SAFE: make the last component (0700) if it is missing */
	const char *why; /* WALK_SAFE: what was refused, for the message */
	char todo[TODO_MAX];
};

static struct walk *walk_new(int top, const char *path, enum walk_policy policy)
{
	struct walk *w;

	if (strlen(path) >= PATH_MAX) /* as the kernel's getname() */
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->top = top;
	w->fd[0] = top;
	w->policy = policy;
	strcpy(w->todo, path);
	return w;
}

static void walk_close(struct walk *w)
{
	for (; w->n > 0; w->n--)
		close(w->fd[w->n]);
}

/*
 * Replace the walk's remaining path with @target + @rest (@rest is "" or
 * starts with its "/": a link last in the path stays last, and a trailing
 * slash stays where it was).
 */
static int splice_link(struct walk *w, const char *target, const char *rest)
{
	size_t tl = strlen(target), rl = strlen(rest);

	if (tl + rl + 1 > sizeof(w->todo))
		return -ENAMETOOLONG;
	memmove(w->todo + tl, rest, rl + 1);
	memcpy(w->todo, target, tl);
	return 0;
}

/* a symlink that only root could have put there, in a directory only root can write */
static bool link_safe(int dirfd, const struct stat *link)
{
	struct stat d;

	return link->st_uid == 0 && fstat(dirfd, &d) == 0 && d.st_uid == 0 && !(d.st_mode & 0022);
}

/* WALK_SAFE may follow the link @st found in the current directory: 0, or -ELOOP and why not */
static int safe_may_follow(struct walk *w, const struct stat *st, bool last)
{
	if (last) {
		w->why = "is a symlink or not a directory";
		return -ELOOP;
	}
	if (!link_safe(w->fd[w->n], st) || ++w->links > SAFE_LINKS_MAX) {
		w->why = "a symlink on the way is not root's in a directory only root can write, "
			 "refusing";
		return -ELOOP;
	}
	return 0;
}

/* Follow the link @fd (opened O_PATH|O_NOFOLLOW) found in the current directory. */
static int follow(struct walk *w, int fd, const char *rest)
{
	char target[PATH_MAX];
	ssize_t n;

	if (w->policy == WALK_BENEATH && ++w->links > LINKS_MAX)
		return -ELOOP;
	if (w->policy == WALK_BENEATH && magic_link(fd, w->fd[w->n]))
		return -ELOOP; /* as RESOLVE_NO_MAGICLINKS */
	n = readlinkat(fd, "", target, sizeof(target));
	if (n < 0)
		return sys_err();
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	target[n] = '\0';
	if (w->policy == WALK_SAFE) {
		if (n == 0)
			return -ENOENT;
		if (target[0] == '/')
			walk_close(w); /* from "/" again */
	} else if (target[0] == '/' || n == 0) {
		return -EPERM; /* absolute: out of the top (openat2: EXDEV) */
	}
	return splice_link(w, target, rest);
}

/* @name in the current directory, O_PATH: WALK_SAFE makes it first if it may */
static int open_comp(struct walk *w, const char *name, bool last)
{
	int fd = openat(w->fd[w->n], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno != ENOENT || w->policy != WALK_SAFE || !last || !w->create)
		return sys_err();
	if (mkdirat(w->fd[w->n], name, 0700) < 0 && errno != EEXIST)
		return sys_err();
	fd = openat(w->fd[w->n], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return sys_err();
	return fd;
}

/* what @st, the component @last or not, may be besides a link: 0 or -ENOTDIR */
static int comp_type(struct walk *w, const struct stat *st, bool last)
{
	if (S_ISDIR(st->st_mode))
		return 0;
	if (w->policy == WALK_SAFE) {
		w->why = "is a symlink or not a directory";
		return -ENOTDIR;
	}
	if (!last)
		return -ENOTDIR;
	return 0;
}

/*
 * One component @name of the walk: "." stays, ".." goes up (never above
 * the top), a directory is entered, a link spliced in.  *@final is set when
 * @name is the last component and a link kept as it is (O_NOFOLLOW).
 * Returns 1 when a link was spliced into w->todo (the walk goes on from its
 * start), 0 or -errno.
 */
static int step(struct walk *w, const char *name, const char *rest, bool last, int flags,
		bool *final)
{
	struct stat st;
	int fd, r;

	if (!strcmp(name, "."))
		return 0;
	if (w->policy == WALK_BENEATH && !strcmp(name, "..")) {
		if (w->n == 0)
			return -EPERM; /* above the top (openat2: EXDEV) */
		close(w->fd[w->n--]);
		return 0;
	}
	fd = open_comp(w, name, last);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		r = sys_err();
		close(fd);
		return r;
	}
	if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
		r = 0;
		if (w->policy == WALK_SAFE)
			r = safe_may_follow(w, &st, last);
		if (r == 0)
			r = follow(w, fd, rest);
		close(fd);
		if (r < 0)
			return r;
		return 1;
	}
	r = 0;
	if (!S_ISLNK(st.st_mode))
		r = comp_type(w, &st, last);
	if (r == 0 && w->n >= DEPTH_MAX)
		r = -ENAMETOOLONG;
	if (r < 0) {
		close(fd);
		return r;
	}
	if (w->policy == WALK_SAFE && w->n > 0)
		close(w->fd[w->n--]); /* ".." is the kernel's: no need to keep where we were */
	w->fd[++w->n] = fd;
	*final = S_ISLNK(st.st_mode);
	return 0;
}

/* the rest of a path after a component: nothing but "/" and "." components */
static bool only_dots(const char *p)
{
	for (; *p; p++)
		if (*p != '/' && !(*p == '.' && (p[1] == '/' || !p[1])))
			return false;
	return true;
}

/* Walk w->todo down from the top; w->fd[w->n] is where it ends. */
static int walk(struct walk *w, int flags, bool *dir_wanted, bool *is_link)
{
	char name[NAME_MAX + 1];
	char *p = w->todo;
	int r;

	for (;;) {
		size_t len;
		bool last;

		while (*p == '/')
			p++;
		if (!*p)
			return 0;
		len = strcspn(p, "/");
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		/* WALK_SAFE: "dir/" and "dir/." are dir itself, a link there refused */
		if (w->policy == WALK_SAFE)
			last = only_dots(p);
		else
			last = !p[strspn(p, "/")];
		*dir_wanted = w->policy == WALK_BENEATH && last && *p == '/';
		*is_link = false;
		r = step(w, name, p, last && !*dir_wanted, flags, is_link);
		if (r < 0)
			return r;
		if (r > 0) /* a link spliced in: go on from its target */
			p = w->todo;
	}
}

/* Take the final fd out of the walk: the top itself is dup'ed. */
static int walk_take(struct walk *w)
{
	int fd;

	if (w->n == 0) {
		fd = fcntl(w->top, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
		return fd;
	}
	return w->fd[w->n--];
}

/*
 * An fd of the file the O_PATH @fd is, opened with @flags: through its
 * /proc/self/fd link, which leads to that very file whatever was renamed
 * since (a lookup of its name could find another).
 */
static int reopen(int fd, int flags)
{
	char link[64];
	int r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	r = open(link, (flags & ~O_NOFOLLOW) | O_CLOEXEC | O_NOCTTY);
	if (r < 0)
		return sys_err();
	return r;
}

static int beneath_walk(int top, const char *rest, int flags)
{
	struct walk *w;
	bool dir_wanted = false, is_link = false;
	struct stat st;
	int fd, r;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return -EINVAL;
	w = walk_new(top, rest, WALK_BENEATH);
	if (!w)
		return strlen(rest) >= PATH_MAX ? -ENAMETOOLONG : -ENOMEM;
	r = walk(w, flags, &dir_wanted, &is_link);
	fd = r;
	if (r == 0)
		fd = walk_take(w);
	walk_close(w);
	free(w);
	if (fd < 0)
		return fd;
	r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	if (r == 0 && !S_ISDIR(st.st_mode) && (dir_wanted || (flags & O_DIRECTORY)))
		r = -ENOTDIR;
	if (r == 0)
		r = check_final(top, fd);
	if (r == 0 && !(flags & O_PATH) && is_link)
		r = -ELOOP; /* O_NOFOLLOW on a link */
	if (r < 0) {
		close(fd);
		return r;
	}
	if (flags & O_PATH)
		return fd;
	r = reopen(fd, flags);
	close(fd);
	return r;
}

int pt_walk_beneath(int top, const char *rest, int flags, int *refused)
{
	int fd;

	walk_refused = 0;
	fd = beneath_walk(top, rest, flags);
	*refused = walk_refused;
	return fd;
}

int pt_walk_safe_dir(const char *path, bool create, const char **why)
{
	_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	bool dir_wanted, is_link;
	struct walk *w;
	int r;

	if (root < 0)
		return -errno;
	w = walk_new(root, path, WALK_SAFE);
	if (!w)
		return strlen(path) >= PATH_MAX ? -ENAMETOOLONG : -ENOMEM;
	w->create = create;
	r = walk(w, 0, &dir_wanted, &is_link);
	if (r == 0) {
		r = openat(w->fd[w->n], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (r < 0)
			r = -errno;
	}
	*why = w->why;
	walk_close(w);
	free(w);
	return r;
}
