// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A journal read back (its format: journal.c): every record checked, a last
 * record cut short ignored, the holder found alive or not.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/util.h"
#include "core/log.h"
#include "engine/holder.h"
#include "engine/journal-internal.h"
#include "engine/journal.h"

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

static int replace(char **dst, const char *v)
{
	char *d = strdup(v);
	if (!d)
		return -ENOMEM;
	free(*dst);
	*dst = d;
	return 0;
}

/* "refused KEY\tWHY": a later refusal of the same device replaces the earlier one */
static int add_refusal(struct pt_jinfo *ji, const char *key, const char *why)
{
	struct pt_jrefusal *x = NULL;

	for (size_t i = 0; i < ji->nrefused && !x; i++)
		if (!strcmp(ji->refused[i].key, key))
			x = &ji->refused[i];
	if (!x) {
		if (pt_grow(&ji->refused, &ji->caprefused, ji->nrefused + 1, 4) < 0)
			return -ENOMEM;
		x = &ji->refused[ji->nrefused++];
		*x = (struct pt_jrefusal){ 0 };
	}
	if (replace(&x->why, why) < 0 || replace(&x->key, key) < 0)
		return -ENOMEM;
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
	if (!strcmp(line, "name") && strcmp(arg, ji->name))
		return -EINVAL;
	if (!strcmp(line, "name"))
		return 0;
	if (!strcmp(line, "boot")) {
		ji->foreign_boot = strcmp(arg, boot) != 0;
		return 0;
	}
	if (!strcmp(line, "flags") && sscanf(arg, "%x", &ji->flags) != 1)
		return -EINVAL;
	if (!strcmp(line, "pid") && sscanf(arg, "%d %llu", &ji->pid, &ji->starttime) != 2)
		return -EINVAL;
	if (!strcmp(line, "flags") || !strcmp(line, "pid"))
		return 0;
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
	if (!strcmp(line, "refused")) /* no original: the key of a device a watch did not tune */
		return add_refusal(ji, arg, tab + 1);
	struct pt_jentry *e = pt_jinfo_find(ji, arg);
	if (!strcmp(line, "orig")) {
		if (e && !e->restored)
			return -EINVAL; /* a live key has one original */
		if (!e && !(e = pt_jinfo_add(ji, arg)))
			return -ENOMEM;
		pt_free_all(e->written, e->ident, e->plugged);
		e->written = e->ident = e->plugged = NULL;
		e->restored = false;
		if (seq > ji->seq)
			ji->seq = seq;
		e->seq = seq;
		return replace(&e->orig, tab + 1);
	}
	if (!e)
		return -EINVAL;
	if (!strcmp(line, "ident")) { /* once, for a live original, in a journal of format 2 */
		if (ji->version < 2 || e->restored || e->ident)
			return -EINVAL;
		return replace(&e->ident, tab + 1);
	}
	if (!strcmp(line, "wrote"))
		return replace(&e->written, tab + 1);
	if (!strcmp(line, "handover"))
		return replace(&e->orig, tab + 1);
	if (!strcmp(line, "plugged"))
		return replace(&e->plugged, tab + 1);
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
	r = pt_journal_open(ctx, name, jfd ? O_RDWR | O_APPEND : O_RDONLY, &fd);
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
	pt_boot_id(boot, sizeof(boot));
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
		ji->held = pt_holder_alive(ji->pid, ji->starttime);
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
