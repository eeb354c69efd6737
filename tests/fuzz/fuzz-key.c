// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Keys and selectors: pt_key_parse, pt_resolve, perftune_get and
 * perftune_describe on the fake machine.  The input is one key.
 */
#include <errno.h>
#include <string.h>
#include "fuzz-common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fz_init();
	return 0;
}

static int count(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud)
{
	(void)ctx;
	if (!t->fam || !t->key[0] || strnlen(t->key, sizeof(t->key)) == sizeof(t->key))
		fz_fail("resolved a tunable without family or key");
	++*(int *)ud;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *key = fz_str(data, size), jdir[PATH_MAX];
	struct perftune_ctx *ctx;
	struct pt_keyparts kp;
	struct perftune_desc *d = NULL;
	char *value = NULL;
	int n = 0, r;

	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	ctx = fz_ctx(jdir);
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
	r = perftune_get(ctx, key, &value);
	fz_check_err(ctx, r, "perftune_get");
	if (r == 0 && !value)
		fz_fail("perftune_get returned 0 and no value");
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
	free(value);
	perftune_ctx_unref(ctx);
	free(key);
	return 0;
}
