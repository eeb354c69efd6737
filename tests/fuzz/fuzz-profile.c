// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Profiles: the input is a tuned.conf, loaded with perftune_profile_load from
 * a temp dir on the search path (with the shipped profiles and TuneD's, so
 * include= has targets), mapped onto the fake machine, staged into a DRY_RUN
 * transaction and exported in every format.  Nothing may be written or run,
 * no value may pass the value limit, and no input may take more than the
 * -timeout of tests/fuzz/run (2 s: expansion must stay linear).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz-common.h"

static char dir[PATH_MAX], conf[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[PATH_MAX * 2 + 64];

	(void)argc, (void)argv;
	fz_init();
	snprintf(path, sizeof(path), "%s/profiles", fz_scratch());
	mkdir(path, 0700);
	snprintf(dir, sizeof(dir), "%s/fuzz", path);
	mkdir(dir, 0700);
	snprintf(conf, sizeof(conf), "%s/tuned.conf", dir);
	/* include=fuzz is the input itself: a loop to detect */
	snprintf(path + strlen(path), sizeof(path) - strlen(path), ":%s:/usr/lib/tuned",
		 PROFILES_DIR);
	setenv("PERFTUNE_PROFILE_PATH", path, 1);
	return 0;
}

static void check_len(const struct perftune_profile_item *e, const char *v)
{
	if (v && strlen(v) >= PERFTUNE_VALUE_MAX)
		fz_fail("item %s: a value of %zu bytes", perftune_profile_item_option(e), strlen(v));
}

static void items(struct perftune_profile *p)
{
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *e;

	if (perftune_profile_items(p, &it) < 0)
		return;
	while ((e = perftune_profile_item_iter_next(it))) {
		if (!perftune_profile_item_option(e))
			fz_fail("profile item without a name");
		(void)perftune_profile_item_key(e), (void)perftune_profile_item_location(e);
		/* expansion stops at the value limit (issue 27 E) */
		check_len(e, perftune_profile_item_value(e));
		check_len(e, perftune_profile_item_value_as_written(e));
		if ((perftune_profile_item_flags(e) & PERFTUNE_PROFILE_ITEM_SKIPPED) &&
		    !perftune_profile_item_skip_reason(e))
			fz_fail("skipped item %s without a reason", perftune_profile_item_option(e));
	}
	perftune_profile_item_iter_free(it);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const vars[] = { "data_disks=sd* !sdc", "hugepages=16", NULL };
	char jdir[PATH_MAX];
	struct perftune_ctx *ctx;
	struct perftune_profile *p = NULL;
	struct perftune_tx *tx = NULL;
	struct stat st;
	int r;

	fz_spill(conf, data, size, 0600);
	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	ctx = fz_ctx(jdir);
	r = perftune_profile_load(ctx, conf, vars, &p);
	fz_check_err(ctx, r, "perftune_profile_load");
	if (r == 0) {
		if (!perftune_profile_name(p) || !perftune_profile_path(p))
			fz_fail("profile without name or path");
		(void)perftune_profile_summary(p);
		items(p);
		if (perftune_tx_new(ctx, "fuzz", PERFTUNE_TX_DRY_RUN, &tx) < 0)
			fz_fail("perftune_tx_new: %s", perftune_ctx_last_error(ctx));
		r = perftune_profile_stage(p, tx, 0);
		fz_check_err(ctx, r, "perftune_profile_stage");
		items(p);
		if (r >= 0) {
			r = perftune_tx_commit(tx);
			fz_check_err(ctx, r, "perftune_tx_commit (dry run)");
		}
		for (int f = PERFTUNE_EXPORT_SYSCTL; f <= PERFTUNE_EXPORT_TUNED; f++) {
			char *text = NULL;
			r = perftune_export_profile(p, f, &text);
			fz_check_err(ctx, r, "perftune_export_profile");
			if (r >= 0 && !text)
				fz_fail("export format %d: no text", f);
			free(text);
		}
	}
	perftune_tx_unref(tx);
	perftune_profile_free(p);
	if (fz_writes())
		fz_fail("a profile wrote %d times", fz_writes());
	if (lstat(jdir, &st) == 0) {
		fz_rmtree(jdir);
		fz_fail("a dry run created the journal directory %s", jdir);
	}
	perftune_ctx_unref(ctx);
	return 0;
}
