// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The family registry, resolution of a key into concrete tunables by its
 * family, and the read API (get, list, describe).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "object/desc.h"
#include "object/tunable.h"
#include "family/family.h"
#include "suggest.h"

static const struct pt_family *const families[] = {
	&pt_block_family,  &pt_cpu_family,	 &pt_hugepages_family, &pt_irq_family,
	&pt_module_family, &pt_net_family,	 &pt_numa_family,      &pt_pmqos_family,
	&pt_proc_family,   &pt_selinux_family,	 &pt_sysctl_family,    &pt_sysfs_family,
	&pt_thp_family,	   &pt_workqueue_family,
};

const struct pt_family *pt_family_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		if (strcmp(families[i]->name, name) == 0)
			return families[i];
	return NULL;
}

int pt_resolve(struct perftune_ctx *ctx, const char *key, pt_emit_fn emit, void *ud)
{
	struct pt_keyparts *kp = malloc(sizeof(*kp));
	const struct pt_family *fam;
	char sb[PT_KEY_SHOWN + 4];
	int r;

	if (!kp)
		return -ENOMEM;
	r = pt_key_parse(ctx, key, kp);
	if (r < 0)
		goto out;
	fam = pt_family_find(kp->c[0].s);
	if (!fam) {
		r = pt_err(ctx, -EINVAL,
			   "%s: unknown family '%s' (block, cpu, hugepages, irq, module, net, numa, pmqos, "
			   "proc, selinux, sysctl, sysfs, thp, workqueue)",
			   pt_key_shown(key, sb, sizeof(sb)), kp->c[0].s);
		r = pt_suggest(ctx, kp, NULL, r, families, ARRAY_SIZE(families));
		goto out;
	}
	r = fam->resolve(ctx, kp, emit, ud);
	if (r < 0 && pt_attr_beneath_refused(ctx)) /* not "no such sysctl": the calls were refused */
		r = pt_err(ctx, -pt_attr_beneath_refused(ctx),
			   "%s: cannot open kernel files: the kernel or a seccomp filter refuses "
			   "openat2 and the calls of the user-space resolver (%s)",
			   pt_key_shown(key, sb, sizeof(sb)),
			   strerror(pt_attr_beneath_refused(ctx)));
	else if (r < 0) /* a mistake rather than a tunable this machine lacks: say the key meant */
		r = pt_suggest(ctx, kp, fam, r, families, ARRAY_SIZE(families));
out:
	free(kp);
	return r;
}

struct collect {
	struct pt_tunable *v;
	size_t n, cap;
};

static int collect_emit(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t, void *ud)
{
	struct collect *c = ud;

	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].key, t->key) == 0)
			return 0;
	if (pt_grow(&c->v, &c->cap, c->n + 1, 8) < 0)
		return -ENOMEM;
	c->v[c->n++] = *t;
	return 0;
}

int pt_resolve_all(struct perftune_ctx *ctx, const char *key, struct pt_tunable **out)
{
	struct collect c = { 0 };
	char sb[PT_KEY_SHOWN + 4];
	int r = pt_resolve(ctx, key, collect_emit, &c);

	if (r >= 0 && c.n == 0)
		r = pt_err(ctx, -ENODEV, "%s: matches nothing on this machine",
			   pt_key_shown(key, sb, sizeof(sb)));
	if (r < 0) {
		free(c.v);
		return r;
	}
	*out = c.v;
	return (int)c.n;
}

int pt_resolve_one(struct perftune_ctx *ctx, const char *key, struct pt_tunable *t)
{
	_cleanup_free_ struct pt_tunable *v = NULL;
	int n = pt_resolve_all(ctx, key, &v);

	if (n < 0)
		return n;
	if (n != 1)
		return pt_err(ctx, -ENOTUNIQ, "%s: names %d tunables, not one", key, n);
	*t = v[0];
	return 0;
}

/* ---- read API ---- */

struct get_state {
	const char *key;
	char *value;
	char first[PERFTUNE_KEY_MAX];
	int r;
};

static int get_emit(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud)
{
	struct get_state *g = ud;
	char buf[PT_VAL];
	int r = t->fam->read(ctx, t, buf, sizeof(buf));

	if (r < 0)
		return r;
	if (!g->value) {
		g->value = strdup(buf);
		snprintf(g->first, sizeof(g->first), "%s", t->key);
		if (g->value)
			return 0;
		return -ENOMEM;
	}
	if (strcmp(g->value, buf) != 0)
		return pt_err(ctx, -ENOTUNIQ, "%s: values differ: %s is '%s', %s is '%s'", g->key,
			      g->first, g->value, t->key, buf);
	return 0;
}

static int get_impl(struct perftune_ctx *ctx, const char *key, char **value)
{
	struct get_state g = { .key = key };
	int r;

	if (!ctx || !value)
		return -EINVAL;
	pt_lock(ctx);
	pt_err_clear(ctx);
	r = pt_resolve(ctx, key, get_emit, &g);
	if (r >= 0 && !g.value)
		r = pt_err(ctx, -ENODEV, "%s: matches nothing on this machine", key);
	if (r < 0) {
		free(g.value);
	} else {
		*value = g.value;
		r = 0;
	}
	pt_unlock(ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_get(struct perftune_ctx *ctx, const char *key, char **value)
{
	return pt_api_ret(get_impl(ctx, key, value));
}

/* what a tunable that cannot be read is: not here, or there and unreadable */
static bool absent(int r)
{
	return r == -ENOENT || r == -ENODEV || r == -EOPNOTSUPP;
}

static int get_each_impl(struct perftune_ctx *ctx, const char *key,
			 struct perftune_tunable_iter **iterp)
{
	_cleanup_free_ struct pt_tunable *t = NULL;
	struct perftune_tunable_iter *it;
	int n, r = 0, nread = 0;

	if (!ctx || !iterp)
		return -EINVAL;
	pt_lock(ctx);
	pt_err_clear(ctx);
	n = pt_resolve_all(ctx, key, &t);
	it = n < 0 ? NULL : pt_tunable_iter_new();
	for (int i = 0; it && i < n && r >= 0; i++) {
		char buf[PT_VAL], why[PT_ERR_MAX];
		struct perftune_tunable tun = { .key = t[i].key, .note = t[i].note };

		r = t[i].fam->read(ctx, &t[i], buf, sizeof(buf));
		if (r >= 0) {
			tun.value = buf;
			nread++;
		} else if (r != -ENOMEM) {
			snprintf(why, sizeof(why), "%s", pt_errmsg(ctx));
			tun.note = why;
			if (absent(r))
				tun.flags = PERFTUNE_TUNABLE_ABSENT;
			r = 0;
		}
		if (r >= 0)
			r = pt_tunable_iter_add(it, &tun);
	}
	pt_unlock(ctx);
	if (n < 0 || !it || r < 0) {
		perftune_tunable_iter_free(it);
		if (n < 0)
			return n;
		return -ENOMEM;
	}
	pt_tunable_iter_sort(it);
	*iterp = it;
	return nread;
}

PERFTUNE_EXPORT int perftune_get_each(struct perftune_ctx *ctx, const char *key,
				      struct perftune_tunable_iter **iterp)
{
	return pt_api_ret(get_each_impl(ctx, key, iterp));
}

struct list_state {
	struct perftune_tunable_iter *it;
	char **prefixes; /* NULL-terminated; NULL: everything */
};

static int list_emit(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud)
{
	struct list_state *ls = ud;
	char buf[PT_VAL];
	struct perftune_tunable tun = { .key = t->key, .note = t->note };
	bool match = !ls->prefixes;

	for (char **p = ls->prefixes; p && *p && !match; p++)
		match = strncmp(t->key, *p, strlen(*p)) == 0;
	if (!match)
		return 0;
	if (t->fam->read(ctx, t, buf, sizeof(buf)) == 0)
		tun.value = buf;
	if (t->read_only)
		tun.flags |= PERFTUNE_TUNABLE_READONLY; /* a fact of the kernel (kernel.ostype) */
	return pt_tunable_iter_add(ls->it, &tun);
}

/*
 * "block[/dev/mapper/x]" or "block[/data].iosched": the prefixes of the disks
 * the selector reaches (as its scheduler key resolves: bio-based devices mean
 * their disks), each followed by what came after the bracket.
 */
static int selector_prefixes(struct perftune_ctx *ctx, const char *prefix, char ***out)
{
	const char *why, *close = pt_key_bracket_end(prefix + 5, &why);
	_cleanup_free_ struct pt_tunable *t = NULL;
	char key[PERFTUNE_KEY_MAX], **v;
	int n;

	if (!close)
		return pt_err(ctx, -EINVAL, "%s: %s", prefix, why ? why : "'[' without ']'");
	if (pt_snprintf(key, sizeof(key), "%.*s.scheduler", (int)(close + 1 - prefix), prefix) < 0)
		return -ENAMETOOLONG;
	n = pt_resolve_all(ctx, key, &t);
	if (n < 0)
		return n;
	v = calloc((size_t)n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		char dev[PERFTUNE_KEY_MAX];
		if (pt_key_dev(dev, sizeof(dev), "block", t[i].group) < 0 ||
		    asprintf(&v[i], "%s%s%s", dev, close[1] ? "" : ".", close + 1) < 0) {
			pt_strv_free(v);
			return -ENOMEM;
		}
	}
	*out = v;
	return n;
}

static int list_impl(struct perftune_ctx *ctx, const char *prefix,
		     struct perftune_tunable_iter **iterp)
{
	struct list_state ls = { 0 };
	char *plain[2] = { (char *)prefix, NULL };
	int r = 0;

	if (!ctx || !iterp)
		return -EINVAL;
	ls.it = pt_tunable_iter_new();
	if (!ls.it)
		return -ENOMEM;
	pt_lock(ctx);
	pt_err_clear(ctx);
	/* block[<selector>]: the disks it reaches; other prefixes are text, brackets and all,
	 * as list prints keys ("sysctl.net.ipv4.conf.[eth0.100]") */
	if (prefix && !strncmp(prefix, "block[", 6)) {
		r = selector_prefixes(ctx, prefix, &ls.prefixes);
		if (r < 0)
			goto out;
	} else if (prefix && *prefix) {
		ls.prefixes = plain;
	}
	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		const char *name = families[i]->name;
		bool wanted = !ls.prefixes;

		/* skip families no prefix can match */
		for (char **p = ls.prefixes; p && *p && !wanted; p++)
			wanted = !strncmp(*p, name,
					  strlen(*p) < strlen(name) ? strlen(*p) : strlen(name)) &&
				 (strlen(*p) <= strlen(name) || strchr(".[", (*p)[strlen(name)]));
		if (!wanted)
			continue;
		r = families[i]->list(ctx, list_emit, &ls);
		if (r == -ENOMEM)
			break;
		r = 0; /* a family absent on this machine lists nothing */
	}
	pt_err_clear(ctx);
out:
	if (ls.prefixes != plain)
		pt_strv_free(ls.prefixes);
	pt_unlock(ctx);
	if (r < 0) {
		perftune_tunable_iter_free(ls.it);
		return r;
	}
	pt_tunable_iter_sort(ls.it);
	*iterp = ls.it;
	return 0;
}

PERFTUNE_EXPORT int perftune_list(struct perftune_ctx *ctx, const char *prefix,
				  struct perftune_tunable_iter **iterp)
{
	return pt_api_ret(list_impl(ctx, prefix, iterp));
}

static int describe_impl(struct perftune_ctx *ctx, const char *key, struct perftune_desc **descp)
{
	struct pt_tunable t;
	struct perftune_desc *d;
	int r;

	if (!ctx || !descp)
		return -EINVAL;
	pt_lock(ctx);
	pt_err_clear(ctx);
	r = pt_resolve_one(ctx, key, &t);
	if (r < 0)
		goto out;
	d = pt_desc_new(&t);
	if (!d) {
		r = -ENOMEM;
		goto out;
	}
	r = t.fam->describe(ctx, &t, d);
	/* the default (openat2) goes unsaid: said where the fallback is in use */
	if (r >= 0 && !strncmp(pt_attr_beneath_name(ctx), "user-space", 10))
		pt_desc_add_info(d, "paths resolved by %s", pt_attr_beneath_name(ctx));
	if (r < 0)
		perftune_desc_free(d);
	else
		*descp = d;
out:
	pt_unlock(ctx);
	if (r < 0)
		return r;
	return 0;
}

PERFTUNE_EXPORT int perftune_describe(struct perftune_ctx *ctx, const char *key,
				      struct perftune_desc **descp)
{
	return pt_api_ret(describe_impl(ctx, key, descp));
}
