// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cpu family (lib/family/cpu.c) through the public API on the fake
 * machine: CPU lists, idle states by name, value checks, max_latency_us.
 */
#include <errno.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const char *const selectors[][2] = {
	{ "cpu.all.governor", "cpu.0.governor cpu.1.governor cpu.2.governor cpu.3.governor" },
	{ "cpu.*.epp", "cpu.0.epp cpu.1.epp cpu.2.epp cpu.3.epp" },
	{ "cpu.0-1,3.min_khz", "cpu.0.min_khz cpu.1.min_khz cpu.3.min_khz" },
	{ "cpu.2.resume_latency_us", "cpu.2.resume_latency_us" },
	{ "cpu.boost", "cpu.boost" },
	/* a state by kernel name: the CPUs that have it */
	{ "cpu.all.idle.C3.disable", "cpu.2.idle.C3.disable cpu.3.idle.C3.disable" },
	{ "cpu.all.idle.C6.disable", "cpu.0.idle.C6.disable cpu.1.idle.C6.disable" },
	/* by id, by key form, by the kernel's name outside the key alphabet */
	{ "cpu.0.idle.state3.disable", "cpu.0.idle.C6.disable" },
	{ "cpu.3.idle.haltpoll_idle.disable", "cpu.3.idle.haltpoll_idle.disable" },
	{ "cpu.3.idle[haltpoll idle].disable", "cpu.3.idle.haltpoll_idle.disable" },
	/* C1.E, "C1 E" and "C1 E" share the key form C1_E: each goes by its id */
	{ "cpu.3.idle.state5.disable", "cpu.3.idle.state5.disable" },
	{ "cpu.3.idle[C1.E].disable", "cpu.3.idle.state4.disable" },
	{ "cpu.all.idle.max_latency_us",
	  "cpu.0.idle.max_latency_us cpu.1.idle.max_latency_us cpu.2.idle.max_latency_us "
	  "cpu.3.idle.max_latency_us" },
};

START_TEST(cpu_list_and_state_name_reach_their_tunables)
{
	ck_assert_str_eq(fx_each_keys(&f, selectors[_i][0]), selectors[_i][1]);
}
END_TEST

static const struct fx_bad_key bad_keys[] = {
	{ "cpu.4.governor", -ENODEV, "no CPU 4" },
	{ "cpu.0-9.governor", -ENODEV, "no CPU 4" },
	{ "cpu.x.governor", -EINVAL, "is not a CPU list" },
	{ "cpu.3-1.governor", -EINVAL, "is not a CPU list" },
	{ "cpu.[0].governor", -EINVAL, "expected cpu.<cpus>" },
	{ "cpu.0.turbo", -EINVAL, "expected cpu.<cpus>" },
	{ "cpu.0", -EINVAL, "expected cpu.<cpus>" },
	{ "cpu.0.idle.C*.disable", -EINVAL, "expected cpu.<cpus>" },
	{ "cpu.0.idle.C3.disable", -ENOENT, "CPU 0 has no idle state 'C3'" },
	{ "cpu.all.idle.C9.disable", -ENOENT, "no CPU has an idle state 'C9'" },
	{ "cpu.0.idle.state9.disable", -ENOENT, "CPU 0 has no idle state 'state9'" },
	/* a key form several states share names none of them */
	{ "cpu.3.idle.C1_E.disable", -ENOENT, "CPU 3 has no idle state 'C1_E'" },
	/* a kernel name two states have is no one state */
	{ "cpu.3.idle[C1 E].disable", -ENOTUNIQ, "more than one idle state named 'C1 E'" },
};

START_TEST(bad_key_names_the_key_and_the_cause)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

static const struct fx_value values[] = {
	/* staged NULL: refused with err and msg */
	{ "cpu.0.governor", "performance", "performance", 0, NULL },
	{ "cpu.0.governor", "ondemand", NULL, -EINVAL,
	  "'ondemand' is not one of: performance powersave" },
	{ "cpu.0.epp", " power ", "power", 0, NULL },
	{ "cpu.0.epp", "turbo", NULL, -EINVAL, "'turbo' is not one of" },
	/* min/max within cpuinfo_min_freq..cpuinfo_max_freq */
	{ "cpu.0.min_khz", "800000", "800000", 0, NULL },
	{ "cpu.0.max_khz", "3500000", "3500000", 0, NULL },
	{ "cpu.0.min_khz", "799999", NULL, -EINVAL, "out of range [800000, 3500000]" },
	{ "cpu.0.max_khz", "3500001", NULL, -EINVAL, "out of range [800000, 3500000]" },
	{ "cpu.0.max_khz", "3GHz", NULL, -EINVAL, "is not a number" },
	{ "cpu.1.resume_latency_us", "n/a", "n/a", 0, NULL },
	{ "cpu.1.resume_latency_us", "2000000000", "2000000000", 0, NULL },
	{ "cpu.1.resume_latency_us", "-1", NULL, -EINVAL, "out of range [0, 2000000000]" },
	{ "cpu.2.idle.C1.disable", "1", "1", 0, NULL },
	{ "cpu.2.idle.C1.disable", "2", NULL, -EINVAL, "out of range [0, 1]" },
	{ "cpu.boost", "0", "0", 0, NULL },
	{ "cpu.boost", "on", NULL, -EINVAL, "is not a number" },
};

START_TEST(value_is_checked_against_what_the_cpu_offers)
{
	fx_value_is_staged_or_refused(&f, &values[_i]);
}
END_TEST

START_TEST(max_latency_reads_the_deepest_enabled_state)
{
	fx_get_is(&f, "cpu.0.idle.max_latency_us", "133");
	fx_write(&f, "sys/devices/system/cpu/cpu0/cpuidle/state3/disable", "1"); /* C6 */
	fx_get_is(&f, "cpu.0.idle.max_latency_us", "10");
	fx_write(&f, "sys/devices/system/cpu/cpu0/cpuidle/state2/disable", "1"); /* C1E */
	fx_write(&f, "sys/devices/system/cpu/cpu0/cpuidle/state1/disable", "1"); /* C1 */
	fx_write(&f, "sys/devices/system/cpu/cpu0/cpuidle/state0/disable", "1"); /* POLL */
	fx_get_is(&f, "cpu.0.idle.max_latency_us", "0"); /* nothing enabled: no latency */
}
END_TEST

START_TEST(max_latency_stages_the_deeper_states_only)
{
	struct perftune_tx *tx;
	struct perftune_change_iter *it;
	const struct perftune_change *c;
	char got[512] = "";
	size_t o = 0;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "lat", PERFTUNE_TX_DRY_RUN, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0-2.idle.max_latency_us", "5"), 5);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	while ((c = perftune_change_iter_next(it))) {
		ck_assert_str_eq(perftune_change_new_value(c), "1");
		ck_assert_ptr_nonnull(strstr(perftune_change_note(c), "max_latency_us=5"));
		o += (size_t)snprintf(got + o, sizeof(got) - o, "%s ", perftune_change_key(c));
	}
	perftune_change_iter_free(it);
	ck_assert_str_eq(got, "cpu.0.idle.C1E.disable cpu.0.idle.C6.disable cpu.1.idle.C1E.disable "
			      "cpu.1.idle.C6.disable cpu.2.idle.C3.disable ");
	/* a limit no state exceeds: nothing to disable */
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.idle.max_latency_us", "1000"), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.idle.max_latency_us", "-1"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "is not a latency in us"));
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(governor_set_on_all_cpus_and_restored)
{
	ck_assert_int_eq(fx_set_one(&f, "gov", "cpu.all.governor", "performance"), 4);
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor"),
			 "performance");
	fx_get_is(&f, "cpu.all.governor", "performance");
	ck_assert_int_eq(perftune_restore(f.ctx, "gov", 0), 4);
	fx_get_is(&f, "cpu.all.governor", "powersave");
}
END_TEST

START_TEST(no_cpufreq_driver_or_boost_says_so)
{
	char cmd[2 * PATH_MAX];

	snprintf(cmd, sizeof(cmd),
		 "rm -r %s/sys/devices/system/cpu/cpu*/cpufreq %s/sys/devices/system/cpu/cpufreq",
		 f.root, f.root);
	ck_assert_int_eq(system(cmd), 0);
	fx_get_fails(&f, "cpu.all.min_khz", -EOPNOTSUPP, "no cpufreq driver on this machine");
	fx_get_fails(&f, "cpu.boost", -EOPNOTSUPP, "no boost switch");
	fx_get_is(&f, "cpu.all.resume_latency_us", "0"); /* not cpufreq's */
}
END_TEST

START_TEST(describe_idle_state_gives_latency_and_kernel_name)
{
	struct perftune_desc *d;
	long long lo, hi;

	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.3.idle.state6.disable", &d), 0);
	ck_assert(perftune_desc_range(d, &lo, &hi));
	ck_assert_int_eq(lo, 0);
	ck_assert_int_eq(hi, 1);
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "exit latency 2 us"));
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "kernel name 'C1 E' (state6)"));
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.2.idle.max_latency_us", &d), 0);
	ck_assert_str_eq(perftune_desc_value(d), "80");
	ck_assert_str_eq(perftune_desc_unit(d), "us");
	perftune_desc_free(d);
}
END_TEST

/* a state whose kernel name reads as another state's id goes by its own id */
START_TEST(state_named_like_another_states_id_goes_by_its_own)
{
	fx_write(&f, "sys/devices/system/cpu/cpu2/cpuidle/state2/name", "state1");
	ck_assert_str_eq(fx_list_keys(&f, "cpu.2.idle.", false),
			 "cpu.2.idle.C1.disable cpu.2.idle.POLL.disable cpu.2.idle.max_latency_us "
			 "cpu.2.idle.state2.disable");
	ck_assert_str_eq(fx_each_keys(&f, "cpu.2.idle.state1.disable"), "cpu.2.idle.C1.disable");
	fx_write(&f, "sys/devices/system/cpu/cpu2/cpuidle/state2/disable", "1");
	fx_get_is(&f, "cpu.2.idle.state2.disable", "1");
	fx_get_is(&f, "cpu.2.idle.C1.disable", "0");
}
END_TEST

static Suite *cpu_suite(void)
{
	Suite *s = suite_create("cpu");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, cpu_list_and_state_name_reach_their_tunables, 0,
			    (int)ARRAY_SIZE(selectors));
	tcase_add_loop_test(tc, bad_key_names_the_key_and_the_cause, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, value_is_checked_against_what_the_cpu_offers, 0,
			    (int)ARRAY_SIZE(values));
	tcase_add_test(tc, max_latency_stages_the_deeper_states_only);
	tcase_add_test(tc, describe_idle_state_gives_latency_and_kernel_name);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, max_latency_reads_the_deepest_enabled_state);
	tcase_add_test(tc, governor_set_on_all_cpus_and_restored);
	tcase_add_test(tc, no_cpufreq_driver_or_boost_says_so);
	tcase_add_test(tc, state_named_like_another_states_id_goes_by_its_own);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { cpu_suite };
	return harness_main(argc, argv, suites, 1);
}
