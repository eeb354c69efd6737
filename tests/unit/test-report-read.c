// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/report: the reports of list, describe, list-profiles, why and verify
 * (perftune_*_report()) on the fake machine, text and JSON, as the perftune
 * program prints them; the name lookup of verify and export
 * (perftune_verify_named(), perftune_export_named()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"

static struct fx f;
static char profiles[PATH_MAX]; /* $PERFTUNE_PROFILE_PATH */

/* write @text to @rel below @dir, its directories made */
static void put(const char *dir, const char *rel, const char *text)
{
	char p[PATH_MAX * 2];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *slash = strchr(p + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
}

static void setup(void)
{
	fx_setup(&f);
	/* beside the journal directory: fx_teardown() removes them */
	snprintf(profiles, sizeof(profiles), "%.*s/profiles", (int)(strrchr(f.jdir, '/') - f.jdir),
		 f.jdir);
	ck_assert_int_eq(mkdir(profiles, 0755), 0);
	put(profiles, "swap/tuned.conf",
	    "[main]\nsummary=Less swapping\n\n[sysctl]\nvm.swappiness=${swap}\n");
	put(profiles, "fixed/tuned.conf", "[main]\nsummary=Swappiness 60\n\n[sysctl]\n"
					  "vm.swappiness=60\n");
	put(profiles, "broken/tuned.conf", "summary=no section\n");
	setenv("PERFTUNE_PROFILE_PATH", profiles, 1);
}

static void teardown(void)
{
	fx_teardown(&f);
}

/* *@text freed after the comparison */
static void text_is(char *text, const char *want)
{
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, want);
	free(text);
}

static void text_has(char *text, const char *part)
{
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, part), "'%s' not in:\n%s", part, text);
}

START_TEST(list_report_marks_read_only_and_writable_leaves_them_out)
{
	char *t = NULL;

	ck_assert_int_eq(perftune_list_report(f.ctx, "sysctl.kernel.", 0, &t), 0);
	text_is(t, "sysctl.kernel.numa_balancing = 1\n"
		   "sysctl.kernel.ostype = Linux (read-only)\n"
		   "sysctl.kernel.printk = 4 4 1 7\n"
		   "sysctl.kernel.random.boot_id = 00000000-0000-0000-0000-000000000001\n");
	ck_assert_int_eq(perftune_list_report(f.ctx, "sysctl.kernel.o",
					      PERFTUNE_REPORT_JSON | PERFTUNE_REPORT_WRITABLE, &t),
			 0);
	text_is(t, "[]\n"); /* the only one is read-only */
	ck_assert_int_eq(perftune_list_report(f.ctx, "sysctl.kernel.o", PERFTUNE_REPORT_JSON, &t),
			 0);
	text_is(t, "[\n  {\"key\": \"sysctl.kernel.ostype\", \"value\": \"Linux\", \"read_only\": "
		   "true}\n]\n");
	ck_assert_int_eq(perftune_list_report(f.ctx, "nosuch.", 0, &t), 0);
	text_is(t, ""); /* nothing: an empty string, not NULL */
}
END_TEST

START_TEST(desc_report_shows_choices_or_why_unreadable)
{
	struct perftune_desc *d;
	char *t = NULL;

	ck_assert_int_eq(perftune_describe(f.ctx, "block.sda.scheduler", &d), 0);
	ck_assert_int_eq(perftune_desc_report(d, 0, &t), 0);
	text_has(t, "key:      block.sda.scheduler\n"
		    "value:    mq-deadline\n"
		    "file:     /sys/block/sda/queue/scheduler\n"
		    "choices:  mq-deadline kyber bfq none\n"
		    "writable: yes\n"
		    "info:     aliases: ");
	free(t);
	ck_assert_int_eq(perftune_desc_report(d, PERFTUNE_REPORT_JSON, &t), 0);
	text_has(t, "{\"key\": \"block.sda.scheduler\", \"value\": \"mq-deadline\", "
		    "\"unreadable\": null, \"path\": \"/sys/block/sda/queue/scheduler\", "
		    "\"choices\": \"mq-deadline kyber bfq none\", \"unit\": null, \"writable\": true");
	ck_assert_int_eq(t[strlen(t) - 1], '\n');
	free(t);
	perftune_desc_free(d);

	ck_assert_int_eq(perftune_describe(f.ctx, "sysctl.vm.drop_caches", &d), 0);
	ck_assert_int_eq(perftune_desc_report(d, 0, &t), 0);
	/* then, without openat2 (the old-kernel tier), an info line naming the resolver */
	text_has(t, "key:      sysctl.vm.drop_caches\n"
		    "value:    (unreadable: write-only trigger)\n"
		    "file:     /proc/sys/vm/drop_caches\n"
		    "writable: yes\n");
	ck_assert_int_eq(strncmp(t, "key:", 4), 0);
	free(t);
	t = NULL;
	ck_assert_int_eq(perftune_desc_report(d, PERFTUNE_REPORT_WRITABLE, &t), -EINVAL);
	ck_assert_ptr_null(t);
	perftune_desc_free(d);
}
END_TEST

START_TEST(desc_report_shows_range_and_unit)
{
	struct perftune_desc *d;
	char *t = NULL;

	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.0.max_khz", &d), 0);
	ck_assert_int_eq(perftune_desc_report(d, 0, &t), 0);
	text_has(t, "range:    ");
	text_has(t, "..3500000\n");
	free(t);
	ck_assert_int_eq(perftune_desc_report(d, PERFTUNE_REPORT_JSON, &t), 0);
	text_has(t, "\"max\": 3500000, ");
	free(t);
	perftune_desc_free(d);
}
END_TEST

START_TEST(profile_list_report_names_variables_and_errors)
{
	char *t = NULL;

	ck_assert_int_eq(perftune_profile_list_report(f.ctx, 0, &t), 0);
	/* the reason the broken one cannot be read, in place of a summary */
	text_has(t, "broken                       ");
	text_has(t, "fixed                        Swappiness 60\n"
		    "swap                         Less swapping (variables: swap; unset: swap)\n");
	free(t);
	ck_assert_int_eq(perftune_profile_list_report(f.ctx, PERFTUNE_REPORT_JSON, &t), 0);
	ck_assert_int_eq(strncmp(t, "[\n  {\"name\": \"broken\", \"summary\": null, ", 39), 0);
	text_has(t, "{\"name\": \"fixed\", \"summary\": \"Swappiness 60\", ");
	text_has(t, "\"variables\": [], \"unset\": []},\n");
	text_has(t, "\"error\": null, \"variables\": [\"swap\"], \"unset\": [\"swap\"]}\n]\n");
	free(t);
}
END_TEST

START_TEST(why_report_numbers_sources_and_says_what_a_reboot_brings)
{
	char *t = NULL;

	ck_assert_int_eq(perftune_why_report(f.ctx, "sysctl.vm.swappiness", 0, &t), 0);
	text_is(t, "sysctl.vm.swappiness = 60\n  nothing else on this machine sets it\n");
	put(f.root, "usr/lib/sysctl.d/50-default.conf", "vm.swappiness = 30\n");
	put(f.root, "etc/sysctl.d/90-local.conf", "vm.swappiness = 10\n");
	ck_assert_int_eq(perftune_why_report(f.ctx, "sysctl.vm.swappiness", 0, &t), 0);
	text_has(t, "sysctl.vm.swappiness = 60\n"
		    "  1. sysctl.d    /usr/lib/sysctl.d/50-default.conf:1: 30  [overridden]  "
		    "[differs from now]\n");
	text_has(t, "  2. sysctl.d    /etc/sysctl.d/90-local.conf:1: 10  [wins]  "
		    "[differs from now]\n");
	text_has(t, "after a reboot: 10 (sysctl.d /etc/sysctl.d/90-local.conf:1)\n");
	free(t);
	ck_assert_int_eq(perftune_why_report(f.ctx, "sysctl.vm.swappiness", PERFTUNE_REPORT_JSON,
					     &t),
			 0);
	text_has(t, "{\"key\": \"sysctl.vm.swappiness\", \"value\": \"60\", \"sources\": [\n"
		    "  {\"kind\": \"sysctl.d\", \"key\": \"sysctl.vm.swappiness\", \"location\": "
		    "\"/usr/lib/sysctl.d/50-default.conf:1\", \"value\": \"30\", ");
	text_has(t, "\"wins\": true, \"overridden\": false, \"persistent\": true, \"differs\": "
		    "true, \"error\": false, \"pid\": 0}\n]}\n");
	free(t);
}
END_TEST

START_TEST(why_report_of_a_bad_key_fails_with_its_message)
{
	char *t = NULL;

	ck_assert_int_eq(perftune_why_report(f.ctx, "sysctl.vm.swapiness", 0, &t), -EINVAL);
	ck_assert_ptr_null(t);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness"));
	ck_assert_int_eq(perftune_why_report(f.ctx, "sysctl.vm.swappiness", 1 << 5, &t), -EINVAL);
}
END_TEST

START_TEST(verify_report_counts_and_returns_those_not_in_force)
{
	const char *const settings[] = { "sysctl.vm.swappiness=60", "thp.enabled=never", NULL };
	struct perftune_check_iter *it;
	char *t = NULL;

	ck_assert_int_eq(perftune_verify(f.ctx, settings, &it), 1);
	ck_assert_int_eq(perftune_verify_report(it, "settings", 0, &t), 1);
	text_is(t, "in force     sysctl.vm.swappiness = 60\n"
		   "differs      thp.enabled = never (now madvise, expected never)\n"
		   "1 in force, 1 differ, 0 clamped, 0 not here, 0 need a reboot, 0 skipped\n");
	/* read to its end: a second report has no checks */
	ck_assert_int_eq(perftune_verify_report(it, "settings", 0, &t), 0);
	text_is(t, "0 in force, 0 differ, 0 clamped, 0 not here, 0 need a reboot, 0 skipped\n");
	perftune_check_iter_free(it);

	ck_assert_int_eq(perftune_verify(f.ctx, settings, &it), 1);
	ck_assert_int_eq(perftune_verify_report(it, "settings", PERFTUNE_REPORT_JSON, &t), 1);
	text_is(t, "{\"verified\": \"settings\", \"in_force\": false, \"settings\": [\n"
		   "  {\"key\": \"sysctl.vm.swappiness\", \"status\": \"in force\", \"expected\": "
		   "\"60\", \"current\": \"60\", \"reason\": null, \"origin\": null},\n"
		   "  {\"key\": \"thp.enabled\", \"status\": \"differs\", \"expected\": \"never\", "
		   "\"current\": \"madvise\", \"reason\": \"now madvise, expected never\", "
		   "\"origin\": null}\n"
		   "], \"counts\": {\"in force\": 1, \"differs\": 1, \"clamped\": 0, \"not here\": 0, "
		   "\"needs reboot\": 0, \"skipped\": 0}}\n");
	perftune_check_iter_free(it);
	ck_assert_int_eq(perftune_verify_report(NULL, "x", 0, &t), -EINVAL);
}
END_TEST

/* a transaction first, else a profile; the flags choose one */
START_TEST(named_lookup_takes_a_transaction_before_a_profile)
{
	const char *const vars[] = { "swap=5", NULL };
	struct perftune_check_iter *it;
	char *t = NULL;

	/* no transaction "fixed": the profile, in force on the fake machine */
	ck_assert_int_eq(perftune_verify_named(f.ctx, "fixed", NULL, 0, &it), 0);
	ck_assert_int_eq(perftune_verify_report(it, "fixed", PERFTUNE_REPORT_JSON, &t), 0);
	text_has(t, "{\"verified\": \"fixed\", \"in_force\": true, ");
	free(t);
	perftune_check_iter_free(it);
	ck_assert_int_eq(perftune_verify_named(f.ctx, "swap", vars, 0, &it), 1);
	perftune_check_iter_free(it);
	ck_assert_int_eq(perftune_verify_named(f.ctx, "fixed", NULL, PERFTUNE_NAMED_TRANSACTION,
					       &it),
			 -ENOENT);
	ck_assert_ptr_null(it);
	ck_assert_int_eq(perftune_verify_named(f.ctx, "nosuch", NULL, 0, &it), -ENOENT);

	/* a transaction of the profile's name wins, unless PERFTUNE_NAMED_PROFILE */
	ck_assert_int_eq(fx_set_one(&f, "fixed", "sysctl.vm.swappiness", "7"), 1);
	ck_assert_int_eq(perftune_verify_named(f.ctx, "fixed", NULL, 0, &it), 0);
	ck_assert_str_eq(perftune_check_origin(perftune_check_iter_next(it)), "transaction fixed");
	perftune_check_iter_free(it);
	ck_assert_int_eq(perftune_verify_named(f.ctx, "fixed", NULL, PERFTUNE_NAMED_PROFILE, &it),
			 1); /* 60 expected, 7 now */
	perftune_check_iter_free(it);
	ck_assert_int_eq(perftune_verify_named(f.ctx, "fixed", NULL,
					       PERFTUNE_NAMED_PROFILE | PERFTUNE_NAMED_TRANSACTION,
					       &it),
			 -EINVAL);

	ck_assert_int_eq(perftune_export_named(f.ctx, "fixed", NULL, PERFTUNE_EXPORT_SYSCTL, 0, &t),
			 1);
	text_has(t, "vm.swappiness = 7\n");
	free(t);
	ck_assert_int_eq(perftune_export_named(f.ctx, "fixed", NULL, PERFTUNE_EXPORT_SYSCTL,
					       PERFTUNE_NAMED_PROFILE, &t),
			 1);
	text_has(t, "vm.swappiness = 60\n");
	free(t);
	/* a path is never a transaction's name */
	ck_assert_int_eq(perftune_export_named(f.ctx, "a/b", NULL, PERFTUNE_EXPORT_SYSCTL,
					       PERFTUNE_NAMED_TRANSACTION, &t),
			 -ENOENT);
	ck_assert_ptr_null(t);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report-read");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_test(tc, list_report_marks_read_only_and_writable_leaves_them_out);
	tcase_add_test(tc, desc_report_shows_choices_or_why_unreadable);
	tcase_add_test(tc, desc_report_shows_range_and_unit);
	tcase_add_test(tc, profile_list_report_names_variables_and_errors);
	tcase_add_test(tc, why_report_of_a_bad_key_fails_with_its_message);
	tcase_add_test(tc, verify_report_counts_and_returns_those_not_in_force);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, why_report_numbers_sources_and_says_what_a_reboot_brings);
	tcase_add_test(tc, named_lookup_takes_a_transaction_before_a_profile);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { report_suite };
	return harness_main(argc, argv, suites, 1);
}
