// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The selinux family (lib/family/selinux.c) through the public API on the
 * fake machine (selinuxfs at sys/fs/selinux): its one key, its range, the
 * keys it refuses.
 */
#include <errno.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const struct fx_bad_key bad_keys[] = {
	/* enforcing mode and policy are never tunables */
	{ "selinux.enforce", -EROFS, "only selinux.avc.cache_threshold is a tunable" },
	{ "selinux.avc", -EROFS, "only selinux.avc.cache_threshold" },
	{ "selinux.avc.hash_stats", -EROFS, "only selinux.avc.cache_threshold" },
	{ "selinux.avc.cache_threshold.x", -EROFS, "only selinux.avc.cache_threshold" },
	{ "selinux", -EROFS, "only selinux.avc.cache_threshold" },
};

START_TEST(only_the_avc_threshold_is_a_key)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

#define AVC "selinux.avc.cache_threshold"

static const struct fx_value values[] = {
	/* staged NULL: refused with err and msg */
	{ AVC, "1", "1", 0, NULL },
	{ AVC, "8192", "8192", 0, NULL },
	{ AVC, "1048576", "1048576", 0, NULL },
	{ AVC, "0", NULL, -EINVAL, "out of range [1, 1048576]" },
	{ AVC, "1048577", NULL, -EINVAL, "out of range [1, 1048576]" },
	{ AVC, "big", NULL, -EINVAL, "'big' is not a number" },
};

START_TEST(threshold_is_checked_against_the_range)
{
	fx_value_is_staged_or_refused(&f, &values[_i]);
}
END_TEST

START_TEST(list_and_describe_the_one_key)
{
	struct perftune_desc *d;

	ck_assert_str_eq(fx_list_keys(&f, "selinux", true), "selinux.avc.cache_threshold=512");
	ck_assert_int_eq(perftune_describe(f.ctx, "selinux.avc.cache_threshold", &d), 0);
	ck_assert_str_eq(perftune_desc_unit(d), "entries");
	ck_assert_str_eq(perftune_desc_path(d), "/sys/fs/selinux/avc/cache_threshold");
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "kernel default 512"));
	perftune_desc_free(d);
}
END_TEST

START_TEST(threshold_set_and_restored)
{
	ck_assert_int_eq(fx_set_one(&f, "avc", "selinux.avc.cache_threshold", "8192"), 1);
	ck_assert_str_eq(fx_read(&f, "sys/fs/selinux/avc/cache_threshold"), "8192");
	ck_assert_int_eq(perftune_restore(f.ctx, "avc", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/fs/selinux/avc/cache_threshold"), "512");
	ck_assert_str_eq(fx_read(&f, "sys/fs/selinux/enforce"), "1"); /* never touched */
}
END_TEST

START_TEST(without_selinuxfs_it_is_not_enabled)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -r %s/sys/fs/selinux/avc", f.root);
	ck_assert_int_eq(system(cmd), 0);
	fx_get_fails(&f, "selinux.avc.cache_threshold", -EOPNOTSUPP,
		     "SELinux is not enabled (no /sys/fs/selinux/avc/cache_threshold)");
	ck_assert_str_eq(fx_list_keys(&f, "selinux.", false), "");
}
END_TEST

static Suite *selinux_suite(void)
{
	Suite *s = suite_create("selinux");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, only_the_avc_threshold_is_a_key, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, threshold_is_checked_against_the_range, 0, (int)ARRAY_SIZE(values));
	tcase_add_test(tc, list_and_describe_the_one_key);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, threshold_set_and_restored);
	tcase_add_test(tc, without_selinuxfs_it_is_not_enabled);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { selinux_suite };
	return harness_main(argc, argv, suites, 1);
}
