// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The block family (lib/family/block.c) through the public API on the fake
 * machine: selectors, scheduler aliases, queue attribute values, bad keys.
 */
#include <errno.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

/* a selector and the concrete keys it reaches */
static const char *const selectors[][2] = {
	{ "block.sda.read_ahead_kb", "block.sda.read_ahead_kb" },
	{ "block.sd?.rotational", "block.sda.rotational block.sdb.rotational block.sdc.rotational" },
	/* a partition means its disk, by /dev path or by name */
	{ "block[/dev/sda2].nr_requests", "block.sda.nr_requests" },
	{ "block.sda1.scheduler", "block.sda.scheduler" },
	/* a bio-based dm device: its scheduler, iosched and nr_requests are its disks' */
	{ "block[/dev/mapper/lin].scheduler", "block.sdb.scheduler block.sdc.scheduler" },
	{ "block.dm-0.nr_requests", "block.sdb.nr_requests block.sdc.nr_requests" },
	{ "block.dm-0.iosched.fifo_batch",
	  "block.sdb.iosched.fifo_batch block.sdc.iosched.fifo_batch" },
	/* ... but its other queue attributes are its own */
	{ "block[/dev/mapper/lin].read_ahead_kb", "block.dm-0.read_ahead_kb" },
	/* request-based multipath keeps its own scheduler */
	{ "block[/dev/mapper/mpatha].scheduler", "block.dm-1.scheduler" },
	/* a path: the disk of the filesystem it is on (longest mount prefix) */
	{ "block[/var/lib/mysql/data].scheduler", "block.sda.scheduler" },
	{ "block[/srv/nvme].scheduler", "block.nvme0n1.scheduler" },
	{ "block[/data].scheduler", "block.sdb.scheduler block.sdc.scheduler" },
};

START_TEST(selector_reaches_its_disks)
{
	ck_assert_str_eq(fx_each_keys(&f, selectors[_i][0]), selectors[_i][1]);
}
END_TEST

static const struct fx_bad_key bad_keys[] = {
	{ "block.sda", -EINVAL, "expected block.<device>.<attribute>" },
	{ "block.sda.a.b", -EINVAL, "block.<device>.iosched.<parameter>" },
	{ "block.sda.iosched.[read_expire]", -EINVAL, "no brackets or globs" },
	{ "block.sda.read_*", -EINVAL, "no brackets or globs" },
	{ "block.[..].scheduler", -EINVAL, "is not a device name" },
	{ "block.nosuch.scheduler", -ENODEV, "no such block device" },
	{ "block.zz*.scheduler", -ENODEV, "no block device matches 'zz*'" },
	{ "block.sda.nosuch", -ENOENT, "sda has no queue attribute 'nosuch'" },
	{ "block.sda.iosched.slice_idle", -ENOENT,
	  "not a parameter of sda's scheduler 'mq-deadline'" },
	{ "block[/dev/nosuch].scheduler", -ENODEV, "is not a block device" },
	{ "block[/tmp].scheduler", -ENODEV, "on a filesystem without a block device" },
	/* "/" is on vda, which the fake machine has no queue for */
	{ "block[/etc].scheduler", -ENODEV, "device 254:0 has no request queue" },
	{ "block.evil.scheduler", -ENODEV, NULL }, /* a symlink out of /sys */
};

START_TEST(bad_key_names_the_key_and_the_cause)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

/* value as given, as staged (aliases mapped, alternatives picked) */
static const char *const sched_values[][2] = {
	{ "deadline", "mq-deadline" }, /* legacy elevators: their blk-mq names */
	{ "noop", "none" },
	{ "cfq", "bfq" },
	{ " kyber ", "kyber" },
	{ "foo|bfq|kyber", "bfq" }, /* the first one offered */
	{ "deadline|none", "mq-deadline" },
};

START_TEST(scheduler_alias_maps_to_the_blk_mq_name)
{
	ck_assert_str_eq(fx_staged(&f, "block.sda.scheduler", sched_values[_i][0]),
			 sched_values[_i][1]);
}
END_TEST

START_TEST(scheduler_alias_deadline_maps_to_mq_deadline_and_says_so)
{
	struct perftune_tx *tx;
	struct perftune_change_iter *it;
	const struct perftune_change *c;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "alias", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "block.nvme0n1.scheduler", "deadline"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	c = perftune_change_iter_next(it);
	ck_assert_str_eq(perftune_change_new_value(c), "mq-deadline");
	ck_assert_str_eq(perftune_change_old_value(c), "none");
	ck_assert_ptr_nonnull(strstr(perftune_change_note(c), "deadline"));
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "sys/block/nvme0n1/queue/scheduler"),
			 "none [mq-deadline] kyber bfq");
	ck_assert_int_eq(perftune_restore(f.ctx, "alias", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/nvme0n1/queue/scheduler"),
			 "[none] mq-deadline kyber bfq");
}
END_TEST

START_TEST(cfq_without_bfq_offered_is_refused_with_the_choices)
{
	fx_write(&f, "sys/block/sdb/queue/scheduler", "[mq-deadline] kyber none");
	fx_set_fails(&f, "block.sdb.scheduler", "cfq", -EINVAL,
		     "'cfq' is not offered by sdb (mq-deadline kyber none)");
	fx_set_fails(&f, "block.sda.scheduler", "bogus|nope", -EINVAL,
		     "(mq-deadline kyber bfq none)");
}
END_TEST

static const struct fx_value values[] = {
	{ "block.sda.read_ahead_kb", "-1", NULL, -EINVAL, "out of range (not negative)" },
	{ "block.sda.nr_requests", "-64", NULL, -EINVAL, "out of range (not negative)" },
	{ "block.sda.read_ahead_kb", "lots", NULL, -EINVAL, "is not a number" },
	{ "block.sda.hw_sector_size", "4096", NULL, -EROFS, "read-only in this kernel (mode 0444)" },
	/* but for -1, "default", of wbt_lat_usec */
	{ "block.sda.wbt_lat_usec", "-1", "-1", 0, NULL },
};

START_TEST(value_is_checked_and_a_bad_one_stages_nothing)
{
	fx_value_is_staged_or_refused(&f, &values[_i]);
}
END_TEST

START_TEST(glob_skips_disks_without_a_queue_but_a_name_does_not)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -r %s/sys/block/sdc/queue", f.root);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_str_eq(fx_each_keys(&f, "block.sd*.read_ahead_kb"),
			 "block.sda.read_ahead_kb block.sdb.read_ahead_kb");
	fx_get_fails(&f, "block.sdc.read_ahead_kb", -ENODEV, "sdc has no request queue");
}
END_TEST

START_TEST(list_of_a_disk_has_its_writable_queue_and_iosched_keys)
{
	/* nvme0n1: scheduler none, no iosched/; dm-0: bio-based, no scheduler or nr_requests */
	ck_assert_str_eq(fx_list_keys(&f, "block.nvme0n1.", false),
			 "block.nvme0n1.add_random block.nvme0n1.max_sectors_kb "
			 "block.nvme0n1.nomerges block.nvme0n1.nr_requests "
			 "block.nvme0n1.read_ahead_kb block.nvme0n1.rotational "
			 "block.nvme0n1.rq_affinity block.nvme0n1.scheduler "
			 "block.nvme0n1.wbt_lat_usec");
	ck_assert_str_eq(fx_list_keys(&f, "block.dm-0.", false),
			 "block.dm-0.add_random block.dm-0.max_sectors_kb block.dm-0.nomerges "
			 "block.dm-0.read_ahead_kb block.dm-0.rotational block.dm-0.rq_affinity "
			 "block.dm-0.wbt_lat_usec");
}
END_TEST

START_TEST(describe_gives_units_and_the_aliases)
{
	static const char *const units[][2] = {
		{ "block.sda.read_ahead_kb", "kB" }, { "block.sda.max_sectors_kb", "kB" },
		{ "block.sda.wbt_lat_usec", "us" },  { "block.sda.nr_requests", "requests" },
		{ "block.sda.rotational", NULL },
	};
	struct perftune_desc *d;

	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		ck_assert_int_eq(perftune_describe(f.ctx, units[i][0], &d), 0);
		if (units[i][1])
			ck_assert_str_eq(perftune_desc_unit(d), units[i][1]);
		else
			ck_assert_ptr_null(perftune_desc_unit(d));
		perftune_desc_free(d);
	}
	ck_assert_int_eq(perftune_describe(f.ctx, "block.sdb.scheduler", &d), 0);
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "deadline=mq-deadline"));
	ck_assert_str_eq(perftune_desc_path(d), "/sys/block/sdb/queue/scheduler");
	perftune_desc_free(d);
}
END_TEST

START_TEST(queue_attribute_set_and_restored)
{
	ck_assert_int_eq(fx_set_one(&f, "ra", "block.sd*.read_ahead_kb", "4096"), 3);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdc/queue/read_ahead_kb"), "4096");
	fx_get_is(&f, "block.sd*.read_ahead_kb", "4096");
	ck_assert_int_eq(perftune_restore(f.ctx, "ra", 0), 3);
	ck_assert_str_eq(fx_read(&f, "sys/block/sda/queue/read_ahead_kb"), "128");
}
END_TEST

static Suite *block_suite(void)
{
	Suite *s = suite_create("block");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, selector_reaches_its_disks, 0, (int)ARRAY_SIZE(selectors));
	tcase_add_loop_test(tc, bad_key_names_the_key_and_the_cause, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, scheduler_alias_maps_to_the_blk_mq_name, 0,
			    (int)ARRAY_SIZE(sched_values));
	tcase_add_loop_test(tc, value_is_checked_and_a_bad_one_stages_nothing, 0,
			    (int)ARRAY_SIZE(values));
	tcase_add_test(tc, list_of_a_disk_has_its_writable_queue_and_iosched_keys);
	tcase_add_test(tc, describe_gives_units_and_the_aliases);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, scheduler_alias_deadline_maps_to_mq_deadline_and_says_so);
	tcase_add_test(tc, cfq_without_bfq_offered_is_refused_with_the_choices);
	tcase_add_test(tc, glob_skips_disks_without_a_queue_but_a_name_does_not);
	tcase_add_test(tc, queue_attribute_set_and_restored);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { block_suite };
	return harness_main(argc, argv, suites, 1);
}
