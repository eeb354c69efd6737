// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * "Did you mean ...?" for a key that names nothing, and the rule that tells a
 * mistake from a tunable this machine lacks (perftune(8) KEYS, "Mistakes"):
 *
 *  - a sysctl name missing from a directory this kernel has, one edit away
 *    from one of its entries (two for names of 8 bytes and more, none below 3;
 *    a difference of case alone always), under which the rest of the key
 *    exists, is a typo of it: sysctl.vm.swapiness, sysctl.VM.swappiness;
 *  - a key without "sysctl." whose sysctl exists meant that sysctl:
 *    vm.swappiness, net.core.somaxconn (net is also a family);
 *  - a first name as near a family's meant that family, if the key then
 *    names something here: sysctll.vm.swappiness, blok.sda.scheduler.
 *
 * Such a key is -EINVAL, a usage error, with the key meant in its message.
 * Names that differ in their digits only (eth0 and eth1, ipv4 and ipv6) are
 * other instances, not typos, and a name far from every entry may be another
 * kernel's sysctl or a module's not loaded: those stay "not here" (-ENOENT).
 * Only the entries of the one directory where a name is missing are read,
 * never a tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "perftune.h"
#include "macro.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
#include "suggest.h"

#define NEAR_MAX 64 /* bytes of a name compared; longer names are never near */

int pt_edit_distance(const char *a, const char *b, int max)
{
	size_t la = strlen(a), lb = strlen(b);
	int rows[3][NEAR_MAX + 1], *two = rows[0], *one = rows[1], *cur = rows[2];

	if (la > NEAR_MAX || lb > NEAR_MAX || (la > lb ? la - lb : lb - la) > (size_t)max)
		return max + 1;
	for (size_t j = 0; j <= lb; j++)
		one[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int *t = two, best;

		cur[0] = best = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int d = one[j - 1] + (a[i - 1] != b[j - 1]);

			if (one[j] + 1 < d)
				d = one[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    two[j - 2] + 1 < d)
				d = two[j - 2] + 1; /* two neighbours swapped */
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (best > max)
			return max + 1;
		two = one;
		one = cur;
		cur = t;
	}
	if (one[lb] > max)
		return max + 1;
	return one[lb];
}

/* the edits a mistyped name of @len bytes may hold */
static int edits_allowed(size_t len)
{
	if (len < 3)
		return 0;
	if (len < 8)
		return 1;
	return 2;
}

/* how far @name is from @other: 0 for a difference of case alone (VM, vm), as near as can be */
static int distance(const char *name, const char *other, int max)
{
	if (strcasecmp(name, other))
		return pt_edit_distance(name, other, max);
	return 0;
}

/* @a and @b are the same but for their digits (eth0, eth1): another instance, not a typo */
static bool other_instance(const char *a, const char *b)
{
	for (;;) {
		while (isdigit((unsigned char)*a))
			a++;
		while (isdigit((unsigned char)*b))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

static bool is_file(struct perftune_ctx *ctx, const char *path)
{
	return pt_attr_exists(ctx, path) && !pt_attr_is_dir(ctx, path);
}

/*
 * In @out the entry of directory @dir nearest to @name, under which @rest
 * ("" or "a/b") is a file: true if one is near enough.  Ties go to the
 * entry first in byte order, whatever order the directory lists them in.
 */
static bool nearest_entry(struct perftune_ctx *ctx, const char *dir, const char *name,
			  const char *rest, char *out, size_t size)
{
	_cleanup_closedir_ DIR *d = NULL;
	int max = edits_allowed(strlen(name)), best = max + 1;
	struct dirent *de;

	if (!(d = pt_attr_opendir(ctx, dir)))
		return false;
	while ((de = readdir(d))) {
		char p[PATH_MAX];
		int k = distance(name, de->d_name, max);

		if (de->d_name[0] == '.' || k > best ||
		    (k == best && strcmp(de->d_name, out) >= 0) || other_instance(name, de->d_name))
			continue;
		if (pt_snprintf(p, sizeof(p), "%s/%s%s%s", dir, de->d_name, *rest ? "/" : "",
				rest) < 0 ||
		    !is_file(ctx, p) || pt_snprintf(out, size, "%s", de->d_name) < 0)
			continue;
		best = k;
	}
	return best <= max;
}

/* in @out "sysctl" and @kp's components from @from, component @fix (-1: none) as @name */
static int sysctl_key(char *out, size_t size, const struct pt_keyparts *kp, int from, int fix,
		      const char *name)
{
	int r = pt_snprintf(out, size, "sysctl");

	for (int i = from; i < kp->n && r >= 0; i++) {
		char c[PERFTUNE_KEY_MAX];
		size_t n = strlen(out);

		r = pt_key_comp(c, sizeof(c), i == fix ? name : kp->c[i].s, PT_KEYFORM_BRACKET);
		if (r >= 0)
			r = pt_snprintf(out + n, size - n, ".%s", c);
	}
	if (r < 0)
		return r;
	return 0;
}

/* @kp's components from @i on as a path ("a/b"), in @out */
static int path_from(char *out, size_t size, const struct pt_keyparts *kp, int i)
{
	out[0] = '\0';
	for (; i < kp->n; i++) {
		size_t n = strlen(out);

		if (pt_snprintf(out + n, size - n, "%s%s", n ? "/" : "", kp->c[i].s) < 0)
			return -ENAMETOOLONG;
	}
	return 0;
}

/* a component that is no plain sysctl name: a glob matches, it is never mistyped */
static bool plain_names(const struct pt_keyparts *kp, int from)
{
	for (int i = from; i < kp->n; i++)
		if (pt_glob(kp->c[i].s) || strchr(kp->c[i].s, '/') || !strcmp(kp->c[i].s, ".") ||
		    !strcmp(kp->c[i].s, ".."))
			return false;
	return from < kp->n;
}

/*
 * The sysctl that @kp's components from @from name: 1 with its key in @out
 * if it exists as given (*@exact), or with the first missing name, at index
 * @fix_from or later, replaced by the nearest entry of its directory; else 0.
 */
static int sysctl_meant(struct perftune_ctx *ctx, const struct pt_keyparts *kp, int from,
			int fix_from, char *out, size_t size, bool *exact)
{
	char dir[PATH_MAX] = "proc/sys", p[PATH_MAX], rest[PATH_MAX], name[NAME_MAX + 1] = "";

	if (!plain_names(kp, from))
		return 0;
	for (int i = from; i < kp->n; i++) {
		bool last = i + 1 == kp->n;

		if (pt_snprintf(p, sizeof(p), "%s/%s", dir, kp->c[i].s) < 0)
			return 0;
		if (!last && pt_attr_is_dir(ctx, p)) {
			memcpy(dir, p, sizeof(dir));
			continue;
		}
		*exact = last && is_file(ctx, p);
		if (*exact)
			return sysctl_key(out, size, kp, from, -1, NULL) == 0;
		/* missing (a name of the wrong kind is no typo): its nearest sibling */
		if (i < fix_from || pt_attr_exists(ctx, p) ||
		    path_from(rest, sizeof(rest), kp, i + 1) < 0 ||
		    !nearest_entry(ctx, dir, kp->c[i].s, rest, name, sizeof(name)))
			return 0;
		return sysctl_key(out, size, kp, from, i, name) == 0;
	}
	return 0;
}

static int count_emit(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t _unused_,
		      void *ud)
{
	++*(int *)ud;
	return 0;
}

/* 1 with @key in @out if family @fam resolves it to something here, else 0 */
static int names_something(struct perftune_ctx *ctx, const struct pt_family *fam, const char *key,
			   char *out, size_t size)
{
	_cleanup_free_ struct pt_keyparts *kp = malloc(sizeof(*kp));
	int n = 0;

	if (!kp || pt_key_parse(ctx, key, kp) < 0 || fam->resolve(ctx, kp, count_emit, &n) < 0 ||
	    n == 0)
		return 0;
	return pt_snprintf(out, size, "%s", key) >= 0;
}

/* the key with the family nearest to @kp's first name, if it names something here */
static int family_meant(struct perftune_ctx *ctx, const struct pt_keyparts *kp,
			const struct pt_family *const *fams, size_t nfams, char *out, size_t size)
{
	const char *first = kp->c[0].s;
	const struct pt_family *near = NULL;
	int max = edits_allowed(strlen(first)), best = max + 1;
	char key[PERFTUNE_KEY_MAX];

	for (size_t i = 0; i < nfams; i++) {
		int k = distance(first, fams[i]->name, max);

		if (k < best) {
			best = k;
			near = fams[i];
		}
	}
	if (!near || pt_snprintf(key, sizeof(key), "%s%s", near->name, kp->text + strlen(first)) < 0)
		return 0;
	return names_something(ctx, near, key, out, size);
}

int pt_suggest(struct perftune_ctx *ctx, const struct pt_keyparts *kp, const struct pt_family *fam,
	       int r, const struct pt_family *const *fams, size_t nfams)
{
	char msg[PT_ERR_MAX], meant[PERFTUNE_KEY_MAX];
	bool exact = false;
	int found;

	if (r != -ENOENT && r != -ENODEV && r != -EINVAL)
		return r;
	snprintf(msg, sizeof(msg), "%s", pt_errmsg(ctx));
	if (fam == &pt_sysctl_family)
		found = r == -ENOENT && sysctl_meant(ctx, kp, 1, 1, meant, sizeof(meant), &exact) &&
			!exact;
	else /* a family's first name is right: only a sysctl of that name (net) is meant */
		found = sysctl_meant(ctx, kp, 0, fam ? 1 : 0, meant, sizeof(meant), &exact) ||
			(!fam && family_meant(ctx, kp, fams, nfams, meant, sizeof(meant)));
	if (!found && strcmp(pt_errmsg(ctx), msg)) /* as it was, whatever the probes said */
		return pt_err(ctx, r, "%s", msg);
	if (!found)
		return r;
	return pt_err(ctx, -EINVAL, "%s; did you mean %s?", msg, meant);
}
