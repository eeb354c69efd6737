// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The public objects (lib/object/) through their accessors on the fake
 * machine: a description, a tunable, a change, a status entry, a profile
 * item and entry, and what each accessor gives for NULL and for a field the
 * object does not have.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;
static char profiles[PATH_MAX]; /* $PERFTUNE_PROFILE_PATH: good/ and bad/ */

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX * 2];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", profiles, rel);
	*strrchr(p, '/') = '\0';
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s", profiles, rel);
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
	put("good/tuned.conf", "[main]\n"
			       "summary=A profile for the desc test\n"
			       "\n"
			       "[sysctl]\n"
			       "vm.swappiness=10\n"
			       "\n"
			       "[disk]\n"
			       "devices=nvme0n1\n"
			       "elevator=deadline\n"
			       "\n"
			       "[script]\n"
			       "script=tune.sh\n");
	put("bad/tuned.conf", "summary=no section\n");
	setenv("PERFTUNE_PROFILE_PATH", profiles, 1);
}

static void teardown(void)
{
	fx_teardown(&f);
}

START_TEST(description_path_is_absolute_and_info_lines_are_joined)
{
	struct perftune_desc *d;
	long long hi = 0;

	ck_assert_int_eq(perftune_describe(f.ctx, "block[/dev/sda2].scheduler", &d), 0);
	ck_assert_str_eq(perftune_desc_key(d), "block.sda.scheduler");
	ck_assert_str_eq(perftune_desc_path(d), "/sys/block/sda/queue/scheduler");
	/* the resolution note first, then the family's facts, one "; " between */
	ck_assert_msg(!strncmp(perftune_desc_info(d), "via /dev/sda2; aliases: ", 24), "%s",
		      perftune_desc_info(d));
	ck_assert(!perftune_desc_range(d, NULL, &hi)); /* a selection has no range */
	perftune_desc_free(d);
	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.0.min_khz", &d), 0);
	ck_assert(perftune_desc_range(d, NULL, &hi)); /* either bound may be left out */
	ck_assert_int_eq(hi, 3500000);
	ck_assert_ptr_null(perftune_desc_choices(d));
	ck_assert_ptr_null(perftune_desc_reason(d));
	ck_assert_ptr_null(perftune_desc_unreadable(d));
	perftune_desc_free(d);
}
END_TEST

START_TEST(tunable_of_get_each_has_a_value_or_says_why_not)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	char got[1024] = "";
	size_t o = 0;

	/* nvme0n1 and zram0 have no iosched/ (scheduler none): not here, and why */
	ck_assert_int_eq(perftune_get_each(f.ctx, "block.*.iosched.read_expire", &it), 4);
	while ((t = perftune_tunable_iter_next(it))) {
		unsigned fl = perftune_tunable_flags(t);
		o += (size_t)snprintf(got + o, sizeof(got) - o, "%s=%s%s;", perftune_tunable_key(t),
				      perftune_tunable_value(t) ? perftune_tunable_value(t) : "-",
				      fl & PERFTUNE_TUNABLE_ABSENT ? " absent" : "");
		ck_assert_uint_eq(fl & ~(unsigned)PERFTUNE_TUNABLE_ABSENT, 0);
		if (!perftune_tunable_value(t))
			ck_assert_ptr_nonnull(
				strstr(perftune_tunable_note(t), "not a parameter of"));
	}
	perftune_tunable_iter_free(it);
	ck_assert_str_eq(
		got, "block.dm-1.iosched.read_expire=500;block.nvme0n1.iosched.read_expire=- "
		     "absent;block.sda.iosched.read_expire=500;block.sdb.iosched.read_expire=500;"
		     "block.sdc.iosched.read_expire=500;block.zram0.iosched.read_expire=- absent;");
	/* unreadable, but there: no value, not absent */
	ck_assert_int_eq(perftune_get_each(f.ctx, "sysctl.vm.drop_caches", &it), 0);
	t = perftune_tunable_iter_next(it);
	ck_assert_ptr_null(perftune_tunable_value(t));
	ck_assert_uint_eq(perftune_tunable_flags(t), 0);
	ck_assert_ptr_nonnull(strstr(perftune_tunable_note(t), "write-only trigger"));
	ck_assert_ptr_null(perftune_tunable_iter_next(it));
	ck_assert_ptr_null(perftune_tunable_iter_next(it)); /* and stays at the end */
	perftune_tunable_iter_free(it);
}
END_TEST

START_TEST(change_has_its_old_value_once_known_and_its_flags)
{
	struct perftune_tx *tx;
	struct perftune_change_iter *it;
	const struct perftune_change *c;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "ch", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "block.nvme0n1.scheduler", "deadline"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "60"), 1); /* already */
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	c = perftune_change_iter_next(it);
	ck_assert_str_eq(perftune_change_key(c), "block.nvme0n1.scheduler");
	ck_assert_str_eq(perftune_change_new_value(c), "mq-deadline");
	ck_assert_str_eq(perftune_change_note(c), "from 'deadline'");
	ck_assert_uint_eq(perftune_change_flags(c), 0); /* not committed yet */
	perftune_change_iter_free(it);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	for (int n = 0; n < 2; n++) {
		c = perftune_change_iter_next(it);
		if (!strcmp(perftune_change_key(c), "block.nvme0n1.scheduler")) {
			ck_assert_str_eq(perftune_change_old_value(c), "none");
			ck_assert_uint_eq(perftune_change_flags(c), PERFTUNE_CHANGE_WRITTEN);
		} else {
			ck_assert_str_eq(perftune_change_key(c), "sysctl.vm.swappiness");
			ck_assert_str_eq(perftune_change_old_value(c), "60");
			ck_assert_ptr_null(perftune_change_note(c));
			ck_assert_uint_eq(perftune_change_flags(c), PERFTUNE_CHANGE_UNCHANGED);
		}
	}
	ck_assert_ptr_null(perftune_change_iter_next(it));
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(status_entry_shows_original_written_and_drift)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	struct perftune_tx *tx;
	unsigned want = PERFTUNE_STATUS_WRITTEN | PERFTUNE_STATUS_COMMITTED;

	ck_assert_int_eq(fx_set_one(&f, "st", "sysctl.vm.swappiness", "10"), 1);
	fx_write(&f, "proc/sys/vm/swappiness", "11");
	ck_assert_int_eq(perftune_tx_new(f.ctx, "held", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "thp.enabled", "never"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	for (int n = 0; n < 2; n++) {
		e = perftune_status_iter_next(it);
		ck_assert_ptr_nonnull(e);
		if (!strcmp(perftune_status_entry_tx_name(e), "st")) {
			ck_assert_str_eq(perftune_status_entry_key(e), "sysctl.vm.swappiness");
			ck_assert_str_eq(perftune_status_entry_original(e), "60");
			ck_assert_str_eq(perftune_status_entry_written(e), "10");
			ck_assert_str_eq(perftune_status_entry_current(e), "11");
			ck_assert_uint_eq(perftune_status_entry_flags(e),
					  want | PERFTUNE_STATUS_DRIFT);
			ck_assert_int_eq(perftune_status_entry_pid(e), 0);
		} else {
			ck_assert_str_eq(perftune_status_entry_tx_name(e), "held");
			ck_assert_str_eq(perftune_status_entry_current(e), "never");
			ck_assert_uint_eq(perftune_status_entry_flags(e),
					  want | PERFTUNE_STATUS_HELD);
			ck_assert_int_eq(perftune_status_entry_pid(e), getpid());
		}
	}
	ck_assert_ptr_null(perftune_status_iter_next(it));
	perftune_status_iter_free(it);
	ck_assert_int_ge(perftune_tx_release(tx), 0);
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(profile_item_has_a_skip_reason_or_a_note_never_both)
{
	struct perftune_profile *p;
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *i;
	int n = 0;

	ck_assert_int_eq(perftune_profile_load(f.ctx, "good", NULL, &p), 0);
	ck_assert_int_eq(perftune_profile_items(p, &it), 0);
	while ((i = perftune_profile_item_iter_next(it))) {
		const char *opt = perftune_profile_item_option(i);
		ck_assert_ptr_nonnull(strstr(perftune_profile_item_location(i), "good/tuned.conf:"));
		if (!strcmp(opt, "[sysctl] vm.swappiness")) {
			ck_assert_str_eq(perftune_profile_item_key(i), "sysctl.vm.swappiness");
			ck_assert_str_eq(perftune_profile_item_value(i), "10");
			ck_assert_str_eq(perftune_profile_item_value_as_written(i), "10");
			ck_assert_str_eq(strrchr(perftune_profile_item_location(i), ':'), ":5");
			ck_assert_ptr_null(perftune_profile_item_note(i));
			ck_assert_uint_eq(perftune_profile_item_flags(i), 0);
		} else if (!strcmp(opt, "[disk] elevator")) {
			ck_assert_str_eq(perftune_profile_item_key(i), "block.nvme0n1.scheduler");
			ck_assert_str_eq(perftune_profile_item_value_as_written(i), "deadline");
			ck_assert_str_eq(perftune_profile_item_value(i), "mq-deadline");
			ck_assert_ptr_null(perftune_profile_item_skip_reason(i));
		} else {
			ck_assert_str_eq(opt, "[script] script");
			ck_assert_uint_eq(perftune_profile_item_flags(i),
					  PERFTUNE_PROFILE_ITEM_SKIPPED);
			ck_assert_ptr_nonnull(strstr(perftune_profile_item_skip_reason(i),
						     "never executes anything"));
			ck_assert_ptr_null(
				perftune_profile_item_note(i)); /* the reason, not a note */
			ck_assert_ptr_null(perftune_profile_item_key(i));
		}
		n++;
	}
	perftune_profile_item_iter_free(it);
	ck_assert_int_eq(n, 3);
	perftune_profile_free(p);
}
END_TEST

START_TEST(profile_entry_has_a_summary_or_an_error)
{
	struct perftune_profile_entry_iter *it;
	const struct perftune_profile_entry *e;
	char path[PATH_MAX * 2];

	ck_assert_int_eq(perftune_profile_list(f.ctx, &it), 0);
	e = perftune_profile_entry_iter_next(it);
	ck_assert_str_eq(perftune_profile_entry_name(e), "bad");
	ck_assert_ptr_null(perftune_profile_entry_summary(e));
	ck_assert_ptr_nonnull(strstr(perftune_profile_entry_error(e), "bad/tuned.conf:1:"));
	e = perftune_profile_entry_iter_next(it);
	ck_assert_str_eq(perftune_profile_entry_name(e), "good");
	snprintf(path, sizeof(path), "%s/good/tuned.conf", profiles);
	ck_assert_str_eq(perftune_profile_entry_path(e), path);
	ck_assert_str_eq(perftune_profile_entry_summary(e), "A profile for the desc test");
	ck_assert_ptr_null(perftune_profile_entry_error(e));
	ck_assert_ptr_null(perftune_profile_entry_iter_next(it));
	perftune_profile_entry_iter_free(it);
}
END_TEST

START_TEST(check_has_its_status_and_reason)
{
	static const char *const settings[] = { "sysctl.vm.swappiness=60", "thp.enabled=never",
						NULL };
	struct perftune_check_iter *it;
	const struct perftune_check *c;

	ck_assert_int_eq(perftune_verify(f.ctx, settings, &it), 1);
	c = perftune_check_iter_next(it);
	ck_assert_str_eq(perftune_check_key(c), "sysctl.vm.swappiness");
	ck_assert_int_eq(perftune_check_status(c), PERFTUNE_CHECK_IN_FORCE);
	ck_assert_str_eq(perftune_check_expected(c), "60");
	ck_assert_str_eq(perftune_check_current(c), "60");
	ck_assert_ptr_null(perftune_check_reason(c));
	c = perftune_check_iter_next(it);
	ck_assert_int_eq(perftune_check_status(c), PERFTUNE_CHECK_DIFFERS);
	ck_assert_str_eq(perftune_check_current(c), "madvise");
	ck_assert_ptr_null(perftune_check_iter_next(it));
	perftune_check_iter_free(it);
}
END_TEST

static Suite *desc_suite(void)
{
	Suite *s = suite_create("desc");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_test(tc, description_path_is_absolute_and_info_lines_are_joined);
	tcase_add_test(tc, tunable_of_get_each_has_a_value_or_says_why_not);
	tcase_add_test(tc, profile_item_has_a_skip_reason_or_a_note_never_both);
	tcase_add_test(tc, profile_entry_has_a_summary_or_an_error);
	tcase_add_test(tc, check_has_its_status_and_reason);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, change_has_its_old_value_once_known_and_its_flags);
	tcase_add_test(tc, status_entry_shows_original_written_and_drift);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { desc_suite };
	return harness_main(argc, argv, suites, 1);
}
