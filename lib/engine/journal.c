// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Journals: /run/perftune/<name>.journal, versioned append-only text.
 *
 *   perftune-journal 2
 *   name <name>
 *   boot <boot id>
 *   flags <hex>
 *   pid <pid> <starttime>        holder; the last one counts, "pid 0 0" = released
 *   orig <seq> <key>\t<value>    original, appended before the first write of key
 *   ident <key>\t<identity>      what that original belongs to (format 2: in the
 *                                same write as its orig, right after it)
 *   wrote <key>\t<value>         what the write left (read back)
 *   handover <key>\t<value>      an earlier transaction's original, handed over
 *   restored <key>               key given back (or handed over, or gone for good)
 *   commit                       the commit completed
 *
 * Format 1 is format 2 without "ident": such journals still load and restore
 * as they always did, and what is appended to one stays format 1.
 * Values are %-escaped (%, tab, newline, control bytes).  /run is a tmpfs
 * cleared at boot exactly when the tunables reset, so no fsync is needed: a
 * killed process loses nothing it wrote, and a journal never outlives what it
 * protects; the boot id guards journals kept elsewhere.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/util.h"
#include "io/beneath.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "engine/journal.h"

#define JOURNAL_MAGIC "perftune-journal "
#define JOURNAL_VERSION 2 /* 2: identities ("ident"); 1 is read and appended to as it is */
#define JOURNAL_MAX (4 << 20)
#define LINE_MAX_LEN (PERFTUNE_KEY_MAX + 3 * PT_VAL + 64)

int pt_journal_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > PT_TX_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.@-", name[i]))
			return 0;
	return 1;
}

/* the boot id: read once (a process does not outlive its boot) */
static char boot_cache[64];
static pthread_once_t boot_once = PTHREAD_ONCE_INIT;

static void boot_read(void)
{
	_cleanup_close_ int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, boot_cache, sizeof(boot_cache) - 1) : -1;

	boot_cache[n > 0 ? n : 0] = '\0';
	pt_trim(boot_cache);
	if (!boot_cache[0])
		snprintf(boot_cache, sizeof(boot_cache), "unknown");
}

static void boot_id(char *buf, size_t size)
{
	pthread_once(&boot_once, boot_read);
	snprintf(buf, size, "%s", boot_cache);
}

static unsigned long long proc_starttime(pid_t pid)
{
	char p[64], buf[1024], *rp;
	unsigned long long st = 0;
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return 0;
	buf[n] = '\0';
	rp = strrchr(buf, ')'); /* comm may contain spaces */
	if (!rp || sscanf(rp + 2,
			  "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			  "%*d %*d %*d %*d %llu",
			  &st) != 1)
		return 0;
	return st;
}

/* this process's start time, read once per process (a fork reads its own) */
static unsigned long long self_starttime(void)
{
	static pid_t pid;
	static unsigned long long st;
	pid_t now = getpid();

	if (__atomic_load_n(&pid, __ATOMIC_ACQUIRE) != now) {
		unsigned long long v = proc_starttime(now);
		__atomic_store_n(&st, v, __ATOMIC_RELAXED);
		__atomic_store_n(&pid, now, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&st, __ATOMIC_RELAXED);
}

static bool holder_alive(pid_t pid, unsigned long long starttime)
{
	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	return proc_starttime(pid) == starttime; /* a reused pid is not the holder */
}

/* Open the journal dir, refusing anything not ours: symlink, other owner, group/other access. */
int pt_journal_dir_open(struct perftune_ctx *ctx, bool create)
{
	const char *dir = perftune_ctx_get_journal_dir(ctx), *why;
	struct stat st;
	int fd = *pt_ctx_jdir(ctx);

	if (fd >= 0) { /* checked when the lock was taken, and held since */
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? pt_err(ctx, -errno, "journal directory %s: %s", dir, strerror(errno))
			      : fd;
	}
	if (dir[0] != '/') /* perftune_ctx_set_journal_dir() takes absolute paths only */
		return pt_err(ctx, -EINVAL, "PERFTUNE_JOURNAL_DIR '%s': not an absolute path", dir);
	fd = pt_safe_dir_open(dir, create, &why);
	if (fd == -ENOENT && !create && !why)
		return -ENOENT;
	if (fd < 0)
		return pt_err(ctx, fd, "journal directory %s: %s", dir, why ? why : strerror(-fd));
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 0077)) {
		close(fd);
		return pt_err(
			ctx, -EPERM,
			"journal directory %s: must be owned by uid %u with mode 0700, refusing",
			dir, geteuid());
	}
	return fd;
}

/*
 * Take the journal lock.  Until pt_journal_unlock() the directory checked
 * here stays open in the context: the journal calls in between use it instead
 * of opening and checking the path again.
 */
int pt_journal_lock(struct perftune_ctx *ctx, int *lockfd)
{
	int dfd = pt_journal_dir_open(ctx, true);
	struct stat st;
	int fd;

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EPERM;
	}
	if (fd < 0) {
		int r = -errno;
		close(dfd);
		return pt_err(ctx, r, "journal lock %s/.lock: %s",
			      perftune_ctx_get_journal_dir(ctx),
			      r == -EPERM ? "not a regular file, refusing" : strerror(-r));
	}
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			int r = -errno;
			close(fd);
			close(dfd);
			return pt_err(ctx, r, "journal lock: %s", strerror(-r));
		}
	*lockfd = fd;
	*pt_ctx_jdir(ctx) = dfd;
	return 0;
}

void pt_journal_unlock(struct perftune_ctx *ctx, int lockfd)
{
	int *dfd = pt_ctx_jdir(ctx);

	if (*dfd >= 0)
		close(*dfd);
	*dfd = -1;
	close(lockfd);
}

static void escape(const char *in, char *out, size_t size)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 4 < size; p++) {
		if (*p == '%' || *p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(out + o, size - o, "%%%02X", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
}

static int unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r != '%') {
			*w++ = *r;
			continue;
		}
		if (!isxdigit((unsigned char)r[1]) || !isxdigit((unsigned char)r[2]))
			return -EINVAL;
		char hex[3] = { r[1], r[2], 0 };
		*w++ = (char)strtol(hex, NULL, 16);
		r += 2;
	}
	*w = '\0';
	return 0;
}

/*
 * Before appending to a journal that ends in a record cut short (its append
 * failed, or its writer was killed in it): cut that record off, so that the
 * next record is not glued to it.  A tail longer than a record is left alone.
 */
static void heal_tail(struct perftune_ctx *ctx, const char *name, int fd, off_t size)
{
	char buf[LINE_MAX_LEN + 2];
	off_t from = size > (off_t)sizeof(buf) ? size - (off_t)sizeof(buf) : 0;
	ssize_t n = size > 0 ? pread(fd, buf, (size_t)(size - from), from) : 0;
	char *nl;

	if (n <= 0 || buf[n - 1] == '\n')
		return;
	nl = memrchr(buf, '\n', (size_t)n);
	if (!nl || ftruncate(fd, from + (nl - buf) + 1) < 0)
		return;
	pt_log(ctx, PERFTUNE_LOG_WARNING,
	       "journal %s: dropped its last record, cut short by an interrupted append", name);
}

/*
 * Open a journal without following a link and without blocking (a FIFO
 * named *.journal would hang the open or the read), then check what was
 * opened.  O_WRONLY: to append (opened read-write, to heal its tail).
 */
static int open_journal(struct perftune_ctx *ctx, const char *name, int flags, int *fd)
{
	char file[128];
	struct stat st;
	bool append = (flags & O_ACCMODE) == O_WRONLY && !(flags & O_CREAT);
	_cleanup_close_ int dfd = pt_journal_dir_open(ctx, flags & O_CREAT);

	if (dfd < 0)
		return dfd;
	if (append)
		flags = (flags & ~O_ACCMODE) | O_RDWR;
	snprintf(file, sizeof(file), "%s.journal", name);
	*fd = openat(dfd, file, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
	if (*fd < 0 && errno == ELOOP)
		return pt_err(ctx, -ELOOP, "journal %s: is a symlink, refusing", name);
	if (*fd < 0 && errno == EISDIR) /* opened for writing too */
		return pt_err(ctx, -EPERM,
			      "journal %s: not a private regular file of uid %u, refusing", name,
			      geteuid());
	if (*fd < 0 && errno != ENOENT && errno != EEXIST)
		return pt_err(ctx, -errno, "journal %s: %s", name, strerror(errno));
	if (*fd < 0)
		return -errno;
	if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0077) || st.st_nlink != 1) {
		close(*fd);
		return pt_err(ctx, -EPERM,
			      "journal %s: not a private regular file of uid %u, refusing", name,
			      geteuid());
	}
	if (append)
		heal_tail(ctx, name, *fd, st.st_size);
	return 0;
}

void pt_jinfo_free(struct pt_jinfo *ji)
{
	for (size_t i = 0; i < ji->n; i++)
		pt_free_all(ji->e[i].key, ji->e[i].orig, ji->e[i].written, ji->e[i].ident);
	free(ji->e);
	free(ji->idx);
	memset(ji, 0, sizeof(*ji));
}

/*
 * The key index: a journal of 40,000 keys is parsed, and each key looked up
 * by restore and by a commit, in linear time (a scan per record was quadratic).
 */
static size_t key_hash(const char *key)
{
	size_t h = 14695981039346656037ULL; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

/* the slot of @key: where it is, or the empty one where it would go */
static size_t *key_slot(const struct pt_jinfo *ji, const char *key)
{
	size_t mask = ji->nidx - 1;

	for (size_t i = key_hash(key) & mask;; i = (i + 1) & mask)
		if (!ji->idx[i] || !strcmp(ji->e[ji->idx[i] - 1].key, key))
			return &ji->idx[i];
}

/* room for one more entry, kept at most half full */
static int index_grow(struct pt_jinfo *ji)
{
	size_t n = ji->nidx ? ji->nidx : 64;
	size_t *old = ji->idx, nold = ji->nidx;

	if (ji->n + 1 <= ji->nidx / 2)
		return 0;
	while (ji->n + 1 > n / 2)
		n *= 2;
	ji->idx = calloc(n, sizeof(*ji->idx));
	if (!ji->idx) {
		ji->idx = old;
		return -ENOMEM;
	}
	ji->nidx = n;
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			*key_slot(ji, ji->e[old[i] - 1].key) = old[i];
	free(old);
	return 0;
}

struct pt_jentry *pt_jinfo_find(struct pt_jinfo *ji, const char *key)
{
	size_t *slot;

	if (!ji->nidx)
		return NULL;
	slot = key_slot(ji, key);
	return *slot ? &ji->e[*slot - 1] : NULL;
}

/* a new entry for @key (not there yet) */
static struct pt_jentry *jinfo_add(struct pt_jinfo *ji, const char *key)
{
	struct pt_jentry *e;

	if (pt_grow(&ji->e, &ji->cap, ji->n + 1, 16) < 0)
		return NULL;
	if (index_grow(ji) < 0)
		return NULL;
	e = &ji->e[ji->n];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	if (!e->key)
		return NULL;
	*key_slot(ji, key) = ++ji->n;
	return e;
}

static int replace(char **dst, const char *v)
{
	char *d = strdup(v);
	if (!d)
		return -ENOMEM;
	free(*dst);
	*dst = d;
	return 0;
}

/* One record; returns 0 or -EINVAL for anything unexpected. */
static int parse_record(struct pt_jinfo *ji, char *line, const char *boot)
{
	char *sp = strchr(line, ' '), *tab, *arg;

	if (!strcmp(line, "commit")) {
		ji->committed = true;
		return 0;
	}
	if (!sp)
		return -EINVAL;
	*sp = '\0';
	arg = sp + 1;
	if (!strcmp(line, "name"))
		return strcmp(arg, ji->name) ? -EINVAL : 0;
	if (!strcmp(line, "boot")) {
		ji->foreign_boot = strcmp(arg, boot) != 0;
		return 0;
	}
	if (!strcmp(line, "flags"))
		return sscanf(arg, "%x", &ji->flags) == 1 ? 0 : -EINVAL;
	if (!strcmp(line, "pid"))
		return sscanf(arg, "%d %llu", &ji->pid, &ji->starttime) == 2 ? 0 : -EINVAL;
	if (!strcmp(line, "restored")) {
		struct pt_jentry *e = pt_jinfo_find(ji, arg);
		if (!e)
			return -EINVAL;
		e->restored = true;
		return 0;
	}
	unsigned long long seq = 0;
	if (!strcmp(line, "orig")) {
		char *end;
		if (!isdigit((unsigned char)arg[0])) /* as written: digits, no blank or sign first */
			return -EINVAL;
		seq = strtoull(arg, &end, 10);
		if (*end != ' ')
			return -EINVAL;
		arg = end + 1;
	}
	tab = strchr(arg, '\t');
	if (!tab)
		return -EINVAL;
	*tab = '\0';
	if (unescape(arg) < 0 || unescape(tab + 1) < 0 || strlen(arg) >= PERFTUNE_KEY_MAX)
		return -EINVAL;
	/* no key has a control character; a value is one line (an original is,
	 * pt_file_read_verbatim()) but may hold any other byte but NUL as the
	 * kernel gave it (a sysctl's "4\t4\t1\t7", a core_pattern set behind our
	 * back to "|x\001y"): it is %-escaped here, and messages and logs show a
	 * control character as '?' (pt_one_line) */
	if (pt_has_cntrl(arg) || strpbrk(tab + 1, "\n\r"))
		return -EINVAL;
	struct pt_jentry *e = pt_jinfo_find(ji, arg);
	if (!strcmp(line, "orig")) {
		if (e && !e->restored)
			return -EINVAL; /* a live key has one original */
		if (!e && !(e = jinfo_add(ji, arg)))
			return -ENOMEM;
		pt_free_all(e->written, e->ident);
		e->written = e->ident = NULL;
		e->restored = false;
		if (seq > ji->seq)
			ji->seq = seq;
		e->seq = seq;
		return replace(&e->orig, tab + 1);
	}
	if (!e)
		return -EINVAL;
	if (!strcmp(line, "ident")) /* once, for a live original, in a journal of format 2 */
		return ji->version < 2 || e->restored || e->ident ? -EINVAL
								  : replace(&e->ident, tab + 1);
	if (!strcmp(line, "wrote"))
		return replace(&e->written, tab + 1);
	if (!strcmp(line, "handover"))
		return replace(&e->orig, tab + 1);
	return -EINVAL;
}

/* "perftune-journal <version>": 1 or 2, else -EPROTO (a format this code does not know) */
static int parse_magic(struct pt_jinfo *ji, const char *line)
{
	size_t n = strlen(JOURNAL_MAGIC);

	if (strncmp(line, JOURNAL_MAGIC, n) || !line[n] || line[n + 1] || line[n] < '1' ||
	    line[n] > '0' + JOURNAL_VERSION)
		return -EPROTO;
	ji->version = line[n] - '0';
	return 0;
}

bool pt_journal_has_identity(const struct pt_jinfo *ji)
{
	return ji->version == 0 || ji->version >= 2;
}

/* The file into a buffer that grows with it, up to JOURNAL_MAX + 1 bytes (one too many). */
static int read_whole(int fd, char **bufp, size_t *lenp)
{
	size_t cap = 16384, len = 0; /* a journal of a few dozen keys fits */
	char *buf = malloc(cap + 1);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;
		if (len == cap) { /* full: grow, up to one byte past the limit */
			size_t ncap = cap * 2 > JOURNAL_MAX + 1 ? JOURNAL_MAX + 1 : cap * 2;
			char *nb;
			if (cap > JOURNAL_MAX)
				break;
			nb = realloc(buf, ncap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

int pt_journal_load(struct perftune_ctx *ctx, const char *name, struct pt_jinfo *ji)
{
	return pt_journal_load_fd(ctx, name, ji, NULL);
}

int pt_journal_load_fd(struct perftune_ctx *ctx, const char *name, struct pt_jinfo *ji, int *jfd)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	char boot[64], *line, *nl;
	size_t len = 0;
	int r, lineno = 0;

	memset(ji, 0, sizeof(*ji));
	if (!pt_journal_name_ok(name))
		return pt_err(ctx, -EINVAL, "'%s' is not a transaction name", name);
	r = open_journal(ctx, name, jfd ? O_RDWR | O_APPEND : O_RDONLY, &fd);
	if (r == -ENOENT)
		return pt_err(ctx, -ENOENT, "no transaction named '%s'", name);
	if (r < 0)
		return r;
	r = read_whole(fd, &buf, &len);
	if (r < 0)
		return pt_err(ctx, r, "journal %s: %s", name, strerror(-r));
	if (len > JOURNAL_MAX)
		return pt_err(ctx, -EFBIG, "journal %s: larger than %d bytes, refusing", name,
			      JOURNAL_MAX);
	buf[len] = '\0';
	if (memchr(buf, '\0', len))
		return pt_err(ctx, -EINVAL, "journal %s: corrupt (NUL byte)", name);
	snprintf(ji->name, sizeof(ji->name), "%s", name);
	boot_id(boot, sizeof(boot));
	/*
	 * Only records ended by their newline count: a last line without one is
	 * an append cut short (a full /run, a kill), never a value to write back.
	 */
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		lineno++;
		if (!line[0])
			continue; /* an empty line holds nothing */
		if (strlen(line) > LINE_MAX_LEN)
			r = -EINVAL;
		else if (lineno == 1)
			r = parse_magic(ji, line);
		else
			r = parse_record(ji, line, boot);
		if (r < 0) {
			pt_jinfo_free(ji);
			if (r == -ENOMEM)
				return r;
			return pt_err(ctx, -EINVAL, "journal %s: %s at line %d, refusing", name,
				      r == -EPROTO ? "unknown format" : "corrupt record", lineno);
		}
	}
	if (lineno == 0)
		return pt_err(ctx, -EINVAL, "journal %s: empty, refusing", name);
	if (line[0])
		pt_log(ctx, PERFTUNE_LOG_WARNING,
		       "journal %s: last record cut short (no newline: an interrupted append), "
		       "ignored",
		       name);
	if (ji->pid > 0 && ji->pid != getpid()) {
		ji->held = holder_alive(ji->pid, ji->starttime);
		ji->orphaned = !ji->held;
	} else if (ji->pid == getpid()) {
		ji->held = true;
	}
	if (jfd && line[0] && ftruncate(fd, line - buf) == 0) /* before appending to it */
		pt_log(ctx, PERFTUNE_LOG_WARNING,
		       "journal %s: dropped its last record, cut short by an interrupted append",
		       name);
	if (jfd) { /* handed over to the caller */
		*jfd = fd;
		fd = -1;
	}
	return 0;
}

static int seq_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	return strcmp(*x, *y);
}

int pt_journal_names(struct perftune_ctx *ctx, char ***names)
{
	int dfd = pt_journal_dir_open(ctx, false);
	DIR *d;
	struct dirent *de;
	char **v = calloc(1, sizeof(char *));
	size_t n = 0;

	if (!v) {
		if (dfd >= 0)
			close(dfd);
		return -ENOMEM;
	}
	if (dfd == -ENOENT) {
		*names = v;
		return 0;
	}
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		free(v);
		if (dfd >= 0)
			close(dfd);
		return dfd < 0 ? dfd : -errno;
	}
	/* the fd may share its offset with the one kept under the lock, read to its end
	 * by an earlier listing (restore --orphans lists, then each restore lists again) */
	rewinddir(d);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		struct stat st;
		char name[PT_TX_NAME_MAX + 1];
		if (l <= 8 || strcmp(de->d_name + l - 8, ".journal"))
			continue;
		/* a FIFO, socket, device or directory is no journal (a symlink is refused on load) */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			pt_log(ctx, PERFTUNE_LOG_WARNING,
			       "journal directory %s: %s is not a regular file, skipped",
			       perftune_ctx_get_journal_dir(ctx), de->d_name);
			continue;
		}
		if (l - 8 > PT_TX_NAME_MAX)
			continue; /* no journal name is that long */
		snprintf(name, sizeof(name), "%.*s", (int)(l - 8), de->d_name); /* no ".journal" */
		if (!pt_journal_name_ok(name))
			continue;
		if (!pt_strv_add(&v, &n, name))
			break;
	}
	closedir(d);
	qsort(v, n, sizeof(char *), seq_cmp);
	*names = v;
	return (int)n;
}

static unsigned long long next_seq(void)
{
	static unsigned long long last;
	struct timespec ts;
	unsigned long long s;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
	if (s <= last)
		s = last + 1;
	last = s;
	return s;
}

/* one record per write(2), and workers of a parallel commit take turns */
static pthread_mutex_t append_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * A short or failed append (a full /run) leaves no record cut short behind:
 * the file is cut back to where it ended, and the caller fails before the
 * kernel write the record was to protect.  (The file is ours and locked, the
 * appends take turns: it ends @off bytes after where it ended before.)
 */
static int append_line(int fd, const char *line)
{
	size_t len = strlen(line), off = 0;
	struct stat st;
	int r = 0;

	pthread_mutex_lock(&append_lock);
	while (off < len) {
		ssize_t n = write(fd, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)n;
	}
	if (r < 0 && off > 0 && (fstat(fd, &st) < 0 || ftruncate(fd, st.st_size - (off_t)off) < 0))
		r = -errno;
	pthread_mutex_unlock(&append_lock);
	return r;
}

int pt_journal_append(struct perftune_ctx *ctx, int jfd, const char *tag, const char *key,
		      const char *value)
{
	_cleanup_free_ char *line = malloc(LINE_MAX_LEN + 2);
	char ek[PERFTUNE_KEY_MAX * 3], ev[PT_VAL * 3];
	int r;

	if (!line)
		return -ENOMEM;
	escape(key ? key : "", ek, sizeof(ek));
	escape(value ? value : "", ev, sizeof(ev));
	if (!strcmp(tag, "orig"))
		snprintf(line, LINE_MAX_LEN + 2, "orig %llu %s\t%s\n", next_seq(), ek, ev);
	else if (!strcmp(tag, "restored"))
		snprintf(line, LINE_MAX_LEN + 2, "restored %s\n", ek);
	else if (!strcmp(tag, "commit"))
		snprintf(line, LINE_MAX_LEN + 2, "commit\n");
	else if (!strcmp(tag, "commit+release"))
		snprintf(line, LINE_MAX_LEN + 2, "commit\npid 0 0\n");
	else if (!strcmp(tag, "pid"))
		snprintf(line, LINE_MAX_LEN + 2, "pid %s\n", value);
	else
		snprintf(line, LINE_MAX_LEN + 2, "%s %s\t%s\n", tag, ek, ev);
	r = append_line(jfd, line);
	if (r < 0)
		return pt_err(ctx, r, "cannot write journal: %s", strerror(-r));
	return 0;
}

int pt_journal_append_orig(struct perftune_ctx *ctx, int jfd, const char *key, const char *value,
			   const char *ident)
{
	size_t cap = 2 * (LINE_MAX_LEN + 2);
	_cleanup_free_ char *buf = malloc(cap), *eid = malloc(3 * PT_IDENT_MAX + 1);
	char ek[PERFTUNE_KEY_MAX * 3], ev[PT_VAL * 3];
	int n, r;

	if (!buf || !eid)
		return -ENOMEM;
	escape(key, ek, sizeof(ek));
	escape(value ? value : "", ev, sizeof(ev));
	escape(ident ? ident : "", eid, 3 * PT_IDENT_MAX + 1);
	n = snprintf(buf, cap, "orig %llu %s\t%s\n", next_seq(), ek, ev);
	if (eid[0] && strlen(ek) + strlen(eid) + sizeof("ident \t") > LINE_MAX_LEN)
		return pt_err(ctx, -E2BIG, "%s: its identity is too long to journal", key);
	if (eid[0])
		snprintf(buf + n, cap - (size_t)n, "ident %s\t%s\n", ek, eid);
	r = append_line(jfd, buf);
	return r < 0 ? pt_err(ctx, r, "cannot write journal: %s", strerror(-r)) : 0;
}

int pt_journal_append_restored(struct perftune_ctx *ctx, int jfd, const char *const *keys, size_t n)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 1;
	char ek[PERFTUNE_KEY_MAX * 3];
	int r;

	for (size_t i = 0; i < n; i++)
		cap += strlen(keys[i]) * 3 + sizeof("restored \n");
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		escape(keys[i], ek, sizeof(ek));
		len += (size_t)snprintf(buf + len, cap - len, "restored %s\n", ek);
	}
	buf[len] = '\0';
	r = len ? append_line(jfd, buf) : 0;
	return r < 0 ? pt_err(ctx, r, "cannot write journal: %s", strerror(-r)) : 0;
}

int pt_journal_append_to(struct perftune_ctx *ctx, const char *name, const char *tag,
			 const char *key, const char *value)
{
	_cleanup_close_ int fd = -1;
	int r = open_journal(ctx, name, O_WRONLY | O_APPEND, &fd);

	return r < 0 ? r : pt_journal_append(ctx, fd, tag, key, value);
}

/*
 * A new journal appears whole: its header and holder line are written to an
 * unnamed file (O_TMPFILE) that is then linked in, so a process killed while
 * creating it leaves nothing behind, never an empty or headless journal.
 * -EEXIST: the journal is there already; -EOPNOTSUPP: no O_TMPFILE here.
 */
static int create_journal(struct perftune_ctx *ctx, const char *name, const char *content, int *fd)
{
	_cleanup_close_ int dfd = pt_journal_dir_open(ctx, true);
	char file[128], proc[64];
	int tfd, r;

	if (dfd < 0)
		return dfd;
	snprintf(file, sizeof(file), "%s.journal", name);
	tfd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_APPEND | O_CLOEXEC, 0600);
	if (tfd < 0)
		return errno == EOPNOTSUPP || errno == EISDIR ? -EOPNOTSUPP : -errno;
	r = fchmod(tfd, 0600) < 0 ? -errno : append_line(tfd, content);
	if (r == 0 && linkat(tfd, "", dfd, file, AT_EMPTY_PATH) < 0) {
		r = -errno;
		if (r != -EEXIST) { /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH */
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", tfd);
			r = linkat(AT_FDCWD, proc, dfd, file, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
		}
	}
	if (r < 0) {
		close(tfd);
		return r;
	}
	*fd = tfd;
	return 0;
}

int pt_journal_begin(struct perftune_ctx *ctx, const char *name, unsigned flags, bool create,
		     int *jfd)
{
	char boot[64], hdr[512], pid[64];
	int fd = -1, r;

	boot_id(boot, sizeof(boot));
	snprintf(pid, sizeof(pid), "%d %llu", getpid(), self_starttime());
	snprintf(hdr, sizeof(hdr), JOURNAL_MAGIC "%d\nname %s\nboot %s\nflags %x\npid %s\n",
		 JOURNAL_VERSION, name, boot, flags, pid);
	r = create_journal(ctx, name, hdr, &fd);
	if (r == -EOPNOTSUPP) { /* created in place: a kill here can leave a short journal */
		r = open_journal(ctx, name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, &fd);
		if (r == 0 && (r = append_line(fd, hdr)) < 0)
			close(fd);
	}
	if (r == 0) {
		*jfd = fd;
		return 0;
	}
	if (r == -EEXIST && create)
		return r;
	if (r == -EEXIST)
		r = open_journal(ctx, name, O_WRONLY | O_APPEND, &fd);
	if (r < 0)
		return pt_err(ctx, r, "journal %s: %s", name, strerror(-r));
	r = pt_journal_append(ctx, fd, "pid", NULL, pid);
	if (r < 0) {
		close(fd);
		return r;
	}
	*jfd = fd;
	return 0;
}

int pt_journal_remove(struct perftune_ctx *ctx, const char *name)
{
	_cleanup_close_ int dfd = pt_journal_dir_open(ctx, false);
	char file[128];

	if (dfd < 0)
		return dfd;
	snprintf(file, sizeof(file), "%s.journal", name);
	return unlinkat(dfd, file, 0) < 0 ? -errno : 0;
}
