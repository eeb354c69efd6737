// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a profile (found by path.c) with its include= chain and merging the chain the way TuneD's loader and merger do:
 * includes first, later files override options of the same section,
 * replace=true replaces a whole section, drop= removes inherited options.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "core/log.h"
#include "profile-internal.h"

struct chain {
	struct pt_pconf *c;
	size_t n;
};

static int load_file(struct perftune_profile *p, const char *path, struct chain *ch, int depth);

static int load_includes(struct perftune_profile *p, struct pt_popt *inc, struct chain *ch,
			 int depth)
{
	_cleanup_free_ char *unresolved = NULL, *v = NULL;
	_cleanup_(pt_strv_freep) char **names = NULL;
	int r = pt_func_expand(p, inc->value, inc, &v, &unresolved);

	if (r < 0)
		return r;
	if (unresolved)
		return pt_err(p->ctx, -EINVAL, "%s:%d: include=%s: %s", inc->file, inc->line,
			      inc->value, unresolved);
	/* TuneD: re.split(r"\s*[,;]\s*", value); "a b" is one name, "a," has an empty one */
	if (!(names = pt_regex_split("\\s*[,;]\\s*", v)))
		return -ENOMEM;
	for (size_t i = 0; names[i] && r >= 0; i++) {
		char *n = names[i];
		bool optional = n[0] == '-'; /* "-name": include if it exists */
		_cleanup_free_ char *path = NULL;
		if (optional)
			n++;
		if (strrchr(n, '/')) /* TuneD's locator takes the base name */
			n = strrchr(n, '/') + 1;
		if (!*n && !optional)
			return pt_err(p->ctx, -EINVAL, "%s:%d: include=%s: an empty profile name",
				      inc->file, inc->line, inc->value);
		r = pt_profile_locate(p->ctx, n, p->files,
				      pt_profile_in_tuned_dir(p->ctx, inc->file), &path);
		if ((r == -ENOENT || r == -EINVAL) && optional) {
			pt_err_clear(p->ctx);
			r = 0;
			continue;
		}
		if (r == -ENOENT)
			return pt_profile_not_found(p->ctx, n, inc->file, inc->line);
		if (r < 0)
			return pt_err_prefix(p->ctx, r, "%s:%d", inc->file, inc->line);
		if (path) /* NULL: every candidate was read already (a loop) */
			r = load_file(p, path, ch, depth + 1);
	}
	return r;
}

/* TuneD's loader: ${i:PROFILE_DIR} (not after a '\\') is the file's directory, in every value */
static int profile_dir(struct pt_popt *o, size_t n, const char *file)
{
	static const char var[] = "${i:PROFILE_DIR}";
	const char *slash = strrchr(file, '/');
	size_t dlen = slash ? (size_t)(slash - file) : 0;

	for (size_t i = 0; i < n; i++) {
		struct pt_buf b = { 0 };
		const char *v = o[i].value, *at;
		if (!strstr(v, var))
			continue;
		while ((at = strstr(v, var))) {
			bool esc = at > o[i].value && at[-1] == '\\';
			pt_buf_add(&b, v, (size_t)(at - v));
			if (esc)
				pt_buf_add(&b, at, sizeof(var) - 1);
			else
				pt_buf_add(&b, file, dlen);
			v = at + sizeof(var) - 1;
		}
		pt_buf_puts(&b, v);
		if (!(v = pt_buf_steal(&b)))
			return -ENOMEM;
		free(o[i].value);
		o[i].value = (char *)v;
	}
	return 0;
}

static int load_file(struct perftune_profile *p, const char *path, struct chain *ch, int depth)
{
	struct pt_pconf c;
	struct pt_popt *inc;
	const char *id;
	int r;

	if (depth > PT_PROFILE_DEPTH)
		return pt_err(p->ctx, -ELOOP, "%s: includes nested deeper than %d", path,
			      PT_PROFILE_DEPTH);
	id = pt_strv_add(&p->files, &p->nfiles, path); /* the origin each option points to */
	if (!id)
		return -ENOMEM;
	r = pt_ini_parse(p->ctx, path, id, false, &c);
	if (r < 0)
		return r;
	r = profile_dir(c.main, c.nmain, path);
	for (size_t i = 0; i < c.n && r >= 0; i++)
		r = profile_dir(c.u[i].opt, c.u[i].n, path);
	for (size_t i = 0; i < c.n && r >= 0; i++)
		r = pt_unit_extract(&c.u[i]);
	inc = pt_popt_find(c.main, c.nmain, "include");
	if (r >= 0 && inc) {
		r = load_includes(p, inc, ch, depth);
		pt_popt_del(c.main, &c.nmain, "include");
	}
	if (r >= 0) {
		struct pt_pconf *v = realloc(ch->c, (ch->n + 1) * sizeof(*v));
		if (v) {
			ch->c = v;
			v[ch->n++] = c;
			return 0;
		}
		r = -ENOMEM;
	}
	pt_pconf_free(&c);
	return r;
}

static char *profile_name(const char *path)
{
	_cleanup_free_ char *dup = strdup(path);
	char *slash, *base;

	if (!dup)
		return NULL;
	slash = strrchr(dup, '/');
	base = slash ? slash + 1 : dup;
	if (!strcmp(base, "tuned.conf") && slash && slash != dup) {
		*slash = '\0';
		base = strrchr(dup, '/') ? strrchr(dup, '/') + 1 : dup;
	} else if (strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".conf")) {
		base[strlen(base) - 5] = '\0';
	}
	return strdup(base);
}

int pt_profile_read(struct perftune_profile *p, const char *name_or_path)
{
	struct chain ch = { 0 };
	_cleanup_free_ char *path = NULL;
	struct pt_popt *o;
	struct stat st;
	int r = 0;

	if (strchr(name_or_path, '/')) {
		if (stat(name_or_path, &st) < 0)
			return pt_err(p->ctx, -errno, "profile %s: %s", name_or_path,
				      strerror(errno));
		if (!S_ISDIR(st.st_mode))
			path = strdup(name_or_path);
		else if (asprintf(&path, "%s/tuned.conf", name_or_path) < 0)
			r = -ENOMEM;
		if (path)
			pt_profile_warn_unsafe(p->ctx, path);
	} else {
		r = pt_profile_locate(p->ctx, name_or_path, NULL, false, &path);
		if (r == -ENOENT)
			return pt_profile_not_found(p->ctx, name_or_path, NULL, 0);
	}
	if (r < 0 || !path) {
		if (r < 0)
			return r;
		return -ENOMEM;
	}
	p->path = strdup(path);
	p->name = profile_name(path);
	if (!p->path || !p->name)
		return -ENOMEM;
	r = load_file(p, path, &ch, 0);
	for (size_t i = 0; i < ch.n; i++) {
		if (r >= 0)
			r = pt_profile_merge(p, &ch.c[i]);
		pt_pconf_free(&ch.c[i]);
	}
	free(ch.c);
	if (r < 0)
		return r;
	if ((o = pt_popt_find(p->main, p->nmain, "summary")) && !(p->summary = strdup(o->value)))
		return -ENOMEM;
	if ((o = pt_popt_find(p->main, p->nmain, "description")) &&
	    !(p->description = strdup(o->value)))
		return -ENOMEM;
	return 0;
}
