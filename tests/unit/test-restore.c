// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * restore.c against the simulated kernel: a fault and a kill at every write of
 * a restore, on each strategy of the batch engine (the journal keeps what was
 * not given back, and the next restore gives it back); --all across stacked
 * transactions; a key whose file went away before the restore (logged, skipped).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

#define Q(d, a) "sys/devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:" d "/queue/" a

/* two devices (so the waves and threads strategies have two groups) and the no-device group */
static const char *const keys[][3] = {
	{ "block.sda.scheduler", "bfq", Q("0/block/sda", "scheduler") },
	{ "block.sda.read_ahead_kb", "512", Q("0/block/sda", "read_ahead_kb") },
	{ "block.sdb.scheduler", "kyber", Q("1/block/sdb", "scheduler") },
	{ "block.sdb.read_ahead_kb", "1024", Q("1/block/sdb", "read_ahead_kb") },
	{ "sysctl.vm.swappiness", "10", "proc/sys/vm/swappiness" },
	{ "thp.enabled", "never", "sys/kernel/mm/transparent_hugepage/enabled" },
};
#define NKEYS ((int)ARRAY_SIZE(keys))
static const char *const strategy_name[] = { "serial", "waves", "threads" };

static void commit_keys(const char *name)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, name, 0, &tx), 0);
	for (int i = 0; i < NKEYS; i++)
		ck_assert_msg(perftune_tx_set(tx, keys[i][0], keys[i][1]) == 1, "%s: %s", keys[i][0],
			      perftune_ctx_last_error(f.ctx));
	ck_assert_msg(perftune_tx_commit(tx) == NKEYS, "%s", perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
}

/* how many of the keys' files differ from @orig */
static int not_back(char orig[][PT_VAL])
{
	int n = 0;

	for (int i = 0; i < NKEYS; i++)
		n += strcmp(fx_read(&f, keys[i][2]), orig[i]) != 0;
	return n;
}

static void take_originals(char orig[][PT_VAL])
{
	for (int i = 0; i < NKEYS; i++)
		snprintf(orig[i], PT_VAL, "%s", fx_read(&f, keys[i][2]));
}

/* _i = strategy * NKEYS + write - 1: that write of the restore fails */
START_TEST(restore_fault_at_every_write_keeps_the_rest_and_the_journal)
{
	char orig[NKEYS][PT_VAL], *d;
	struct snap *before = snap_take(f.root), *after;
	int st = _i / NKEYS, at = _i % NKEYS + 1, r;

	take_originals(orig);
	commit_keys("t");
	fx_strategy(st);
	f.sim.writes = 0;
	f.sim.fault_at = at;
	r = perftune_restore(f.ctx, "t", 0);
	ck_assert_msg(r < 0, "%s, fault at write %d: restore answered %d", strategy_name[st], at, r);
	/* every other original was tried and given back; the journal keeps the one that failed */
	ck_assert_msg(not_back(orig) == 1, "%s, fault at write %d: %d keys not back",
		      strategy_name[st], at, not_back(orig));
	ck_assert_int_eq(fx_journals(&f), 1);
	f.sim.fault_at = 0;
	r = perftune_restore(f.ctx, "t", 0);
	ck_assert_msg(r == 1, "%s, fault at write %d: second restore %d: %s", strategy_name[st], at,
		      r, perftune_ctx_last_error(f.ctx));
	after = snap_take(f.root);
	d = snap_diff(before, after);
	ck_assert_msg(!d, "%s, fault at write %d: machine differs: %s", strategy_name[st], at, d);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(after);
	snap_free(before);
	pt_batch_force(-1);
	unsetenv("PERFTUNE_NO_IO_URING");
}
END_TEST

/* _i as above: the restoring process is killed at that write; a later restore finishes it */
START_TEST(restore_killed_at_every_write_is_finished_by_the_next)
{
	char orig[NKEYS][PT_VAL];
	struct snap *before = snap_take(f.root), *after;
	int st = _i / NKEYS, at = _i % NKEYS + 1, status, r;
	pid_t pid;
	char *d;

	take_originals(orig);
	commit_keys("t");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fx_strategy(st);
		f.sim.writes = 0;
		f.sim.crash_at = at;
		perftune_restore(f.ctx, "t", 0);
		_exit(0); /* not reached: the simulated kernel kills us at write @at */
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 99,
		      "%s, kill at write %d: the child was not killed there (status %#x)",
		      strategy_name[st], at, status);
	ck_assert_int_ge(not_back(orig), 1);
	ck_assert_int_eq(fx_journals(&f), 1);
	r = perftune_restore(f.ctx, "t", 0);
	ck_assert_msg(r >= 1, "%s, kill at write %d: restore %d: %s", strategy_name[st], at, r,
		      perftune_ctx_last_error(f.ctx));
	after = snap_take(f.root);
	d = snap_diff(before, after);
	ck_assert_msg(!d, "%s, kill at write %d: machine differs: %s", strategy_name[st], at, d);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(after);
	snap_free(before);
}
END_TEST

/* two transactions on one key: --all gives back the original from before both */
START_TEST(restore_all_gives_back_what_was_there_before_every_transaction)
{
	struct perftune_tx *tx;
	const char *vals[] = { "30", "10" }, *names[] = { "a", "b" };

	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(perftune_tx_new(f.ctx, names[i], 0, &tx), 0);
		ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", vals[i]), 1);
		ck_assert_int_eq(perftune_tx_commit(tx), 1);
		perftune_tx_unref(tx);
	}
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
	ck_assert_int_ge(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ALL), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

static void keep_log(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	char *buf = ud;

	(void)ctx;
	if (prio <= PERFTUNE_LOG_NOTICE)
		snprintf(buf + strlen(buf), 4096 - strlen(buf), "%s\n", msg);
}

/* a device gone before the restore: reported in the log, everything else given back */
START_TEST(key_gone_before_restore_is_reported_and_the_rest_restored)
{
	char orig[NKEYS][PT_VAL], path[PATH_MAX], log[4096] = "";

	take_originals(orig);
	commit_keys("t");
	snprintf(path, sizeof(path), "%s/%s", f.root, keys[3][2]); /* sdb's read_ahead_kb */
	ck_assert_int_eq(unlink(path), 0);
	perftune_ctx_set_log_fn(f.ctx, keep_log, PERFTUNE_LOG_NOTICE, log);
	ck_assert_int_eq(perftune_restore(f.ctx, "t", 0), NKEYS - 1);
	ck_assert_msg(strstr(log, "block.sdb.read_ahead_kb: skipped, gone"), "log: %s", log);
	for (int i = 0; i < NKEYS; i++)
		if (i != 3)
			ck_assert_str_eq(fx_read(&f, keys[i][2]), orig[i]);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* restore of a name that was never journaled: -ENOENT naming it, nothing written */
START_TEST(restore_of_an_unknown_name_writes_nothing)
{
	struct snap *before = snap_take(f.root), *after;
	char *d;

	f.sim.writes = 0;
	ck_assert_int_eq(perftune_restore(f.ctx, "nosuch", 0), -ENOENT);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "nosuch"));
	ck_assert_int_eq(f.sim.writes, 0);
	after = snap_take(f.root);
	d = snap_diff(before, after);
	ck_assert_msg(!d, "machine differs: %s", d);
	snap_free(after);
	snap_free(before);
}
END_TEST

static Suite *restore_suite(void)
{
	Suite *s = suite_create("restore");
	TCase *tc = tcase_create("restore");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, restore_fault_at_every_write_keeps_the_rest_and_the_journal, 0,
			    3 * NKEYS);
	tcase_add_loop_test(tc, restore_killed_at_every_write_is_finished_by_the_next, 0,
			    3 * NKEYS);
	tcase_add_test(tc, restore_all_gives_back_what_was_there_before_every_transaction);
	tcase_add_test(tc, key_gone_before_restore_is_reported_and_the_rest_restored);
	tcase_add_test(tc, restore_of_an_unknown_name_writes_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { restore_suite };

	return harness_main(argc, argv, suites, 1);
}
