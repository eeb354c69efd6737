// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_tx_replace() against the simulated kernel: keys shared, only in
 * the replaced transaction, only in the new one; a fault and a kill at every
 * write on the three write strategies; the state between the two steps of a
 * renaming journal swap; holders in this process and in another.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

#define SWAPPINESS "proc/sys/vm/swappiness"
#define DIRTY "proc/sys/vm/dirty_ratio"
#define Q(d, a) "sys/devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:" d "/queue/" a
#define SDA_SCHED Q("0/block/sda", "scheduler")
#define SDA_RA Q("0/block/sda", "read_ahead_kb")
#define SDB_NR Q("1/block/sdb", "nr_requests")

/* the replaced transaction: two keys it shares with the new one, one only it has */
static const char *const old_kv[][2] = {
	{ "sysctl.vm.swappiness", "10" },
	{ "sysctl.vm.dirty_ratio", "40" },
	{ "block.sda.scheduler", "bfq" },
};
/* the new one: the shared keys to other values, a key of its own on each kind */
static const char *const new_kv[][2] = {
	{ "sysctl.vm.swappiness", "20" },
	{ "sysctl.vm.dirty_ratio", "30" },
	{ "block.sda.read_ahead_kb", "512" },
	{ "block.sdb.nr_requests", "32" },
};
#define COMMIT_WRITES 4 /* the new values */
#define ALL_WRITES 5	/* and sda's scheduler given back */

static const char *const strategy_name[] = { "serial", "waves", "threads" };

static int strategy_of(int i, int writes)
{
	fx_strategy(i / writes);
	return i % writes + 1;
}

static struct perftune_tx *staged_tx(const char *name, const char *const (*kv)[2], size_t n,
				     unsigned flags)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, name, flags, &tx), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(perftune_tx_set(tx, kv[i][0], kv[i][1]) >= 1, "%s: %s", kv[i][0],
			      perftune_ctx_last_error(f.ctx));
	return tx;
}

/* the replaced transaction committed (held by this process with @hold, kept in *@keep) */
static void commit_old(unsigned flags, struct perftune_tx **keep)
{
	struct perftune_tx *tx = staged_tx("old", old_kv, ARRAY_SIZE(old_kv), flags);

	ck_assert_msg(perftune_tx_commit(tx) == 3, "%s", perftune_ctx_last_error(f.ctx));
	if (keep)
		*keep = tx;
	else
		perftune_tx_unref(tx);
}

/* NEW replacing "old": the commit's result (the handle in *@keep, if asked) */
static int replace(const char *name, unsigned flags, struct perftune_tx **keep)
{
	struct perftune_tx *tx = staged_tx(name, new_kv, ARRAY_SIZE(new_kv), flags);
	int r = perftune_tx_replace(tx, "old");

	ck_assert_msg(r == 0, "replace: %d %s", r, perftune_ctx_last_error(f.ctx));
	r = perftune_tx_commit(tx);
	if (keep && r >= 0)
		*keep = tx;
	else
		perftune_tx_unref(tx);
	return r;
}

static void assert_same(struct snap *want, const char *when)
{
	struct snap *now = snap_take(f.root);
	char *d = snap_diff(want, now);

	ck_assert_msg(d == NULL, "%s: machine differs: %s", when, d);
	snap_free(now);
}

/* the machine back at @before with no journal left (@before freed) */
static void assert_originals(struct snap *before, const char *when)
{
	assert_same(before, when);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}

static void assert_new_values(void)
{
	ck_assert_str_eq(fx_read(&f, SWAPPINESS), "20");
	ck_assert_str_eq(fx_read(&f, DIRTY), "30");
	ck_assert_str_eq(fx_read(&f, SDA_RA), "512");
	ck_assert_str_eq(fx_read(&f, SDB_NR), "32");
}

static bool journal_exists(const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s.journal", f.jdir, name);
	return access(p, F_OK) == 0;
}

/* shared keys change, new ones are written, old-only ones go back; restore: the originals */
START_TEST(replace_keeps_shared_gives_back_old_only_and_restores_originals)
{
	struct snap *before = snap_take(f.root);
	struct perftune_change_iter *it;
	const struct perftune_change *c;
	struct perftune_tx *tx;
	const char *sched = NULL;
	int given = 0;

	commit_old(0, NULL);
	f.sim.writes = 0;
	ck_assert_int_eq(replace(_i ? "old" : "new", 0, &tx), COMMIT_WRITES);
	ck_assert_int_eq(f.sim.writes, ALL_WRITES);
	assert_new_values();
	ck_assert_str_eq(fx_read(&f, SDA_SCHED), "[mq-deadline] kyber bfq none");
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	while ((c = perftune_change_iter_next(it)))
		if (perftune_change_flags(c) & PERFTUNE_CHANGE_GIVEN_BACK) {
			given++;
			ck_assert_str_eq(perftune_change_key(c), "block.sda.scheduler");
			sched = perftune_change_old_value(c);
			ck_assert_str_eq(sched, "bfq");
		}
	perftune_change_iter_free(it);
	ck_assert_int_eq(given, 1);
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 1);
	ck_assert(journal_exists(_i ? "old" : "new"));
	/* the shared keys' originals came along: the originals, not "old"'s values */
	ck_assert_int_eq(perftune_restore(f.ctx, _i ? "old" : "new", 0), COMMIT_WRITES);
	assert_originals(before, "after the restore");
}
END_TEST

/* a fault at each write of the new values: back to "old", which stays as it was */
START_TEST(replace_fault_at_every_write_leaves_old_in_force)
{
	struct snap *before = snap_take(f.root), *applied;
	int at;

	commit_old(0, NULL);
	applied = snap_take(f.root);
	f.sim.writes = 0;
	at = f.sim.fault_at = strategy_of(_i, COMMIT_WRITES);
	ck_assert_msg(replace("new", 0, NULL) == -EIO, "%s, fault at %d: %s",
		      strategy_name[_i / COMMIT_WRITES], at, perftune_ctx_last_error(f.ctx));
	f.sim.fault_at = 0;
	assert_same(applied, "after the failed replace");
	ck_assert(journal_exists("old"));
	ck_assert(!journal_exists("new"));
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	ck_assert_int_eq(perftune_restore(f.ctx, "old", 0), 3);
	assert_same(before, "after restoring old");
	snap_free(applied);
	snap_free(before);
}
END_TEST

/* the write giving an old-only key back fails: the replace stands, the key stays journaled */
START_TEST(replace_fault_giving_back_keeps_the_key_journaled)
{
	struct snap *before = snap_take(f.root);

	commit_old(0, NULL);
	f.sim.writes = 0;
	f.sim.fault_at = ALL_WRITES;
	ck_assert_int_eq(replace("new", 0, NULL), COMMIT_WRITES);
	f.sim.fault_at = 0;
	assert_new_values();
	ck_assert_str_eq(fx_read(&f, SDA_SCHED), "mq-deadline kyber [bfq] none");
	ck_assert_int_eq(fx_journals(&f), 1);
	ck_assert_msg(perftune_restore(f.ctx, "new", 0) == ALL_WRITES, "%s",
		      perftune_ctx_last_error(f.ctx));
	assert_same(before, "after the restore");
	snap_free(before);
}
END_TEST

static void replace_and_crash(int i)
{
	f.sim.writes = 0;
	f.sim.crash_at = strategy_of(i, ALL_WRITES);
	replace(i % 2 ? "old" : "new", PERFTUNE_TX_HOLD, NULL);
	_exit(0);
}

/* killed at each write (kill -9): restore --orphans, or restore of either name, gives originals */
START_TEST(replace_killed_at_every_write_restores_the_originals)
{
	struct snap *before = snap_take(f.root);
	int at = _i % ALL_WRITES + 1;
	/* a kill before the journal step leaves every original in "old"'s journal, after it
	 * (while giving back) in the new one's */
	const char *name = _i % 2 ? "old" : "new", *journal = at <= COMMIT_WRITES ? "old" : name;
	pid_t pid;
	int st;

	commit_old(0, NULL);
	pid = fork();
	if (pid == 0)
		replace_and_crash(_i);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 99, "%s: no crash at write %d",
		      strategy_name[_i / ALL_WRITES], at);
	ck_assert_msg(journal_exists(journal), "killed at write %d: no journal %s", at, journal);
	ck_assert_int_eq(fx_journals(&f), 1);
	if (_i % 3 == 0)
		ck_assert_msg(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS) >= 1, "%s",
			      perftune_ctx_last_error(f.ctx));
	else
		ck_assert_msg(perftune_restore(f.ctx, journal, 0) >= 1, "%s",
			      perftune_ctx_last_error(f.ctx));
	assert_originals(before, "after recovery");
}
END_TEST

/* a copy of journal @from as @to, as a kill between link and unlink of a swap leaves it */
static void copy_journal(const char *from, const char *to)
{
	char src[PATH_MAX], dst[PATH_MAX], line[8192];
	FILE *in, *out;

	snprintf(src, sizeof(src), "%s/%s.journal", f.jdir, from);
	snprintf(dst, sizeof(dst), "%s/%s.journal", f.jdir, to);
	in = fopen(src, "r");
	out = fopen(dst, "w");
	ck_assert(in && out);
	while (fgets(line, sizeof(line), in)) {
		if (!strncmp(line, "name ", 5))
			snprintf(line, sizeof(line), "name %s\n", to);
		fputs(line, out);
	}
	fclose(in);
	fclose(out);
	ck_assert_int_eq(chmod(dst, 0600), 0);
}

static void replace_held_and_die(int unused)
{
	(void)unused;
	_exit(replace("new", PERFTUNE_TX_HOLD, NULL) == COMMIT_WRITES ? 0 : 1);
}

/*
 * Killed between the two steps of a swap to another name (the new journal
 * linked in, the old one not yet removed): two orphans with the same
 * originals.  Restored together, or either alone first, the machine ends at
 * its originals.
 */
START_TEST(replace_killed_inside_a_renaming_swap_restores_the_originals)
{
	struct snap *before = snap_take(f.root);
	pid_t pid;
	int st;

	commit_old(0, NULL);
	pid = fork();
	if (pid == 0)
		replace_held_and_die(0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert(!journal_exists("old"));
	copy_journal("new", "old");
	if (_i == 0) {
		ck_assert_msg(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS) >= 1, "%s",
			      perftune_ctx_last_error(f.ctx));
	} else {
		const char *first = _i == 1 ? "old" : "new", *second = _i == 1 ? "new" : "old";
		ck_assert_msg(perftune_restore(f.ctx, first, 0) >= 1, "%s",
			      perftune_ctx_last_error(f.ctx));
		assert_same(before, "after restoring one of the two");
		ck_assert_msg(perftune_restore(f.ctx, second, 0) >= 0, "%s",
			      perftune_ctx_last_error(f.ctx));
	}
	assert_originals(before, "after recovery");
}
END_TEST

/*
 * Killed between linking the new journal in under its hidden name and the
 * rename: ".old.journal" is no transaction (status and restore pass it by),
 * "old" is whole; the next replace clears it away.
 */
START_TEST(replace_killed_before_the_rename_leaves_no_transaction)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	char hidden[PATH_MAX];
	FILE *fp;
	int hidden_rows = 0;

	commit_old(0, NULL);
	snprintf(hidden, sizeof(hidden), "%s/.old.journal", f.jdir);
	fp = fopen(hidden, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("perftune-journal 2\nname old\n", fp); /* cut short, as a kill leaves it */
	fclose(fp);
	ck_assert_int_eq(chmod(hidden, 0600), 0);
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	while ((e = perftune_status_iter_next(it)))
		hidden_rows += strcmp(perftune_status_entry_tx_name(e), "old") != 0;
	perftune_status_iter_free(it);
	ck_assert_int_eq(hidden_rows, 0);
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	ck_assert_int_eq(replace("old", 0, NULL), COMMIT_WRITES);
	ck_assert_int_eq(access(hidden, F_OK), -1);
	ck_assert_int_eq(fx_journals(&f), 1);
	assert_new_values();
}
END_TEST

/* a reload in place by the holder: its old handle gives back nothing afterwards */
START_TEST(old_handle_in_this_process_gives_back_nothing_after_a_replace)
{
	struct snap *before = snap_take(f.root), *now;
	struct perftune_tx *old, *tx;
	commit_old(PERFTUNE_TX_HOLD, &old);
	ck_assert_int_eq(replace("old", PERFTUNE_TX_HOLD, &tx), COMMIT_WRITES);
	now = snap_take(f.root);
	f.sim.writes = 0;
	ck_assert_int_eq(perftune_tx_release(old), 0);
	perftune_tx_unref(old);
	ck_assert_int_eq(f.sim.writes, 0);
	assert_same(now, "after releasing the replaced handle");
	ck_assert_msg(perftune_tx_release(tx) == COMMIT_WRITES, "%s",
		      perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
	snap_free(now);
	assert_originals(before, "after releasing the new one");
}
END_TEST

/* a holder as perftune apply --hold is: release on SIGTERM; 0 when it wrote nothing */
static void hold_old_until_term(int ready_fd)
{
	struct perftune_tx *old;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	commit_old(PERFTUNE_TX_HOLD, &old);
	f.sim.writes = 0;
	ck_assert_int_eq(write(ready_fd, "x", 1), 1);
	sigwait(&set, &sig);
	_exit(perftune_tx_release(old) == 0 && f.sim.writes == 0 ? 0 : 1);
}

/* another live process holds "old": it is told to end, and ends without writing */
START_TEST(live_holder_elsewhere_ends_without_writing)
{
	struct snap *before = snap_take(f.root), *now;
	struct perftune_tx *tx;
	int p[2], st;
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0)
		hold_old_until_term(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	ck_assert_int_eq(replace(_i ? "old" : "new", PERFTUNE_TX_HOLD, &tx), COMMIT_WRITES);
	now = snap_take(f.root);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "old holder: status 0x%x", st);
	assert_same(now, "after the old holder ended");
	ck_assert_int_eq(perftune_tx_release(tx), COMMIT_WRITES);
	perftune_tx_unref(tx);
	assert_same(before, "after releasing the new one");
	close(p[0]);
	close(p[1]);
	snap_free(now);
	snap_free(before);
}
END_TEST

/* a dry run lists the keys it would give back, and writes nothing */
START_TEST(dry_run_replace_lists_what_it_would_give_back)
{
	struct perftune_change_iter *it;
	const struct perftune_change *c;
	struct perftune_tx *tx;
	struct snap *applied;
	int given = 0;

	commit_old(0, NULL);
	applied = snap_take(f.root);
	f.sim.writes = 0;
	tx = staged_tx("old", new_kv, ARRAY_SIZE(new_kv), PERFTUNE_TX_DRY_RUN);
	ck_assert_int_eq(perftune_tx_replace(tx, "old"), 0);
	ck_assert_int_eq(perftune_tx_commit(tx), COMMIT_WRITES);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	while ((c = perftune_change_iter_next(it)))
		given += !!(perftune_change_flags(c) & PERFTUNE_CHANGE_GIVEN_BACK);
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
	ck_assert_int_eq(given, 1);
	ck_assert_int_eq(f.sim.writes, 0);
	assert_same(applied, "after the dry run");
	snap_free(applied);
}
END_TEST

/* bad input is refused before anything is written, naming the reason */
START_TEST(bad_replace_is_refused_before_anything_changes)
{
	struct perftune_tx *tx, *other;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "new", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_replace(tx, "nothere"), -ENOENT);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "'nothere'"));
	ck_assert_int_eq(perftune_tx_replace(tx, "../x"), -EINVAL);
	commit_old(0, NULL);
	other = staged_tx("new", new_kv, 1, 0);
	ck_assert_int_eq(perftune_tx_commit(other), 1);
	perftune_tx_unref(other);
	ck_assert_int_eq(perftune_tx_replace(tx, "old"), -EBUSY);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "'new' exists"));
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_restore(f.ctx, "new", 0), 1);
	/* checked again at the commit: "old" went in between */
	tx = staged_tx("new", new_kv, ARRAY_SIZE(new_kv), 0);
	ck_assert_int_eq(perftune_tx_replace(tx, "old"), 0);
	ck_assert_int_eq(perftune_restore(f.ctx, "old", 0), 3);
	f.sim.writes = 0;
	ck_assert_int_eq(perftune_tx_commit(tx), -ENOENT);
	ck_assert_int_eq(f.sim.writes, 0);
	ck_assert_int_eq(fx_journals(&f), 0);
	perftune_tx_unref(tx);
}
END_TEST

static Suite *replace_suite(void)
{
	Suite *s = suite_create("replace");
	TCase *tc = tcase_create("replace");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, replace_keeps_shared_gives_back_old_only_and_restores_originals, 0,
			    2);
	tcase_add_loop_test(tc, replace_fault_at_every_write_leaves_old_in_force, 0,
			    3 * COMMIT_WRITES);
	tcase_add_test(tc, replace_fault_giving_back_keeps_the_key_journaled);
	tcase_add_loop_test(tc, replace_killed_at_every_write_restores_the_originals, 0,
			    3 * ALL_WRITES);
	tcase_add_loop_test(tc, replace_killed_inside_a_renaming_swap_restores_the_originals, 0, 3);
	tcase_add_test(tc, replace_killed_before_the_rename_leaves_no_transaction);
	tcase_add_test(tc, old_handle_in_this_process_gives_back_nothing_after_a_replace);
	tcase_add_loop_test(tc, live_holder_elsewhere_ends_without_writing, 0, 2);
	tcase_add_test(tc, dry_run_replace_lists_what_it_would_give_back);
	tcase_add_test(tc, bad_replace_is_refused_before_anything_changes);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { replace_suite };
	return harness_main(argc, argv, suites, 1);
}
