// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * module.<name>.loaded and [modules] on the fake machine: /sys/module/<name>
 * in the fake tree, libkmod answered by a table of modules (pt_attr's hook).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;

/* the modules this "kernel" has: name, what a load brings in, an install command */
static const struct {
	const char *name, *deps, *install;
} mods[] = {
	{ "dummy", "", NULL },
	{ "bonding", "tls", NULL },
	{ "tls", "", NULL },
	{ "usb_storage", "", "/bin/false" },
};
static char last_opts[256];
static int loads, unloads;

static void put(const char *rel, const char *value)
{
	char p[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f.root, rel);
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "%s\n", value);
	fclose(fp);
}

/* a loaded module in /sys/module: initstate, refcnt, holders/ */
static void present(const char *name, int refcnt)
{
	char rel[128], n[16];

	snprintf(rel, sizeof(rel), "%s/sys/module/%s/holders", f.root, name);
	ck_assert_int_eq(system(strcat(strcpy((char[512]){ 0 }, "mkdir -p "), rel)), 0);
	snprintf(rel, sizeof(rel), "sys/module/%s/initstate", name);
	put(rel, "live");
	snprintf(rel, sizeof(rel), "sys/module/%s/refcnt", name);
	snprintf(n, sizeof(n), "%d", refcnt);
	put(rel, n);
}

static bool is_loaded(const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/sys/module/%s/initstate", f.root, name);
	return access(p, F_OK) == 0;
}

static int sim_kmod(struct perftune_ctx *ctx, int op, const char *name, const char *options,
		    char *out, size_t size, void *ud)
{
	char cmd[PATH_MAX + 64];

	(void)ctx, (void)ud;
	for (size_t i = 0; i < ARRAY_SIZE(mods); i++) {
		if (strcmp(mods[i].name, name))
			continue;
		switch (op) {
		case PT_KMOD_FIND:
			return 0;
		case PT_KMOD_DEPS:
			snprintf(out, size, "%s", is_loaded(mods[i].deps) ? "" : mods[i].deps);
			return 0;
		case PT_KMOD_LOAD:
			if (mods[i].install) {
				snprintf(out, size, "%s", mods[i].install);
				return -EPERM;
			}
			if (mods[i].deps[0] && !is_loaded(mods[i].deps))
				present(mods[i].deps, 1); /* used by the module */
			present(name, 0);
			snprintf(last_opts, sizeof(last_opts), "%s", options ? options : "");
			loads++;
			return 0;
		default:
			snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/module/%s", f.root, name);
			ck_assert_int_eq(system(cmd), 0);
			if (!strcmp(name, "bonding")) /* tls is no longer used */
				put("sys/module/tls/refcnt", "0");
			unloads++;
			return 0;
		}
	}
	return -ENOENT;
}

static void setup(void)
{
	fx_setup(&f);
	loads = unloads = 0;
	last_opts[0] = '\0';
	pt_attr_set_kmod_fn(f.ctx, sim_kmod, NULL);
}

static void teardown(void)
{
	fx_teardown(&f);
}

static int set(const char *name, const char *key, const char *value)
{
	return fx_set_one(&f, name, key, value);
}

START_TEST(load_and_restore_unloads_it)
{
	char *v = NULL;

	ck_assert_int_eq(perftune_get(f.ctx, "module.dummy.loaded", &v), 0);
	ck_assert_str_eq(v, "0");
	free(v);
	ck_assert_msg(set("m", "module.dummy.loaded", "1 numdummies=2") >= 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert(is_loaded("dummy"));
	ck_assert_str_eq(last_opts, "numdummies=2");
	ck_assert_int_ge(perftune_restore(f.ctx, "m", 0), 0);
	ck_assert(!is_loaded("dummy"));
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* what a load brought in goes with it; what was there before stays */
START_TEST(restore_unloads_what_the_load_brought_in)
{
	ck_assert_int_ge(set("m", "module.bonding.loaded", "1"), 0);
	ck_assert(is_loaded("bonding") && is_loaded("tls"));
	ck_assert_int_ge(perftune_restore(f.ctx, "m", 0), 0);
	ck_assert(!is_loaded("bonding") && !is_loaded("tls"));
	present("tls", 0); /* loaded before us: ours to keep out of */
	ck_assert_int_ge(set("m", "module.bonding.loaded", "1"), 0);
	ck_assert_int_ge(perftune_restore(f.ctx, "m", 0), 0);
	ck_assert(!is_loaded("bonding"));
	ck_assert(is_loaded("tls"));
}
END_TEST

START_TEST(in_use_at_restore_is_not_unloaded_and_the_journal_kept)
{
	ck_assert_int_ge(set("m", "module.dummy.loaded", "1"), 0);
	put("sys/module/dummy/refcnt", "1"); /* someone uses it now */
	ck_assert_int_lt(perftune_restore(f.ctx, "m", 0), 0);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "in use"));
	ck_assert(is_loaded("dummy"));
	ck_assert_int_eq(fx_journals(&f), 1);
	put("sys/module/dummy/refcnt", "0");
	ck_assert_int_ge(perftune_restore(f.ctx, "m", 0), 0);
	ck_assert(!is_loaded("dummy"));
}
END_TEST

START_TEST(loaded_before_is_unchanged_and_never_unloaded)
{
	present("dummy", 0);
	ck_assert_int_ge(set("m", "module.dummy.loaded", "1 numdummies=3"), 0);
	ck_assert_int_eq(loads, 0);
	ck_assert_int_ge(perftune_restore(f.ctx, "m", 0), 0);
	ck_assert(is_loaded("dummy"));
	ck_assert_int_eq(unloads, 0);
}
END_TEST

START_TEST(unload_and_restore_loads_it_again)
{
	present("dummy", 0);
	ck_assert_int_ge(set("m", "module.dummy.loaded", "0"), 0);
	ck_assert(!is_loaded("dummy"));
	ck_assert_int_ge(perftune_restore(f.ctx, "m", 0), 0);
	ck_assert(is_loaded("dummy"));
}
END_TEST

START_TEST(refusals_name_the_key_and_change_nothing)
{
	present("tls", 2);
	ck_assert_int_eq(set("m", "module.tls.loaded", "0"), -EBUSY);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "in use (refcnt 2)"));
	ck_assert_int_eq(set("m", "module.nosuch.loaded", "1"), -ENOENT);
	ck_assert_int_eq(set("m", "module.dummy.loaded", "2"), -EINVAL);
	ck_assert_int_eq(set("m", "module.dummy.loaded", "0 x=1"), -EINVAL);
	ck_assert_int_eq(set("m", "module.dummy.loaded", "1 'x=1'"), -EINVAL);
	ck_assert_int_eq(set("m", "module.dummy.options", "1"), -EINVAL);
	ck_assert_int_lt(set("m", "module.usb_storage.loaded", "1"), 0);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "never runs commands"));
	ck_assert(!is_loaded("usb_storage"));
	ck_assert_int_eq(loads + unloads, 0);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* TuneD's [modules]: +r loads now (with options, "+r," too); without it, modprobe.d only */
START_TEST(profile_modules_section)
{
	struct perftune_profile *p = NULL;
	struct perftune_profile_item_iter *it = NULL;
	const struct perftune_profile_item *e;
	struct perftune_tx *tx;
	char path[PATH_MAX], skipped[512] = "";

	snprintf(path, sizeof(path), "%s/../tuned.conf", f.root);
	put("../tuned.conf", "[modules]\ndummy=+r, numdummies=2\nbonding=+r\ntls=max=1\n"
			     "nosuch=+r\n");
	ck_assert_msg(perftune_profile_load(f.ctx, path, NULL, &p) == 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(perftune_tx_new(f.ctx, "prof", 0, &tx), 0);
	ck_assert_int_ge(perftune_profile_stage(p, tx, 0), 0);
	ck_assert_int_ge(perftune_tx_commit(tx), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_profile_items(p, &it), 0);
	while ((e = perftune_profile_item_iter_next(it)))
		if (perftune_profile_item_flags(e) & PERFTUNE_PROFILE_ITEM_SKIPPED)
			snprintf(skipped + strlen(skipped), sizeof(skipped) - strlen(skipped),
				 "%s;", perftune_profile_item_option(e));
	perftune_profile_item_iter_free(it);
	perftune_profile_free(p);
	ck_assert_str_eq(skipped, "[modules] tls;[modules] nosuch;");
	ck_assert(is_loaded("dummy") && is_loaded("bonding"));
	ck_assert_str_eq(last_opts, "");
	ck_assert_int_ge(perftune_restore(f.ctx, "prof", 0), 0);
	ck_assert(!is_loaded("dummy") && !is_loaded("bonding") && !is_loaded("tls"));
}
END_TEST

static Suite *module_suite(void)
{
	Suite *s = suite_create("module");
	TCase *tc = tcase_create("module");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, load_and_restore_unloads_it);
	tcase_add_test(tc, restore_unloads_what_the_load_brought_in);
	tcase_add_test(tc, in_use_at_restore_is_not_unloaded_and_the_journal_kept);
	tcase_add_test(tc, loaded_before_is_unchanged_and_never_unloaded);
	tcase_add_test(tc, unload_and_restore_loads_it_again);
	tcase_add_test(tc, refusals_name_the_key_and_change_nothing);
	tcase_add_test(tc, profile_modules_section);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { module_suite };

	return harness_main(argc, argv, suites, 1);
}
