/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of lib/why/ share: who else on this machine sets a key
 * (perftune_why()) and whether a setting is in force (perftune_verify*()).
 * conf.c reads configuration files (/etc, /run, /usr) below the context's
 * root, found there by inroot.c; cmdline.c, sysctld.c, udev.c, tuned.c and
 * daemons.c each read one kind of source once into an index and look keys
 * up in it; why.c builds the indexes a call needs, puts the sources of each
 * key in the order they take effect and flags them; verify.c compares
 * values.  Arrows point down: why.c and verify.c call the scanners, the
 * scanners call conf.c and src.c, conf.c calls inroot.c, nothing calls back
 * up.
 */
#ifndef PERFTUNE_WHY_INTERNAL_H
#define PERFTUNE_WHY_INTERNAL_H

#include <sys/stat.h>
#include "perftune.h"
#include "macro.h"
#include "core/key.h"
#include "family/family.h"

#define PT_CONF_MAX (1 << 20) /* bytes of one configuration file */

/* ---- what a call did: counted for the unit tier, which checks that it is linear ---- */
struct pt_why_work {
	size_t files; /* configuration files read */
	size_t lines; /* their lines parsed */
	size_t steps; /* entries and sources looked at: lookups, matches, flags */
};

/* ---- inroot.c: paths below the context's root, resolved inside it as in a chroot ---- */
/*
 * An O_PATH fd of @rel ("etc/sysctl.d/x.conf", relative to the root): for
 * the root "/" the kernel's lookup, else the walk inside the root, where a
 * link, relative or absolute, and ".." never lead out of it.  @where (may be
 * NULL): where it is, relative to the root.  The fd or -errno.
 */
int pt_inroot_locate(struct perftune_ctx *ctx, const char *rel, char *where, size_t size);
/* the directory @rel, resolved the same way, open for reading (fdopendir()); the fd or -errno */
int pt_inroot_open_dir(struct perftune_ctx *ctx, const char *rel);
/* @rel open for reading: the very file pt_inroot_locate() finds; the fd or -errno */
int pt_inroot_open(struct perftune_ctx *ctx, const char *rel);
/* the path of @rel with the root in front, resolved inside it (for code that opens by name) */
int pt_inroot_path(struct perftune_ctx *ctx, const char *rel, char *out, size_t size);

/* ---- conf.c: configuration files below the context's root ---- */
/*
 * Read @rel ("etc/sysctl.d/x.conf", relative to the root) whole into a
 * malloc'd *@text of *@len bytes, NUL-terminated (a NUL byte may also be
 * inside: see pt_lines).  Below a root other than "/", the path is resolved
 * inside it as in a chroot: a symlink, absolute or relative, and ".." never
 * lead out of the root.  Only regular files are read.  0 or -errno (-EFBIG
 * over PT_CONF_MAX).  @st (may be NULL): the file's stat.  @work (may be
 * NULL) counts the file.
 */
int pt_conf_read(struct perftune_ctx *ctx, const char *rel, char **text, size_t *len,
		 struct stat *st, struct pt_why_work *work);
/* stat @rel, resolved as pt_conf_read() resolves it; 0 or -errno */
int pt_conf_stat(struct perftune_ctx *ctx, const char *rel, struct stat *st);
/*
 * The files "*@suffix" of the directories @dirs (relative to the root, in
 * precedence order, at most 8), as systemd's conf_files_list() finds them: a
 * name in an earlier directory masks the same name in later ones, a file
 * that is empty or a symlink to /dev/null masks it and is not listed; sorted
 * by name (masks found by sorting: linear in the files).  0 or -ENOMEM;
 * *@out (even then): free with pt_conf_list_free().  The directories stay
 * open in it: pt_conf_list_read() opens a plain file in its directory.
 */
struct pt_conf_list;
int pt_conf_files(struct perftune_ctx *ctx, const char *const *dirs, const char *suffix,
		  struct pt_conf_list **out);
size_t pt_conf_list_n(const struct pt_conf_list *l);
const char *pt_conf_list_path(const struct pt_conf_list *l, size_t i); /* relative to the root */
/* file @i was a link (or not known to be a plain file) when listed */
bool pt_conf_list_is_link(const struct pt_conf_list *l, size_t i);
/* pt_conf_read() of file @i of @l */
int pt_conf_list_read(struct perftune_ctx *ctx, const struct pt_conf_list *l, size_t i, char **text,
		      size_t *len, struct stat *st, struct pt_why_work *work);
void pt_conf_list_free(struct pt_conf_list *l);
/* the names in directory @rel (not "." ones), sorted; *@names NULL when none; 0 or -ENOMEM */
int pt_conf_dir(struct perftune_ctx *ctx, const char *rel, char ***names, size_t *n);
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

/* ---- src.c: the sources of keys, as perftune_why() lists them ---- */
enum pt_src_kind {
	PT_SRC_CMDLINE,
	PT_SRC_SYSCTL,
	PT_SRC_UDEV,
	PT_SRC_TUNED,
	PT_SRC_DAEMON,
	PT_SRC_TX,
	PT_SRC_KINDS,
};
/* Its strings at their length: a 1 MiB file of one key makes 65,536 sources. */
struct pt_src {
	enum pt_src_kind kind;
	unsigned flags; /* PERFTUNE_SOURCE_* */
	int pid;
	const char *key; /* the tunable's (the caller keeps it while the list lives) */
	char *where;	 /* "file:line", "/proc/cmdline", a transaction's name */
	char *value;	 /* what it sets ("" when it sets none: a daemon, an error) */
	char *note;
};
struct pt_srcs {
	struct pt_src *s;
	size_t n, cap;
};
/*
 * A new source of @kind for @t at @where, setting @value (NULL: none; cut at
 * PT_VAL - 1 bytes), with a note from @fmt.  NULL out of memory.
 */
struct pt_src *pt_src_add(struct pt_srcs *v, enum pt_src_kind kind, const struct pt_tunable *t,
			  const char *where, const char *value, const char *fmt, ...)
	_printf_(6, 7);
/* a file of @kind that cannot be read (-@err), named for @t: PERFTUNE_SOURCE_ERROR; 0 or -ENOMEM */
int pt_src_error(struct pt_srcs *v, enum pt_src_kind kind, const struct pt_tunable *t,
		 const char *where, int err);
void pt_srcs_free(struct pt_srcs *v);
const char *pt_src_kind_name(enum pt_src_kind kind);
/* what the indexes share: entry @i by its @name, sorted by name then @i (the order of effect) */
struct pt_ref {
	const char *name;
	size_t i;
};
void pt_refs_sort(struct pt_ref *r, size_t n);
/* the first of the sorted @r[0..n) whose name is not below @name (binary search) */
size_t pt_refs_find(const struct pt_ref *r, size_t n, const char *name, struct pt_why_work *work);
/* the entries a key hits, put back in the order they take effect by pt_hits_sort() */
struct pt_hits {
	size_t *i, n, cap;
};
int pt_hits_add(struct pt_hits *h, size_t i, struct pt_why_work *work); /* 0 or -ENOMEM */
void pt_hits_sort(struct pt_hits *h);

/*
 * The sources, one index per kind: built once per call from every file of
 * its kind (each read once), then looked up for each key.  Each *_new() and
 * *_parse() returns 0, or -ENOMEM with *@out NULL (a file that cannot be read
 * becomes an error source of every key that asks); each lookup adds what
 * claims @t (its export names @x) to @v and returns 0 or -ENOMEM.
 */
/* cmdline.c: the words of /proc/cmdline */
struct pt_cmdline;
int pt_cmdline_new(struct perftune_ctx *ctx, struct pt_cmdline **out);
/* the same from @text (the fuzzer's way in); 0 or -ENOMEM */
int pt_cmdline_parse(const char *text, struct pt_cmdline **out);
void pt_cmdline_free(struct pt_cmdline *c);
int pt_cmdline_why(struct pt_cmdline *c, const struct pt_tunable *t, const struct pt_xnames *x,
		   struct pt_srcs *v, struct pt_why_work *work);
/* sysctld.c: the assignments of sysctl.d and /etc/sysctl.conf, by name and by glob */
struct pt_sysctld;
int pt_sysctld_new(struct perftune_ctx *ctx, struct pt_sysctld **out, struct pt_why_work *work);
void pt_sysctld_free(struct pt_sysctld *s);
int pt_sysctld_why(struct pt_sysctld *s, const struct pt_tunable *t, const struct pt_xnames *x,
		   struct pt_srcs *v, struct pt_why_work *work);
/* sysctld.c, for the fuzzer: the index of @text (malloc'd, taken) as if it were the file @rel */
int pt_sysctld_parse(struct perftune_ctx *ctx, const char *rel, char *text, size_t len,
		     struct pt_sysctld **out, struct pt_why_work *work);
/* udev.c: the rules, by the attribute they assign; matched against the key's device */
struct pt_udev_rules;
int pt_udev_rules_new(struct perftune_ctx *ctx, struct pt_udev_rules **out,
		      struct pt_why_work *work);
void pt_udev_rules_free(struct pt_udev_rules *u);
int pt_udev_rules_why(struct pt_udev_rules *u, const struct pt_tunable *t,
		      const struct pt_xnames *x, struct pt_srcs *v, struct pt_why_work *work);
/* udev.c, for the fuzzer: the rules of @text (malloc'd, taken) as if it were the file @rel */
int pt_udev_rules_parse(struct perftune_ctx *ctx, const char *rel, char *text, size_t len,
			struct pt_udev_rules **out, struct pt_why_work *work);
/* tuned.c: TuneD's active profile (each name loaded once) */
struct pt_tuned;
int pt_tuned_new(struct perftune_ctx *ctx, struct pt_tuned **out, struct pt_why_work *work);
void pt_tuned_free(struct pt_tuned *tu);
/* the lines of the active profile that set @t: their number, or -ENOMEM */
int pt_tuned_why(struct pt_tuned *tu, const struct pt_tunable *t, struct pt_srcs *v,
		 struct pt_why_work *work);
/* TuneD re-applies sysctl.d after its profile (tuned-main.conf reapply_sysctl, on by default) */
bool pt_tuned_reapplies_sysctl(struct pt_tuned *tu);
/* daemons.c: the daemons running, from /proc below the root (read on first need) */
struct pt_daemons;
int pt_daemons_new(struct perftune_ctx *ctx, struct pt_daemons **out); /* reads nothing yet */
void pt_daemons_free(struct pt_daemons *ds);
/*
 * The daemons that set @t again: tuned and tuned-ppd when its profile
 * claims @t (@tuned) or when it re-applies sysctl.d (@sysctl_d: a sysctl.d
 * file claims @t), irqbalance for IRQ masks, power-profiles-daemon for the
 * CPU's energy keys; /proc is read (once) only when one of them can.
 */
int pt_daemons_why(struct pt_daemons *ds, const struct pt_tunable *t, bool tuned, bool sysctl_d,
		   struct pt_srcs *v, struct pt_why_work *work);

/* ---- why.c: the sources of many keys, every index built at most once ---- */
struct pt_why;
struct pt_why *pt_why_new(struct perftune_ctx *ctx); /* NULL out of memory */
void pt_why_free(struct pt_why *w);
/* the sources of @t, flagged DIFFERS against @value (NULL: the value now), appended to @v */
int pt_why_tunable(struct pt_why *w, const struct pt_tunable *t, const char *value,
		   struct pt_srcs *v);
const struct pt_why_work *pt_why_work(const struct pt_why *w);

/* ---- value.c: the comparison of verify.c and of why.c's DIFFERS ---- */
/* true if @cur and @want are the same value as the kernel shows it (cpu lists, blanks, aliases) */
bool pt_value_same(const char *cur, const char *want);

#endif
