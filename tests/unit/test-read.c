// SPDX-License-Identifier: LGPL-2.1-or-later
/* The read path of every family on the fake machine: get, list, describe. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const char *const values[][2] = {
	{ "block.sda.scheduler", "mq-deadline" },
	{ "block.nvme0n1.scheduler", "none" },
	{ "block.sda.read_ahead_kb", "128" },
	{ "block.sda.iosched.read_expire", "500" },
	{ "block.sd*.rotational", "1" },
	{ "hugepages.nr", "0" },
	{ "hugepages.1G.nr", "0" },
	{ "hugepages.2M.node1.nr", "0" },
	{ "thp.enabled", "madvise" },
	{ "thp.defrag", "madvise" },
	{ "thp.khugepaged.defrag", "1" },
	{ "cpu.all.governor", "powersave" },
	{ "cpu.0.min_khz", "800000" },
	{ "cpu.3.max_khz", "3000000" },
	{ "cpu.all.epp", "balance_performance" },
	{ "cpu.all.idle.C1.disable", "0" },
	{ "cpu.0.idle.max_latency_us", "133" },
	{ "cpu.2.idle.max_latency_us", "80" },
	{ "cpu.all.resume_latency_us", "0" },
	{ "cpu.boost", "1" },
	{ "pmqos.cpu_dma_latency_us", "2000000000" },
	{ "numa.balancing", "1" },
	{ "selinux.avc.cache_threshold", "512" },
	{ "sysctl.vm.swappiness", "60" },
	{ "sysctl.kernel.printk", "4 4 1 7" },
	{ "sysctl.net.ipv4.conf.[eth0.100].rp_filter", "1" },
	{ "sysfs[/sys/block/sda/queue/scheduler]", "mq-deadline" },
};

START_TEST(get_reads_normalized_value)
{
	fx_get_is(&f, values[_i][0], values[_i][1]);
}
END_TEST

START_TEST(get_follows_the_file)
{
	char *v = NULL;

	fx_write(&f, "proc/sys/vm/swappiness", "7");
	ck_assert_int_eq(perftune_get(f.ctx, "sysctl.vm.swappiness", &v), 0);
	ck_assert_str_eq(v, "7");
	free(v);
}
END_TEST

START_TEST(list_has_every_family_and_only_tunables)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	const char *want[] = { "block.", "cpu.",    "hugepages.", "irq.", "numa.",
			       "pmqos.", "selinux.", "sysctl.",	  "thp.", "workqueue." };
	int seen[ARRAY_SIZE(want)] = { 0 }, n = 0, ro = 0;

	ck_assert_int_eq(perftune_list(f.ctx, NULL, &it), 0);
	while ((e = perftune_tunable_iter_next(it))) {
		const char *k = perftune_tunable_key(e);
		/* a read-only sysctl and an IRQ the kernel will not move are listed as what
		 * they are; nothing else is read-only */
		if (perftune_tunable_flags(e) & PERFTUNE_TUNABLE_READONLY) {
			ck_assert(!strcmp(k, "sysctl.kernel.ostype") || !strcmp(k, "irq.27.cpus"));
			ck_assert_str_eq(perftune_tunable_value(e), k[0] == 's' ? "Linux" : "0");
			ro++;
		}
		for (size_t i = 0; i < ARRAY_SIZE(want); i++)
			seen[i] += !strncmp(k, want[i], strlen(want[i]));
		ck_assert_msg(strcmp(k, "block.sda.hw_sector_size"), "read-only fact listed");
		ck_assert_msg(strcmp(k, "thp.hpage_pmd_size"), "read-only fact listed");
		ck_assert_msg(strcmp(k, "sysctl.vm.drop_caches"), "write-only trigger listed");
		ck_assert_msg(strncmp(k, "block.dm-0.scheduler", 20), "bio-based scheduler listed");
		n++;
	}
	perftune_tunable_iter_free(it);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		ck_assert_msg(seen[i] > 0, "no %s key listed", want[i]);
	ck_assert_int_gt(n, 100);
	ck_assert_int_eq(ro, 2);
}
END_TEST

START_TEST(list_prefix_filters)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	int n = 0;

	ck_assert_int_eq(perftune_list(f.ctx, "block.sda.", &it), 0);
	while ((e = perftune_tunable_iter_next(it))) {
		ck_assert(!strncmp(perftune_tunable_key(e), "block.sda.", 10));
		n++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(n, 13); /* 9 writable queue attributes, 4 iosched parameters */
	ck_assert_int_eq(perftune_list(f.ctx, "nosuch", &it), 0);
	ck_assert(!(e = perftune_tunable_iter_next(it)));
	perftune_tunable_iter_free(it);
}
END_TEST

START_TEST(list_selector_reaches_its_disks)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	int n = 0;

	ck_assert_int_eq(perftune_list(f.ctx, "block[/dev/mapper/lin]", &it), 0);
	while ((e = perftune_tunable_iter_next(it))) {
		const char *k = perftune_tunable_key(e);
		ck_assert_msg(!strncmp(k, "block.sdb.", 10) || !strncmp(k, "block.sdc.", 10),
			      "bio-based lin listed %s", k);
		n++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(n, 26);
	ck_assert_int_eq(perftune_list(f.ctx, "block[/var/lib/mysql].iosched", &it), 0);
	for (n = 0; (e = perftune_tunable_iter_next(it)); n++)
		ck_assert(!strncmp(perftune_tunable_key(e), "block.sda.iosched.", 18));
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(perftune_list(f.ctx, "block[/dev/nosuch]", &it), -ENODEV);
	/* other families: the prefix is text, brackets and escapes as list prints them */
	ck_assert_int_eq(perftune_list(f.ctx, "sysctl.net.ipv4.conf.[eth0.100].", &it), 0);
	for (n = 0; (e = perftune_tunable_iter_next(it)); n++)
		ck_assert(!strncmp(perftune_tunable_key(e), "sysctl.net.ipv4.conf.[eth0.100].", 32));
	perftune_tunable_iter_free(it);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(perftune_list(f.ctx, "thp[x]", &it), 0);
	ck_assert_ptr_null(perftune_tunable_iter_next(it));
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(perftune_list(f.ctx, "block[/dev/sda", &it), -EINVAL);
}
END_TEST

START_TEST(describe_scheduler_has_choices)
{
	struct perftune_desc *d;

	ck_assert_int_eq(perftune_describe(f.ctx, "block[/dev/sda2].scheduler", &d), 0);
	ck_assert_str_eq(perftune_desc_key(d), "block.sda.scheduler");
	ck_assert_str_eq(perftune_desc_value(d), "mq-deadline");
	ck_assert_str_eq(perftune_desc_choices(d), "mq-deadline kyber bfq none");
	ck_assert(perftune_desc_writable(d));
	ck_assert_ptr_nonnull(strstr(perftune_desc_path(d), "/queue/scheduler"));
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "via /dev/sda2"));
	perftune_desc_free(d);
}
END_TEST

START_TEST(describe_read_only_says_why)
{
	struct perftune_desc *d;

	ck_assert_int_eq(perftune_describe(f.ctx, "block.sda.hw_sector_size", &d), 0);
	ck_assert(!perftune_desc_writable(d));
	ck_assert_ptr_nonnull(strstr(perftune_desc_reason(d), "read-only"));
	perftune_desc_free(d);
}
END_TEST

START_TEST(describe_unreadable_says_why)
{
	struct perftune_desc *d;

	/* a write-only trigger: list leaves it out, describe says why there is no value */
	ck_assert_int_eq(perftune_describe(f.ctx, "sysctl.vm.drop_caches", &d), 0);
	ck_assert_ptr_null(perftune_desc_value(d));
	ck_assert_str_eq(perftune_desc_unreadable(d), "write-only trigger");
	ck_assert(perftune_desc_writable(d));
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "sysctl.vm.swappiness", &d), 0);
	ck_assert_str_eq(perftune_desc_value(d), "60");
	ck_assert_ptr_null(perftune_desc_unreadable(d));
	perftune_desc_free(d);
}
END_TEST

/* without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH, root meets the mode bits as the kernel's
 * own refusals (EIO of an unset stable_secret) meet every reader */
static void drop_dac_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];

	ck_assert_int_eq(syscall(SYS_capget, &h, c), 0);
	c[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
	ck_assert_int_eq(syscall(SYS_capset, &h, c), 0);
}

START_TEST(describe_of_a_refused_read_is_unreadable_with_the_reason)
{
	struct perftune_desc *d;
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	char p[PATH_MAX];
	bool listed = false;

	snprintf(p, sizeof(p), "%s/sys/block/sda/queue/wbt_lat_usec", f.root);
	ck_assert_int_eq(chown(p, 65534, 65534), 0); /* another user's, as lo's stable_secret */
	ck_assert_int_eq(chmod(p, 0600), 0);
	drop_dac_caps();
	ck_assert_int_eq(perftune_describe(f.ctx, "block.sda.wbt_lat_usec", &d), 0);
	ck_assert_ptr_null(perftune_desc_value(d));
	ck_assert_str_eq(perftune_desc_unreadable(d), strerror(EACCES));
	ck_assert_ptr_nonnull(strstr(perftune_desc_path(d), "/queue/wbt_lat_usec"));
	perftune_desc_free(d);
	/* as list shows it: there, without a value */
	ck_assert_int_eq(perftune_list(f.ctx, "block.sda.wbt", &it), 0);
	while ((e = perftune_tunable_iter_next(it)))
		if (!strcmp(perftune_tunable_key(e), "block.sda.wbt_lat_usec")) {
			listed = true;
			ck_assert_ptr_null(perftune_tunable_value(e));
		}
	perftune_tunable_iter_free(it);
	ck_assert(listed);
}
END_TEST

START_TEST(describe_ranges_and_units)
{
	struct perftune_desc *d;
	long long lo, hi;

	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.1.max_khz", &d), 0);
	ck_assert(perftune_desc_range(d, &lo, &hi));
	ck_assert_int_eq(lo, 800000);
	ck_assert_int_eq(hi, 3500000);
	ck_assert_str_eq(perftune_desc_unit(d), "kHz");
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.1.governor", &d), 0);
	ck_assert_str_eq(perftune_desc_choices(d), "performance powersave");
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.1.epp", &d), 0);
	ck_assert_ptr_nonnull(strstr(perftune_desc_choices(d), "balance_power"));
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "hugepages.2M.node0.nr", &d), 0);
	ck_assert_str_eq(perftune_desc_unit(d), "pages");
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "page size 2048 kB"));
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "selinux.avc.cache_threshold", &d), 0);
	ck_assert(perftune_desc_range(d, &lo, &hi));
	ck_assert_int_eq(hi, 1 << 20);
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.0.idle.C6.disable", &d), 0);
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "exit latency 133 us"));
	perftune_desc_free(d);
	/* a kernel name outside the key alphabet: the key form, the kernel's name shown */
	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.3.idle[haltpoll idle].disable", &d), 0);
	ck_assert_str_eq(perftune_desc_key(d), "cpu.3.idle.haltpoll_idle.disable");
	ck_assert_msg(strstr(perftune_desc_info(d), "kernel name 'haltpoll idle' (state3)"),
		      "info: %s", perftune_desc_info(d));
	perftune_desc_free(d);
}
END_TEST

START_TEST(describe_numa_has_node_facts)
{
	struct perftune_desc *d;

	ck_assert_int_eq(perftune_describe(f.ctx, "numa.balancing", &d), 0);
	ck_assert_msg(strstr(perftune_desc_info(d), "node0: cpus 0-1") &&
			      strstr(perftune_desc_info(d), "node1: cpus 2-3"),
		      "info: %s", perftune_desc_info(d));
	perftune_desc_free(d);
}
END_TEST

START_TEST(describe_needs_one_tunable)
{
	struct perftune_desc *d = NULL;

	ck_assert_int_eq(perftune_describe(f.ctx, "block.sd*.scheduler", &d), -ENOTUNIQ);
	ck_assert_ptr_null(d);
}
END_TEST

START_TEST(get_of_differing_values_is_not_unique)
{
	char *v = NULL;

	ck_assert_int_eq(perftune_get(f.ctx, "block.*.scheduler", &v), -ENOTUNIQ);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "values differ"));
}
END_TEST

START_TEST(missing_families_say_why)
{
	char *v = NULL;
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/fs/selinux %s/sys/devices/system/cpu/cpu*/cpufreq",
		 f.root, f.root);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(perftune_get(f.ctx, "selinux.avc.cache_threshold", &v), -EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "SELinux is not enabled"));
	ck_assert_int_eq(perftune_get(f.ctx, "cpu.all.governor", &v), -EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "no cpufreq driver"));
}
END_TEST

/* A kernel without a cpuidle driver (current_driver "none"): the idle keys are
 * refused with the reason, none is listed, and a transaction with one writes
 * nothing.  The host tier checks the same on the real kernel with the states
 * hidden; the VM tier has a real driver. */
START_TEST(no_cpuidle_driver_refuses_idle_keys)
{
	static const char *const keys[] = { "cpu.0.idle.max_latency_us", "cpu.all.idle.C6.disable",
					    "cpu.0.idle.POLL.disable", "cpu.all.idle.max_latency_us" };
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	struct perftune_tx *tx;
	char cmd[2 * PATH_MAX];
	char *v = NULL;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/devices/system/cpu/cpu*/cpuidle/state*", f.root);
	ck_assert_int_eq(system(cmd), 0);
	fx_write(&f, "sys/devices/system/cpu/cpuidle/current_driver", "none");
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		ck_assert_int_eq(perftune_get(f.ctx, keys[i], &v), -EOPNOTSUPP);
		ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx),
				     "no cpuidle states on this machine (cpuidle driver: none)") &&
				      strstr(perftune_ctx_last_error(f.ctx), keys[i]),
			      "%s: %s", keys[i], perftune_ctx_last_error(f.ctx));
	}
	ck_assert_int_eq(perftune_list(f.ctx, "cpu.", &it), 0);
	while ((e = perftune_tunable_iter_next(it))) {
		ck_assert_msg(!strstr(perftune_tunable_key(e), ".idle."), "listed %s",
			      perftune_tunable_key(e));
		n++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_gt(n, 0); /* governor, resume latency... are still there */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "noidle", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.all.idle.max_latency_us", "0"), -EOPNOTSUPP);
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

static int log_calls;
static char log_last[512];

static void count_log(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	(void)ctx;
	(void)prio;
	ck_assert_ptr_eq(ud, &log_calls);
	log_calls++;
	snprintf(log_last, sizeof(log_last), "%s", msg);
}

START_TEST(log_callback_receives_debug_messages)
{
	char *v = NULL;

	perftune_ctx_set_log_fn(f.ctx, count_log, PERFTUNE_LOG_DEBUG, &log_calls);
	ck_assert_int_eq(perftune_get(f.ctx, "block.nosuch.scheduler", &v), -ENODEV);
	ck_assert_int_gt(log_calls, 0);
	ck_assert_ptr_nonnull(strstr(log_last, "block.nosuch.scheduler: no such block device"));
	perftune_ctx_set_log_fn(f.ctx, NULL, 0, NULL);
}
END_TEST

static Suite *read_suite(void)
{
	Suite *s = suite_create("read");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* read-only: one tree */
	tcase_add_loop_test(tc, get_reads_normalized_value, 0, (int)ARRAY_SIZE(values));
	tcase_add_test(tc, list_has_every_family_and_only_tunables);
	tcase_add_test(tc, list_prefix_filters);
	tcase_add_test(tc, list_selector_reaches_its_disks);
	tcase_add_test(tc, describe_scheduler_has_choices);
	tcase_add_test(tc, describe_read_only_says_why);
	tcase_add_test(tc, describe_unreadable_says_why);
	tcase_add_test(tc, describe_ranges_and_units);
	tcase_add_test(tc, describe_numa_has_node_facts);
	tcase_add_test(tc, describe_needs_one_tunable);
	tcase_add_test(tc, get_of_differing_values_is_not_unique);
	tcase_add_test(tc, log_callback_receives_debug_messages);
	suite_add_tcase(s, tc);
	tc = tcase_create("changed");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, get_follows_the_file);
	tcase_add_test(tc, missing_families_say_why);
	tcase_add_test(tc, no_cpuidle_driver_refuses_idle_keys);
	tcase_add_test(tc, describe_of_a_refused_read_is_unreadable_with_the_reason);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { read_suite };
	return harness_main(argc, argv, suites, 1);
}
