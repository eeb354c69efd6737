// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The source scanners of perftune_why(): the input is at once a sysctl.d
 * file, a udev rules file and the kernel command line of the fake machine
 * (below its root), and the sources of a sysctl, a disk's scheduler and THP
 * are listed, then those keys verified.  Nothing may be written or run, a
 * source always has a kind and a location, no value passes the value limit.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz-common.h"

static char files[3][PATH_MAX];

static void mkdirs(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s", fz_root());
	for (const char *p = rel, *slash; (slash = strchr(p, '/')); p = slash + 1) {
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%.*s",
			 (int)(slash - p), p);
		mkdir(path, 0755);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const rel[] = { "etc/sysctl.d/50-fuzz.conf",
					   "etc/udev/rules.d/50-fuzz.rules", "proc/cmdline" };

	(void)argc, (void)argv;
	fz_init();
	for (size_t i = 0; i < 3; i++) {
		mkdirs(rel[i]);
		snprintf(files[i], sizeof(files[i]), "%s/%s", fz_root(), rel[i]);
	}
	return 0;
}

static void sources(struct perftune_ctx *ctx, const char *key)
{
	struct perftune_source_iter *it = NULL;
	const struct perftune_source *s;
	int r = perftune_why(ctx, key, NULL, &it);

	fz_check_err(ctx, r, key);
	while ((s = perftune_source_iter_next(it))) {
		const char *v = perftune_source_value(s);
		if (!perftune_source_kind(s) || !perftune_source_location(s))
			fz_fail("%s: a source without kind or location", key);
		if (v && strlen(v) >= PERFTUNE_VALUE_MAX)
			fz_fail("%s: a value of %zu bytes", key, strlen(v));
	}
	perftune_source_iter_free(it);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "sysctl.vm.swappiness",
					    "sysctl.net.ipv4.conf.[eth0.100].rp_filter",
					    "block.sda.scheduler", "thp.enabled", "hugepages.nr" };
	static const char *const settings[] = { "sysctl.vm.swappiness=10",
						"block.sda.scheduler=deadline", NULL };
	struct perftune_check_iter *it = NULL;
	struct perftune_ctx *ctx;
	char jdir[PATH_MAX];
	int r;

	for (size_t i = 0; i < 3; i++)
		fz_spill(files[i], data, size, 0644);
	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	ctx = fz_ctx(jdir);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		sources(ctx, keys[i]);
	r = perftune_verify(ctx, settings, &it);
	fz_check_err(ctx, r, "perftune_verify");
	perftune_check_iter_free(it);
	if (fz_writes())
		fz_fail("why/verify wrote %d kernel files", fz_writes());
	perftune_ctx_unref(ctx);
	return 0;
}
