// SPDX-License-Identifier: LGPL-2.1-or-later
/* IRQ affinity and workqueue CPU masks on the fake machine: keys, selectors, unmovable IRQs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const char *const values[][2] = {
	{ "irq.24.cpus", "0-3" },
	{ "irq.25.cpus", "1" },
	{ "irq.27.cpus", "0" },
	{ "irq.default.cpus", "0-3" }, /* the file: hex "f" */
	{ "irq[virtio2-input.0].cpus", "0-3" },
	{ "workqueue.cpus", "0-3" },
	{ "workqueue.writeback.cpus", "0-3" },
};

START_TEST(get_reads_cpu_lists)
{
	fx_get_is(&f, values[_i][0], values[_i][1]);
}
END_TEST

/* "24,25": the IRQs @key resolves to, in order */
static const char *irqs_of(const char *key)
{
	static char out[256];
	struct pt_tunable *t = NULL;
	int n = pt_resolve_all(f.ctx, key, &t);
	size_t o = 0;

	ck_assert_msg(n >= 0, "%s: %s", key, perftune_ctx_last_error(f.ctx));
	out[0] = '\0';
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%d", i ? "," : "", t[i].id);
	free(t);
	return out;
}

START_TEST(selectors_reach_handlers_by_name)
{
	ck_assert_str_eq(irqs_of("irq[eth0].cpus"), "24,25"); /* eth0-TxRx-*, not eth10 */
	ck_assert_str_eq(irqs_of("irq.eth0.cpus"), "24,25");
	ck_assert_str_eq(irqs_of("irq[nvme0].cpus"), "26,27"); /* nvme0q0, nvme0q1 */
	ck_assert_str_eq(irqs_of("irq[eth*].cpus"), "24,25,29");
	ck_assert_str_eq(irqs_of("irq[virtio2-input.0].cpus"), "28");
	ck_assert_str_eq(irqs_of("irq.all.cpus"), "0,24,25,26,27,28,29");
	ck_assert_str_eq(irqs_of("irq.26.cpus"), "26");
	ck_assert_str_eq(irqs_of("irq.default.cpus"), "-1");
}
END_TEST

/* irq[ens3]: the interface's device (virtio2) names its IRQs' handlers (virtio2-input.0) */
START_TEST(selector_reaches_a_device_behind_an_interface)
{
	char cmd[PATH_MAX * 2];

	snprintf(cmd, sizeof(cmd),
		 "cd '%s/sys' && mkdir -p devices/virtio2/net/ens3 class/net && "
		 "ln -s ../../../virtio2 devices/virtio2/net/ens3/device && "
		 "ln -s ../../devices/virtio2/net/ens3 class/net/ens3",
		 f.root);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_str_eq(irqs_of("irq[ens3].cpus"), "28");
	ck_assert_str_eq(irqs_of("irq.ens3.cpus"), "28");
}
END_TEST

START_TEST(bad_keys_say_why)
{
	char *v = NULL;

	ck_assert_int_eq(perftune_get(f.ctx, "irq.99.cpus", &v), -ENODEV);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "irq.99.cpus: no IRQ 99 on this machine (/proc/irq/99)");
	ck_assert_int_eq(perftune_get(f.ctx, "irq[eth9].cpus", &v), -ENODEV);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "'eth9'"));
	ck_assert_int_eq(perftune_get(f.ctx, "irq.24.smp_affinity", &v), -EINVAL);
	ck_assert_int_eq(perftune_get(f.ctx, "workqueue.nosuch.cpus", &v), -ENODEV);
	ck_assert_int_eq(perftune_get(f.ctx, "workqueue.mask", &v), -EINVAL);
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(list_shows_handlers_and_the_unmovable)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	int n = 0, ro = 0;

	ck_assert_int_eq(perftune_list(f.ctx, "irq.", &it), 0);
	while ((e = perftune_tunable_iter_next(it))) {
		const char *k = perftune_tunable_key(e);
		if (perftune_tunable_flags(e) & PERFTUNE_TUNABLE_READONLY) {
			ck_assert_str_eq(k, "irq.27.cpus");
			ro++;
		}
		if (!strcmp(k, "irq.28.cpus"))
			ck_assert_str_eq(perftune_tunable_note(e), "virtio2-input.0");
		n++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(n, 8); /* 7 IRQs and the default */
	ck_assert_int_eq(ro, 1);
}
END_TEST

static int set_commit(const char *const *kv, size_t n, struct perftune_tx **txp)
{
	struct perftune_tx *tx;
	int r;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "irq", 0, &tx), 0);
	for (size_t i = 0; i < n; i += 2) {
		r = perftune_tx_set(tx, kv[i], kv[i + 1]);
		if (r < 0) {
			perftune_tx_unref(tx);
			return r;
		}
	}
	r = perftune_tx_commit(tx);
	if (txp)
		*txp = tx;
	else
		perftune_tx_unref(tx);
	return r;
}

START_TEST(selector_skips_the_unmovable_and_restores)
{
	const char *kv[] = { "irq[nvme0].cpus", "2" };
	struct snap *before = snap_take(f.root), *after;
	char *d;

	ck_assert_int_eq(set_commit(kv, 2, NULL), 1); /* 26 moved, 27 skipped */
	ck_assert_str_eq(fx_read(&f, "proc/irq/26/smp_affinity_list"), "2");
	ck_assert_str_eq(fx_read(&f, "proc/irq/26/effective_affinity_list"), "2");
	ck_assert_str_eq(fx_read(&f, "proc/irq/27/smp_affinity_list"), "0");
	ck_assert_msg(perftune_restore(f.ctx, "irq", 0) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	after = snap_take(f.root);
	d = snap_diff(before, after);
	ck_assert_msg(!d, "%s", d);
	snap_free(before);
	snap_free(after);
}
END_TEST

START_TEST(explicit_unmovable_irq_is_an_error_naming_it)
{
	const char *kv[] = { "irq.27.cpus", "1" };

	ck_assert_int_eq(set_commit(kv, 2, NULL), -EROFS);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "irq.27.cpus: the kernel will not move IRQ 27 (nvme0q1): it is per-CPU or "
			 "its affinity is managed by the kernel");
	ck_assert_str_eq(fx_read(&f, "proc/irq/27/smp_affinity_list"), "0");
}
END_TEST

/* before 6.12 every file reads 0644: the kernel's EIO to a write of its own affinity tells */
START_TEST(older_kernels_are_asked_by_a_write_that_moves_nothing)
{
	const char *kv[] = { "irq.all.cpus", "1" }, *one[] = { "irq.27.cpus", "1" };
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc/irq/27/smp_affinity_list", f.root);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(set_commit(kv, 2, NULL), 5); /* 25 is on CPU 1 already, 27 skipped */
	ck_assert_str_eq(fx_read(&f, "proc/irq/0/smp_affinity_list"), "1");
	ck_assert_str_eq(fx_read(&f, "proc/irq/27/smp_affinity_list"), "0");
	ck_assert_msg(perftune_restore(f.ctx, "irq", 0) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "proc/irq/0/smp_affinity_list"), "0-3");
	/* by number: the kernel's EIO at commit, named */
	ck_assert_int_eq(set_commit(one, 2, NULL), -EIO);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "will not move IRQ 27"));
}
END_TEST

START_TEST(intersect_keeps_what_each_irq_has_among_the_cpus)
{
	const char *kv[] = { "irq.all.cpus", "intersect:1-2", "irq.default.cpus", "intersect:0" };

	ck_assert_int_ge(set_commit(kv, 4, NULL), 0);
	ck_assert_str_eq(fx_read(&f, "proc/irq/24/smp_affinity_list"), "1-2");
	ck_assert_str_eq(fx_read(&f, "proc/irq/25/smp_affinity_list"), "1");
	ck_assert_str_eq(fx_read(&f, "proc/irq/26/smp_affinity_list"), "1-2");
	ck_assert_str_eq(fx_read(&f, "proc/irq/default_smp_affinity"), "1");
	ck_assert_msg(perftune_restore(f.ctx, "irq", 0) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "proc/irq/24/smp_affinity_list"), "0-3");
	ck_assert_str_eq(fx_read(&f, "proc/irq/default_smp_affinity"), "f");
}
END_TEST

START_TEST(bad_values_change_nothing)
{
	const char *bad[][2] = {
		{ "irq.24.cpus", "x" },		 { "irq.24.cpus", "3-1" },
		{ "irq.all.cpus", "7" },	 { "irq.default.cpus", "" },
		{ "irq.24.cpus", "intersect:" }, { "workqueue.cpus", "4-5" },
	};
	struct snap *before = snap_take(f.root), *after;
	char *d;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int r = set_commit(bad[i], 2, NULL);
		ck_assert_msg(r == -EINVAL, "%s=%s: %d", bad[i][0], bad[i][1], r);
		ck_assert_msg(!strncmp(perftune_ctx_last_error(f.ctx), bad[i][0], 3), "%s",
			      perftune_ctx_last_error(f.ctx));
	}
	after = snap_take(f.root);
	d = snap_diff(before, after);
	ck_assert_msg(!d, "%s", d);
	snap_free(before);
	snap_free(after);
}
END_TEST

START_TEST(irq_gone_before_restore_is_reported_not_fatal)
{
	const char *kv[] = { "irq.24.cpus", "3", "irq.26.cpus", "3" };

	ck_assert_int_eq(set_commit(kv, 4, NULL), 2);
	ck_assert_int_eq(system("rm -rf \"$UMOCKDEV_DIR/proc/irq/24\""), 0);
	ck_assert_msg(perftune_restore(f.ctx, "irq", 0) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "proc/irq/26/smp_affinity_list"), "0-3");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* IRQs and a sysctl in one transaction; a fault at each write gives every value back */
START_TEST(fault_at_every_write_restores_irqs_and_sysctls)
{
	const char *kv[] = { "irq[eth0].cpus",	"2",	"irq.default.cpus", "0-1",
			     "workqueue.cpus",	"0",	"sysctl.vm.swappiness", "1" };
	struct snap *before = snap_take(f.root), *after;
	char *d;
	int r;

	f.sim.fault_at = _i + 1;
	r = set_commit(kv, ARRAY_SIZE(kv), NULL);
	ck_assert_msg(r == -EIO, "fault at write %d: %d", _i + 1, r);
	after = snap_take(f.root);
	d = snap_diff(before, after);
	ck_assert_msg(!d, "fault at write %d: %s", _i + 1, d);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
	snap_free(after);
}
END_TEST

START_TEST(workqueue_mask_is_written_as_hex)
{
	const char *kv[] = { "workqueue.cpus", "0-1", "workqueue.writeback.cpus", "2" };
	char *v = NULL;

	ck_assert_int_eq(set_commit(kv, 4, NULL), 2);
	ck_assert_str_eq(fx_read(&f, "sys/devices/virtual/workqueue/cpumask"), "3");
	ck_assert_int_eq(perftune_get(f.ctx, "workqueue.writeback.cpus", &v), 0);
	ck_assert_str_eq(v, "2");
	free(v);
	ck_assert_msg(perftune_restore(f.ctx, "irq", 0) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "sys/devices/virtual/workqueue/cpumask"), "f");
}
END_TEST

/* TuneD's [sysfs] takes the workqueue mask as hex; the command line has both masks' parameters */
START_TEST(export_writes_each_form)
{
	const char *kv[] = { "workqueue.cpus", "0-1", "irq.default.cpus", "2" };
	char *text = NULL;

	ck_assert_int_eq(set_commit(kv, 4, NULL), 2);
	ck_assert_int_ge(perftune_export_transaction(f.ctx, "irq", PERFTUNE_EXPORT_TUNED, &text), 0);
	ck_assert_msg(strstr(text, "/sys/devices/virtual/workqueue/cpumask=00000003\n"), "%s", text);
	ck_assert_msg(strstr(text, "# no TuneD option: irq.default.cpus = 2"), "%s", text);
	free(text);
	ck_assert_int_ge(perftune_export_transaction(f.ctx, "irq", PERFTUNE_EXPORT_CMDLINE, &text), 0);
	ck_assert_msg(strstr(text, "irqaffinity=2"), "%s", text);
	ck_assert_msg(strstr(text, "workqueue.unbound_cpus=0-1"), "%s", text);
	free(text);
}
END_TEST

static Suite *irq_suite(void)
{
	Suite *s = suite_create("irq");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, get_reads_cpu_lists, 0, (int)ARRAY_SIZE(values));
	tcase_add_test(tc, selectors_reach_handlers_by_name);
	tcase_add_test(tc, bad_keys_say_why);
	tcase_add_test(tc, list_shows_handlers_and_the_unmovable);
	suite_add_tcase(s, tc);
	tc = tcase_create("change");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, selector_reaches_a_device_behind_an_interface);
	tcase_add_test(tc, selector_skips_the_unmovable_and_restores);
	tcase_add_test(tc, explicit_unmovable_irq_is_an_error_naming_it);
	tcase_add_test(tc, older_kernels_are_asked_by_a_write_that_moves_nothing);
	tcase_add_test(tc, intersect_keeps_what_each_irq_has_among_the_cpus);
	tcase_add_test(tc, bad_values_change_nothing);
	tcase_add_test(tc, irq_gone_before_restore_is_reported_not_fatal);
	tcase_add_loop_test(tc, fault_at_every_write_restores_irqs_and_sysctls, 0, 5);
	tcase_add_test(tc, workqueue_mask_is_written_as_hex);
	tcase_add_test(tc, export_writes_each_form);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { irq_suite };
	return harness_main(argc, argv, suites, 1);
}
