/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A source on the machine that claims a key (perftune_why()), as why/why.c fills it. */
#ifndef PERFTUNE_OBJECT_SOURCE_H
#define PERFTUNE_OBJECT_SOURCE_H

struct perftune_source {
	const char *kind;     /* "cmdline", "sysctl.d", "udev", "tuned", "daemon", "transaction" */
	const char *key;      /* the concrete key it claims */
	const char *location; /* "file:line", "/proc/cmdline", a transaction's name */
	const char *value;    /* what it sets, as it writes it; NULL or "": none (a daemon) */
	const char *note;     /* what it is and when it acts, or an error; NULL or "": none */
	unsigned flags;	      /* PERFTUNE_SOURCE_*; other bits are dropped */
	int pid;	      /* a running daemon's or a transaction's holder, else 0 */
};

struct perftune_source_iter *pt_source_iter_new(void);
/* Append a copy of @s, its strings too: 0 or -ENOMEM. */
int pt_source_iter_add(struct perftune_source_iter *it, const struct perftune_source *s);

#endif
