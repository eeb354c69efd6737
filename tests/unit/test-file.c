// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The generic file ops (lib/family/file.c) through the sysfs[<path>] family,
 * whose keys are plain files and nothing else, on the fake machine: where a
 * path may lead, how a value is read and checked against the file.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const struct fx_bad_key bad_keys[] = {
	{ "sysfs", -EINVAL, "write sysfs[/sys/path/to/attribute]" },
	{ "sysfs.block", -EINVAL, "write sysfs[/sys/path/to/attribute]" },
	{ "sysfs[/sys/block/sda/queue/nomerges].x", -EINVAL, "write sysfs[/sys/path/to/attribute]" },
	{ "sysfs[/etc/passwd]", -EPERM, "path must be under /sys" },
	{ "sysfs[/sys/]", -EPERM, "path must be under /sys" },
	{ "sysfs[sys/block/sda/queue/nomerges]", -EPERM, "path must be under /sys" },
	{ "sysfs[/sys/block/../block/sda/queue/nomerges]", -EPERM, "must not contain '..'" },
	{ "sysfs[/sys/./block/sda/queue/nomerges]", -EPERM, "must not contain '..', '.'" },
	{ "sysfs[/sys//block/sda/queue/nomerges]", -EPERM, "must not contain" },
	{ "sysfs[/sys/block/sda/queue/nomerges/]", -EPERM, "or end in '/'" },
	{ "sysfs[/sys/block/sda/queue/..]", -EPERM, "must not contain '..'" },
	/* symlinks that lead out of /sys */
	{ "sysfs[/sys/kernel/mm/escape]", -EPERM, "path resolves outside /sys (symlink)" },
	{ "sysfs[/sys/block/evil/passwd]", -EPERM, "path resolves outside /sys (symlink)" },
	{ "sysfs[/sys/block/sda/queue]", -EINVAL, "not an attribute file" },
	{ "sysfs[/sys/block/sda/queue/nosuch]", -ENOENT, "No such file or directory" },
};

START_TEST(path_must_be_a_file_below_sys)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

static const char *const reads[][2] = {
	{ "sysfs[/sys/block/sda/queue/scheduler]", "mq-deadline" }, /* the bracketed choice */
	{ "sysfs[/sys/kernel/mm/transparent_hugepage/defrag]", "madvise" },
	{ "sysfs[/sys/block/sda/queue/read_ahead_kb]", "128" },
	{ "sysfs[/sys/kernel/mm/transparent_hugepage/hpage_pmd_size]", "2097152" }, /* read-only */
	{ "sysfs[/sys/devices/system/node/node1/distance]", "20 10" },
};

START_TEST(read_is_normalized)
{
	fx_get_is(&f, reads[_i][0], reads[_i][1]);
}
END_TEST

static const struct fx_value values[] = {
	/* staged NULL: refused with err and msg */
	{ "sysfs[/sys/block/sda/queue/scheduler]", " kyber ", "kyber", 0, NULL },
	/* no aliases here: that is the block family's */
	{ "sysfs[/sys/block/sda/queue/scheduler]", "deadline", NULL, -EINVAL,
	  "'deadline' is not one of: mq-deadline kyber bfq none" },
	{ "sysfs[/sys/block/sda/queue/read_ahead_kb]", "256", "256", 0, NULL },
	{ "sysfs[/sys/block/sda/queue/read_ahead_kb]", "256k", NULL, -EINVAL,
	  "'256k' is not a number" },
	{ "sysfs[/sys/devices/system/node/node1/distance]", "20 20", "20 20", 0, NULL },
	{ "sysfs[/sys/block/sda/queue/hw_sector_size]", "4096", NULL, -EROFS,
	  "read-only in this kernel (mode 0444)" },
};

START_TEST(value_is_checked_against_the_file)
{
	fx_value_is_staged_or_refused(&f, &values[_i]);
}
END_TEST

START_TEST(escape_hatch_is_never_listed)
{
	ck_assert_str_eq(fx_list_keys(&f, "sysfs", false), "");
}
END_TEST

START_TEST(describe_gives_path_choices_and_writability)
{
	struct perftune_desc *d;

	ck_assert_int_eq(perftune_describe(f.ctx, "sysfs[/sys/block/sdb/queue/scheduler]", &d), 0);
	ck_assert_str_eq(perftune_desc_key(d), "sysfs[/sys/block/sdb/queue/scheduler]");
	ck_assert_str_eq(perftune_desc_path(d), "/sys/block/sdb/queue/scheduler");
	ck_assert_str_eq(perftune_desc_value(d), "mq-deadline");
	ck_assert_str_eq(perftune_desc_choices(d), "mq-deadline kyber bfq none");
	ck_assert(perftune_desc_writable(d));
	ck_assert_ptr_null(perftune_desc_reason(d));
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "sysfs[/sys/block/sdb/queue/hw_sector_size]", &d),
			 0);
	ck_assert_ptr_null(perftune_desc_choices(d));
	ck_assert(!perftune_desc_writable(d));
	ck_assert_str_eq(perftune_desc_reason(d), "read-only in this kernel (mode 0444)");
	perftune_desc_free(d);
}
END_TEST

START_TEST(file_set_and_restored)
{
	const char *p = "sys/devices/system/cpu/cpu1/cpufreq/energy_performance_preference";

	ck_assert_int_eq(fx_set_one(&f, "epp",
				    "sysfs[/sys/devices/system/cpu/cpu1/cpufreq/"
				    "energy_performance_preference]",
				    "power"),
			 1);
	ck_assert_str_eq(fx_read(&f, p), "power");
	ck_assert_int_eq(perftune_restore(f.ctx, "epp", 0), 1);
	ck_assert_str_eq(fx_read(&f, p), "balance_performance");
}
END_TEST

START_TEST(fifo_is_refused_not_waited_for)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/sys/kernel/mm/fifo", f.root);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	fx_get_fails(&f, "sysfs[/sys/kernel/mm/fifo]", -EINVAL, "not an attribute file");
	fx_set_fails(&f, "sysfs[/sys/kernel/mm/fifo]", "1", -EINVAL, "not an attribute file");
}
END_TEST

static Suite *file_suite(void)
{
	Suite *s = suite_create("file");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, path_must_be_a_file_below_sys, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, read_is_normalized, 0, (int)ARRAY_SIZE(reads));
	tcase_add_loop_test(tc, value_is_checked_against_the_file, 0, (int)ARRAY_SIZE(values));
	tcase_add_test(tc, escape_hatch_is_never_listed);
	tcase_add_test(tc, describe_gives_path_choices_and_writability);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, file_set_and_restored);
	tcase_add_test(tc, fifo_is_refused_not_waited_for);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { file_suite };
	return harness_main(argc, argv, suites, 1);
}
