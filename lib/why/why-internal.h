/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of lib/why/ share: who else on this machine sets a key
 * (perftune_why()) and whether a setting is in force (perftune_verify*()).
 * conf.c reads configuration files (/etc, /run, /usr) below the context's
 * root; cmdline.c, sysctld.c, udev.c and tuned.c each scan one kind of
 * source into the sources list; why.c puts them in the order they take
 * effect; verify.c compares values.  Arrows point down: why.c and verify.c
 * call the scanners, the scanners call conf.c, nothing calls back up.
 */
#ifndef PERFTUNE_WHY_INTERNAL_H
#define PERFTUNE_WHY_INTERNAL_H

#include "internal.h"

#define PT_CONF_MAX (1 << 20) /* bytes of one configuration file */

/* ---- conf.c: configuration files below the context's root ---- */
/*
 * Read @rel ("etc/sysctl.d/x.conf", relative to the root) whole into a
 * malloc'd *@text of *@len bytes, NUL-terminated (a NUL byte may also be
 * inside: see pt_lines).  Below a root other than "/", the path is resolved
 * inside it as in a chroot: a symlink, absolute or relative, and ".." never
 * lead out of the root.  Only regular files are read.  0 or -errno (-EFBIG
 * over PT_CONF_MAX).
 */
int pt_conf_read(struct perftune_ctx *ctx, const char *rel, char **text, size_t *len);
/*
 * The files "*@suffix" of the directories @dirs (relative to the root, in
 * precedence order), as systemd's conf_files_list() finds them: a name in an
 * earlier directory masks the same name in later ones, a file that is empty
 * or a symlink to /dev/null masks it and is not listed; sorted by name.
 * *@paths: NULL-terminated, relative to the root; free with pt_strv_free().
 */
int pt_conf_files(struct perftune_ctx *ctx, const char *const *dirs, const char *suffix,
		  char ***paths);
/* the path of @rel below the root, resolved inside it as pt_conf_read() resolves it */
int pt_conf_path(struct perftune_ctx *ctx, const char *rel, char *out, size_t size);
/* "/" + @rel: how a path is shown to the user (the root left out) */
const char *pt_conf_shown(const char *rel);
/*
 * The lines of a text, split in place as systemd's read_line() splits them
 * (systemd-sysctl and udevd read their files with it): "\n", "\r", "\r\n"
 * and "\n\r" end a line, and so does a NUL byte, alone or after one of
 * those.  @text has @len bytes and a NUL after them (pt_conf_read()'s).
 * pt_lines_next(): the next line, NUL-terminated, or NULL at the end;
 * l->lineno is its number.
 */
struct pt_lines {
	char *p, *end;
	int lineno;
};
void pt_lines_init(struct pt_lines *l, char *text, size_t len);
char *pt_lines_next(struct pt_lines *l);

/* ---- the sources of one key, as perftune_why() lists them ---- */
enum pt_src_kind {
	PT_SRC_CMDLINE,
	PT_SRC_SYSCTL,
	PT_SRC_UDEV,
	PT_SRC_TUNED,
	PT_SRC_DAEMON,
	PT_SRC_TX,
	PT_SRC_KINDS,
};
struct pt_src {
	enum pt_src_kind kind;
	char key[PERFTUNE_KEY_MAX];
	char where[PATH_MAX + 32]; /* "file:line", "/proc/cmdline", a transaction's name */
	char value[PT_VAL];	   /* what it sets ("" when it sets none: a daemon) */
	char note[512];
	unsigned flags; /* PERFTUNE_SOURCE_* */
	int pid;
};
struct pt_srcs {
	struct pt_src *s;
	size_t n, cap;
};
/* src.c: a new source of @kind for @t; NULL out of memory */
struct pt_src *pt_src_add(struct pt_srcs *v, enum pt_src_kind kind, const struct pt_tunable *t);
const char *pt_src_kind_name(enum pt_src_kind kind);

/* the scanners: each adds what claims @t (its export names @x) to @v; 0 or -ENOMEM */
int pt_why_cmdline(struct perftune_ctx *ctx, const struct pt_tunable *t, const struct pt_xnames *x,
		   struct pt_srcs *v);
int pt_why_sysctl(struct perftune_ctx *ctx, const struct pt_tunable *t, const struct pt_xnames *x,
		  struct pt_srcs *v);
int pt_why_udev(struct perftune_ctx *ctx, const struct pt_tunable *t, const struct pt_xnames *x,
		struct pt_srcs *v);
/* TuneD's active profile and its includes: the number of its lines that set @t, or -ENOMEM */
int pt_why_tuned(struct perftune_ctx *ctx, const struct pt_tunable *t, struct pt_srcs *v);
/* TuneD re-applies sysctl.d after its profile (tuned-main.conf reapply_sysctl, on by default) */
bool pt_tuned_reapplies_sysctl(struct perftune_ctx *ctx);
/*
 * The daemons running (from /proc below the root) that set @t again: tuned
 * and tuned-ppd when its profile claims @t (@tuned) or when it re-applies
 * sysctl.d (@sysctl_d: a sysctl.d file claims @t), power-profiles-daemon for
 * the CPU's energy keys.
 */
int pt_why_daemons(struct perftune_ctx *ctx, const struct pt_tunable *t, bool tuned, bool sysctl_d,
		   struct pt_srcs *v);

/* ---- why.c ---- */
/* the sources of @t, flagged DIFFERS against @value (NULL: the value now), appended to @v */
int pt_why_tunable(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		   struct pt_srcs *v);

/* ---- value.c: the comparison of verify.c and of why.c's DIFFERS ---- */
/* true if @cur and @want are the same value as the kernel shows it (cpu lists, blanks, aliases) */
bool pt_value_same(const char *cur, const char *want);

#endif
