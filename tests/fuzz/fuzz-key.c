// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Keys and selectors: pt_key_parse, pt_resolve, perftune_get and
 * perftune_describe on the fake machine.  The input is one key.  Both path
 * resolvers (openat2 and the user-space walk of beneath.c) take every input:
 * the same answer to the key, and the input taken as a path opens the same
 * way under both, never outside its top.  Names (issue 33): every tunable a key
 * resolves to is named by its key alone (resolved again, that key and nothing
 * more: a bracketed name is never a glob), and the input taken as a kernel name
 * comes back from its bracketed key component byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz-common.h"

/* the root as /proc/self/fd names it (tests/fuzz/run spells it //dev/shm/...) */
static char root[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fz_init();
	if (!realpath(fz_root(), root))
		fz_fail("realpath %s: %s", fz_root(), strerror(errno));
	return 0;
}

static int count(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud)
{
	struct pt_tunable again;
	int r;

	if (!t->fam || !t->key[0] || strnlen(t->key, sizeof(t->key)) == sizeof(t->key))
		fz_fail("resolved a tunable without family or key");
	if (++*(int *)ud <= 4) { /* a few per input: a glob may reach hundreds */
		r = pt_resolve_one(ctx, t->key, &again);
		if (r == -ENOTUNIQ || (r == 0 && strcmp(again.key, t->key)))
			fz_fail("key '%s' of a resolved tunable names %s", t->key,
				r ? perftune_ctx_last_error(ctx) : again.key);
		pt_err_clear(ctx);
	}
	return 0;
}

/* the input as a kernel name: its bracketed component parses back to it, never a glob */
static void name_round_trips(struct perftune_ctx *ctx, const char *name)
{
	char comp[4 * PERFTUNE_KEY_MAX], key[sizeof(comp) + 16];
	struct pt_keyparts kp;

	if (pt_key_comp(comp, sizeof(comp), name, PT_KEYFORM_BRACKET) < 0 ||
	    pt_snprintf(key, sizeof(key), "sysctl.net.%s", comp) < 0 ||
	    strlen(key) >= PERFTUNE_KEY_MAX)
		return;
	if (pt_key_parse(ctx, key, &kp) < 0)
		fz_fail("name '%s' as key '%s' does not parse: %s", name, key,
			perftune_ctx_last_error(ctx));
	if (kp.n != 3 || strcmp(kp.c[2].name, name) || kp.c[2].glob)
		fz_fail("name '%s' as key '%s' parses to '%s'", name, key, kp.c[2].name);
}

/* @fd is below fz_root()/<top of @path> */
static void check_beneath(int fd, const char *path)
{
	char link[64], where[PATH_MAX], top[PATH_MAX];
	size_t n = strcspn(path, "/");
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, where, sizeof(where) - 1);
	if (len < 0)
		return;
	where[len] = '\0';
	snprintf(top, sizeof(top), "%s/%.*s", root, (int)n, path);
	n = strlen(top);
	if (strncmp(where, top, n) || (where[n] && where[n] != '/'))
		fz_fail("'%s' opened %s, outside %s", path, where, top);
}

/* the input as a path below the root: both resolvers agree, neither leaves the top */
static void both_resolvers_open(const char *path)
{
	static const int flags[] = { O_RDONLY, O_PATH, O_RDONLY | O_DIRECTORY, O_PATH | O_NOFOLLOW };
	char jdir[PATH_MAX];

	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		int fd[2];
		for (int user = 0; user < 2; user++) {
			struct perftune_ctx *ctx = fz_ctx(jdir);
			pt_attr_beneath_force(ctx, user);
			fd[user] = pt_attr_open(ctx, path, flags[i]);
			if (fd[user] >= 0)
				check_beneath(fd[user], path);
			perftune_ctx_unref(ctx);
		}
		if ((fd[0] < 0 || fd[1] < 0) && fd[0] != fd[1])
			fz_fail("'%s' (flags %#x): openat2 %d, user-space %d", path, flags[i],
				fd[0] < 0 ? fd[0] : 0, fd[1] < 0 ? fd[1] : 0);
		for (int user = 0; user < 2; user++)
			if (fd[user] >= 0)
				close(fd[user]);
	}
}

/* the key's value read through the user-space resolver: as through openat2 */
static void same_value_user_space(const char *key, int r0, const char *v0)
{
	char jdir[PATH_MAX], *v1 = NULL;
	struct perftune_ctx *ctx;
	int r1;

	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	ctx = fz_ctx(jdir);
	pt_attr_beneath_force(ctx, true);
	r1 = perftune_get(ctx, key, &v1);
	fz_check_err(ctx, r1, "perftune_get (user-space resolver)");
	if (r1 != r0 || (r0 == 0 && strcmp(v0, v1)))
		fz_fail("perftune_get: openat2 %d '%s', user-space %d '%s'", r0, r0 ? "" : v0, r1,
			r1 ? "" : v1);
	free(v1);
	perftune_ctx_unref(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *key = fz_str(data, size), jdir[PATH_MAX];
	struct perftune_ctx *ctx;
	struct pt_keyparts kp;
	struct perftune_desc *d = NULL;
	char *value = NULL;
	int n = 0, r, rget;

	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	ctx = fz_ctx(jdir);
	pt_attr_beneath_force(ctx, false);
	r = pt_key_parse(ctx, key, &kp);
	if (r == 0) {
		if (kp.n < 1 || kp.n > PT_MAX_COMPS)
			fz_fail("parsed into %d components", kp.n);
		for (int i = 0; i < kp.n; i++)
			if (!kp.c[i].s[0] || strnlen(kp.c[i].s, sizeof(kp.c[i].s)) == sizeof(kp.c[i].s))
				fz_fail("component %d empty or unterminated", i);
		r = pt_resolve(ctx, key, count, &n);
		fz_check_err(ctx, r, "pt_resolve");
	}
	name_round_trips(ctx, key);
	r = perftune_get(ctx, key, &value);
	fz_check_err(ctx, r, "perftune_get");
	if (r == 0 && !value)
		fz_fail("perftune_get returned 0 and no value");
	rget = r;
	r = perftune_describe(ctx, key, &d);
	fz_check_err(ctx, r, "perftune_describe");
	if (r == 0) {
		long long lo, hi;
		if (!perftune_desc_key(d))
			fz_fail("description without a key");
		(void)perftune_desc_path(d);
		(void)perftune_desc_value(d), (void)perftune_desc_choices(d);
		(void)perftune_desc_range(d, &lo, &hi), (void)perftune_desc_unit(d);
		(void)perftune_desc_writable(d), (void)perftune_desc_reason(d);
		(void)perftune_desc_info(d);
	}
	if (fz_writes())
		fz_fail("reading a key wrote %d times", fz_writes());
	perftune_desc_free(d);
	perftune_ctx_unref(ctx);
	same_value_user_space(key, rget, value); /* a context of its own: counts writes anew */
	if (fz_writes())
		fz_fail("reading a key wrote %d times (user-space resolver)", fz_writes());
	free(value);
	both_resolvers_open(key);
	free(key);
	return 0;
}
