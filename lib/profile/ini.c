// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading one tuned.conf the way TuneD's ConfigParser does: "[section]",
 * "name = value" (first '=' splits), whole-line comments '#'/';', inline
 * comments " #", indented continuation lines, later duplicates win in place.
 * Errors name the file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include "profile-internal.h"

static char *file_read(struct perftune_ctx *ctx, const char *path, int *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct pt_buf b = { 0 };
	char chunk[8192];
	ssize_t n;

	if (fd < 0) {
		*err = pt_err(ctx, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if (b.len + (size_t)n > PT_PROFILE_FILE_MAX) {
			free(b.s);
			*err = pt_err(ctx, -EFBIG, "%s: larger than %d bytes", path,
				      PT_PROFILE_FILE_MAX);
			return NULL;
		}
		pt_buf_add(&b, chunk, (size_t)n);
	}
	if (n < 0) {
		free(b.s);
		*err = pt_err(ctx, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (b.s && strlen(b.s) != b.len) {
		free(b.s);
		*err = pt_err(ctx, -EINVAL, "%s: contains a NUL byte", path);
		return NULL;
	}
	char *s = pt_buf_steal(&b);
	if (!s)
		*err = -ENOMEM;
	return s;
}

static char *strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* " #..." starts an inline comment, as ConfigParser(inline_comment_prefixes='#') */
static void cut_inline_comment(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '#' && p > s && isspace((unsigned char)p[-1])) {
			*p = '\0';
			return;
		}
}

struct parse {
	struct perftune_ctx *ctx;
	struct pt_pconf *c;
	const char *path, *file_id;
	struct pt_popt **cur; /* options of the current section */
	size_t *curn;
	struct pt_popt *last; /* for continuation lines */
	size_t lastlen;	      /* strlen(last->value) */
	int indent;
	bool headerless; /* a variables file: no [section], lines without '=' ignored */
};

static int section(struct parse *ps, char *s, int line)
{
	char *end = strrchr(s, ']');
	struct pt_punit *u;

	*end = '\0';
	s = strip(s + 1);
	if (!*s)
		return pt_err(ps->ctx, -EINVAL, "%s:%d: empty section name", ps->path, line);
	if (!strcmp(s, "main")) {
		ps->cur = &ps->c->main;
		ps->curn = &ps->c->nmain;
		return 0;
	}
	for (size_t i = 0; i < ps->c->n; i++)
		if (!strcmp(ps->c->u[i].name, s)) { /* strict=False: sections merge */
			ps->cur = &ps->c->u[i].opt;
			ps->curn = &ps->c->u[i].n;
			return 0;
		}
	if (ps->c->n >= PT_PROFILE_SECTIONS_MAX)
		return pt_err(ps->ctx, -EINVAL, "%s:%d: more than %d sections in one file",
			      ps->path, line, PT_PROFILE_SECTIONS_MAX);
	u = realloc(ps->c->u, (ps->c->n + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	ps->c->u = u;
	u = &u[ps->c->n++];
	memset(u, 0, sizeof(*u));
	u->name = strdup(s);
	u->file = ps->file_id;
	u->line = line;
	ps->cur = &u->opt;
	ps->curn = &u->n;
	return u->name ? 0 : -ENOMEM;
}

static int option(struct parse *ps, char *s, int line)
{
	char *eq = strchr(s, '='), *name, *value;
	struct pt_popt o;
	int r;

	if (!ps->cur)
		return pt_err(ps->ctx, -EINVAL, "%s:%d: option before the first [section]",
			      ps->path, line);
	if (!eq && ps->headerless)
		return 0;
	if (!eq)
		return pt_err(ps->ctx, -EINVAL,
			      "%s:%d: expected 'name = value' or '[section]': %.60s", ps->path,
			      line, s);
	*eq = '\0';
	name = strip(s);
	value = strip(eq + 1);
	if (!*name)
		return pt_err(ps->ctx, -EINVAL, "%s:%d: option without a name", ps->path, line);
	if (*ps->curn >= PT_PROFILE_OPTIONS_MAX && !pt_popt_find(*ps->cur, *ps->curn, name))
		return pt_err(ps->ctx, -EINVAL, "%s:%d: more than %d options in one section",
			      ps->path, line, PT_PROFILE_OPTIONS_MAX);
	o = (struct pt_popt){ name, value, ps->file_id, line };
	r = pt_popt_set(ps->cur, ps->curn, &o);
	if (r < 0)
		return r;
	ps->last = pt_popt_find(*ps->cur, *ps->curn, name);
	ps->lastlen = strlen(value);
	return 0;
}

static int continuation(struct parse *ps, const char *s)
{
	size_t n = ps->lastlen, add = strlen(s);
	char *v = realloc(ps->last->value, n + add + 2);

	if (!v)
		return -ENOMEM;
	v[n] = ' '; /* ConfigParser keeps '\n'; a kernel file takes blanks */
	memcpy(v + n + 1, s, add + 1);
	ps->last->value = v;
	ps->lastlen = n + 1 + add;
	return 0;
}

static int parse_line(struct parse *ps, char *raw, int line)
{
	int indent = (int)strspn(raw, " \t");
	char *s = strip(raw);

	if (!*s) {
		ps->last = NULL; /* a blank line ends a multi-line value */
		return 0;
	}
	if (*s == '#' || *s == ';')
		return 0;
	cut_inline_comment(s);
	s = strip(s);
	if (ps->last && indent > ps->indent)
		return continuation(ps, s);
	ps->indent = indent;
	ps->last = NULL;
	if (*s == '[' && strrchr(s, ']'))
		return section(ps, s, line);
	return option(ps, s, line);
}

int pt_ini_parse(struct perftune_ctx *ctx, const char *path, const char *file_id, bool headerless,
		 struct pt_pconf *conf)
{
	struct parse ps = { .ctx = ctx,
			    .c = conf,
			    .path = path,
			    .file_id = file_id,
			    .headerless = headerless };
	char *text, *line;
	int r = 0, n = 0;

	memset(conf, 0, sizeof(*conf));
	if (headerless) {
		ps.cur = &conf->main;
		ps.curn = &conf->nmain;
	}
	text = file_read(ctx, path, &r);
	if (!text)
		return r;
	/* strsep keeps empty lines, so line numbers stay right */
	for (char *p = text; (line = strsep(&p, "\n")) && r >= 0;) {
		n++;
		if (strchr(line, '\r'))
			*strchr(line, '\r') = '\0';
		r = parse_line(&ps, line, n);
	}
	free(text);
	if (r < 0)
		pt_pconf_free(conf);
	return r;
}
