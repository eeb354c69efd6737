// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workqueue family (lib/family/workqueue.c) through the public API on
 * the fake machine: hex masks in the files, CPU lists in the keys.
 */
#include <errno.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const struct fx_bad_key bad_keys[] = {
	{ "workqueue", -EINVAL, "expected workqueue.cpus or workqueue.<name>.cpus" },
	{ "workqueue.mask", -EINVAL, "expected workqueue.cpus" },
	{ "workqueue.writeback.cpumask", -EINVAL, "expected workqueue.cpus" },
	{ "workqueue.writeback.[cpus]", -EINVAL, "expected workqueue.cpus" },
	{ "workqueue.a.b.cpus", -EINVAL, "expected workqueue.cpus" },
	{ "workqueue.[..].cpus", -EINVAL, "'..' is not a workqueue name" },
	{ "workqueue.[a/b].cpus", -EINVAL, "'a/b' is not a workqueue name" },
	{ "workqueue.nosuch.cpus", -ENODEV, "no workqueue 'nosuch' with a CPU mask" },
	{ "workqueue.x*.cpus", -ENODEV, "no workqueue 'x*'" },
};

START_TEST(bad_key_names_the_key_and_the_cause)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

#define WQ "workqueue.cpus"

static const struct fx_value values[] = {
	/* staged NULL: refused with err and msg */
	{ WQ, "0-3", "0-3", 0, NULL },
	{ WQ, "3,1,2", "1-3", 0, NULL },
	{ WQ, "0-1,0-1", "0-1", 0, NULL },
	{ WQ, "2-9", "2-9", 0, NULL }, /* some online: the kernel keeps those */
	{ WQ, "4-7", NULL, -EINVAL, "none of CPUs 4-7 is online" },
	{ WQ, "3-1", NULL, -EINVAL, "'3-1' is not a CPU list (0-3,8): a range runs backwards" },
	{ WQ, "f", NULL, -EINVAL, "'f' is not a CPU list" },
	{ WQ, "", NULL, -EINVAL, "is not a CPU list" },
};

START_TEST(value_is_a_cpu_list_with_an_online_cpu)
{
	fx_value_is_staged_or_refused(&f, &values[_i]);
}
END_TEST

START_TEST(list_shows_the_unbound_mask_and_each_visible_workqueue)
{
	ck_assert_str_eq(fx_list_keys(&f, "workqueue", true),
			 "workqueue.cpus=0-3 workqueue.writeback.cpus=0-3");
	ck_assert_str_eq(fx_each_keys(&f, "workqueue.*.cpus"), "workqueue.writeback.cpus");
}
END_TEST

START_TEST(list_is_written_as_a_hex_mask_and_restored)
{
	ck_assert_int_eq(fx_set_one(&f, "wq", "workqueue.cpus", "0,2"), 1);
	ck_assert_str_eq(fx_read(&f, "sys/devices/virtual/workqueue/cpumask"), "5");
	fx_get_is(&f, "workqueue.cpus", "0,2");
	ck_assert_int_eq(fx_set_one(&f, "wq", "workqueue.writeback.cpus", "3"), 1);
	ck_assert_str_eq(fx_read(&f, "sys/devices/virtual/workqueue/writeback/cpumask"), "8");
	ck_assert_int_eq(perftune_restore(f.ctx, "wq", 0), 2);
	ck_assert_str_eq(fx_read(&f, "sys/devices/virtual/workqueue/cpumask"), "f");
	ck_assert_str_eq(fx_read(&f, "sys/devices/virtual/workqueue/writeback/cpumask"), "f");
}
END_TEST

START_TEST(file_that_is_no_mask_is_eio)
{
	fx_write(&f, "sys/devices/virtual/workqueue/cpumask", "zz");
	fx_get_fails(&f, "workqueue.cpus", -EIO, "reads 'zz', not a CPU mask");
}
END_TEST

START_TEST(kernel_without_the_unbound_mask_says_so)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm %s/sys/devices/virtual/workqueue/cpumask", f.root);
	ck_assert_int_eq(system(cmd), 0);
	fx_get_fails(&f, "workqueue.cpus", -EOPNOTSUPP, "(before 4.6)");
	fx_get_is(&f, "workqueue.writeback.cpus", "0-3");
	snprintf(cmd, sizeof(cmd), "rm -r %s/sys/devices/virtual/workqueue", f.root);
	ck_assert_int_eq(system(cmd), 0);
	fx_get_fails(&f, "workqueue.writeback.cpus", -EOPNOTSUPP,
		     "this kernel has no /sys/devices/virtual/workqueue");
}
END_TEST

START_TEST(describe_says_the_file_is_a_hex_mask)
{
	struct perftune_desc *d;

	ck_assert_int_eq(perftune_describe(f.ctx, "workqueue.writeback.cpus", &d), 0);
	ck_assert_str_eq(perftune_desc_value(d), "0-3");
	ck_assert_str_eq(perftune_desc_unit(d), "CPU list");
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "holds a hex mask"));
	perftune_desc_free(d);
}
END_TEST

static Suite *workqueue_suite(void)
{
	Suite *s = suite_create("workqueue");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, bad_key_names_the_key_and_the_cause, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, value_is_a_cpu_list_with_an_online_cpu, 0, (int)ARRAY_SIZE(values));
	tcase_add_test(tc, list_shows_the_unbound_mask_and_each_visible_workqueue);
	tcase_add_test(tc, describe_says_the_file_is_a_hex_mask);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, list_is_written_as_a_hex_mask_and_restored);
	tcase_add_test(tc, file_that_is_no_mask_is_eio);
	tcase_add_test(tc, kernel_without_the_unbound_mask_says_so);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { workqueue_suite };
	return harness_main(argc, argv, suites, 1);
}
