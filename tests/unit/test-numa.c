// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The numa family (lib/family/numa.c) through the public API on the fake
 * machine (2 nodes, libnuma reading it through umockdev): numa.balancing,
 * the node facts, proc.<pid>.numa_nodes keys, perftune_numa_place_self().
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const struct fx_bad_key bad_keys[] = {
	{ "numa", -ENOENT, "the NUMA keys are numa.balancing and proc.<pid>.numa_nodes" },
	{ "numa.nodes", -ENOENT, "the NUMA keys are" },
	{ "numa.balancing.rate", -ENOENT, "the NUMA keys are" },
	{ "proc.1.numa", -EINVAL, "expected proc.<pid>.numa_nodes or proc.<pid>.cpus" },
	{ "proc.0.numa_nodes", -EINVAL, "'0' is not a process id" },
	{ "proc.01.numa_nodes", -EINVAL, "'01' is not a process id" },
	{ "proc.4194305.numa_nodes", -EINVAL, "'4194305' is not a process id" },
	{ "proc.+5.numa_nodes", -EINVAL, "'+5' is not a process id" },
	{ "proc.99999999999999999999999.numa_nodes", -EINVAL, "is not a process id" },
	{ "proc.+5.cpus", -EINVAL, "'+5' is not a process id, all, user or kernel" },
	{ "proc.x1.numa_nodes", -EINVAL, NULL },
	{ "proc.4194304.numa_nodes", -ENODEV, "no process 4194304" }, /* none in the fake /proc */
};

START_TEST(bad_key_names_the_key_and_the_cause)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

START_TEST(describe_balancing_gives_each_nodes_facts)
{
	struct perftune_desc *d;

	ck_assert_int_eq(perftune_describe(f.ctx, "numa.balancing", &d), 0);
	ck_assert_str_eq(perftune_desc_value(d), "1");
	ck_assert_str_eq(perftune_desc_path(d), "/proc/sys/kernel/numa_balancing");
	ck_assert(perftune_desc_writable(d));
	ck_assert_msg(strstr(perftune_desc_info(d),
			     "node0: cpus 0-1, 2048 MiB (1024 MiB free), 0 free 2M huge pages; "
			     "node1: cpus 2-3, 2048 MiB (1024 MiB free), 0 free 2M huge pages"),
		      "info: %s", perftune_desc_info(d));
	perftune_desc_free(d);
}
END_TEST

START_TEST(balancing_value_must_be_a_number)
{
	fx_set_fails(&f, "numa.balancing", "on", -EINVAL, "'on' is not a number");
	ck_assert_str_eq(fx_staged(&f, "numa.balancing", "0"), "0");
}
END_TEST

START_TEST(balancing_set_and_restored)
{
	ck_assert_int_eq(fx_set_one(&f, "nb", "numa.balancing", "0"), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/kernel/numa_balancing"), "0");
	ck_assert_int_eq(perftune_restore(f.ctx, "nb", 0), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/kernel/numa_balancing"), "1");
}
END_TEST

static const struct {
	const char *nodes;
	int policy, err;
	const char *msg;
} bad_places[] = {
	{ "0", -1, -EINVAL, "memory policy -1 is not one of" },
	{ "0", PERFTUNE_MEM_INTERLEAVE + 1, -EINVAL, "memory policy 4" },
	{ "zero", PERFTUNE_MEM_LOCAL, -EINVAL, "'zero' is not a node list" },
	{ "1-0", PERFTUNE_MEM_LOCAL, -EINVAL, "'1-0' is not a node list" },
	{ "2", PERFTUNE_MEM_BIND, -ENODEV, "no NUMA node 2 on this machine" },
	/* node 1 too where the host has one node: libnuma takes the allowed nodes from the
	 * host's /proc/self/status, the rest from the fake /sys */
	{ "0-5", PERFTUNE_MEM_BIND, -ENODEV, "exec --nodes 0-5: no NUMA node " },
};

START_TEST(place_self_refuses_bad_input_and_stays_put)
{
	cpu_set_t before, after;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(before), &before), 0);
	ck_assert_int_eq(perftune_numa_place_self(f.ctx, bad_places[_i].nodes,
						  bad_places[_i].policy),
			 bad_places[_i].err);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), bad_places[_i].msg), "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	ck_assert(CPU_EQUAL(&before, &after));
}
END_TEST

START_TEST(place_self_runs_on_the_nodes_cpus)
{
	cpu_set_t set;

	ck_assert_int_eq(perftune_numa_place_self(NULL, "0", PERFTUNE_MEM_LOCAL), -EINVAL);
	ck_assert_int_eq(perftune_numa_place_self(f.ctx, NULL, PERFTUNE_MEM_LOCAL), -EINVAL);
	/* node 0 is CPUs 0-1 on the fake machine (this host may have fewer) */
	ck_assert_int_eq(perftune_numa_place_self(f.ctx, "0", PERFTUNE_MEM_PREFERRED), 0);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 2; c < CPU_SETSIZE; c++)
		ck_assert_msg(!CPU_ISSET(c, &set), "CPU %d outside node 0", c);
	ck_assert_int_gt(CPU_COUNT(&set), 0);
}
END_TEST

static Suite *numa_suite(void)
{
	Suite *s = suite_create("numa");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, bad_key_names_the_key_and_the_cause, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_test(tc, describe_balancing_gives_each_nodes_facts);
	tcase_add_test(tc, balancing_value_must_be_a_number);
	/* each in a process of its own (CK_FORK): the placement ends with it */
	tcase_add_loop_test(tc, place_self_refuses_bad_input_and_stays_put, 0,
			    (int)ARRAY_SIZE(bad_places));
	tcase_add_test(tc, place_self_runs_on_the_nodes_cpus);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, balancing_set_and_restored);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { numa_suite };
	return harness_main(argc, argv, suites, 1);
}
