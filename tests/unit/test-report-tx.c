// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/report/tx.c and status.c: perftune_tx_report() and perftune_status_report()
 * on the fake machine, the text and JSON that perftune set, apply and status
 * print (tests/golden holds the program's side): a commit shows what it wrote,
 * a dry run (known from the transaction) what it staged, a profile its skipped
 * and kept options, a sysctl.d file its warning; status a held and an
 * orphaned transaction.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;

static void setup(void)
{
	fx_setup(&f);
}

static void teardown(void)
{
	fx_teardown(&f);
}

/* a transaction @name of @flags with swappiness=10 and dirty_ratio=20 (its value now), committed */
static struct perftune_tx *two_keys(const char *name, unsigned flags)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, name, flags, &tx), 0);
	ck_assert_int_ge(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_ge(perftune_tx_set(tx, "sysctl.vm.dirty_ratio", "20"), 1);
	ck_assert_msg(perftune_tx_commit(tx) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	return tx;
}

/* perftune_tx_report()'s text must be @want, with no warnings */
static void text_is(struct perftune_tx *tx, struct perftune_profile *p, const char *want)
{
	char *text = NULL, *warnings = (char *)"unset";

	ck_assert_int_eq(perftune_tx_report(tx, p, 0, &text, &warnings), 0);
	ck_assert_str_eq(text, want);
	ck_assert_ptr_null(warnings);
	free(text);
}

/* perftune_tx_report()'s JSON must be @want; *warnings stays NULL (they are a member) */
static void json_is(struct perftune_tx *tx, struct perftune_profile *p, const char *want)
{
	char *text = NULL, *warnings = (char *)"unset";

	ck_assert_int_eq(perftune_tx_report(tx, p, PERFTUNE_REPORT_JSON, &text, &warnings), 0);
	ck_assert_str_eq(text, want);
	ck_assert_ptr_null(warnings);
	free(text);
}

START_TEST(a_commit_shows_what_it_wrote)
{
	struct perftune_tx *tx = two_keys("t", 0);

	text_is(tx, NULL,
		"sysctl.vm.swappiness: 60 -> 10\n"
		"sysctl.vm.dirty_ratio: 20 -> 20 (unchanged)\n");
	json_is(tx, NULL,
		"{\"transaction\": \"t\", \"dry_run\": false,\n"
		"  \"changes\": [\n"
		"    {\"key\": \"sysctl.vm.swappiness\", \"old\": \"60\", \"new\": \"10\", "
		"\"unchanged\": false, \"note\": null},\n"
		"    {\"key\": \"sysctl.vm.dirty_ratio\", \"old\": \"20\", \"new\": \"20\", "
		"\"unchanged\": true, \"note\": null}\n"
		"  ],\n"
		"  \"warnings\": []\n"
		"}\n");
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(a_dry_run_shows_what_it_staged)
{
	struct perftune_tx *tx;

	/* staged, not committed: a commit would show nothing yet, a dry run each key */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "t", 0, &tx), 0);
	ck_assert_int_ge(perftune_tx_set(tx, "thp.enabled", "never"), 1);
	text_is(tx, NULL, "");
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "d", PERFTUNE_TX_DRY_RUN, &tx), 0);
	ck_assert_int_ge(perftune_tx_set(tx, "thp.enabled", "never"), 1);
	ck_assert_int_ge(perftune_tx_commit(tx), 0);
	text_is(tx, NULL, "thp.enabled: madvise -> never\n");
	json_is(tx, NULL,
		"{\"transaction\": \"d\", \"dry_run\": true,\n"
		"  \"changes\": [\n"
		"    {\"key\": \"thp.enabled\", \"old\": \"madvise\", \"new\": \"never\", "
		"\"unchanged\": false, \"note\": null}\n"
		"  ],\n"
		"  \"warnings\": []\n"
		"}\n");
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "sys/kernel/mm/transparent_hugepage/enabled"),
			 "always [madvise] never");
}
END_TEST

START_TEST(a_source_that_puts_a_key_back_is_a_warning)
{
	const char *line = "warning: sysctl.vm.swappiness: sysctl.d /etc/sysctl.d/99-x.conf:1 puts "
			   "back 30 (systemd-sysctl sets vm.swappiness at boot)\n";
	struct perftune_tx *tx;
	char *text, *warnings;

	fx_mkdirs(&f, "etc/sysctl.d");
	fx_put(&f, "etc/sysctl.d/99-x.conf", "vm.swappiness = 30");
	tx = two_keys("w", 0);
	ck_assert_int_eq(perftune_tx_report(tx, NULL, 0, &text, &warnings), 0);
	ck_assert_str_eq(text, "sysctl.vm.swappiness: 60 -> 10\n"
			       "sysctl.vm.dirty_ratio: 20 -> 20 (unchanged)\n");
	ck_assert_str_eq(warnings, line);
	free(text);
	free(warnings);
	/* no @warnings: the text alone */
	ck_assert_int_eq(perftune_tx_report(tx, NULL, 0, &text, NULL), 0);
	ck_assert_ptr_nonnull(strstr(text, "60 -> 10"));
	ck_assert_ptr_null(strstr(text, "warning"));
	free(text);
	ck_assert_int_eq(perftune_tx_report(tx, NULL, PERFTUNE_REPORT_JSON, &text, &warnings), 0);
	ck_assert_ptr_null(warnings);
	ck_assert_ptr_nonnull(
		strstr(text, "  \"warnings\": [\n"
			     "    {\"key\": \"sysctl.vm.swappiness\", \"kind\": \"sysctl.d\", "
			     "\"location\": \"/etc/sysctl.d/99-x.conf:1\", \"value\": \"30\", "
			     "\"note\": \"systemd-sysctl sets vm.swappiness at boot\"}\n"
			     "  ]\n}\n"));
	free(text);
	perftune_tx_unref(tx);
}
END_TEST

/* a profile of one change, one option kept (dirty_ratio is 20 already) and one skipped */
static struct perftune_profile *kept_profile(char *path, size_t size)
{
	struct perftune_profile *p;

	snprintf(path, size, "%s/../kept.conf", f.root);
	fx_put(&f, "../kept.conf", "[sysctl]\nvm.dirty_ratio=>10\nvm.swappiness=5\n"
				   "[script]\nscript=tune.sh");
	ck_assert_msg(perftune_profile_load(f.ctx, path, NULL, &p) == 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	return p;
}

START_TEST(a_profile_shows_what_it_skipped_and_kept)
{
	struct perftune_profile *p;
	struct perftune_tx *tx;
	char path[PATH_MAX], *want;

	p = kept_profile(path, sizeof(path));
	ck_assert_int_eq(perftune_tx_new(f.ctx, "kept", PERFTUNE_TX_DRY_RUN, &tx), 0);
	ck_assert_int_ge(perftune_profile_stage(p, tx, 0), 0);
	ck_assert_int_ge(perftune_tx_commit(tx), 0);
	text_is(tx, p,
		"sysctl.vm.swappiness: 60 -> 5\n"
		"kept: sysctl.vm.dirty_ratio = 20 ([sysctl] vm.dirty_ratio: the current value 20 "
		"is already >= 10)\n"
		"skipped: [script] script: runs a program: a profile never executes anything\n");
	ck_assert_int_gt(
		asprintf(&want,
			 "{\"profile\": \"kept\", \"path\": \"%s\", \"transaction\": \"kept\", "
			 "\"dry_run\": true,\n"
			 "  \"changes\": [\n"
			 "    {\"key\": \"sysctl.vm.swappiness\", \"old\": \"60\", \"new\": \"5\", "
			 "\"unchanged\": false, \"note\": null}\n"
			 "  ],\n"
			 "  \"skipped\": [\n"
			 "    {\"option\": \"[script] script\", \"key\": null, \"value\": null, "
			 "\"origin\": \"%s:5\", \"reason\": \"runs a program: a profile never "
			 "executes anything\"}\n"
			 "  ],\n"
			 "  \"kept\": [\n"
			 "    {\"option\": \"[sysctl] vm.dirty_ratio\", \"key\": "
			 "\"sysctl.vm.dirty_ratio\", \"value\": \"20\", \"origin\": \"%s:2\", "
			 "\"reason\": \"the current value 20 is already >= 10\"}\n"
			 "  ],\n"
			 "  \"warnings\": []\n"
			 "}\n",
			 perftune_profile_path(p), perftune_profile_path(p), perftune_profile_path(p)),
		0);
	json_is(tx, p, want);
	free(want);
	perftune_tx_unref(tx);
	perftune_profile_free(p);
}
END_TEST

START_TEST(tx_report_bad_input)
{
	struct perftune_tx *tx = two_keys("t", 0);
	char *text = (char *)"unset", *warnings = (char *)"unset";

	ck_assert_int_eq(perftune_tx_report(NULL, NULL, 0, &text, &warnings), -EINVAL);
	ck_assert_ptr_null(text);
	ck_assert_ptr_null(warnings);
	ck_assert_int_eq(perftune_tx_report(tx, NULL, 0, NULL, NULL), -EINVAL);
	text = (char *)"unset";
	ck_assert_int_eq(perftune_tx_report(tx, NULL, 1u << 4, &text, NULL), -EINVAL);
	ck_assert_ptr_null(text);
	perftune_tx_unref(tx);
}
END_TEST

static char *status_report(unsigned flags)
{
	char *text = NULL;

	ck_assert_msg(perftune_status_report(f.ctx, flags, &text) == 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	return text;
}

/* a HOLD transaction committed in a child that exits: its journal says held by a dead pid */
static pid_t orphan(const char *name, const char *key, const char *value)
{
	pid_t pid = fork();
	struct perftune_tx *tx;
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (perftune_tx_new(f.ctx, name, PERFTUNE_TX_HOLD, &tx) < 0 ||
		    perftune_tx_set(tx, key, value) < 1 || perftune_tx_commit(tx) < 0)
			_exit(1);
		_exit(0); /* no release: the journal stays, held by this pid */
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child failed: %#x", st);
	return pid;
}

START_TEST(status_shows_held_and_orphaned_transactions)
{
	struct perftune_tx *held;
	char *text, *want;
	pid_t dead;

	text = status_report(0);
	ck_assert_str_eq(text, "no transactions\n");
	free(text);
	text = status_report(PERFTUNE_REPORT_JSON);
	ck_assert_str_eq(text, "[]\n");
	free(text);

	dead = orphan("orphan", "thp.enabled", "never");
	ck_assert_int_eq(perftune_tx_new(f.ctx, "held", PERFTUNE_TX_HOLD, &held), 0);
	ck_assert_int_ge(perftune_tx_set(held, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_ge(perftune_tx_commit(held), 0);
	fx_write(&f, "proc/sys/vm/swappiness", "33"); /* behind our back */

	text = status_report(0);
	ck_assert_int_gt(asprintf(&want,
				  "held: held pid %d\n"
				  "  sysctl.vm.swappiness: 60 -> 10, now 33 DRIFT - drift: changed "
				  "behind perftune's back\n"
				  "orphan: ORPHANED (holder gone: restore it) pid %d\n"
				  "  thp.enabled: madvise -> never, now never\n",
				  (int)getpid(), (int)dead),
			 0);
	ck_assert_str_eq(text, want);
	free(text);
	free(want);

	text = status_report(PERFTUNE_REPORT_JSON);
	ck_assert_int_gt(
		asprintf(&want,
			 "[\n"
			 "  {\"transaction\": \"held\", \"key\": \"sysctl.vm.swappiness\", "
			 "\"original\": \"60\", \"written\": \"10\", \"current\": \"33\", "
			 "\"pid\": %d, \"held\": true, \"orphaned\": false, \"committed\": true, "
			 "\"drift\": true, \"shadowed\": false, \"gone\": false, \"moved\": false, "
			 "\"hotplug\": false, \"refused\": false, "
			 "\"note\": \"drift: changed behind perftune's back\"},\n"
			 "  {\"transaction\": \"orphan\", \"key\": \"thp.enabled\", "
			 "\"original\": \"madvise\", \"written\": \"never\", \"current\": \"never\", "
			 "\"pid\": %d, \"held\": false, \"orphaned\": true, \"committed\": true, "
			 "\"drift\": false, \"shadowed\": false, \"gone\": false, \"moved\": false, "
			 "\"hotplug\": false, \"refused\": false, \"note\": null}\n"
			 "]\n",
			 (int)getpid(), (int)dead),
		0);
	ck_assert_str_eq(text, want);
	free(text);
	free(want);
	ck_assert_int_ge(perftune_tx_rollback(held), 0);
	perftune_tx_unref(held);
}
END_TEST

START_TEST(status_report_bad_input)
{
	char *text = (char *)"unset";

	ck_assert_int_eq(perftune_status_report(NULL, 0, &text), -EINVAL);
	ck_assert_ptr_null(text);
	ck_assert_int_eq(perftune_status_report(f.ctx, 0, NULL), -EINVAL);
	text = (char *)"unset";
	ck_assert_int_eq(perftune_status_report(f.ctx, 1u << 4, &text), -EINVAL);
	ck_assert_ptr_null(text);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report-tx");
	TCase *tc = tcase_create("tx");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_commit_shows_what_it_wrote);
	tcase_add_test(tc, a_dry_run_shows_what_it_staged);
	tcase_add_test(tc, a_source_that_puts_a_key_back_is_a_warning);
	tcase_add_test(tc, a_profile_shows_what_it_skipped_and_kept);
	tcase_add_test(tc, tx_report_bad_input);
	suite_add_tcase(s, tc);
	tc = tcase_create("status");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, status_shows_held_and_orphaned_transactions);
	tcase_add_test(tc, status_report_bad_input);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { report_suite };
	return harness_main(argc, argv, suites, 1);
}
