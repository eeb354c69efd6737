// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The thp family (lib/family/thp.c) through the public API on the fake
 * machine: its keys, selection values, read-only facts, a kernel without THP.
 */
#include <errno.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const struct fx_bad_key bad_keys[] = {
	{ "thp", -EINVAL, "expected thp.<attribute> or thp.khugepaged.<attribute>" },
	{ "thp.madvise.enabled", -EINVAL, "expected thp.<attribute>" },
	{ "thp.khugepaged.a.b", -EINVAL, "expected thp.<attribute>" },
	{ "thp.[enabled]", -EINVAL, "expected thp.<attribute>" },
	{ "thp.enab*", -EINVAL, "expected thp.<attribute>" },
	{ "thp.nosuch", -ENOENT, "no such THP attribute" },
	{ "thp.khugepaged", -ENOENT, "no such THP attribute" }, /* a directory */
	{ "thp.khugepaged.nosuch", -ENOENT, "no such THP attribute" },
};

START_TEST(bad_key_names_the_key_and_the_cause)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

static const struct fx_value values[] = {
	/* staged NULL: refused with err and msg */
	{ "thp.enabled", "never", "never", 0, NULL },
	{ "thp.enabled", " always ", "always", 0, NULL },
	{ "thp.enabled", "sometimes", NULL, -EINVAL,
	  "'sometimes' is not one of: always madvise never" },
	{ "thp.defrag", "defer+madvise", "defer+madvise", 0, NULL },
	{ "thp.defrag", "defer madvise", NULL, -EINVAL, "is not one of" },
	{ "thp.khugepaged.pages_to_scan", "8192", "8192", 0, NULL },
	{ "thp.khugepaged.pages_to_scan", "lots", NULL, -EINVAL, "'lots' is not a number" },
	/* a fact of the kernel, not a tunable */
	{ "thp.hpage_pmd_size", "4096", NULL, -EROFS, "read-only in this kernel" },
};

START_TEST(value_is_one_the_file_offers)
{
	fx_value_is_staged_or_refused(&f, &values[_i]);
}
END_TEST

START_TEST(list_has_the_writable_attributes_only)
{
	ck_assert_str_eq(fx_list_keys(&f, "thp", true),
			 "thp.defrag=madvise thp.enabled=madvise thp.khugepaged.defrag=1 "
			 "thp.khugepaged.pages_to_scan=4096");
}
END_TEST

START_TEST(describe_selection_gives_the_choices)
{
	struct perftune_desc *d;

	ck_assert_int_eq(perftune_describe(f.ctx, "thp.defrag", &d), 0);
	ck_assert_str_eq(perftune_desc_value(d), "madvise");
	ck_assert_str_eq(perftune_desc_choices(d), "always defer defer+madvise madvise never");
	ck_assert_str_eq(perftune_desc_path(d), "/sys/kernel/mm/transparent_hugepage/defrag");
	perftune_desc_free(d);
}
END_TEST

START_TEST(enabled_set_and_restored)
{
	ck_assert_int_eq(fx_set_one(&f, "thp", "thp.enabled", "never"), 1);
	ck_assert_str_eq(fx_read(&f, "sys/kernel/mm/transparent_hugepage/enabled"),
			 "always madvise [never]");
	fx_get_is(&f, "thp.enabled", "never");
	ck_assert_int_eq(perftune_restore(f.ctx, "thp", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/kernel/mm/transparent_hugepage/enabled"),
			 "always [madvise] never");
}
END_TEST

START_TEST(kernel_without_thp_says_so)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -r %s/sys/kernel/mm/transparent_hugepage", f.root);
	ck_assert_int_eq(system(cmd), 0);
	fx_get_fails(&f, "thp.enabled", -EOPNOTSUPP, "this kernel has no transparent huge pages");
	ck_assert_str_eq(fx_list_keys(&f, "thp.", false), "");
}
END_TEST

static Suite *thp_suite(void)
{
	Suite *s = suite_create("thp");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, bad_key_names_the_key_and_the_cause, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, value_is_one_the_file_offers, 0, (int)ARRAY_SIZE(values));
	tcase_add_test(tc, list_has_the_writable_attributes_only);
	tcase_add_test(tc, describe_selection_gives_the_choices);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, enabled_set_and_restored);
	tcase_add_test(tc, kernel_without_thp_says_so);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { thp_suite };
	return harness_main(argc, argv, suites, 1);
}
