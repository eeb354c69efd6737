// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The sysctl family (lib/family/sysctl.c) through the public API on the fake
 * machine: names with dots in brackets, globs, read-only and write-only
 * files, numbers.
 */
#include <errno.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const char *const names[][2] = {
	{ "sysctl.vm.swappiness", "sysctl.vm.swappiness" },
	{ "sysctl.vm.dirty_*ratio", "sysctl.vm.dirty_background_ratio sysctl.vm.dirty_ratio" },
	/* a name with a dot, or outside the key alphabet, is one bracketed component */
	{ "sysctl.net.ipv4.conf.[eth0.100].rp_filter", "sysctl.net.ipv4.conf.[eth0.100].rp_filter" },
	{ "sysctl.net.ipv4.conf.[wg#1].rp_filter", "sysctl.net.ipv4.conf.[wg#1].rp_filter" },
	{ "sysctl.net.ipv4.conf.eth0*.rp_filter",
	  "sysctl.net.ipv4.conf.[eth0.100].rp_filter sysctl.net.ipv4.conf.eth0.rp_filter" },
	{ "sysctl.net.ipv4.conf.*.rp_filter",
	  "sysctl.net.ipv4.conf.[eth0.100].rp_filter sysctl.net.ipv4.conf.[wg#1].rp_filter "
	  "sysctl.net.ipv4.conf.eth0.rp_filter" },
	{ "sysctl.kernel.random.boot_id", "sysctl.kernel.random.boot_id" },
};

START_TEST(name_forms_reach_their_sysctls)
{
	ck_assert_str_eq(fx_each_keys(&f, names[_i][0]), names[_i][1]);
}
END_TEST

static const struct fx_bad_key bad_keys[] = {
	{ "sysctl", -EINVAL, "sysctl needs a name (sysctl.vm.swappiness)" },
	{ "sysctl.vm.nosuchname", -ENOENT, "no such sysctl" },
	{ "sysctl.vm", -EINVAL, "sysctl.vm: a directory of sysctls, not one (sysctl.vm.*)" },
	{ "sysctl.v*", -ENOENT, "no such sysctl" }, /* a glob matching directories only */
	{ "sysctl.vm.swapiness", -EINVAL, "did you mean sysctl.vm.swappiness?" },
	{ "sysctl.[..].vm.swappiness", -EINVAL, "'..' is not a sysctl name component" },
	{ "sysctl.vm.[a/b]", -EINVAL, "'a/b' is not a sysctl name component" },
	/* brackets name one name: never a glob */
	{ "sysctl.net.ipv4.conf.[eth0*].rp_filter", -ENOENT, "no such sysctl" },
	{ "sysctl.vm.zz*", -ENOENT, "no such sysctl" },
	{ "sysctl.vm.drop_caches", -EACCES, "write-only trigger, not a tunable" },
};

START_TEST(bad_key_names_the_key_and_the_cause)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

static const struct fx_value values[] = {
	/* staged NULL: refused with err and msg */
	{ "sysctl.vm.swappiness", "10", "10", 0, NULL },
	{ "sysctl.vm.swappiness", "-1", "-1", 0, NULL }, /* a number: the kernel judges */
	{ "sysctl.vm.swappiness", "18446744073709551615", "18446744073709551615", 0, NULL },
	{ "sysctl.vm.swappiness", "18446744073709551616", NULL, -EINVAL, "is not a number" },
	{ "sysctl.vm.swappiness", "ten", NULL, -EINVAL, "'ten' is not a number" },
	{ "sysctl.kernel.printk", "3\t4 1  7", "3\t4 1  7", 0, NULL }, /* written as given */
	{ "sysctl.kernel.printk", "3 4 one 7", "3 4 one 7", 0, NULL }, /* not one number */
	{ "sysctl.kernel.random.boot_id", "any text", "any text", 0, NULL },
	{ "sysctl.kernel.ostype", "Hurd", NULL, -EROFS, "read-only in this kernel (mode 0444)" },
};

START_TEST(value_is_checked_as_the_file_reads)
{
	fx_value_is_staged_or_refused(&f, &values[_i]);
}
END_TEST

START_TEST(list_flags_read_only_and_leaves_out_triggers)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	int n = 0;

	ck_assert_str_eq(fx_list_keys(&f, "sysctl.kernel.", true),
			 "sysctl.kernel.numa_balancing=1 sysctl.kernel.ostype=Linux "
			 "sysctl.kernel.printk=4 4 1 7 "
			 "sysctl.kernel.random.boot_id=00000000-0000-0000-0000-000000000001");
	ck_assert_int_eq(perftune_list(f.ctx, "sysctl.", &it), 0);
	while ((t = perftune_tunable_iter_next(it))) {
		bool ro = perftune_tunable_flags(t) & PERFTUNE_TUNABLE_READONLY;
		ck_assert_msg(ro == !strcmp(perftune_tunable_key(t), "sysctl.kernel.ostype"), "%s",
			      perftune_tunable_key(t));
		ck_assert_str_ne(perftune_tunable_key(t), "sysctl.vm.drop_caches");
		n++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(n, 11); /* every readable file of the fake proc/sys */
}
END_TEST

START_TEST(swappiness_set_and_restored)
{
	ck_assert_int_eq(fx_set_one(&f, "sw", "sysctl.vm.swappiness", "10"), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
	ck_assert_int_eq(perftune_restore(f.ctx, "sw", 0), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

START_TEST(glob_sets_each_and_restores_each_its_own)
{
	ck_assert_int_eq(fx_set_one(&f, "rp", "sysctl.net.ipv4.conf.*.rp_filter", "0"), 3);
	ck_assert_str_eq(fx_read(&f, "proc/sys/net/ipv4/conf/wg#1/rp_filter"), "0");
	fx_get_is(&f, "sysctl.net.ipv4.conf.*.rp_filter", "0");
	ck_assert_int_eq(perftune_restore(f.ctx, "rp", 0), 3);
	ck_assert_str_eq(fx_read(&f, "proc/sys/net/ipv4/conf/eth0/rp_filter"), "2");
	ck_assert_str_eq(fx_read(&f, "proc/sys/net/ipv4/conf/eth0.100/rp_filter"), "1");
}
END_TEST

START_TEST(write_only_trigger_is_not_set)
{
	ck_assert_int_lt(fx_set_one(&f, "dc", "sysctl.vm.drop_caches", "3"), 0);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx),
				     "sysctl.vm.drop_caches: write-only trigger"));
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

static Suite *sysctl_suite(void)
{
	Suite *s = suite_create("sysctl");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, name_forms_reach_their_sysctls, 0, (int)ARRAY_SIZE(names));
	tcase_add_loop_test(tc, bad_key_names_the_key_and_the_cause, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, value_is_checked_as_the_file_reads, 0, (int)ARRAY_SIZE(values));
	tcase_add_test(tc, list_flags_read_only_and_leaves_out_triggers);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, swappiness_set_and_restored);
	tcase_add_test(tc, glob_sets_each_and_restores_each_its_own);
	tcase_add_test(tc, write_only_trigger_is_not_set);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { sysctl_suite };
	return harness_main(argc, argv, suites, 1);
}
