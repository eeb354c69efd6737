// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The registry and the read API (lib/lookup.c) through the public API on
 * the fake machine: which family a key goes to, get of several tunables,
 * get_each, list's prefixes and order, describe's one tunable.
 */
#include <errno.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

#define FAMILIES                                                                                     \
	"(block, cpu, hugepages, irq, module, net, numa, pmqos, proc, selinux, sysctl, sysfs, thp, " \
	"workqueue)"

static const struct fx_bad_key bad_keys[] = {
	{ "disk.sda.scheduler", -EINVAL, "unknown family 'disk' " FAMILIES },
	/* a family a letter off, or a sysctl without its family: the key meant */
	{ "blok.sda.scheduler", -EINVAL, FAMILIES "; did you mean block.sda.scheduler?" },
	{ "vm.swappiness", -EINVAL, "; did you mean sysctl.vm.swappiness?" },
	{ "swappiness", -EINVAL, "unknown family 'swappiness'" },
	/* a glob that matches nothing here is no value */
	{ "hugepages.2M.node7*.nr", -ENODEV, "matches nothing on this machine" },
};

START_TEST(key_goes_to_its_family_or_names_them_all)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

/* one key of each family that reads without a process, a module or a NIC of the host */
static const char *const one_per_family[][2] = {
	{ "block.sdb.nomerges", "0" },
	{ "cpu.1.governor", "powersave" },
	{ "hugepages.1G.nr", "0" },
	{ "irq.25.cpus", "1" },
	{ "numa.balancing", "1" },
	{ "pmqos.cpu_dma_latency_us", "2000000000" },
	{ "selinux.avc.cache_threshold", "512" },
	{ "sysctl.vm.dirty_ratio", "20" },
	{ "sysfs[/sys/block/sdb/queue/nomerges]", "0" },
	{ "thp.khugepaged.pages_to_scan", "4096" },
	{ "workqueue.cpus", "0-3" },
};

START_TEST(every_family_is_found_by_its_name)
{
	fx_get_is(&f, one_per_family[_i][0], one_per_family[_i][1]);
}
END_TEST

START_TEST(get_of_several_is_their_common_value_or_enotuniq)
{
	fx_get_is(&f, "block.sd*.rotational", "1");
	fx_get_is(&f, "cpu.all.idle.C1.disable", "0");
	fx_get_fails(&f, "sysctl.vm.dirty_*ratio", -ENOTUNIQ,
		     "values differ: sysctl.vm.dirty_background_ratio is '10', "
		     "sysctl.vm.dirty_ratio is '20'");
}
END_TEST

START_TEST(describe_needs_exactly_one_tunable)
{
	struct perftune_desc *d = NULL;

	ck_assert_int_eq(perftune_describe(f.ctx, "sysctl.vm.dirty_*ratio", &d), -ENOTUNIQ);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "sysctl.vm.dirty_*ratio: names 2 tunables, not one");
	ck_assert_ptr_null(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "sysctl.vm.dirty_r*", &d), 0); /* one match */
	ck_assert_str_eq(perftune_desc_key(d), "sysctl.vm.dirty_ratio");
	perftune_desc_free(d);
}
END_TEST

START_TEST(null_arguments_are_einval_and_touch_nothing)
{
	struct perftune_tunable_iter *it = (void *)&f;
	struct perftune_desc *d = (void *)&f;
	char *v = (char *)&f;

	ck_assert_int_eq(perftune_get(NULL, "thp.enabled", &v), -EINVAL);
	ck_assert_int_eq(perftune_get(f.ctx, "thp.enabled", NULL), -EINVAL);
	ck_assert_int_eq(perftune_get_each(NULL, "thp.enabled", &it), -EINVAL);
	ck_assert_int_eq(perftune_get_each(f.ctx, "thp.enabled", NULL), -EINVAL);
	ck_assert_int_eq(perftune_list(NULL, NULL, &it), -EINVAL);
	ck_assert_int_eq(perftune_list(f.ctx, NULL, NULL), -EINVAL);
	ck_assert_int_eq(perftune_describe(NULL, "thp.enabled", &d), -EINVAL);
	ck_assert_int_eq(perftune_describe(f.ctx, "thp.enabled", NULL), -EINVAL);
	ck_assert_ptr_eq(v, (char *)&f);
	ck_assert_ptr_eq(it, (void *)&f);
	ck_assert_ptr_eq(d, (void *)&f);
}
END_TEST

/* a prefix and what every key it lists starts with; how many at least */
static const struct {
	const char *prefix, *start;
	int min;
} prefixes[] = {
	{ "s", "s", 12 },	  /* selinux and sysctl; sysfs lists nothing */
	{ "sys", "sysctl.", 11 }, /* a family's name cut short */
	{ "sysctl.vm.", "sysctl.vm.", 4 },
	{ "cpu.0.", "cpu.0.", 5 }, /* not cpu.boost, not cpu.10 */
	{ "cpu.0", "cpu.0.", 5 },
	{ "cpu.b", "cpu.boost", 1 },
	{ "thp.khugepaged", "thp.khugepaged.", 2 },
	{ "sysctl.net.ipv4.conf.[", "sysctl.net.ipv4.conf.[", 2 }, /* text, brackets and all */
	{ "nosuch", "", 0 },
	{ "sysctlx", "", 0 },
};

START_TEST(list_prefix_is_text_matched_against_each_key)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	const char *prev = NULL;
	int n = 0;

	ck_assert_int_eq(perftune_list(f.ctx, prefixes[_i].prefix, &it), 0);
	while ((t = perftune_tunable_iter_next(it))) {
		const char *k = perftune_tunable_key(t);
		ck_assert_msg(!strncmp(k, prefixes[_i].start, strlen(prefixes[_i].start)), "%s: %s",
			      prefixes[_i].prefix, k);
		ck_assert_msg(!prev || strverscmp(prev, k) < 0, "%s before %s", prev, k);
		prev = k;
		n++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_ge(n, prefixes[_i].min);
	if (!prefixes[_i].min)
		ck_assert_int_eq(n, 0);
}
END_TEST

START_TEST(list_of_everything_is_sorted_and_unique)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	const char *prev = NULL;
	int n = 0, n_empty = 0;

	ck_assert_int_eq(perftune_list(f.ctx, NULL, &it), 0);
	while ((t = perftune_tunable_iter_next(it))) {
		const char *k = perftune_tunable_key(t);
		ck_assert_msg(!prev || strverscmp(prev, k) < 0, "%s before %s", prev, k);
		prev = k;
		n++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(perftune_list(f.ctx, "", &it), 0); /* "" is everything too */
	while (perftune_tunable_iter_next(it))
		n_empty++;
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(n, n_empty);
	ck_assert_int_gt(n, 100);
}
END_TEST

START_TEST(get_each_orders_keys_as_numbers_read)
{
	/* version order (irq 0 before 24), whatever order the key gives */
	ck_assert_str_eq(fx_each_keys(&f, "irq.*.cpus"), "irq.0.cpus irq.24.cpus irq.25.cpus "
							 "irq.26.cpus irq.27.cpus irq.28.cpus "
							 "irq.29.cpus");
	ck_assert_str_eq(fx_each_keys(&f, "cpu.3,0,2.governor"),
			 "cpu.0.governor cpu.2.governor cpu.3.governor");
}
END_TEST

static Suite *lookup_suite(void)
{
	Suite *s = suite_create("lookup");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, key_goes_to_its_family_or_names_them_all, 0,
			    (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, every_family_is_found_by_its_name, 0,
			    (int)ARRAY_SIZE(one_per_family));
	tcase_add_test(tc, get_of_several_is_their_common_value_or_enotuniq);
	tcase_add_test(tc, describe_needs_exactly_one_tunable);
	tcase_add_test(tc, null_arguments_are_einval_and_touch_nothing);
	tcase_add_loop_test(tc, list_prefix_is_text_matched_against_each_key, 0,
			    (int)ARRAY_SIZE(prefixes));
	tcase_add_test(tc, list_of_everything_is_sorted_and_unique);
	tcase_add_test(tc, get_each_orders_keys_as_numbers_read);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { lookup_suite };
	return harness_main(argc, argv, suites, 1);
}
