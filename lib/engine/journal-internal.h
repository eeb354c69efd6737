/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of the journal share: its format (journal.c writes it,
 * journal-read.c reads it), the file opened safely (journal-dir.c) and the
 * key index of a loaded journal (jinfo.c).
 */
#ifndef PERFTUNE_ENGINE_JOURNAL_INTERNAL_H
#define PERFTUNE_ENGINE_JOURNAL_INTERNAL_H

#include "perftune.h"
#include "internal.h"
#include "engine/journal.h"

#define JOURNAL_MAGIC "perftune-journal "
#define JOURNAL_VERSION 2 /* 2: identities ("ident"); 1 is read and appended to as it is */
#define JOURNAL_MAX (4 << 20)
#define LINE_MAX_LEN (PERFTUNE_KEY_MAX + 3 * PT_VAL + 64)

/*
 * Open the journal @name in the checked journal directory (O_WRONLY: to
 * append, its tail healed first; O_CREAT: a new one), refusing a link or
 * anything but a private regular file: 0 with *@fd, or -errno.
 */
int pt_journal_open(struct perftune_ctx *ctx, const char *name, int flags, int *fd);
/* %-escape @in (NULL: "") into @out: %, tab, newline and control bytes */
void pt_journal_escape(const char *in, char *out, size_t size);
/* @line in one write(2), or none of it (cut back on a short write): 0 or -errno */
int pt_journal_append_line(int fd, const char *line);
/*
 * A new journal file @file in the journal directory holding @content, whole
 * (an unnamed file linked in): 0 with *@fd (O_WRONLY|O_APPEND), -EEXIST (there
 * already), -EOPNOTSUPP (no O_TMPFILE here), -errno.
 */
int pt_journal_create(struct perftune_ctx *ctx, const char *file, const char *content, int *fd);
/* a new entry of @ji for @key (not there yet), or NULL (no memory) */
struct pt_jentry *pt_jinfo_add(struct pt_jinfo *ji, const char *key);

#endif
