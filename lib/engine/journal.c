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
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "core/key.h"
#include "core/log.h"
#include "engine/holder.h"
#include "engine/journal-internal.h"
#include "engine/journal.h"

void pt_journal_escape(const char *in, char *out, size_t size)
{
	size_t o = 0;

	if (!in) /* no key or value: an empty one */
		in = "";
	for (const unsigned char *p = (const unsigned char *)in; *p && o + 4 < size; p++) {
		if (*p == '%' || *p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(out + o, size - o, "%%%02X", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
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
int pt_journal_append_line(int fd, const char *line)
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

/* the result of an append: 0, or its failure in the message */
static int append_ret(struct perftune_ctx *ctx, int r)
{
	if (r < 0)
		return pt_err(ctx, r, "cannot write journal: %s", strerror(-r));
	return 0;
}

int pt_journal_append(struct perftune_ctx *ctx, int jfd, const char *tag, const char *key,
		      const char *value)
{
	_cleanup_free_ char *line = malloc(LINE_MAX_LEN + 2);
	char ek[PERFTUNE_KEY_MAX * 3], ev[PT_VAL * 3];

	if (!line)
		return -ENOMEM;
	pt_journal_escape(key, ek, sizeof(ek));
	pt_journal_escape(value, ev, sizeof(ev));
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
	return append_ret(ctx, pt_journal_append_line(jfd, line));
}

int pt_journal_append_orig(struct perftune_ctx *ctx, int jfd, const char *key, const char *value,
			   const char *ident)
{
	size_t cap = 2 * (LINE_MAX_LEN + 2);
	_cleanup_free_ char *buf = malloc(cap), *eid = malloc(3 * PT_IDENT_MAX + 1);
	char ek[PERFTUNE_KEY_MAX * 3], ev[PT_VAL * 3];
	int n;

	if (!buf || !eid)
		return -ENOMEM;
	pt_journal_escape(key, ek, sizeof(ek));
	pt_journal_escape(value, ev, sizeof(ev));
	pt_journal_escape(ident, eid, 3 * PT_IDENT_MAX + 1);
	n = snprintf(buf, cap, "orig %llu %s\t%s\n", next_seq(), ek, ev);
	if (eid[0] && strlen(ek) + strlen(eid) + sizeof("ident \t") > LINE_MAX_LEN)
		return pt_err(ctx, -E2BIG, "%s: its identity is too long to journal", key);
	if (eid[0])
		snprintf(buf + n, cap - (size_t)n, "ident %s\t%s\n", ek, eid);
	return append_ret(ctx, pt_journal_append_line(jfd, buf));
}

int pt_journal_append_restored(struct perftune_ctx *ctx, int jfd, const char *const *keys, size_t n)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 1;
	char ek[PERFTUNE_KEY_MAX * 3];

	for (size_t i = 0; i < n; i++)
		cap += strlen(keys[i]) * 3 + sizeof("restored \n");
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		pt_journal_escape(keys[i], ek, sizeof(ek));
		len += (size_t)snprintf(buf + len, cap - len, "restored %s\n", ek);
	}
	buf[len] = '\0';
	if (!len)
		return 0;
	return append_ret(ctx, pt_journal_append_line(jfd, buf));
}

int pt_journal_append_to(struct perftune_ctx *ctx, const char *name, const char *tag,
			 const char *key, const char *value)
{
	_cleanup_close_ int fd = -1;
	int r = pt_journal_open(ctx, name, O_WRONLY | O_APPEND, &fd);

	if (r < 0)
		return r;
	return pt_journal_append(ctx, fd, tag, key, value);
}

/*
 * A new journal appears whole: its header and holder line are written to an
 * unnamed file (O_TMPFILE) that is then linked in, so a process killed while
 * creating it leaves nothing behind, never an empty or headless journal.
 * -EEXIST: the journal is there already; -EOPNOTSUPP: no O_TMPFILE here.
 */
int pt_journal_create(struct perftune_ctx *ctx, const char *file, const char *content, int *fd)
{
	_cleanup_close_ int dfd = pt_journal_dir_open(ctx, true);
	char proc[64];
	int tfd, r;

	if (dfd < 0)
		return dfd;
	tfd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_APPEND | O_CLOEXEC, 0600);
	if (tfd < 0 && (errno == EOPNOTSUPP || errno == EISDIR))
		return -EOPNOTSUPP;
	if (tfd < 0)
		return -errno;
	r = 0;
	if (fchmod(tfd, 0600) < 0)
		r = -errno;
	if (r == 0)
		r = pt_journal_append_line(tfd, content);
	if (r == 0 && linkat(tfd, "", dfd, file, AT_EMPTY_PATH) < 0) {
		r = -errno;
		if (r != -EEXIST) { /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH */
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", tfd);
			r = 0;
			if (linkat(AT_FDCWD, proc, dfd, file, AT_SYMLINK_FOLLOW) < 0)
				r = -errno;
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
	char boot[64], hdr[512], pid[64], file[128];
	int fd = -1, r;

	pt_boot_id(boot, sizeof(boot));
	snprintf(pid, sizeof(pid), "%d %llu", getpid(), pt_self_starttime());
	snprintf(hdr, sizeof(hdr), JOURNAL_MAGIC "%d\nname %s\nboot %s\nflags %x\npid %s\n",
		 JOURNAL_VERSION, name, boot, flags, pid);
	snprintf(file, sizeof(file), "%s.journal", name);
	r = pt_journal_create(ctx, file, hdr, &fd);
	if (r == -EOPNOTSUPP) { /* created in place: a kill here can leave a short journal */
		r = pt_journal_open(ctx, name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, &fd);
		if (r == 0 && (r = pt_journal_append_line(fd, hdr)) < 0)
			close(fd);
	}
	if (r == 0) {
		*jfd = fd;
		return 0;
	}
	if (r == -EEXIST && create)
		return r;
	if (r == -EEXIST)
		r = pt_journal_open(ctx, name, O_WRONLY | O_APPEND, &fd);
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
