// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The hugepages family (lib/family/hugepages.c) through the public API on the
 * fake machine (2M and 1G pages, 2 nodes): page size spellings, per-node
 * keys, counts, partial allocations.
 */
#include <errno.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

/* a page size however written names one key */
static const char *const spellings[][2] = {
	{ "hugepages.2M.nr", "hugepages.2M.nr" },
	{ "hugepages.2MB.nr", "hugepages.2M.nr" },
	{ "hugepages.2048kB.nr", "hugepages.2M.nr" },
	{ "hugepages.2048K.nr", "hugepages.2M.nr" },
	{ "hugepages.1G.overcommit", "hugepages.1G.overcommit" },
	{ "hugepages.1GB.nr", "hugepages.1G.nr" },
	{ "hugepages.1048576kB.nr", "hugepages.1G.nr" },
	{ "hugepages.1024M.node1.nr", "hugepages.1G.node1.nr" },
	{ "hugepages.nr", "hugepages.nr" },
	{ "hugepages.2M.node*.nr", "hugepages.2M.node0.nr hugepages.2M.node1.nr" },
};

START_TEST(page_size_spellings_name_one_key)
{
	ck_assert_str_eq(fx_each_keys(&f, spellings[_i][0]), spellings[_i][1]);
}
END_TEST

static const struct fx_bad_key bad_keys[] = {
	{ "hugepages", -EINVAL, "expected hugepages.nr" },
	{ "hugepages.2M", -EINVAL, "expected hugepages.nr" },
	{ "hugepages.2M.node0.nr.x", -EINVAL, "expected hugepages.nr" },
	{ "hugepages.[2M].nr", -EINVAL, "expected hugepages.nr" },
	{ "hugepages.huge.nr", -EINVAL, "'huge' is not a page size (2M, 1G, 2048kB)" },
	{ "hugepages.2T.nr", -EINVAL, "'2T' is not a page size" },
	{ "hugepages.0M.nr", -EINVAL, "'0M' is not a page size" },
	/* 2^44+1 G wraps to 2^20 kB, the 1G page size, without the overflow check */
	{ "hugepages.17592186044417G.nr", -EINVAL, "'17592186044417G' is not a page size" },
	{ "hugepages.99999999999999999999999M.nr", -EINVAL, "is not a page size" },
	{ "hugepages.2M.node+1.nr", -EINVAL, "'node+1' is not node<N>" },
	{ "hugepages.4M.nr", -ENOENT, "this machine has no 4M huge pages" },
	{ "hugepages.2M.free", -ENOENT, "'free' is not nr or overcommit" },
	{ "hugepages.2M.node0.overcommit", -EINVAL, "per-node key is hugepages.<size>.node<N>.nr" },
	{ "hugepages.2M.zone0.nr", -EINVAL, "per-node key is" },
	{ "hugepages.2M.node.nr", -EINVAL, "'node' is not node<N>" },
	{ "hugepages.2M.node1x.nr", -EINVAL, "'node1x' is not node<N>" },
	{ "hugepages.2M.node65536.nr", -EINVAL, "'node65536' is not node<N>" },
	{ "hugepages.2M.node2.nr", -ENODEV, "no NUMA node 2" },
};

START_TEST(bad_key_names_the_key_and_the_cause)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

static const struct fx_value values[] = {
	/* staged NULL: refused with err and msg */
	{ "hugepages.nr", "0", "0", 0, NULL },
	{ "hugepages.2M.nr", "2147483648", "2147483648", 0, NULL },
	{ "hugepages.2M.nr", "2147483649", NULL, -EINVAL, "out of range [0, 2147483648]" },
	{ "hugepages.1G.node0.nr", "-1", NULL, -EINVAL, "out of range" },
	{ "hugepages.1G.overcommit", "many", NULL, -EINVAL, "'many' is not a number" },
};

START_TEST(count_is_a_number_of_pages_in_range)
{
	fx_value_is_staged_or_refused(&f, &values[_i]);
}
END_TEST

START_TEST(describe_gives_page_size_and_free_pages)
{
	struct perftune_desc *d;
	long long lo, hi;

	fx_write(&f, "sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages", "3");
	ck_assert_int_eq(perftune_describe(f.ctx, "hugepages.1G.nr", &d), 0);
	ck_assert_str_eq(perftune_desc_unit(d), "pages");
	ck_assert(perftune_desc_range(d, &lo, &hi));
	ck_assert_int_eq(lo, 0);
	ck_assert_int_eq(hi, 1LL << 31);
	ck_assert_msg(!strncmp(perftune_desc_info(d), "page size 1048576 kB, 3 free", 28), "%s",
		      perftune_desc_info(d));
	ck_assert_str_eq(perftune_desc_path(d),
			 "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages");
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "hugepages.nr", &d), 0);
	ck_assert_str_eq(perftune_desc_path(d), "/proc/sys/vm/nr_hugepages");
	/* the default size's pool: no one size */
	ck_assert(!perftune_desc_info(d) || !strstr(perftune_desc_info(d), "page size"));
	perftune_desc_free(d);
}
END_TEST

START_TEST(node_pool_set_and_restored)
{
	const char *node1 = "sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages";

	ck_assert_int_eq(fx_set_one(&f, "hp", "hugepages.2M.node1.nr", "16"), 1);
	ck_assert_str_eq(fx_read(&f, node1), "16");
	ck_assert_str_eq(
		fx_read(&f, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"),
		"0");
	ck_assert_int_eq(perftune_restore(f.ctx, "hp", 0), 1);
	ck_assert_str_eq(fx_read(&f, node1), "0");
}
END_TEST

START_TEST(fewer_pages_than_asked_is_eagain_unless_partial_allowed)
{
	struct perftune_tx *tx;

	f.sim.hp_cap = 5; /* the kernel finds room for 5 */
	ck_assert_int_eq(fx_set_one(&f, "few", "hugepages.2M.nr", "8"), -EAGAIN);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx),
				     "asked for 8 huge pages, the kernel allocated 5"));
	ck_assert_str_eq(fx_read(&f, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"), "0");
	/* allowed: the 5 are kept, and given back by the restore */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "part", PERFTUNE_TX_ALLOW_PARTIAL, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "hugepages.2M.nr", "8"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx);
	fx_get_is(&f, "hugepages.2M.nr", "5");
	ck_assert_int_eq(perftune_restore(f.ctx, "part", 0), 1);
	fx_get_is(&f, "hugepages.2M.nr", "0");
}
END_TEST

START_TEST(no_huge_pages_at_all_says_so)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm %s/proc/sys/vm/nr_hugepages", f.root);
	ck_assert_int_eq(system(cmd), 0);
	fx_get_fails(&f, "hugepages.nr", -EOPNOTSUPP, "no huge page support");
}
END_TEST

static Suite *hugepages_suite(void)
{
	Suite *s = suite_create("hugepages");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, page_size_spellings_name_one_key, 0, (int)ARRAY_SIZE(spellings));
	tcase_add_loop_test(tc, bad_key_names_the_key_and_the_cause, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, count_is_a_number_of_pages_in_range, 0, (int)ARRAY_SIZE(values));
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, describe_gives_page_size_and_free_pages);
	tcase_add_test(tc, node_pool_set_and_restored);
	tcase_add_test(tc, fewer_pages_than_asked_is_eagain_unless_partial_allowed);
	tcase_add_test(tc, no_huge_pages_at_all_says_so);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { hugepages_suite };
	return harness_main(argc, argv, suites, 1);
}
