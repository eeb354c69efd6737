// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Profile variables: [variables] definitions (in order, each expanded when
 * defined, include= reads a variables file), -v NAME=VALUE overrides, and
 * the expansion of ${name} and ${f:function:arg:...} in values, following
 * TuneD's Variables and Functions classes: "\${x}" is an escaped literal, an
 * undefined ${x} stays as written, a function that cannot be evaluated
 * leaves its text in place.  Functions never run a program (func.c).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "core/log.h"
#include "profile-internal.h"

struct pt_var {
	char *name, *value;
	char *why; /* why the value is not fully evaluated, or NULL */
	bool overridden;
};

/* definitions in order, and an open-addressing index of them (slot = index + 1) */
struct pt_vars {
	struct pt_var *v;
	size_t n, cap;
	size_t *slot;
	size_t nslot; /* a power of two, more than twice n */
	/* the variables a value or devices= used undefined, and where each was used first */
	char **undef, **undef_where;
	size_t nundef;
};

struct pt_vars *pt_vars_new(void)
{
	return calloc(1, sizeof(struct pt_vars));
}

void pt_vars_free(struct pt_vars *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		pt_free_all(v->v[i].name, v->v[i].value, v->v[i].why);
	}
	pt_strv_free(v->undef);
	pt_strv_free(v->undef_where);
	pt_free_all(v->v, v->slot, v);
}

static size_t hash(const char *s, size_t n)
{
	size_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* the slot of @name: its variable's, or the empty one where it would go */
static size_t *find_slot(struct pt_vars *vs, const char *name, size_t n)
{
	size_t mask = vs->nslot - 1;

	for (size_t i = hash(name, n) & mask;; i = (i + 1) & mask) {
		size_t *sl = &vs->slot[i];
		if (!*sl ||
		    (strlen(vs->v[*sl - 1].name) == n && !strncmp(vs->v[*sl - 1].name, name, n)))
			return sl;
	}
}

static struct pt_var *lookup(struct pt_vars *vs, const char *name, size_t n)
{
	size_t *sl = NULL;

	if (vs->nslot)
		sl = find_slot(vs, name, n);
	if (sl && *sl)
		return &vs->v[*sl - 1];
	return NULL;
}

/* room for one more variable, in the array and in the index */
static int grow(struct pt_vars *vs)
{
	size_t nslot, *old = vs->slot;

	if (pt_grow(&vs->v, &vs->cap, vs->n + 1, 16) < 0)
		return -ENOMEM;
	if ((vs->n + 1) * 2 < vs->nslot)
		return 0;
	nslot = vs->nslot ? vs->nslot * 2 : 32;
	if (!(vs->slot = calloc(nslot, sizeof(*vs->slot)))) {
		vs->slot = old;
		return -ENOMEM;
	}
	vs->nslot = nslot;
	for (size_t i = 0; i < vs->n; i++)
		*find_slot(vs, vs->v[i].name, strlen(vs->v[i].name)) = i + 1;
	free(old);
	return 0;
}

static int set_var(struct pt_vars *vs, const char *name, const char *value, const char *why,
		   bool overridden)
{
	struct pt_var *v = lookup(vs, name, strlen(name));
	char *nv = strdup(value), *nw = why ? strdup(why) : NULL;
	char *nn = v ? NULL : strdup(name);

	if (!nv || (why && !nw) || (!v && (!nn || grow(vs) < 0))) {
		pt_free_all(nv, nw, nn);
		return -ENOMEM;
	}
	if (!v) {
		v = &vs->v[vs->n++];
		*v = (struct pt_var){ .name = nn };
		*find_slot(vs, nn, strlen(nn)) = vs->n;
	}
	free(v->value);
	free(v->why);
	v->value = nv;
	v->why = nw;
	v->overridden = overridden;
	return 0;
}

int pt_vars_override(struct perftune_profile *p, const char *const *defs)
{
	for (size_t i = 0; defs && defs[i]; i++) {
		const char *eq = strchr(defs[i], '=');
		_cleanup_free_ char *name = eq ? strndup(defs[i], (size_t)(eq - defs[i])) : NULL;
		if (!eq || !pt_is_word(defs[i], (size_t)(eq - defs[i])))
			return pt_err(p->ctx, -EINVAL,
				      "variable '%s': expected NAME=VALUE, NAME of [A-Za-z0-9_]",
				      defs[i]);
		if (strlen(eq + 1) > PT_PROFILE_VALUE_MAX)
			return pt_err(
				p->ctx, -EINVAL,
				"variable %s (-v): the value is longer than %d bytes (the profile "
				"value limit)",
				name ? name : "?", PT_PROFILE_VALUE_MAX);
		if (!name || set_var(p->vars, name, eq + 1, NULL, true) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* the length of "${name}" at @s, 0 if @s does not start one */
static size_t reference(const char *s)
{
	size_t n = 0;

	if (s[0] != '$' || s[1] != '{')
		return 0;
	while (pt_is_word(s + 2 + n, 1))
		n++;
	if (n && s[2 + n] == '}')
		return n + 3;
	return 0;
}

/* the first use of undefined variable @name by @o, for pt_vars_undefined(); -ENOMEM */
static int note_undefined(struct pt_vars *vs, const char *name, size_t n, const struct pt_popt *o)
{
	_cleanup_free_ char *nm = strndup(name, n), *where = NULL;
	size_t nwhere = vs->nundef;

	if (!nm)
		return -ENOMEM;
	for (size_t i = 0; i < vs->nundef; i++)
		if (!strcmp(vs->undef[i], nm))
			return 0;
	if (o && asprintf(&where, "%s (%s:%d)", o->name, o->file, o->line) < 0)
		where = NULL;
	if (!o)
		where = strdup("?");
	if (!where || !pt_strv_add(&vs->undef_where, &nwhere, where) ||
	    !pt_strv_add(&vs->undef, &vs->nundef, nm))
		return -ENOMEM;
	return 0;
}

const char *pt_vars_undefined(struct perftune_profile *p, size_t i, const char **where)
{
	if (!p->vars || i >= p->vars->nundef)
		return NULL;
	*where = p->vars->undef_where[i];
	return p->vars->undef[i];
}

/*
 * ${f:check_net_queue_count:${name}} asks whether the user set ${name}
 * (TuneD's realtime profiles leave netdev_queue_count commented out): there
 * an undefined variable is the question, not a mistake, and the function
 * answers with the online CPU count as TuneD's does.
 */
static bool asks_if_set(const char *in, const char *ref, size_t n)
{
	static const char call[] = "${f:check_net_queue_count:";
	size_t cl = sizeof(call) - 1;

	return (size_t)(ref - in) >= cl && !strncmp(ref - cl, call, cl) && ref[n] == '}';
}

/*
 * Pass 1: ${name} -> value, "\${name}" -> "${name}".  Values were expanded
 * when they were defined, so one pass, linear in its output; -E2BIG past
 * PT_PROFILE_VALUE_MAX.
 */
static int expand_static(struct perftune_profile *p, const char *in, const struct pt_popt *o,
			 struct pt_buf *why, bool strict, char **out)
{
	struct pt_buf b = { 0 };

	*out = NULL;
	for (const char *s = in; *s && b.len <= PT_PROFILE_VALUE_MAX;) {
		size_t n = reference(s);
		struct pt_var *v;
		if (!n) {
			pt_buf_add(&b, s++, 1);
			continue;
		}
		v = lookup(p->vars, s + 2, n - 3);
		if (s > in && s[-1] == '\\') {
			b.len--; /* drop the backslash: an escaped literal */
			pt_buf_add(&b, s, n);
		} else if (v) {
			pt_buf_puts(&b, v->value);
			if (v->why && !why->len)
				pt_buf_printf(why, "${%s} is not evaluated: %s", v->name, v->why);
		} else {
			pt_buf_add(&b, s, n);
			if (strict && !asks_if_set(in, s, n) &&
			    note_undefined(p->vars, s + 2, n - 3, o))
				b.oom = true;
			if (strict && !why->len && !asks_if_set(in, s, n))
				pt_buf_printf(why, "variable ${%.*s} is not defined", (int)(n - 3),
					      s + 2);
		}
		s += n;
	}
	if (b.len > PT_PROFILE_VALUE_MAX) {
		free(b.s);
		return -E2BIG;
	}
	*out = pt_buf_steal(&b);
	if (*out)
		return 0;
	return -ENOMEM;
}

static int expand(struct perftune_profile *p, const char *in, const struct pt_popt *o, char **out,
		  char **unresolved, bool strict)
{
	struct pt_buf why = { 0 };
	_cleanup_free_ char *st = NULL;
	int r = expand_static(p, in, o, &why, strict, &st);

	*out = NULL;
	*unresolved = NULL;
	if (r == -E2BIG)
		r = pt_expand_too_long(p, o);
	if (r < 0) {
		free(why.s);
		return r;
	}
	return pt_expand_rest(p, st, o, &why, out, unresolved);
}

int pt_vars_expand(struct perftune_profile *p, const char *in, const struct pt_popt *o, char **out,
		   char **unresolved)
{
	return expand(p, in, o, out, unresolved, true);
}

static int define(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o)
{
	_cleanup_free_ char *why = NULL, *v = NULL;
	struct pt_var *old = lookup(p->vars, o->name, strlen(o->name));

	if (!pt_is_word(o->name, strlen(o->name))) {
		pt_pitem_skip(p, u, o, "variable name '%s' is not [A-Za-z0-9_]", o->name);
		return 0;
	}
	if (old && old->overridden)
		return 0; /* -v NAME=VALUE wins */
	int r = expand(p, o->value, o, &v, &why, false);
	if (r < 0)
		return r;
	if (why)
		pt_pitem_skip(p, u, o, "not evaluated: %s", why);
	return set_var(p->vars, o->name, v, why, false);
}

static int include_file(struct perftune_profile *p, const struct pt_punit *u,
			const struct pt_popt *o)
{
	char real[PATH_MAX];
	struct pt_pconf c;
	const char *id = NULL;
	int r;

	if (!realpath(o->value, real)) {
		pt_pitem_skip(p, u, o, "variables file %s: %s", o->value, strerror(errno));
		return 0;
	}
	if (!pt_profile_dir_holds(real)) {
		pt_pitem_skip(p, u, o, "variables file %s is outside the profile directories", real);
		return 0;
	}
	if (!pt_profile_trusted(p->ctx, real, NULL)) {
		pt_pitem_skip(p, u, o, "variables file %s: others than root can change it", real);
		return 0;
	}
	for (size_t i = 0; i < p->nfiles && !id; i++)
		if (!strcmp(p->files[i], real))
			id = p->files[i];
	if (!id && !(id = pt_strv_add(&p->files, &p->nfiles, real)))
		return -ENOMEM;
	/* a variables file has no section header: its lines are one section */
	r = pt_ini_parse(p->ctx, real, id, true, &c);
	if (r < 0)
		return r;
	for (size_t k = 0; k < c.nmain && r >= 0; k++)
		r = define(p, u, &c.main[k]);
	for (size_t i = 0; i < c.n && r >= 0; i++)
		for (size_t k = 0; k < c.u[i].n && r >= 0; k++)
			r = define(p, u, &c.u[i].opt[k]);
	pt_pconf_free(&c);
	return r;
}

int pt_vars_define(struct perftune_profile *p, const struct pt_punit *u)
{
	int r = 0;

	for (size_t i = 0; i < u->n && r >= 0; i++) {
		if (!strcmp(u->opt[i].name, "include"))
			r = include_file(p, u, &u->opt[i]);
		else
			r = define(p, u, &u->opt[i]);
	}
	return r;
}

int pt_vars_value(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		  char **v)
{
	_cleanup_free_ char *why = NULL;
	int r = pt_vars_expand(p, o->value, o, v, &why);

	if (r < 0)
		return r;
	if (!why)
		return 1;
	pt_pitem_skip(p, u, o, "%s", why);
	free(*v);
	*v = NULL;
	return 0;
}

/*
 * An instance's variables file (path.c finds it): NAME=VALUE lines as -v
 * takes them, blank lines and '#' comments; blanks around NAME and VALUE
 * are dropped.  Into *@defs as "NAME=VALUE", for pt_vars_setup().
 */
static int read_instance_file(struct perftune_profile *p, const char *path, char ***defs)
{
	_cleanup_free_ char *text = NULL;
	size_t n = 0;
	int r = 0, line = 0;

	if (!(*defs = calloc(1, sizeof(**defs))))
		return -ENOMEM;
	if (!(text = pt_profile_file_read(p->ctx, path, &r)))
		return r;
	for (char *s = text, *next; s && r >= 0; s = next) {
		_cleanup_free_ char *def = NULL;
		char *eq, *name, *value;
		line++;
		if ((next = strchr(s, '\n')))
			*next++ = '\0';
		s = pt_py_strip(s);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (eq)
			*eq = '\0';
		name = pt_py_strip(s);
		if (!eq || !pt_is_word(name, strlen(name)))
			return pt_err(
				p->ctx, -EINVAL,
				"%s:%d: expected NAME=VALUE (as -v takes), NAME of [A-Za-z0-9_]",
				path, line);
		value = pt_py_strip(eq + 1);
		if (strlen(value) > PT_PROFILE_VALUE_MAX)
			return pt_err(p->ctx, -EINVAL,
				      "%s:%d: %s: the value is longer than %d bytes (the profile "
				      "value limit)",
				      path, line, name, PT_PROFILE_VALUE_MAX);
		if (asprintf(&def, "%s=%s", name, value) < 0)
			def = NULL; /* its value is undefined after a failure */
		if (!def || !pt_strv_add(defs, &n, def))
			r = -ENOMEM;
	}
	return r;
}

int pt_vars_instance(struct perftune_profile *p, const char *name)
{
	_cleanup_(pt_strv_freep) char **dirs = NULL;
	int r = pt_profile_vars_path(p->ctx, name, &p->vars_file);

	if (r < 0)
		return r;
	if (p->vars_file)
		return read_instance_file(p, p->vars_file, &p->file_vars);
	/* where the admin would put one: the first directory of the search path */
	if (!(dirs = pt_profile_path()))
		return -ENOMEM;
	if (dirs[0] && asprintf(&p->vars_hint, "%s/%s/" PT_PROFILE_VARS_FILE, dirs[0], name) < 0) {
		p->vars_hint = NULL;
		return -ENOMEM;
	}
	return 0;
}

int pt_vars_setup(struct perftune_profile *p)
{
	int r;

	pt_vars_free(p->vars);
	if (!(p->vars = pt_vars_new()))
		return -ENOMEM;
	/* the instance's file, then -v: a later definition replaces an earlier one */
	r = pt_vars_override(p, (const char *const *)p->file_vars);
	if (r >= 0)
		r = pt_vars_override(p, (const char *const *)p->overrides);
	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (!strcmp(p->u[i].name, "variables"))
			r = pt_vars_define(p, &p->u[i]);
	return r;
}

/* add the name @s[0..n) to the space-separated list @b unless it is there */
static void list_add_name(struct pt_buf *b, const char *s, size_t n)
{
	for (const char *w = b->s; w && *w; w += strcspn(w, " "), w += *w == ' ')
		if (strcspn(w, " ") == n && !strncmp(w, s, n))
			return;
	pt_buf_printf(b, "%s%.*s", b->len ? " " : "", (int)n, s);
}

static void scan_value(struct perftune_profile *p, const char *in, struct pt_buf *used,
		       struct pt_buf *unset)
{
	for (const char *s = in ? strstr(in, "${") : NULL; s; s = strstr(s + 2, "${")) {
		size_t n = reference(s);
		if (!n || (s > in && s[-1] == '\\'))
			continue;
		list_add_name(used, s + 2, n - 3);
		if (!lookup(p->vars, s + 2, n - 3) && !asks_if_set(in, s, n))
			list_add_name(unset, s + 2, n - 3);
	}
}

int pt_vars_scan(struct perftune_profile *p, char **used, char **unset)
{
	struct pt_buf u = { 0 }, un = { 0 };
	int r = pt_vars_setup(p);

	*used = *unset = NULL;
	for (size_t i = 0; i < p->n && r >= 0; i++) {
		const struct pt_punit *x = &p->u[i];
		const char *attrs[] = { x->devices, x->udev_regex, x->cpuinfo_regex,
					x->uname_regex };
		for (size_t k = 0; k < ARRAY_SIZE(attrs); k++)
			scan_value(p, attrs[k], &u, &un);
		for (size_t k = 0; k < x->n; k++)
			scan_value(p, x->opt[k].value, &u, &un);
	}
	if (r >= 0 && (u.oom || un.oom))
		r = -ENOMEM;
	if (r >= 0 && u.len)
		*used = pt_buf_steal(&u);
	if (r >= 0 && un.len)
		*unset = pt_buf_steal(&un);
	pt_free_all(u.s, un.s);
	return r;
}
