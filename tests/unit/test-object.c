// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/object: the typed objects of perftune.h through the public API, on the
 * fake machine: every accessor of each object as its producer fills it (list,
 * get_each, describe, tx changes, status, profile items and entries, why,
 * verify), the iterators to their end, and NULL: accessors and iterators take
 * it without failing or touching errno, the listing calls refuse it with -EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;

/* write @text to @rel below the root, its directories made */
static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f.root, rel);
	for (char *slash = strchr(path + strlen(f.root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s", path);
		*slash = '/';
	}
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
}

/* "ROOT/rel" */
static const char *under_root(const char *rel)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", f.root, rel);
	return path;
}

static void setup(void)
{
	fx_setup(&f);
	put("profiles/x/tuned.conf", "[main]\n"
				     "summary=Objects under test\n"
				     "\n"
				     "[sysctl]\n"
				     "vm.swappiness=10\n"
				     "\n"
				     "[disk]\n"
				     "devices=sda\n"
				     "readahead=>64\n"
				     "\n"
				     "[script]\n"
				     "script=foo.sh\n");
	put("profiles/bad/tuned.conf", "summary=before any section\n");
	put("etc/sysctl.d/90-x.conf", "vm.swappiness = 30\n");
}

static void teardown(void)
{
	fx_teardown(&f);
}

/* @s contains @part */
static void assert_has(const char *s, const char *part)
{
	ck_assert_ptr_nonnull(s);
	ck_assert_msg(strstr(s, part), "'%s' lacks '%s'", s, part);
}

/* ---- struct perftune_tunable ---- */

START_TEST(tunable_of_list_is_key_value_and_read_only)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;

	ck_assert_int_eq(perftune_list(f.ctx, "sysctl.kernel.ostype", &it), 0);
	t = perftune_tunable_iter_next(it);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(perftune_tunable_key(t), "sysctl.kernel.ostype");
	ck_assert_str_eq(perftune_tunable_value(t), "Linux");
	ck_assert_ptr_null(perftune_tunable_note(t));
	ck_assert_uint_eq(perftune_tunable_flags(t), PERFTUNE_TUNABLE_READONLY);
	ck_assert_ptr_null(perftune_tunable_iter_next(it));
	ck_assert_ptr_null(perftune_tunable_iter_next(it)); /* the end stays the end */
	perftune_tunable_iter_free(it);
}
END_TEST

START_TEST(tunables_of_list_are_in_key_order_numbers_by_value)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	char prev[PERFTUNE_KEY_MAX] = "";
	int n = 0, writable = 0;

	ck_assert_int_eq(perftune_list(f.ctx, "block.", &it), 0);
	while ((t = perftune_tunable_iter_next(it))) {
		ck_assert_msg(strverscmp(prev, perftune_tunable_key(t)) < 0, "'%s' after '%s'",
			      perftune_tunable_key(t), prev);
		snprintf(prev, sizeof(prev), "%s", perftune_tunable_key(t));
		writable += !(perftune_tunable_flags(t) & PERFTUNE_TUNABLE_READONLY);
		n++;
	}
	ck_assert_int_gt(n, 10);
	ck_assert_int_gt(writable, 0);
	perftune_tunable_iter_free(it);
}
END_TEST

START_TEST(tunables_of_get_each_say_unreadable_and_absent)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;

	/* a write-only file: there, unreadable; not ABSENT */
	ck_assert_int_eq(perftune_get_each(f.ctx, "sysctl.vm.drop_caches", &it), 0);
	t = perftune_tunable_iter_next(it);
	ck_assert_str_eq(perftune_tunable_key(t), "sysctl.vm.drop_caches");
	ck_assert_ptr_null(perftune_tunable_value(t));
	assert_has(perftune_tunable_note(t), "write-only");
	ck_assert_uint_eq(perftune_tunable_flags(t), 0);
	ck_assert_ptr_null(perftune_tunable_iter_next(it));
	perftune_tunable_iter_free(it);

	/* the scheduler of nvme0n1 and zram0 has no read_expire: ABSENT, the note says why */
	ck_assert_int_eq(perftune_get_each(f.ctx, "block.*.iosched.read_expire", &it), 4);
	while ((t = perftune_tunable_iter_next(it))) {
		const char *key = perftune_tunable_key(t);
		if (!strcmp(key, "block.nvme0n1.iosched.read_expire") ||
		    !strcmp(key, "block.zram0.iosched.read_expire")) {
			ck_assert_ptr_null(perftune_tunable_value(t));
			assert_has(perftune_tunable_note(t), "not a parameter");
			ck_assert_uint_eq(perftune_tunable_flags(t), PERFTUNE_TUNABLE_ABSENT);
		} else {
			ck_assert_str_eq(perftune_tunable_value(t), "500");
			ck_assert_uint_eq(perftune_tunable_flags(t), 0);
		}
		/* sdb is reached through dm-0: the note says how the key resolved */
		if (!strcmp(key, "block.sdb.iosched.read_expire"))
			assert_has(perftune_tunable_note(t), "via dm-0");
		if (!strcmp(key, "block.sda.iosched.read_expire"))
			ck_assert_ptr_null(perftune_tunable_note(t));
	}
	perftune_tunable_iter_free(it);
}
END_TEST

/* ---- struct perftune_desc ---- */

START_TEST(desc_of_a_choice)
{
	struct perftune_desc *d;
	long long min = -1, max = -1;

	ck_assert_int_eq(perftune_describe(f.ctx, "thp.enabled", &d), 0);
	ck_assert_str_eq(perftune_desc_key(d), "thp.enabled");
	ck_assert_str_eq(perftune_desc_value(d), "madvise");
	ck_assert_str_eq(perftune_desc_path(d), "/sys/kernel/mm/transparent_hugepage/enabled");
	ck_assert_str_eq(perftune_desc_choices(d), "always madvise never");
	ck_assert_ptr_null(perftune_desc_unit(d));
	ck_assert_ptr_null(perftune_desc_reason(d));
	ck_assert_ptr_null(perftune_desc_unreadable(d));
	ck_assert(perftune_desc_writable(d));
	ck_assert(!perftune_desc_range(d, &min, &max));
	/* no info but, on a kernel without openat2 (the oldkernel tier), how paths resolve */
	ck_assert_msg(!perftune_desc_info(d) || strstr(perftune_desc_info(d), "openat2"),
		      "info '%s'", perftune_desc_info(d));
	ck_assert(min == -1 && max == -1);
	perftune_desc_free(d);
}
END_TEST

START_TEST(desc_of_a_number_with_range_unit_and_info)
{
	struct perftune_desc *d;
	long long min = -1, max = -1;

	ck_assert_int_eq(perftune_describe(f.ctx, "hugepages.nr", &d), 0);
	ck_assert_str_eq(perftune_desc_value(d), "0");
	ck_assert_str_eq(perftune_desc_path(d), "/proc/sys/vm/nr_hugepages");
	ck_assert_str_eq(perftune_desc_unit(d), "pages");
	ck_assert(perftune_desc_range(d, &min, &max));
	ck_assert(min == 0 && max == 2147483648LL);
	ck_assert(perftune_desc_range(d, NULL, NULL)); /* either bound may be NULL */
	ck_assert_ptr_null(perftune_desc_choices(d));
	perftune_desc_free(d);

	/* info lines, joined by "; " */
	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.0.idle.C1E.disable", &d), 0);
	ck_assert_msg(!strncmp(perftune_desc_info(d),
			       "exit latency 10 us; kernel name 'C1E' (state2)", 46),
		      "info '%s'", perftune_desc_info(d));
	perftune_desc_free(d);
}
END_TEST

START_TEST(desc_of_read_only_and_unreadable)
{
	struct perftune_desc *d;

	ck_assert_int_eq(perftune_describe(f.ctx, "sysctl.kernel.ostype", &d), 0);
	ck_assert_str_eq(perftune_desc_value(d), "Linux");
	ck_assert(!perftune_desc_writable(d));
	assert_has(perftune_desc_reason(d), "read-only");
	perftune_desc_free(d);

	ck_assert_int_eq(perftune_describe(f.ctx, "sysctl.vm.drop_caches", &d), 0);
	ck_assert_ptr_null(perftune_desc_value(d));
	ck_assert_str_eq(perftune_desc_unreadable(d), "write-only trigger");
	ck_assert(perftune_desc_writable(d));
	ck_assert_ptr_null(perftune_desc_reason(d));
	perftune_desc_free(d);
}
END_TEST

/* ---- struct perftune_change ---- */

START_TEST(changes_before_and_after_commit)
{
	struct perftune_tx *tx;
	struct perftune_change_iter *it;
	const struct perftune_change *c;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "obj", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "thp.enabled", "never"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.scheduler", "deadline"), 1);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	c = perftune_change_iter_next(it);
	ck_assert_str_eq(perftune_change_key(c), "thp.enabled");
	ck_assert_str_eq(perftune_change_old_value(c), "madvise"); /* read when staged */
	ck_assert_str_eq(perftune_change_new_value(c), "never");
	ck_assert_ptr_null(perftune_change_note(c));
	ck_assert_uint_eq(perftune_change_flags(c), 0);
	c = perftune_change_iter_next(it);
	ck_assert_str_eq(perftune_change_key(c), "block.sda.scheduler");
	ck_assert_str_eq(perftune_change_new_value(c), "mq-deadline"); /* the alias mapped */
	ck_assert_str_eq(perftune_change_note(c), "from 'deadline'");
	ck_assert_uint_eq(perftune_change_flags(c), 0); /* unchanged is the commit's to say */
	ck_assert_ptr_null(perftune_change_iter_next(it));
	perftune_change_iter_free(it);

	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	c = perftune_change_iter_next(it);
	ck_assert_str_eq(perftune_change_old_value(c), "madvise");
	ck_assert_uint_eq(perftune_change_flags(c), PERFTUNE_CHANGE_WRITTEN);
	c = perftune_change_iter_next(it);
	ck_assert_str_eq(perftune_change_old_value(c), "mq-deadline");
	ck_assert_uint_eq(perftune_change_flags(c), PERFTUNE_CHANGE_UNCHANGED);
	perftune_change_iter_free(it);
	ck_assert_int_eq(perftune_tx_release(tx), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_restore(f.ctx, "obj", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/kernel/mm/transparent_hugepage/enabled"),
			 "always [madvise] never");
}
END_TEST

/* ---- struct perftune_status_entry and struct perftune_source ---- */

START_TEST(status_of_a_held_transaction_then_drift)
{
	struct perftune_tx *tx;
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	const unsigned held =
		PERFTUNE_STATUS_HELD | PERFTUNE_STATUS_COMMITTED | PERFTUNE_STATUS_WRITTEN;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "held", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx); /* the journal stays, held by this process */

	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	e = perftune_status_iter_next(it);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(perftune_status_entry_tx_name(e), "held");
	ck_assert_str_eq(perftune_status_entry_key(e), "sysctl.vm.swappiness");
	ck_assert_str_eq(perftune_status_entry_original(e), "60");
	ck_assert_str_eq(perftune_status_entry_written(e), "10");
	ck_assert_str_eq(perftune_status_entry_current(e), "10");
	ck_assert_ptr_null(perftune_status_entry_note(e));
	ck_assert_uint_eq(perftune_status_entry_flags(e), held);
	ck_assert_int_eq(perftune_status_entry_pid(e), getpid());
	ck_assert_ptr_null(perftune_status_iter_next(it));
	perftune_status_iter_free(it);

	fx_write(&f, "proc/sys/vm/swappiness", "33");
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	e = perftune_status_iter_next(it);
	ck_assert_str_eq(perftune_status_entry_current(e), "33");
	ck_assert_uint_eq(perftune_status_entry_flags(e), held | PERFTUNE_STATUS_DRIFT);
	assert_has(perftune_status_entry_note(e), "drift");
	perftune_status_iter_free(it);

	ck_assert_int_eq(perftune_restore(f.ctx, "held", 0), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

START_TEST(status_of_an_unreadable_journal_names_it)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	char path[PATH_MAX + 32];
	FILE *fp;

	ck_assert_int_eq(mkdir(f.jdir, 0700), 0);
	snprintf(path, sizeof(path), "%s/j.journal", f.jdir);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("perftune-journal 9\nname j\n", fp);
	fclose(fp);
	chmod(path, 0600);
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	e = perftune_status_iter_next(it);
	ck_assert_str_eq(perftune_status_entry_tx_name(e), "j");
	ck_assert_str_eq(perftune_status_entry_key(e), "");
	ck_assert_ptr_null(perftune_status_entry_original(e));
	ck_assert_ptr_null(perftune_status_entry_written(e));
	ck_assert_ptr_null(perftune_status_entry_current(e));
	assert_has(perftune_status_entry_note(e), "unknown format");
	ck_assert_uint_eq(perftune_status_entry_flags(e), 0);
	ck_assert_int_eq(perftune_status_entry_pid(e), 0);
	perftune_status_iter_free(it);
}
END_TEST

START_TEST(sources_of_a_file_and_a_held_transaction)
{
	struct perftune_tx *tx;
	struct perftune_source_iter *it;
	const struct perftune_source *s;

	ck_assert_int_eq(perftune_why(f.ctx, "sysctl.vm.swappiness", NULL, &it), 1);
	s = perftune_source_iter_next(it);
	ck_assert_str_eq(perftune_source_kind(s), "sysctl.d");
	ck_assert_str_eq(perftune_source_key(s), "sysctl.vm.swappiness");
	ck_assert_str_eq(perftune_source_location(s), "/etc/sysctl.d/90-x.conf:1");
	ck_assert_str_eq(perftune_source_value(s), "30");
	assert_has(perftune_source_note(s), "at boot");
	ck_assert_uint_eq(perftune_source_flags(s), PERFTUNE_SOURCE_WINS |
							    PERFTUNE_SOURCE_PERSISTENT |
							    PERFTUNE_SOURCE_DIFFERS);
	ck_assert_int_eq(perftune_source_pid(s), 0);
	ck_assert_ptr_null(perftune_source_iter_next(it));
	perftune_source_iter_free(it);

	ck_assert_int_eq(perftune_tx_new(f.ctx, "mine", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "30"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_why(f.ctx, "sysctl.vm.swappiness", NULL, &it), 2);
	perftune_source_iter_next(it);
	s = perftune_source_iter_next(it);
	ck_assert_str_eq(perftune_source_kind(s), "transaction");
	ck_assert_str_eq(perftune_source_location(s), "mine");
	ck_assert_str_eq(perftune_source_value(s), "30");
	ck_assert_int_eq(perftune_source_pid(s), getpid());
	ck_assert(perftune_source_flags(s) & PERFTUNE_SOURCE_WINS);
	perftune_source_iter_free(it);
	ck_assert_int_eq(perftune_restore(f.ctx, "mine", 0), 1);
}
END_TEST

/* ---- struct perftune_check ---- */

START_TEST(checks_of_settings)
{
	const char *const settings[] = { "sysctl.vm.swappiness=60", "sysctl.vm.dirty_ratio=35",
					 "block.sdz.scheduler=none", NULL };
	struct perftune_check_iter *it;
	const struct perftune_check *c;

	ck_assert_int_eq(perftune_verify(f.ctx, settings, &it), 1);
	c = perftune_check_iter_next(it);
	ck_assert_str_eq(perftune_check_key(c), "sysctl.vm.swappiness");
	ck_assert_str_eq(perftune_check_expected(c), "60");
	ck_assert_str_eq(perftune_check_current(c), "60");
	ck_assert_ptr_null(perftune_check_reason(c));
	ck_assert_ptr_null(perftune_check_origin(c));
	ck_assert_int_eq(perftune_check_status(c), PERFTUNE_CHECK_IN_FORCE);
	c = perftune_check_iter_next(it);
	ck_assert_str_eq(perftune_check_current(c), "20");
	assert_has(perftune_check_reason(c), "now 20, expected 35");
	ck_assert_int_eq(perftune_check_status(c), PERFTUNE_CHECK_DIFFERS);
	c = perftune_check_iter_next(it);
	ck_assert_str_eq(perftune_check_key(c), "block.sdz.scheduler");
	ck_assert_str_eq(perftune_check_expected(c), "none");
	ck_assert_ptr_null(perftune_check_current(c));
	assert_has(perftune_check_reason(c), "no such block device");
	ck_assert_int_eq(perftune_check_status(c), PERFTUNE_CHECK_NOT_HERE);
	ck_assert_ptr_null(perftune_check_iter_next(it));
	perftune_check_iter_free(it);
}
END_TEST

/* ---- struct perftune_profile_item, struct perftune_profile_entry; checks' origins ---- */

START_TEST(profile_items_applied_kept_and_skipped)
{
	struct perftune_profile *p;
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *i;
	char where[PATH_MAX + 8];

	ck_assert_msg(perftune_profile_load(f.ctx, under_root("profiles/x/tuned.conf"), NULL, &p) ==
			      0,
		      "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(perftune_profile_items(p, &it), 0);
	i = perftune_profile_item_iter_next(it);
	ck_assert_str_eq(perftune_profile_item_option(i), "[sysctl] vm.swappiness");
	ck_assert_str_eq(perftune_profile_item_value_as_written(i), "10");
	ck_assert_str_eq(perftune_profile_item_key(i), "sysctl.vm.swappiness");
	ck_assert_str_eq(perftune_profile_item_value(i), "10");
	snprintf(where, sizeof(where), "%s:5", under_root("profiles/x/tuned.conf"));
	ck_assert_str_eq(perftune_profile_item_location(i), where);
	ck_assert_ptr_null(perftune_profile_item_skip_reason(i));
	ck_assert_ptr_null(perftune_profile_item_note(i));
	ck_assert_uint_eq(perftune_profile_item_flags(i), 0);

	/* a condition the machine meets: kept as it is, the note says so */
	i = perftune_profile_item_iter_next(it);
	ck_assert_str_eq(perftune_profile_item_option(i), "[disk] readahead");
	ck_assert_str_eq(perftune_profile_item_value_as_written(i), ">64");
	ck_assert_str_eq(perftune_profile_item_key(i), "block.sda.read_ahead_kb");
	ck_assert_str_eq(perftune_profile_item_value(i), "128");
	assert_has(perftune_profile_item_note(i), "already >= 64");
	ck_assert_ptr_null(perftune_profile_item_skip_reason(i));
	ck_assert_uint_eq(perftune_profile_item_flags(i), PERFTUNE_PROFILE_ITEM_UNCHANGED);

	/* skipped: the reason is the skip reason, never the note */
	i = perftune_profile_item_iter_next(it);
	ck_assert_str_eq(perftune_profile_item_option(i), "[script] script");
	ck_assert_str_eq(perftune_profile_item_value_as_written(i), "foo.sh");
	ck_assert_ptr_null(perftune_profile_item_key(i));
	ck_assert_ptr_null(perftune_profile_item_value(i));
	assert_has(perftune_profile_item_skip_reason(i), "never executes");
	ck_assert_ptr_null(perftune_profile_item_note(i));
	ck_assert_uint_eq(perftune_profile_item_flags(i), PERFTUNE_PROFILE_ITEM_SKIPPED);
	ck_assert_ptr_null(perftune_profile_item_iter_next(it));
	perftune_profile_item_iter_free(it);
	perftune_profile_free(p);
}
END_TEST

START_TEST(checks_of_a_profile_name_their_origin)
{
	struct perftune_profile *p;
	struct perftune_check_iter *it;
	const struct perftune_check *c;
	char where[PATH_MAX + 8];

	ck_assert_int_eq(perftune_profile_load(f.ctx, under_root("profiles/x/tuned.conf"), NULL, &p),
			 0);
	ck_assert_int_eq(perftune_verify_profile(p, &it), 1);
	c = perftune_check_iter_next(it);
	snprintf(where, sizeof(where), "%s:5", under_root("profiles/x/tuned.conf"));
	ck_assert_str_eq(perftune_check_origin(c), where);
	ck_assert_int_eq(perftune_check_status(c), PERFTUNE_CHECK_DIFFERS);
	perftune_check_iter_next(it);
	c = perftune_check_iter_next(it);
	ck_assert_str_eq(perftune_check_key(c), "[script] script"); /* no key: the option */
	ck_assert_str_eq(perftune_check_expected(c), "foo.sh");
	ck_assert_ptr_null(perftune_check_current(c));
	ck_assert_int_eq(perftune_check_status(c), PERFTUNE_CHECK_SKIPPED);
	ck_assert_str_eq(perftune_check_status_name(perftune_check_status(c)), "skipped");
	perftune_check_iter_free(it);
	perftune_profile_free(p);
}
END_TEST

START_TEST(profile_entries_readable_and_not)
{
	struct perftune_profile_entry_iter *it;
	const struct perftune_profile_entry *e;
	char path[PATH_MAX];

	ck_assert_int_eq(setenv("PERFTUNE_PROFILE_PATH", under_root("profiles"), 1), 0);
	ck_assert_int_eq(perftune_profile_list(f.ctx, &it), 0);
	unsetenv("PERFTUNE_PROFILE_PATH");
	e = perftune_profile_entry_iter_next(it);
	ck_assert_str_eq(perftune_profile_entry_name(e), "bad");
	ck_assert_str_eq(perftune_profile_entry_path(e), under_root("profiles/bad/tuned.conf"));
	ck_assert_ptr_null(perftune_profile_entry_summary(e));
	assert_has(perftune_profile_entry_error(e), "before the first [section]");
	e = perftune_profile_entry_iter_next(it);
	ck_assert_str_eq(perftune_profile_entry_name(e), "x");
	snprintf(path, sizeof(path), "%s", under_root("profiles/x/tuned.conf"));
	ck_assert_str_eq(perftune_profile_entry_path(e), path);
	ck_assert_str_eq(perftune_profile_entry_summary(e), "Objects under test");
	ck_assert_ptr_null(perftune_profile_entry_error(e));
	ck_assert_ptr_null(perftune_profile_entry_iter_next(it));
	perftune_profile_entry_iter_free(it);
}
END_TEST

/* ---- NULL ---- */

START_TEST(accessors_take_null_and_leave_errno)
{
	long long min = 7, max = 7;

	errno = EXDEV;
	ck_assert_ptr_null(perftune_tunable_key(NULL));
	ck_assert_ptr_null(perftune_tunable_value(NULL));
	ck_assert_ptr_null(perftune_tunable_note(NULL));
	ck_assert_uint_eq(perftune_tunable_flags(NULL), 0);
	ck_assert_ptr_null(perftune_desc_key(NULL));
	ck_assert_ptr_null(perftune_desc_value(NULL));
	ck_assert_ptr_null(perftune_desc_path(NULL));
	ck_assert_ptr_null(perftune_desc_choices(NULL));
	ck_assert_ptr_null(perftune_desc_unit(NULL));
	ck_assert_ptr_null(perftune_desc_reason(NULL));
	ck_assert_ptr_null(perftune_desc_info(NULL));
	ck_assert_ptr_null(perftune_desc_unreadable(NULL));
	ck_assert(!perftune_desc_writable(NULL));
	ck_assert(!perftune_desc_range(NULL, &min, &max));
	ck_assert(min == 7 && max == 7);
	ck_assert_ptr_null(perftune_change_key(NULL));
	ck_assert_ptr_null(perftune_change_old_value(NULL));
	ck_assert_ptr_null(perftune_change_new_value(NULL));
	ck_assert_ptr_null(perftune_change_note(NULL));
	ck_assert_uint_eq(perftune_change_flags(NULL), 0);
	ck_assert_ptr_null(perftune_status_entry_tx_name(NULL));
	ck_assert_ptr_null(perftune_status_entry_key(NULL));
	ck_assert_ptr_null(perftune_status_entry_original(NULL));
	ck_assert_ptr_null(perftune_status_entry_written(NULL));
	ck_assert_ptr_null(perftune_status_entry_current(NULL));
	ck_assert_ptr_null(perftune_status_entry_note(NULL));
	ck_assert_uint_eq(perftune_status_entry_flags(NULL), 0);
	ck_assert_int_eq(perftune_status_entry_pid(NULL), 0);
	ck_assert_ptr_null(perftune_profile_item_option(NULL));
	ck_assert_ptr_null(perftune_profile_item_value_as_written(NULL));
	ck_assert_ptr_null(perftune_profile_item_key(NULL));
	ck_assert_ptr_null(perftune_profile_item_value(NULL));
	ck_assert_ptr_null(perftune_profile_item_location(NULL));
	ck_assert_ptr_null(perftune_profile_item_skip_reason(NULL));
	ck_assert_ptr_null(perftune_profile_item_note(NULL));
	ck_assert_uint_eq(perftune_profile_item_flags(NULL), 0);
	ck_assert_ptr_null(perftune_profile_entry_name(NULL));
	ck_assert_ptr_null(perftune_profile_entry_path(NULL));
	ck_assert_ptr_null(perftune_profile_entry_summary(NULL));
	ck_assert_ptr_null(perftune_profile_entry_error(NULL));
	ck_assert_ptr_null(perftune_source_kind(NULL));
	ck_assert_ptr_null(perftune_source_key(NULL));
	ck_assert_ptr_null(perftune_source_location(NULL));
	ck_assert_ptr_null(perftune_source_value(NULL));
	ck_assert_ptr_null(perftune_source_note(NULL));
	ck_assert_uint_eq(perftune_source_flags(NULL), 0);
	ck_assert_int_eq(perftune_source_pid(NULL), 0);
	ck_assert_ptr_null(perftune_check_key(NULL));
	ck_assert_ptr_null(perftune_check_expected(NULL));
	ck_assert_ptr_null(perftune_check_current(NULL));
	ck_assert_ptr_null(perftune_check_reason(NULL));
	ck_assert_ptr_null(perftune_check_origin(NULL));
	ck_assert_int_eq(perftune_check_status(NULL), PERFTUNE_CHECK_NOT_HERE);
	ck_assert_ptr_null(perftune_check_status_name(-1));
	ck_assert_ptr_null(perftune_ctx_get_root(NULL));
	ck_assert_ptr_null(perftune_ctx_get_journal_dir(NULL));
	ck_assert_int_eq(errno, EXDEV);
}
END_TEST

START_TEST(iterators_take_null_and_leave_errno)
{
	errno = EXDEV;
	ck_assert_ptr_null(perftune_tunable_iter_next(NULL));
	ck_assert_ptr_null(perftune_change_iter_next(NULL));
	ck_assert_ptr_null(perftune_status_iter_next(NULL));
	ck_assert_ptr_null(perftune_profile_item_iter_next(NULL));
	ck_assert_ptr_null(perftune_profile_entry_iter_next(NULL));
	ck_assert_ptr_null(perftune_source_iter_next(NULL));
	ck_assert_ptr_null(perftune_check_iter_next(NULL));
	perftune_tunable_iter_free(NULL);
	perftune_change_iter_free(NULL);
	perftune_status_iter_free(NULL);
	perftune_profile_item_iter_free(NULL);
	perftune_profile_entry_iter_free(NULL);
	perftune_source_iter_free(NULL);
	perftune_check_iter_free(NULL);
	perftune_desc_free(NULL);
	ck_assert_int_eq(errno, EXDEV);
}
END_TEST

START_TEST(producers_refuse_null_with_einval)
{
	struct perftune_tunable_iter *ti = NULL;
	struct perftune_change_iter *ci = NULL;
	struct perftune_status_iter *si = NULL;
	struct perftune_profile_item_iter *pi = NULL;
	struct perftune_profile_entry_iter *pe = NULL;
	struct perftune_source_iter *so = NULL;
	struct perftune_check_iter *ck = NULL;
	struct perftune_desc *d = NULL;
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_list(NULL, "", &ti), -EINVAL);
	ck_assert_int_eq(perftune_list(f.ctx, "", NULL), -EINVAL);
	ck_assert_int_eq(perftune_get_each(NULL, "thp.enabled", &ti), -EINVAL);
	ck_assert_int_eq(perftune_get_each(f.ctx, "thp.enabled", NULL), -EINVAL);
	ck_assert_ptr_null(ti);
	ck_assert_int_eq(perftune_describe(NULL, "thp.enabled", &d), -EINVAL);
	ck_assert_ptr_null(d);
	ck_assert_int_eq(perftune_tx_changes(NULL, &ci), -EINVAL);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "n", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_changes(tx, NULL), -EINVAL);
	perftune_tx_unref(tx);
	ck_assert_ptr_null(ci);
	ck_assert_int_eq(perftune_status(NULL, &si), -EINVAL);
	ck_assert_int_eq(perftune_status(f.ctx, NULL), -EINVAL);
	ck_assert_ptr_null(si);
	ck_assert_int_eq(perftune_profile_items(NULL, &pi), -EINVAL);
	ck_assert_ptr_null(pi);
	ck_assert_int_eq(perftune_profile_list(NULL, &pe), -EINVAL);
	ck_assert_int_eq(perftune_profile_list(f.ctx, NULL), -EINVAL);
	ck_assert_ptr_null(pe);
	ck_assert_int_eq(perftune_why(NULL, "thp.enabled", NULL, &so), -EINVAL);
	ck_assert_int_eq(perftune_why(f.ctx, "thp.enabled", NULL, NULL), -EINVAL);
	ck_assert_ptr_null(so);
	ck_assert_int_eq(perftune_verify(NULL, NULL, &ck), -EINVAL);
	ck_assert_int_eq(perftune_verify_profile(NULL, &ck), -EINVAL);
	ck_assert_ptr_null(ck);
}
END_TEST

START_TEST(context_paths_read_back)
{
	char dir[PATH_MAX + 8];

	ck_assert_str_eq(perftune_ctx_get_root(f.ctx), f.root);
	ck_assert_int_eq(perftune_ctx_set_root(f.ctx, "relative"), -EINVAL);
	assert_has(perftune_ctx_last_error(f.ctx), "not an absolute path");
	ck_assert_int_eq(perftune_ctx_set_root(NULL, "/"), -EINVAL);
	ck_assert_str_eq(perftune_ctx_get_root(f.ctx), f.root); /* kept */
	snprintf(dir, sizeof(dir), "%s/other", f.jdir);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(f.ctx, dir), 0);
	ck_assert_str_eq(perftune_ctx_get_journal_dir(f.ctx), dir);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(f.ctx, NULL), -EINVAL);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(NULL, dir), -EINVAL);
	ck_assert_str_eq(perftune_ctx_get_journal_dir(f.ctx), dir);
}
END_TEST

static Suite *object_suite(void)
{
	Suite *s = suite_create("object");
	TCase *tc = tcase_create("object");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tunable_of_list_is_key_value_and_read_only);
	tcase_add_test(tc, tunables_of_list_are_in_key_order_numbers_by_value);
	tcase_add_test(tc, tunables_of_get_each_say_unreadable_and_absent);
	tcase_add_test(tc, desc_of_a_choice);
	tcase_add_test(tc, desc_of_a_number_with_range_unit_and_info);
	tcase_add_test(tc, desc_of_read_only_and_unreadable);
	tcase_add_test(tc, changes_before_and_after_commit);
	tcase_add_test(tc, status_of_a_held_transaction_then_drift);
	tcase_add_test(tc, status_of_an_unreadable_journal_names_it);
	tcase_add_test(tc, sources_of_a_file_and_a_held_transaction);
	tcase_add_test(tc, checks_of_settings);
	tcase_add_test(tc, profile_items_applied_kept_and_skipped);
	tcase_add_test(tc, checks_of_a_profile_name_their_origin);
	tcase_add_test(tc, profile_entries_readable_and_not);
	tcase_add_test(tc, accessors_take_null_and_leave_errno);
	tcase_add_test(tc, iterators_take_null_and_leave_errno);
	tcase_add_test(tc, producers_refuse_null_with_einval);
	tcase_add_test(tc, context_paths_read_back);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { object_suite };
	return harness_main(argc, argv, suites, 1);
}
