// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sysctl.d(5) as systemd-sysctl reads it at boot: the *.conf files of
 * /etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d, /usr/lib/sysctl.d
 * (and /lib/sysctl.d), a name in an earlier directory masking the same name
 * in later ones, in the order of their names, a later line winning; then
 * /etc/sysctl.conf as procps' sysctl --system reads it last (unless a
 * sysctl.d file already is it: 99-sysctl.conf -> ../sysctl.conf).  No
 * library parses these files (libsystemd does not export its parser): this
 * file does, with systemd's rules: lines as read_line() ends them (a NUL
 * byte too), "-" before a name, globs, "." and "/" as separators.
 *
 * Every file is read once per call into an index: the assignments in the
 * order they take effect, sorted by name (a key finds its own in O(log n)),
 * and the distinct globs (each matched once per key).  A key's sources are
 * then proportional to what names it, never to the size of the files.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "shared/array.h"
#include "shared/util.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
#include "why-internal.h"

static const char *const sysctl_dirs[] = {
	"etc/sysctl.d",	    "run/sysctl.d", "usr/local/lib/sysctl.d",
	"usr/lib/sysctl.d", "lib/sysctl.d", NULL,
};

struct file {
	char *shown; /* "/etc/sysctl.d/x.conf" */
	char *text;  /* its lines, split in place: names and values point into it */
	char *names; /* the names normalized, as many bytes as the text */
	int err;     /* -errno: it cannot be read */
};

/* one assignment, or an unreadable file (name NULL), in the order they take effect */
struct entry {
	const char *name;    /* normalized: "net/ipv4/conf/eth0.100/rp_filter" */
	const char *written; /* as the line has it (after "-") */
	const char *value;
	size_t file;
	int line;
};

struct pt_sysctld {
	struct perftune_ctx *ctx;
	struct file *f;
	size_t nf, fcap;
	struct entry *e;
	size_t ne, ecap;
	struct pt_ref *plain, *glob; /* plain names and globs, by name then order */
	size_t np, ng;
	size_t *runs, nruns; /* where each distinct glob starts in glob[] */
	size_t *err, nerr;   /* the entries of files that cannot be read */
};

/* systemd's sysctl_normalize(): the "/" form ("net/ipv4/conf/eth0.100/rp_filter") */
static void normalize(char *name)
{
	char *sep = strpbrk(name, "./");

	if (!sep || *sep == '/')
		return;
	for (char *c = name; *c; c++) {
		if (*c == '.')
			*c = '/';
		else if (*c == '/')
			*c = '.';
	}
}

static bool is_glob(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

static int add_entry(struct pt_sysctld *s, const struct entry *e)
{
	if (pt_grow(&s->e, &s->ecap, s->ne + 1, 64) < 0)
		return -ENOMEM;
	s->e[s->ne++] = *e;
	return 0;
}

/* one line of file @fi: an assignment entry, a comment, or a warning */
static int parse_line(struct pt_sysctld *s, size_t fi, int lineno, char *line, char **names)
{
	char *eq, *val;
	size_t n;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#' || *line == ';')
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		pt_log(s->ctx, PERFTUNE_LOG_WARNING,
		       "%s:%d: line is not 'name = value', ignored (as systemd-sysctl does)",
		       s->f[fi].shown, lineno);
		return 0;
	}
	*eq = '\0';
	val = eq + 1;
	pt_trim(line);
	pt_trim(val);
	if (*line == '-')
		line++;
	n = strlen(line);
	if (n >= PERFTUNE_KEY_MAX)
		return 0; /* no sysctl has such a name */
	memcpy(*names, line, n + 1);
	normalize(*names);
	if (add_entry(s, &(struct entry){ .name = *names,
					  .written = line,
					  .value = val,
					  .file = fi,
					  .line = lineno }) < 0)
		return -ENOMEM;
	*names += n + 1;
	return 0;
}

/* the file @rel (read now, or @text given) into the index: its lines, or its error */
static int add_file(struct pt_sysctld *s, const char *rel, char *text, size_t len, int err,
		    struct pt_why_work *work)
{
	struct file *f;
	struct pt_lines l;
	char *line, *names;
	int r = 0;

	if (pt_grow(&s->f, &s->fcap, s->nf + 1, 8) < 0) {
		free(text);
		return -ENOMEM;
	}
	f = &s->f[s->nf];
	*f = (struct file){ .shown = strdup(pt_conf_shown(rel)), .text = text, .err = err };
	if (!f->shown || (!err && !(f->names = malloc(len + 1)))) {
		pt_free_all(f->shown, f->text);
		return -ENOMEM;
	}
	s->nf++;
	if (err) {
		pt_log(s->ctx, PERFTUNE_LOG_WARNING, "%s: cannot read: %s", f->shown,
		       strerror(-err));
		return add_entry(s, &(struct entry){ .file = s->nf - 1 });
	}
	names = f->names;
	pt_lines_init(&l, text, len);
	while (r >= 0 && (line = pt_lines_next(&l))) {
		work->lines++;
		r = parse_line(s, s->nf - 1, l.lineno, line, &names);
	}
	return r;
}

/* file @i of @l, or @rel (@l NULL) */
static int read_file(struct pt_sysctld *s, const struct pt_conf_list *l, size_t i, const char *rel,
		     struct stat *st, struct pt_why_work *work)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	if (l) {
		rel = pt_conf_list_path(l, i);
		r = pt_conf_list_read(s->ctx, l, i, &text, &len, st, work);
	} else {
		r = pt_conf_read(s->ctx, rel, &text, &len, st, work);
	}
	if (r == -ENOENT)
		return 0;
	if (r == -ENOMEM)
		return r;
	if (r > 0)
		r = 0;
	return add_file(s, rel, text, len, r, work);
}

/* the sorted indexes: plain names, globs and where each distinct one starts, errors */
static int sort_entries(struct pt_sysctld *s)
{
	s->plain = calloc(s->ne + 1, sizeof(*s->plain));
	s->glob = calloc(s->ne + 1, sizeof(*s->glob));
	s->runs = calloc(s->ne + 1, sizeof(*s->runs));
	s->err = calloc(s->ne + 1, sizeof(*s->err));
	if (!s->plain || !s->glob || !s->runs || !s->err)
		return -ENOMEM;
	for (size_t i = 0; i < s->ne; i++) {
		const char *name = s->e[i].name;
		if (!name)
			s->err[s->nerr++] = i;
		else if (is_glob(name))
			s->glob[s->ng++] = (struct pt_ref){ name, i };
		else
			s->plain[s->np++] = (struct pt_ref){ name, i };
	}
	pt_refs_sort(s->plain, s->np);
	pt_refs_sort(s->glob, s->ng);
	for (size_t i = 0; i < s->ng; i++)
		if (i == 0 || strcmp(s->glob[i - 1].name, s->glob[i].name))
			s->runs[s->nruns++] = i;
	return 0;
}

/* the index sorted, or freed (*@out NULL) on failure */
static int done(struct pt_sysctld *s, int r, struct pt_sysctld **out)
{
	if (r >= 0)
		r = sort_entries(s);
	if (r < 0) {
		pt_sysctld_free(s);
		*out = NULL;
	}
	return r;
}

static struct pt_sysctld *sysctld_alloc(struct perftune_ctx *ctx)
{
	struct pt_sysctld *s = calloc(1, sizeof(*s));

	if (s)
		s->ctx = ctx;
	return s;
}

int pt_sysctld_new(struct perftune_ctx *ctx, struct pt_sysctld **out, struct pt_why_work *work)
{
	struct pt_sysctld *s = sysctld_alloc(ctx);
	struct pt_conf_list *files = NULL;
	struct stat conf, st;
	bool has_conf = false;
	int r = -ENOMEM, conf_here = -1;

	*out = s;
	if (s)
		r = pt_conf_files(ctx, sysctl_dirs, ".conf", &files);
	for (size_t i = 0; r >= 0 && i < pt_conf_list_n(files); i++) {
		st.st_ino = 0;
		r = read_file(s, files, i, NULL, &st, work);
		if (!pt_conf_list_is_link(files, i))
			continue;
		/* 99-sysctl.conf -> ../sysctl.conf: that file, read as its link's name */
		if (conf_here < 0) /* looked for once, and only when a link may name it */
			conf_here = pt_conf_stat(ctx, "etc/sysctl.conf", &conf) == 0;
		has_conf |= conf_here && st.st_ino && st.st_dev == conf.st_dev &&
			    st.st_ino == conf.st_ino;
	}
	pt_conf_list_free(files);
	if (r >= 0 && !has_conf)
		r = read_file(s, NULL, 0, "etc/sysctl.conf", NULL, work);
	return done(s, r, out);
}

int pt_sysctld_parse(struct perftune_ctx *ctx, const char *rel, char *text, size_t len,
		     struct pt_sysctld **out, struct pt_why_work *work)
{
	struct pt_sysctld *s = sysctld_alloc(ctx);
	int r;

	*out = s;
	if (!s) {
		free(text);
		return -ENOMEM;
	}
	r = add_file(s, rel, text, len, 0, work);
	return done(s, r, out);
}

void pt_sysctld_free(struct pt_sysctld *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nf; i++)
		pt_free_all(s->f[i].shown, s->f[i].text, s->f[i].names);
	pt_free_all(s->f, s->e, s->plain, s->glob, s->runs, s->err, s);
}

static int src(struct pt_sysctld *s, const struct pt_tunable *t, const struct entry *e,
	       struct pt_srcs *v)
{
	const struct file *f = &s->f[e->file];
	char where[PATH_MAX + 32];
	struct pt_src *c;

	if (!e->name)
		return pt_src_error(v, PT_SRC_SYSCTL, t, f->shown, f->err);
	snprintf(where, sizeof(where), "%s:%d", f->shown, e->line);
	c = pt_src_add(v, PT_SRC_SYSCTL, t, where, e->value, "systemd-sysctl sets %s at boot",
		       e->written);
	if (!c)
		return -ENOMEM;
	pt_normalize(c->value);
	c->flags |= PERFTUNE_SOURCE_PERSISTENT;
	return 0;
}

/* the entries that name @want, in the order they take effect */
static int matches(struct pt_sysctld *s, const char *want, struct pt_hits *h,
		   struct pt_why_work *work)
{
	int r = 0;

	for (size_t k = 0; k < s->nerr && r >= 0; k++) /* unreadable: named for every key */
		r = pt_hits_add(h, s->err[k], work);
	for (size_t k = pt_refs_find(s->plain, s->np, want, work);
	     k < s->np && !strcmp(s->plain[k].name, want) && r >= 0; k++)
		r = pt_hits_add(h, s->plain[k].i, work);
	for (size_t run = 0; run < s->nruns && r >= 0; run++) { /* each distinct glob once */
		size_t k = s->runs[run], end = run + 1 < s->nruns ? s->runs[run + 1] : s->ng;
		work->steps++;
		if (fnmatch(s->glob[k].name, want, FNM_PATHNAME))
			continue;
		for (; k < end && r >= 0; k++)
			r = pt_hits_add(h, s->glob[k].i, work);
	}
	pt_hits_sort(h); /* back in the order they take effect */
	return r;
}

int pt_sysctld_why(struct pt_sysctld *s, const struct pt_tunable *t, const struct pt_xnames *x,
		   struct pt_srcs *v, struct pt_why_work *work)
{
	char want[PERFTUNE_KEY_MAX];
	struct pt_hits h = { 0 };
	int r;

	if (!x->sysctl[0])
		return 0;
	snprintf(want, sizeof(want), "%s", x->sysctl);
	normalize(want);
	r = matches(s, want, &h, work);
	for (size_t i = 0; i < h.n && r >= 0; i++)
		r = src(s, t, &s->e[h.i[i]], v);
	free(h.i);
	return r;
}
