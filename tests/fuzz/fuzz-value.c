// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Values: perftune_tx_set validation on the fake machine, then a DRY_RUN
 * commit and the change list.  The input is lines of KEY=VALUE (split at
 * the first '=', as the CLI does), staged into one transaction.  Nothing
 * may be written and no journal may appear.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz-common.h"

#define MAX_SETS 8

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fz_str(data, size), *save = NULL, jdir[PATH_MAX];
	struct perftune_ctx *ctx;
	struct perftune_tx *tx;
	struct perftune_change_iter *it = NULL;
	const struct perftune_change *e;
	struct stat st;
	int r, sets = 0, staged = 0;

	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	ctx = fz_ctx(jdir);
	r = perftune_tx_new(ctx, "fuzz", PERFTUNE_TX_DRY_RUN | PERFTUNE_TX_HOLD |
					     PERFTUNE_TX_ALLOW_PARTIAL, &tx);
	if (r < 0)
		fz_fail("perftune_tx_new: %s", perftune_ctx_last_error(ctx));
	for (char *line = strtok_r(in, "\n", &save); line && sets < MAX_SETS;
	     line = strtok_r(NULL, "\n", &save), sets++) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		r = perftune_tx_set(tx, line, eq + 1);
		fz_check_err(ctx, r, "perftune_tx_set");
		/* 0 only where the library says so: a latency limit no idle state exceeds */
		if (r == 0 && !strstr(line, ".idle.max_latency_us"))
			fz_fail("perftune_tx_set staged 0 tunables without an error");
		staged += r > 0 ? r : 0;
	}
	r = perftune_tx_commit(tx);
	fz_check_err(ctx, r, "perftune_tx_commit (dry run)");
	if (perftune_tx_changes(tx, &it) == 0) {
		int items = 0;
		while ((e = perftune_change_iter_next(it))) {
			if (!perftune_change_key(e) || !perftune_change_new_value(e))
				fz_fail("change without key or value");
			(void)perftune_change_old_value(e), (void)perftune_change_note(e);
			items++;
		}
		if (items > staged)
			fz_fail("%d changes listed, %d staged", items, staged);
	}
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
	if (fz_writes())
		fz_fail("a dry run wrote %d times", fz_writes());
	if (lstat(jdir, &st) == 0) {
		fz_rmtree(jdir);
		fz_fail("a dry run created the journal directory %s", jdir);
	}
	perftune_ctx_unref(ctx);
	free(in);
	return 0;
}
