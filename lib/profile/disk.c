// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The disk plugin: elevator, readahead (kB, sectors, ">N"), readahead_multiply
 * (of the original this transaction journaled, so it does not compound),
 * scheduler_quantum; hdparm's apm and spindown are skips.  A section that
 * selects disks by pattern or by rotational= gives export a udev match.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/log.h"
#include "profile-internal.h"

/* "4096", ">4096", "8192 s" (sectors) -> "[op]kB"; NULL if not a number */
static char *readahead_kb(const char *v)
{
	const char *op = v;
	int oplen = *v == '>' || *v == '<';
	char *end;
	long long n;

	v += oplen;
	while (isspace((unsigned char)*v))
		v++;
	n = strtoll(v, &end, 10);
	if (end == v || n < 0)
		return NULL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end == 's')
		n /= 2;
	else if (*end)
		return NULL;
	char *out = NULL;
	if (asprintf(&out, "%.*s%lld", oplen, op, n) < 0)
		return NULL;
	return out;
}

/* readahead_multiply scales the original: the one journaled by this transaction, if any */
static int readahead_base(struct perftune_profile *p, const char *key, long long *base)
{
	_cleanup_free_ char *cur = NULL;
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	int r;

	if (p->txname && perftune_status(p->ctx, &it) >= 0) {
		while ((e = perftune_status_iter_next(it)))
			if (!strcmp(perftune_status_entry_tx_name(e), p->txname) &&
			    !strcmp(perftune_status_entry_key(e), key) &&
			    perftune_status_entry_original(e) &&
			    pt_parse_ll(perftune_status_entry_original(e), base) == 0) {
				perftune_status_iter_free(it);
				return 0;
			}
		perftune_status_iter_free(it);
	}
	r = perftune_get(p->ctx, key, &cur);
	if (r < 0)
		return r;
	return pt_parse_ll(cur, base);
}

static int disk_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		       const char *dev, const char *v, const char *hint)
{
	char key[PERFTUNE_KEY_MAX], sel[PERFTUNE_KEY_MAX];
	struct pt_pitem *it = NULL;
	int r;

	/* the device by its name: "block[v*]" for one named v*, never a glob */
	if (pt_key_dev(sel, sizeof(sel), "block", dev) < 0)
		return 0;
	if (!strcmp(o->name, "elevator")) {
		snprintf(key, sizeof(key), "%s.scheduler", sel);
		r = pt_pmap_key(p, u, o, key, v, true, &it);
	} else if (!strcmp(o->name, "scheduler_quantum")) {
		char path[PATH_MAX];
		snprintf(key, sizeof(key), "%s.iosched.quantum", sel);
		snprintf(path, sizeof(path), "sys/block/%s/queue/iosched/quantum", dev);
		/* CFQ's parameter: no blk-mq scheduler has it, so a scheduler switch
		 * in the same profile will not bring it (and a commit would fail) */
		if (!pt_attr_exists(p->ctx, path)) {
			if (pt_pitem_add(p, u, o, key, v, PT_ITEM_SKIPPED,
					 "%s's scheduler has no quantum (a CFQ parameter)", dev))
				return 0;
			return -ENOMEM;
		}
		r = pt_pmap_key(p, u, o, key, v, false, NULL);
	} else if (!strcmp(o->name, "readahead")) {
		_cleanup_free_ char *kb = readahead_kb(v);
		snprintf(key, sizeof(key), "%s.read_ahead_kb", sel);
		if (!kb)
			return pt_err(p->ctx, -EINVAL,
				      "%s:%d: [%s] readahead=%s: expected kB, '>N', "
				      "or 'N s' (sectors)",
				      o->file, o->line, u->name, v);
		r = pt_pmap_cond(p, u, o, key, kb);
		if (r == 0)
			r = pt_pmap_key(p, u, o, key, kb, false, &it);
	} else { /* readahead_multiply */
		char *end, val[32];
		double f = strtod(v, &end);
		long long base;
		snprintf(key, sizeof(key), "%s.read_ahead_kb", sel);
		if (end == v || *end || !isfinite(f) || f < 0 || f > 1024)
			return pt_err(p->ctx, -EINVAL,
				      "%s:%d: [%s] readahead_multiply=%s: expected a "
				      "factor",
				      o->file, o->line, u->name, v);
		r = readahead_base(p, key, &base);
		if (r < 0) {
			pt_pitem_add(p, u, o, key, NULL, PT_ITEM_SKIPPED, "%s",
				     perftune_ctx_last_error(p->ctx));
			return 0;
		}
		snprintf(val, sizeof(val), "%lld", (long long)(f * (double)base));
		r = pt_pmap_key(p, u, o, key, val, false, &it);
		if (it && !(it->flags & PT_ITEM_SKIPPED) && !it->note &&
		    asprintf(&it->note, "%s x %lld kB", v, base) < 0)
			it->note = NULL;
		it = NULL; /* depends on each disk's value: no pattern rule */
	}
	if (r >= 0 && it && hint && !(it->udev_match = strdup(hint)))
		return -ENOMEM;
	if (r < 0)
		return r;
	return 0;
}

/* udev match for a value that holds for every disk the unit selects */
static char *disk_hint(const char *rules, const char *rot)
{
	_cleanup_free_ char *dup = strdup(rules);
	struct pt_buf pos = { 0 }, b = { 0 };
	char *save = NULL;

	/* udev splits a match at '|' and ends a value at '"' (before 247): no pattern rule */
	if (!dup || (!pt_explicit_rules(rules) && !rot) || strpbrk(rules, "\"|\\"))
		return NULL;
	for (char *r = strtok_r(dup, " \t\n,", &save); r; r = strtok_r(NULL, " \t\n,", &save)) {
		if (r[0] == '!')
			pt_buf_printf(&b, "KERNEL!=\"%s\", ", r + 1);
		else if (strcmp(r, "*"))
			pt_buf_printf(&pos, "%s%s", pos.len ? "|" : "", r);
	}
	if (pos.len)
		pt_buf_printf(&b, "KERNEL==\"%s\", ", pos.s);
	free(pos.s);
	if (rot)
		pt_buf_printf(&b, "ATTR{queue/rotational}==\"%s\", ", rot);
	if (b.len >= 2)
		b.s[b.len -= 2] = '\0';
	return pt_buf_steal(&b);
}

/* keep the disks whose rotational attribute is @want */
static void filter_rotational(struct perftune_profile *p, struct pt_devset *d, const char *want)
{
	size_t k = 0;

	for (size_t i = 0; i < d->n; i++) {
		char key[PERFTUNE_KEY_MAX];
		_cleanup_free_ char *v = NULL;
		if (pt_key_dev(key, sizeof(key), "block", d->name[i]) == 0 &&
		    pt_snprintf(key + strlen(key), sizeof(key) - strlen(key), ".rotational") >= 0 &&
		    perftune_get(p->ctx, key, &v) == 0 && !strcmp(v, want))
			memmove(d->name[k++], d->name[i], sizeof(*d->name));
	}
	d->n = k;
}

int pt_map_disk(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken)
{
	static const char *const known[] = { "elevator", "readahead", "readahead_multiply",
					     "scheduler_quantum" };
	struct pt_devset devs;
	_cleanup_free_ char *rules = NULL, *hint = NULL;
	struct pt_popt *rot = pt_popt_find(u->opt, u->n, "rotational");
	int r;

	if (rot && strcmp(rot->value, "0") && strcmp(rot->value, "1"))
		return pt_err(p->ctx, -EINVAL, "%s:%d: [%s] rotational=%s: expected 0 or 1",
			      rot->file, rot->line, u->name, rot->value);
	r = pt_unit_devices(p, u, taken, &devs, &rules);
	if (r < 0 || !rules)
		return r;
	if (rot)
		filter_rotational(p, &devs, rot->value);
	hint = disk_hint(rules, rot ? rot->value : NULL);
	for (size_t i = 0; i < u->n && r >= 0; i++) {
		struct pt_popt *o = &u->opt[i];
		_cleanup_free_ char *v = NULL, *why = NULL;
		bool ok = false;
		for (size_t k = 0; k < ARRAY_SIZE(known); k++)
			ok |= !strcmp(o->name, known[k]);
		if (o == rot || (!strcmp(o->name, "dynamic") && !pt_is_true(o->value)))
			continue;
		if (!strcmp(o->name, "apm") || !strcmp(o->name, "spindown")) {
			pt_pitem_skip(p, u, o,
				      "ATA power management through hdparm: runs a program, "
				      "no kernel file");
			continue;
		}
		if (!ok && !strcmp(o->name, "dynamic")) {
			pt_pitem_skip(p, u, o, "dynamic tuning needs TuneD's daemon");
			continue;
		}
		if (!ok) {
			pt_pitem_skip(p, u, o, "unknown option of the disk plugin");
			continue;
		}
		if ((r = pt_vars_expand(p, o->value, o, &v, &why)) < 0)
			break;
		if (why) {
			pt_pitem_skip(p, u, o, "%s", why);
			continue;
		}
		const char *h = hint;
		if (strchr("<>", v[0]) || !strcmp(o->name, "readahead_multiply"))
			h = NULL;
		for (size_t k = 0; k < devs.n && r >= 0; k++)
			r = disk_option(p, u, o, devs.name[k], v, h);
	}
	pt_devset_free(&devs);
	return r;
}
