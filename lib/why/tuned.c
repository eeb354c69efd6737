// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TuneD: its active profile (/etc/tuned/active_profile, names separated by
 * blanks), loaded with lib/profile's loader (includes found in TuneD's
 * directories of the same root), and whether it applies sysctl.d again
 * after its profile (reapply_sysctl in tuned-main.conf, on by default).
 * The active profile is loaded once per call (each of its names once, as
 * TuneD's loader takes them); a key then looks its own items up.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/util.h"
#include "core/key.h"
#include "core/log.h"
#include "profile/profile-internal.h"
#include "why-internal.h"

static const char *const tuned_dirs[] = {
	"etc/tuned/profiles",
	"etc/tuned",
	"usr/lib/tuned/profiles",
	"usr/lib/tuned",
};

/* a profile loaded on its own, its items by key */
struct loaded {
	struct perftune_profile *p;
	struct pt_ref *keys;
	size_t n;
};

/* a name of the active profile: loaded (with each include alone), or why not */
struct active {
	char *name, *error;
	struct loaded main;
	struct loaded *inc; /* inc[k] for main.p->files[k], k >= 1 (p NULL: not alone) */
	bool *skip;	    /* skip[k]: an earlier name of the list loaded that file already */
};

/* a file TuneD's loader processed: it loads no file twice */
struct fileid {
	dev_t dev;
	ino_t ino;
};

struct pt_tuned {
	struct perftune_ctx *ctx;
	struct active *a;
	size_t na;
	struct fileid *done; /* the files loaded so far */
	size_t ndone, donecap;
	int reapply; /* -1: tuned-main.conf not read yet */
};

static int load(struct perftune_ctx *ctx, const char *path, struct loaded *l)
{
	struct perftune_profile *p = NULL;
	int r = perftune_profile_load(ctx, path, NULL, &p);

	if (r < 0)
		return r;
	l->p = p;
	l->keys = calloc(p->nitems + 1, sizeof(*l->keys));
	if (!l->keys)
		return -ENOMEM;
	for (size_t i = 0; i < p->nitems; i++)
		if (!(p->items[i].flags & PT_ITEM_SKIPPED) && p->items[i].key)
			l->keys[l->n++] = (struct pt_ref){ p->items[i].key, i };
	pt_refs_sort(l->keys, l->n);
	return 0;
}

static void loaded_free(struct loaded *l)
{
	perftune_profile_free(l->p);
	free(l->keys);
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* TuneD's directories below the root, each listed once: where profile @name is */
static int find_profile(struct pt_tuned *tu, char **const *dirs, const size_t *ndirs,
			const char *name, char *path, size_t size)
{
	for (size_t d = 0; d < ARRAY_SIZE(tuned_dirs); d++) {
		char rel[PATH_MAX];
		if (!ndirs[d] || !bsearch(&name, dirs[d], ndirs[d], sizeof(char *), strp_cmp) ||
		    pt_snprintf(rel, sizeof(rel), "%s/%s/tuned.conf", tuned_dirs[d], name) < 0)
			continue;
		if (pt_inroot_path(tu->ctx, rel, path, size) >= 0 && !access(path, F_OK))
			return 0;
	}
	return -ENOENT;
}

/*
 * The includes are loaded each on its own too, deepest first (TuneD applies
 * includes before the profile that includes them): the lines of an include
 * that the profile overrides are found there.  An include that does not
 * load alone (it needs the includer's variables) shows only where it wins.
 */
/* TuneD's loader processed @path already (as a name of the list or an include) */
static bool processed(const struct pt_tuned *tu, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	for (size_t i = 0; i < tu->ndone; i++)
		if (tu->done[i].dev == st.st_dev && tu->done[i].ino == st.st_ino)
			return true;
	return false;
}

static int mark(struct pt_tuned *tu, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || processed(tu, path))
		return 0;
	if (pt_grow(&tu->done, &tu->donecap, tu->ndone + 1, 8) < 0)
		return -ENOMEM;
	tu->done[tu->ndone++] = (struct fileid){ st.st_dev, st.st_ino };
	return 0;
}

static int load_active(struct pt_tuned *tu, struct active *a, const char *path)
{
	struct perftune_profile *p;
	int r = load(tu->ctx, path, &a->main);

	if (r < 0)
		return r;
	p = a->main.p;
	a->inc = calloc(p->nfiles + 1, sizeof(*a->inc));
	a->skip = calloc(p->nfiles + 1, sizeof(*a->skip));
	if (!a->inc || !a->skip)
		return -ENOMEM;
	for (size_t k = 1; k < p->nfiles; k++)
		a->skip[k] = processed(tu, p->files[k]);
	for (size_t k = 0; k < p->nfiles; k++)
		if (mark(tu, p->files[k]) < 0)
			return -ENOMEM;
	for (size_t k = 1; k < p->nfiles; k++) {
		r = load(tu->ctx, p->files[k], &a->inc[k]);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			loaded_free(&a->inc[k]);
			a->inc[k] = (struct loaded){ 0 };
			pt_err_clear(tu->ctx);
		}
	}
	return 0;
}

/* the names of the active profile, each once, as TuneD's loader takes them */
static int active_names(struct perftune_ctx *ctx, char ***names, size_t *n, struct pt_why_work *work)
{
	_cleanup_free_ char *text = NULL;
	struct pt_ref *refs = NULL;
	char **v = NULL, *save = NULL;
	size_t len, nv = 0, cap = 0;
	int r = 0;

	*names = NULL;
	*n = 0;
	if (pt_conf_read(ctx, "etc/tuned/active_profile", &text, &len, NULL, work) < 0)
		return 0; /* no TuneD profile chosen on this machine */
	for (char *w = strtok_r(text, " \t\n", &save); w && r >= 0;
	     w = strtok_r(NULL, " \t\n", &save)) {
		if (strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
			    strlen(w) ||
		    !strcmp(w, ".") || !strcmp(w, ".."))
			continue; /* TuneD's safe_name(): not a profile it would load */
		r = pt_grow(&refs, &cap, nv + 1, 16);
		if (r >= 0) {
			refs[nv] = (struct pt_ref){ w, nv };
			nv++;
		}
	}
	pt_refs_sort(refs, nv);
	/* a name given again is loaded once (TuneD skips a file it processed) */
	v = NULL;
	if (r >= 0)
		v = calloc(nv + 1, sizeof(*v));
	for (size_t k = 0; v && k < nv; k++)
		if (k == 0 || strcmp(refs[k - 1].name, refs[k].name))
			v[refs[k].i] = (char *)refs[k].name;
	for (size_t k = 0; v && k < nv && r >= 0; k++)
		if (v[k] && !pt_strv_add(names, n, v[k]))
			r = -ENOMEM;
	if (r >= 0 && !v)
		r = -ENOMEM;
	free(v);
	free(refs);
	return r;
}

int pt_tuned_new(struct perftune_ctx *ctx, struct pt_tuned **out, struct pt_why_work *work)
{
	struct pt_tuned *tu = calloc(1, sizeof(*tu));
	char **dirs[ARRAY_SIZE(tuned_dirs)] = { 0 }, **names = NULL;
	size_t ndirs[ARRAY_SIZE(tuned_dirs)] = { 0 }, n = 0;
	int r = -ENOMEM;

	*out = tu;
	if (tu) {
		tu->ctx = ctx;
		tu->reapply = -1;
		r = active_names(ctx, &names, &n, work);
	}
	if (r >= 0 && n)
		tu->a = calloc(n, sizeof(*tu->a));
	if (n && !tu->a)
		r = -ENOMEM;
	for (size_t d = 0; d < ARRAY_SIZE(tuned_dirs) && r >= 0 && n; d++)
		r = pt_conf_dir(ctx, tuned_dirs[d], &dirs[d], &ndirs[d]);
	for (size_t i = 0; i < n && r >= 0; i++) {
		struct active *a = &tu->a[tu->na];
		char path[PATH_MAX], *name = names[i];
		names[i] = NULL;
		work->steps++;
		r = find_profile(tu, dirs, ndirs, name, path, sizeof(path));
		if (r >= 0 && processed(tu, path)) {
			free(name); /* an include of an earlier name: TuneD skips it */
			continue;
		}
		a->name = name;
		tu->na++;
		if (r >= 0)
			r = load_active(tu, a, path);
		if (r < 0 && r != -ENOMEM) { /* named, and never fatal for the other sources */
			if (r == -ENOENT && !*pt_errmsg(ctx))
				a->error = strdup("not found");
			else
				a->error = strdup(pt_errmsg(ctx));
			r = a->error ? 0 : -ENOMEM;
			pt_err_clear(ctx);
		}
	}
	for (size_t d = 0; d < ARRAY_SIZE(tuned_dirs); d++)
		pt_strv_free(dirs[d]);
	for (size_t i = 0; i < n; i++) /* those not reached */
		free(names[i]);
	free(names);
	if (r < 0) {
		pt_tuned_free(tu);
		*out = NULL;
	}
	return r;
}

void pt_tuned_free(struct pt_tuned *tu)
{
	if (!tu)
		return;
	for (size_t i = 0; i < tu->na; i++) {
		struct active *a = &tu->a[i];
		for (size_t k = 1; a->inc && a->main.p && k < a->main.p->nfiles; k++)
			loaded_free(&a->inc[k]);
		loaded_free(&a->main);
		pt_free_all(a->name, a->error, a->inc, a->skip);
	}
	pt_free_all(tu->a, tu->done, tu);
}

/* the items of @l that set @t from @file (NULL: any); their number, or -ENOMEM */
static int add_items(struct pt_tuned *tu, const struct pt_tunable *t, const char *name,
		     const struct loaded *l, const char *file, struct pt_srcs *v,
		     struct pt_why_work *work)
{
	const char *root = perftune_ctx_get_root(tu->ctx);
	size_t fl = file ? strlen(file) : 0, rl = strlen(root);
	int found = 0;

	for (size_t k = pt_refs_find(l->keys, l->n, t->key, work);
	     k < l->n && !strcmp(l->keys[k].name, t->key); k++) {
		const struct pt_pitem *i = &l->p->items[l->keys[k].i];
		const char *where = i->origin;
		struct pt_src *s;
		work->steps++;
		if (file && (strncmp(where, file, fl) || where[fl] != ':'))
			continue;
		if (strcmp(root, "/") && !strncmp(where, root, rl) && where[rl] == '/')
			where += rl; /* as the machine below the root knows it */
		s = pt_src_add(v, PT_SRC_TUNED, t, where, i->value,
			       "TuneD profile '%s' (active): %s", name, i->option);
		if (!s)
			return -ENOMEM;
		s->flags |= PERFTUNE_SOURCE_PERSISTENT;
		found++;
	}
	return found;
}

/* an active profile's lines that set @t: each include's (deepest first), then its own */
static int active_why(struct pt_tuned *tu, const struct active *a, const struct pt_tunable *t,
		      struct pt_srcs *v, struct pt_why_work *work)
{
	const struct perftune_profile *p = a->main.p;
	int r = 0, found = 0;
	struct pt_src *s;

	if (a->error) {
		s = pt_src_add(v, PT_SRC_TUNED, t, "/etc/tuned/active_profile", NULL,
			       "active profile '%s': %s", a->name, a->error);
		if (!s)
			return -ENOMEM;
		s->flags |= PERFTUNE_SOURCE_ERROR;
		return 0;
	}
	for (size_t k = p->nfiles; k-- > 1 && r >= 0;) {
		if (a->skip[k])
			continue; /* loaded for an earlier name of the list: not again */
		r = add_items(tu, t, a->name, a->inc[k].p ? &a->inc[k] : &a->main, p->files[k], v,
			      work);
		if (r > 0)
			found += r;
	}
	if (r >= 0)
		r = add_items(tu, t, a->name, &a->main, p->files[0], v, work);
	if (r < 0)
		return r;
	return found + r;
}

int pt_tuned_why(struct pt_tuned *tu, const struct pt_tunable *t, struct pt_srcs *v,
		 struct pt_why_work *work)
{
	int r = 0, found = 0;

	for (size_t i = 0; i < tu->na && r >= 0; i++) {
		r = active_why(tu, &tu->a[i], t, v, work);
		if (r > 0)
			found += r;
	}
	if (r < 0)
		return r;
	return found;
}

bool pt_tuned_reapplies_sysctl(struct pt_tuned *tu)
{
	_cleanup_free_ char *conf = NULL;
	struct pt_lines l;
	char *line;
	size_t len;

	if (tu->reapply >= 0)
		return tu->reapply;
	tu->reapply = 1; /* TuneD's default */
	if (pt_conf_read(tu->ctx, "etc/tuned/tuned-main.conf", &conf, &len, NULL, NULL) < 0)
		return tu->reapply;
	pt_lines_init(&l, conf, len);
	while ((line = pt_lines_next(&l))) {
		char *eq = strchr(line, '=');
		if (!eq || line[0] == '#')
			continue;
		*eq = '\0';
		pt_trim(line);
		pt_trim(eq + 1);
		if (!strcmp(line, "reapply_sysctl"))
			tu->reapply = strcmp(eq + 1, "0") && strcasecmp(eq + 1, "false") &&
				      strcasecmp(eq + 1, "no") && strcasecmp(eq + 1, "off");
	}
	return tu->reapply;
}
