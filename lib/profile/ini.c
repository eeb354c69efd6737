// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading one tuned.conf the way TuneD's ConfigParser does: "[section]" (as
 * written, blanks and all), "name = value" (first '=' splits), whole-line
 * comments '#'/';', inline comments " #", indented continuation lines kept
 * with their '\n' (blank lines inside too), later duplicates win in place,
 * [DEFAULT]'s options given to every section, Python's whitespace.  Errors
 * name the file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "core/log.h"
#include "profile-internal.h"

char *pt_profile_file_read(struct perftune_ctx *ctx, const char *path, int *err)
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

size_t pt_py_space(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;

	if (*s == ' ' || (*s >= '\t' && *s <= '\r') || (*s >= 0x1c && *s <= 0x1f))
		return 1;
	if (s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0))
		return 2;
	if (s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80)
		return 3;
	if (s[0] == 0xe2 && s[1] == 0x80 &&
	    ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf))
		return 3;
	if ((s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f) ||
	    (s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80))
		return 3;
	return 0;
}

/* the whitespace before @e (not before @s) that Python's rstrip() takes */
static char *py_rstrip_end(char *s, char *e)
{
	for (bool more = true; more && e > s;) {
		more = false;
		for (size_t n = 1; n <= 3 && !more && (size_t)(e - s) >= n; n++)
			if (pt_py_space(e - n) == n) {
				e -= n;
				more = true;
			}
	}
	return e;
}

char *pt_py_strip(char *s)
{
	for (size_t n; (n = pt_py_space(s));)
		s += n;
	*py_rstrip_end(s, s + strlen(s)) = '\0';
	return s;
}

/*
 * ConfigParser(inline_comment_prefixes='#'): a '#' at the start or after
 * whitespace starts a comment; true if the line had one
 */
static bool cut_inline_comment(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '#' &&
		    (p == s || pt_py_space(p - 1) == 1 || (p - s >= 2 && pt_py_space(p - 2) == 2) ||
		     (p - s >= 3 && pt_py_space(p - 3) == 3))) {
			*p = '\0';
			return true;
		}
	return false;
}

struct parse {
	struct perftune_ctx *ctx;
	struct pt_pconf *c;
	const char *path, *file_id;
	struct pt_popt **cur; /* options of the current section */
	size_t *curn;
	struct pt_popt *defaults; /* [DEFAULT]: ConfigParser gives them to every section */
	size_t ndefaults;
	bool has_main;
	struct pt_popt *last; /* the option a continuation line or a blank line adds to */
	size_t lastlen;	      /* strlen(last->value) */
	int indent;
	bool headerless; /* a variables file: no [section], lines without '=' ignored */
};

static int section(struct parse *ps, const char *s, size_t n, int line)
{
	struct pt_punit *u;

	ps->last = NULL;
	if (n == 4 && !strncmp(s, "main", 4)) {
		ps->cur = &ps->c->main;
		ps->curn = &ps->c->nmain;
		ps->has_main = true;
		return 0;
	}
	if (n == 7 && !strncmp(s, "DEFAULT", 7)) {
		ps->cur = &ps->defaults;
		ps->curn = &ps->ndefaults;
		return 0;
	}
	for (size_t i = 0; i < ps->c->n; i++)
		if (strlen(ps->c->u[i].name) == n && !strncmp(ps->c->u[i].name, s, n)) {
			ps->cur = &ps->c->u[i].opt; /* strict=False: sections merge */
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
	u->name = strndup(s, n); /* as written: TuneD does not strip "[ sysctl ]" */
	u->file = ps->file_id;
	u->line = line;
	ps->cur = &u->opt;
	ps->curn = &u->n;
	if (u->name)
		return 0;
	return -ENOMEM;
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
	*py_rstrip_end(s, eq) = '\0';
	name = s;
	value = pt_py_strip(eq + 1);
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

/* ConfigParser keeps the lines of a multi-line value, joined by '\n' */
static int add_line(struct parse *ps, const char *s)
{
	size_t n = ps->lastlen, add = strlen(s);
	char *v;

	if (n + 1 + add > PT_PROFILE_FILE_MAX)
		return -EFBIG;
	v = realloc(ps->last->value, n + add + 2);
	if (!v)
		return -ENOMEM;
	v[n] = '\n';
	memcpy(v + n + 1, s, add + 1);
	ps->last->value = v;
	ps->lastlen = n + 1 + add;
	return 0;
}

/* ConfigParser._read, one line */
static int parse_line(struct parse *ps, char *raw, int line)
{
	int indent = 0;
	bool comment = cut_inline_comment(raw);
	char *s = pt_py_strip(raw);

	for (size_t n; (n = pt_py_space(raw + indent)) && raw + indent < s; indent += (int)n)
		;
	if (*s == '#' || *s == ';')
		return 0;
	if (!*s) { /* a blank line belongs to a multi-line value, a comment line does not */
		if (ps->last && !comment)
			return add_line(ps, "");
		return 0;
	}
	if (ps->last && indent > ps->indent)
		return add_line(ps, s);
	ps->indent = indent;
	ps->last = NULL;
	if (*s == '[' && strrchr(s, ']') && strrchr(s, ']') - s >= 2) /* \[(?P<header>.+)\] */
		return section(ps, s + 1, (size_t)(strrchr(s, ']') - s - 1), line);
	return option(ps, s, line);
}

/* ConfigParser's rstrip() of a joined value; past PT_PROFILE_VALUE_MAX as written: an error */
static int end_value(struct parse *ps, struct pt_popt *x)
{
	*py_rstrip_end(x->value, x->value + strlen(x->value)) = '\0';
	if (strlen(x->value) <= PT_PROFILE_VALUE_MAX)
		return 0;
	return pt_err(ps->ctx, -EINVAL,
		      "%s:%d: %s: the value expands to more than %d bytes (the profile value limit)",
		      ps->path, x->line, x->name, PT_PROFILE_VALUE_MAX);
}

/* the end of the file: values lose trailing blank lines, sections get [DEFAULT]'s options */
static int finish(struct parse *ps)
{
	struct pt_pconf *c = ps->c;
	int r = 0;

	for (size_t k = 0; k < ps->ndefaults && r >= 0; k++)
		r = end_value(ps, &ps->defaults[k]);
	for (size_t i = 0; i <= c->n && r >= 0; i++) {
		struct pt_popt **o = &c->main;
		size_t *n = &c->nmain;
		if (i < c->n) {
			o = &c->u[i].opt;
			n = &c->u[i].n;
		}
		for (size_t k = 0; k < *n && r >= 0; k++)
			r = end_value(ps, &(*o)[k]);
		if (i == c->n && !ps->has_main)
			break;
		for (size_t k = 0; k < ps->ndefaults && r >= 0; k++)
			if (!pt_popt_find(*o, *n, ps->defaults[k].name))
				r = pt_popt_set(o, n, &ps->defaults[k]);
	}
	return r;
}

static void free_defaults(struct parse *ps)
{
	for (size_t i = 0; i < ps->ndefaults; i++) {
		free(ps->defaults[i].name);
		free(ps->defaults[i].value);
	}
	free(ps->defaults);
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
		ps.has_main = true;
	}
	text = pt_profile_file_read(ctx, path, &r);
	if (!text)
		return r;
	/* lines end in "\n", "\r\n" or "\r" (Python's universal newlines); empty ones count */
	for (char *p = text; p && r >= 0;) {
		line = p;
		p += strcspn(p, "\r\n");
		if (*p == '\r' && p[1] == '\n')
			*p++ = '\0';
		if (*p)
			*p++ = '\0';
		else
			p = NULL;
		n++;
		r = parse_line(&ps, line, n);
	}
	if (r == -EFBIG)
		r = pt_err(ctx, r, "%s:%d: a value longer than %d bytes", path, n,
			   PT_PROFILE_FILE_MAX);
	if (r >= 0)
		r = finish(&ps);
	free(text);
	free_defaults(&ps);
	if (r < 0)
		pt_pconf_free(conf);
	return r;
}
