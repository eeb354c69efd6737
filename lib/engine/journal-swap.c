// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The journal step of a replace (tx-replace.c): the live originals of the
 * replaced transaction's journal, copied whole into a new journal that takes
 * its place.  The copy keeps each original's seq and identity, so stacking
 * with other transactions reads the same before and after.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "core/key.h"
#include "core/log.h"
#include "engine/holder.h"
#include "engine/journal-internal.h"
#include "engine/journal.h"

/* "<tag> <key>\t<value>\n" into @b, escaped as journal.c writes it */
static void put_record(struct pt_buf *b, const char *tag, const char *key, const char *value,
		       char *ek, char *ev)
{
	pt_journal_escape(key, ek, PERFTUNE_KEY_MAX * 3);
	pt_journal_escape(value, ev, 3 * PT_IDENT_MAX + 1);
	pt_buf_printf(b, "%s %s\t%s\n", tag, ek, ev);
}

/* the whole new journal: header, this process as holder, @ji's live entries, committed */
static char *swap_content(const struct pt_jinfo *ji, const char *name, unsigned flags, bool hold)
{
	_cleanup_free_ char *ek = malloc(PERFTUNE_KEY_MAX * 3), *ev = malloc(3 * PT_IDENT_MAX + 1);
	struct pt_buf b = { 0 };
	char boot[64];

	if (!ek || !ev)
		return NULL;
	pt_boot_id(boot, sizeof(boot));
	pt_buf_printf(&b, JOURNAL_MAGIC "%d\nname %s\nboot %s\nflags %x\npid %d %llu\n",
		      JOURNAL_VERSION, name, boot, flags, getpid(), pt_self_starttime());
	for (size_t i = 0; i < ji->n; i++) {
		const struct pt_jentry *e = &ji->e[i];
		if (e->restored)
			continue;
		pt_journal_escape(e->key, ek, PERFTUNE_KEY_MAX * 3);
		pt_journal_escape(e->orig, ev, PT_VAL * 3);
		pt_buf_printf(&b, "orig %llu %s\t%s\n", e->seq, ek, ev);
		if (e->ident)
			put_record(&b, "ident", e->key, e->ident, ek, ev);
		if (e->written)
			put_record(&b, "wrote", e->key, e->written, ek, ev);
	}
	pt_buf_puts(&b, hold ? "commit\n" : "commit\npid 0 0\n");
	return pt_buf_steal(&b);
}

/* @content as the hidden file @tmp, whole (no O_TMPFILE: made in place, then renamed) */
static int write_hidden(struct perftune_ctx *ctx, int dfd, const char *tmp, const char *content,
			int *fd)
{
	int r;

	if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT) /* left by a kill: never a journal */
		return -errno;
	r = pt_journal_create(ctx, tmp, content, fd);
	if (r != -EOPNOTSUPP)
		return r;
	*fd = openat(dfd, tmp, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (*fd < 0)
		return -errno;
	r = pt_journal_append_line(*fd, content);
	if (r < 0) {
		close(*fd);
		unlinkat(dfd, tmp, 0);
	}
	return r;
}

int pt_journal_swap(struct perftune_ctx *ctx, const struct pt_jinfo *ji, const char *name,
		    unsigned flags, bool hold, int *jfd)
{
	_cleanup_free_ char *content = swap_content(ji, name, flags, hold);
	_cleanup_close_ int dfd = pt_journal_dir_open(ctx, true);
	char tmp[128], file[128], old[128];
	int fd = -1, r;

	if (!content)
		return -ENOMEM;
	if (dfd < 0)
		return dfd;
	/* ".NAME.journal": a name no transaction has, so never listed as a journal */
	snprintf(tmp, sizeof(tmp), ".%s.journal", name);
	snprintf(file, sizeof(file), "%s.journal", name);
	snprintf(old, sizeof(old), "%s.journal", ji->name);
	r = write_hidden(ctx, dfd, tmp, content, &fd);
	if (r < 0)
		return pt_err(ctx, r, "journal %s: %s", name, strerror(-r));
	/* the step: a reader finds the replaced journal or the new one, never neither */
	if (!strcmp(name, ji->name))
		r = renameat(dfd, tmp, dfd, file);
	else
		r = renameat2(dfd, tmp, dfd, file, RENAME_NOREPLACE);
	if (r < 0) {
		r = -errno;
		unlinkat(dfd, tmp, 0);
		close(fd);
		return pt_err(ctx, r, "journal %s: %s", name, strerror(-r));
	}
	/* a kill here leaves both, with the same originals and seqs: restored in
	 * either order or alone, each gives the machine its originals */
	if (strcmp(name, ji->name) && unlinkat(dfd, old, 0) < 0)
		pt_log(ctx, PERFTUNE_LOG_WARNING, "journal %s: not removed: %s", ji->name,
		       strerror(errno));
	*jfd = fd;
	return 0;
}
