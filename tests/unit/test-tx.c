// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transactions against the simulated kernel: all-or-nothing commit, a fault
 * and a crash at every write position, read-back, aliases, deferred iosched
 * parameters, partial huge pages, stacking, drift, re-apply, holds.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

#define Q(d, a) "sys/devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:" d "/queue/" a
#define SDA_SCHED Q("0/block/sda", "scheduler")
#define SDA_RA Q("0/block/sda", "read_ahead_kb")
#define SDB_SCHED Q("1/block/sdb", "scheduler")
#define SDA_EXPIRE Q("0/block/sda", "iosched/read_expire")

/* a transaction across families: 13 writes */
static const char *const big[][2] = {
	{ "block.sda.scheduler", "bfq" },
	{ "block.sda.iosched.slice_idle", "0" },
	{ "block.sda.read_ahead_kb", "512" },
	{ "block.sdb.nr_requests", "128" },
	{ "thp.enabled", "never" },
	{ "hugepages.2M.nr", "16" },
	{ "hugepages.2M.node1.nr", "8" },
	{ "sysctl.vm.dirty_ratio", "40" },
	{ "sysctl.vm.swappiness", "10" },
	{ "cpu.0.governor", "performance" },
	{ "cpu.all.idle.C6.disable", "1" },
	{ "selinux.avc.cache_threshold", "8192" },
	{ "numa.balancing", "0" },
	{ "sysfs[/sys/kernel/mm/transparent_hugepage/defrag]", "never" },
};
#define BIG_WRITES 15 /* C6 exists on two CPUs */

static int stage_big(struct perftune_tx *tx)
{
	for (size_t i = 0; i < ARRAY_SIZE(big); i++) {
		int r = perftune_tx_set(tx, big[i][0], big[i][1]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int commit_big(unsigned flags)
{
	struct perftune_tx *tx;
	int r;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "big", flags, &tx), 0);
	r = stage_big(tx);
	ck_assert_msg(r >= 0, "staging: %s", perftune_ctx_last_error(f.ctx));
	r = perftune_tx_commit(tx);
	if (!(flags & PERFTUNE_TX_HOLD))
		perftune_tx_unref(tx);
	return r;
}

static void assert_same(struct snap *before)
{
	struct snap *after = snap_take(f.root);
	char *d = snap_diff(before, after);

	ck_assert_msg(d == NULL, "machine differs: %s", d);
	snap_free(after);
}

START_TEST(commit_writes_every_key_and_restore_returns_all)
{
	struct snap *before = snap_take(f.root);
	int r = commit_big(0);

	ck_assert_msg(r == BIG_WRITES, "commit: %d %s", r, perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(f.sim.writes, BIG_WRITES);
	ck_assert_str_eq(fx_read(&f, SDA_SCHED), "mq-deadline kyber [bfq] none");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/dirty_ratio"), "40");
	ck_assert_str_eq(fx_read(&f, "sys/fs/selinux/avc/cache_threshold"), "8192");
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/cpu/cpu1/cpuidle/state3/disable"), "1");
	ck_assert_int_eq(fx_journals(&f), 1);
	r = perftune_restore(f.ctx, "big", 0);
	ck_assert_msg(r == BIG_WRITES - 1, /* slice_idle went with bfq */
		      "restore: %d %s", r, perftune_ctx_last_error(f.ctx));
	assert_same(before);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}
END_TEST

/*
 * The three write strategies of the batch engine (lib/batch.c), for the
 * sweeps: _i = strategy * BIG_WRITES + position - 1 (fx_strategy()).
 */
static const char *const strategy_name[] = { "serial", "waves", "threads" };
#define SWEEP_CASES (3 * BIG_WRITES)

static int sweep_strategy_of(int i, int writes)
{
	fx_strategy(i / writes);
	return i % writes + 1;
}

static int sweep_strategy(int i)
{
	return sweep_strategy_of(i, BIG_WRITES);
}

static void count_waves(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	(void)ctx;
	(void)prio;
	if (strstr(msg, "writes at once"))
		++*(int *)ud;
}

/* each strategy writes every key and gives every original back; only waves make waves */
START_TEST(commit_and_restore_on_each_strategy)
{
	struct snap *before = snap_take(f.root);
	int r, waves = 0;

	sweep_strategy(_i * BIG_WRITES);
	perftune_ctx_set_log_fn(f.ctx, count_waves, PERFTUNE_LOG_DEBUG, &waves);
	r = commit_big(0);
	ck_assert_msg(r == BIG_WRITES, "%s: commit: %d %s", strategy_name[_i], r,
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(f.sim.writes, BIG_WRITES);
	ck_assert_msg((waves > 0) == (_i == PT_BATCH_WAVES), "%s: %d waves", strategy_name[_i],
		      waves);
	ck_assert_int_eq(perftune_restore(f.ctx, "big", 0), BIG_WRITES - 1);
	assert_same(before);
	snap_free(before);
}
END_TEST

/* a fault at write N: the commit fails naming the key, and every file is as before */
START_TEST(commit_fault_at_every_write_restores_all)
{
	struct snap *before = snap_take(f.root);
	int r;

	f.sim.fault_at = sweep_strategy(_i);
	r = commit_big(0);
	ck_assert_msg(r == -EIO, "%s, fault at write %d: commit returned %d",
		      strategy_name[_i / BIG_WRITES], f.sim.fault_at, r);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "(rolled back)"));
	ck_assert_msg(strncmp(perftune_ctx_last_error(f.ctx), "block.", 6) == 0 ||
			      strchr(perftune_ctx_last_error(f.ctx), ':'),
		      "error does not name a key: %s", perftune_ctx_last_error(f.ctx));
	assert_same(before);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}
END_TEST

/* the process dies at write N (kill -9): restore --orphans returns every file */
START_TEST(commit_crash_at_every_write_then_restore_orphans)
{
	struct snap *before = snap_take(f.root);
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	pid_t pid;
	int st, r, orphaned = 0;

	pid = fork();
	if (pid == 0) {
		f.sim.crash_at = sweep_strategy(_i);
		commit_big(0);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 99, "child did not crash at write %d", _i);
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	while ((e = perftune_status_iter_next(it)))
		orphaned += !!(perftune_status_entry_flags(e) & PERFTUNE_STATUS_ORPHANED);
	perftune_status_iter_free(it);
	ck_assert_msg(orphaned >= 1, "no orphaned key after a crash at write %d", _i);
	r = perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS);
	ck_assert_msg(r >= 0, "restore: %s", perftune_ctx_last_error(f.ctx));
	assert_same(before);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}
END_TEST

START_TEST(hold_crash_after_commit_is_orphan_and_restorable)
{
	struct snap *before = snap_take(f.root);
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		ck_assert_int_ge(commit_big(PERFTUNE_TX_HOLD), 0);
		_exit(7); /* dies holding: no rollback */
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(st), 7);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), BIG_WRITES - 1);
	assert_same(before);
	snap_free(before);
}
END_TEST

START_TEST(applied_transaction_is_not_an_orphan)
{
	ck_assert_int_ge(commit_big(0), 0);
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	ck_assert_int_eq(fx_journals(&f), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
}
END_TEST

START_TEST(validation_failure_stages_nothing_and_writes_nothing)
{
	struct perftune_tx *tx;
	struct snap *before = snap_take(f.root);

	ck_assert_int_eq(perftune_tx_new(f.ctx, "t", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.scheduler", "none"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sdb.scheduler", "bogus"), -EINVAL);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "block.sdb.scheduler: 'bogus' is not offered by sdb (mq-deadline kyber bfq none)");
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "ten"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "thp.enabled", "sometimes"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.hw_sector_size", "4096"), -EROFS);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.max_khz", "9000000"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.governor", "ondemand"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.epp", "turbo"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "1\n2"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.read_ahead_kb", "-5"), -EINVAL);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "block.sda.read_ahead_kb: -5 is out of range (not negative)");
	/* -1 is the kernel's "back to the default" for wbt_lat_usec */
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.wbt_lat_usec", "-1"), 1);
	/* a glob that fails on one match stages none of them */
	ck_assert_int_eq(perftune_tx_set(tx, "block.*.scheduler", "kyber"), -EINVAL);
	perftune_tx_unref(tx);
	ck_assert_int_eq(f.sim.writes, 0);
	assert_same(before);
	snap_free(before);
}
END_TEST

START_TEST(scheduler_aliases_map_to_blk_mq_names)
{
	static const char *const cases[][3] = {
		{ "deadline", "mq-deadline", SDA_SCHED },
		{ "noop", "none", SDA_SCHED },
		{ "cfq", "bfq", SDA_SCHED },
		{ "bfq|kyber", "bfq", SDA_SCHED },
		{ "cfq|deadline", "bfq", "nvme" },
		{ "cfq|none", "none", "zram" },
		{ "nosuch|none", "none", SDA_SCHED },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct perftune_tx *tx;
		char *v = NULL;
		const char *key = !strcmp(cases[i][2], "nvme")   ? "block.nvme0n1.scheduler"
				  : !strcmp(cases[i][2], "zram") ? "block.zram0.scheduler"
								 : "block.sda.scheduler";
		ck_assert_int_eq(perftune_tx_new(f.ctx, "alias", 0, &tx), 0);
		ck_assert_int_eq(perftune_tx_set(tx, key, cases[i][0]), 1);
		int written = perftune_tx_commit(tx);
		ck_assert_int_ge(written, 0);
		perftune_tx_unref(tx);
		ck_assert_int_eq(perftune_get(f.ctx, key, &v), 0);
		ck_assert_msg(!strcmp(v, cases[i][1]), "%s -> %s, want %s", cases[i][0], v,
			      cases[i][1]);
		free(v);
		/* nothing written (zram0 was on none): an empty transaction, restored as 0 */
		ck_assert_int_eq(perftune_restore(f.ctx, "alias", 0), written);
	}
	ck_assert_str_eq(fx_read(&f, SDA_SCHED), "[mq-deadline] kyber bfq none");
}
END_TEST

/* an installer run on a machine already tuned: set changes nothing, restore still succeeds */
START_TEST(noop_commit_is_recorded_and_its_restore_gives_back_nothing)
{
	struct perftune_tx *tx;
	char *v = NULL;

	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	for (int run = 0; run < 2; run++) { /* an installer that runs twice */
		ck_assert_int_eq(perftune_tx_new(f.ctx, "myapp", 0, &tx), 0);
		ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "60"), 1);
		ck_assert_int_eq(perftune_tx_commit(tx), 0);
		perftune_tx_unref(tx);
	}
	ck_assert_int_eq(perftune_get(f.ctx, "sysctl.vm.swappiness", &v), 0);
	ck_assert_str_eq(v, "60");
	free(v);
	ck_assert_int_eq(perftune_restore(f.ctx, "myapp", 0), 0);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	/* restored means gone: a second restore, like a typo, names the missing transaction */
	ck_assert_int_eq(perftune_restore(f.ctx, "myapp", 0), -ENOENT);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx), "no transaction named 'myapp'");
}
END_TEST

START_TEST(bio_based_write_that_does_nothing_fails_and_rolls_back)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "bio", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "5"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "block.dm-0.read_ahead_kb", "4096"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), -EIO);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "block.dm-0.read_ahead_kb: the kernel accepted '4096' but reads back '128' "
			 "(rolled back)");
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

START_TEST(partial_hugepages_fail_unless_allowed)
{
	struct perftune_tx *tx;
	struct perftune_change_iter *it;
	const struct perftune_change *e;

	f.sim.hp_cap = 10;
	ck_assert_int_eq(perftune_tx_new(f.ctx, "hp", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "hugepages.2M.node0.nr", "20"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), -EAGAIN);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx),
				     "asked for 20 huge pages, the kernel allocated 10"));
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"), "0");

	ck_assert_int_eq(perftune_tx_new(f.ctx, "hp", PERFTUNE_TX_ALLOW_PARTIAL, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "hugepages.2M.node0.nr", "20"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	ck_assert((e = perftune_change_iter_next(it)));
	ck_assert_str_eq(perftune_change_new_value(e), "10");
	ck_assert_str_eq(perftune_change_note(e), "partial: asked 20, got 10");
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_restore(f.ctx, "hp", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"), "0");
}
END_TEST

START_TEST(iosched_param_of_new_scheduler_is_applied_after_it)
{
	struct perftune_tx *tx;

	/* bfq's parameter without bfq: the commit fails with the missing file, writing nothing */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "io", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.iosched.low_latency", "0"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), -ENOENT);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx),
			     "block.sda.iosched.low_latency: not a parameter of sda's scheduler"),
		      "%s", perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "io", 0, &tx), 0);
	/* staged before its scheduler: it waits for it; the commit switches the scheduler first */
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.iosched.low_latency", "0"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.scheduler", "bfq"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 2);
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, Q("0/block/sda", "iosched/low_latency")), "0");
	/* restore: the scheduler first, then the parameter is gone with bfq */
	ck_assert_int_eq(perftune_restore(f.ctx, "io", 0), 1);
	ck_assert_str_eq(fx_read(&f, SDA_SCHED), "[mq-deadline] kyber bfq none");
	ck_assert_str_eq(fx_read(&f, SDA_EXPIRE), "500");
}
END_TEST

START_TEST(iosched_param_restored_under_same_scheduler)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "io", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.iosched.read_expire", "100"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, SDA_EXPIRE), "100");
	ck_assert_int_eq(perftune_restore(f.ctx, "io", 0), 1);
	ck_assert_str_eq(fx_read(&f, SDA_EXPIRE), "500");
}
END_TEST

static void set1(const char *name, const char *key, const char *value)
{
	struct perftune_tx *tx;
	ck_assert_int_eq(perftune_tx_new(f.ctx, name, 0, &tx), 0);
	ck_assert_int_ge(perftune_tx_set(tx, key, value), 1);
	ck_assert_msg(perftune_tx_commit(tx) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
}

/* two live transactions on one key, restored in either order */
START_TEST(stacked_transactions_restore_in_any_order)
{
	const char *first = _i ? "a" : "b", *second = _i ? "b" : "a";

	set1("a", "sysctl.vm.swappiness", "30");
	set1("b", "sysctl.vm.swappiness", "10");
	set1("b", "sysctl.vm.dirty_ratio", "50");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
	ck_assert_int_ge(perftune_restore(f.ctx, first, 0), 0);
	/* restoring a first hands its original over to b: nothing visible changes */
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), _i ? "10" : "30");
	ck_assert_int_ge(perftune_restore(f.ctx, second, 0), 0);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/dirty_ratio"), "20");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

START_TEST(drift_is_reported_and_restored)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	int drift = 0;

	set1("d", "sysctl.vm.swappiness", "10");
	fx_write(&f, "proc/sys/vm/swappiness", "33"); /* behind our back */
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	while ((e = perftune_status_iter_next(it)))
		if (perftune_status_entry_flags(e) & PERFTUNE_STATUS_DRIFT) {
			drift++;
			ck_assert_str_eq(perftune_status_entry_current(e), "33");
			ck_assert_str_eq(perftune_status_entry_written(e), "10");
			ck_assert_str_eq(perftune_status_entry_original(e), "60");
		}
	perftune_status_iter_free(it);
	ck_assert_int_eq(drift, 1);
	ck_assert_int_eq(perftune_restore(f.ctx, "d", 0), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

START_TEST(reapply_changes_only_what_differs)
{
	struct perftune_tx *tx;

	set1("r", "sysctl.vm.swappiness", "10");
	set1("r", "sysctl.vm.dirty_ratio", "40");
	f.sim.writes = 0;
	ck_assert_int_eq(perftune_tx_new(f.ctx, "r", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.dirty_ratio", "45"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx);
	ck_assert_int_eq(f.sim.writes, 1);
	/* the original is the one from before the first apply */
	ck_assert_int_eq(perftune_restore(f.ctx, "r", 0), 2);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/dirty_ratio"), "20");
}
END_TEST

START_TEST(pmqos_needs_a_hold)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "q", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "pmqos.cpu_dma_latency_us", "0"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "needs a holding transaction"));
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "q", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "pmqos.cpu_dma_latency_us", "0"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_ge(perftune_tx_release(tx), 0); /* the hold ends with its release */
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* unref only frees: a held transaction not released stays journaled as held */
START_TEST(unref_of_a_held_transaction_writes_nothing)
{
	struct perftune_tx *tx;
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	struct snap *before;
	int writes, held = 0;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "kept", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	before = snap_take(f.root);
	writes = f.sim.writes;
	perftune_tx_unref(tx);
	ck_assert_int_eq(f.sim.writes, writes);
	assert_same(before);
	snap_free(before);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
	ck_assert_int_eq(fx_journals(&f), 1);
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	while ((e = perftune_status_iter_next(it))) {
		ck_assert_str_eq(perftune_status_entry_tx_name(e), "kept");
		ck_assert(perftune_status_entry_flags(e) & PERFTUNE_STATUS_HELD);
		ck_assert_int_eq(perftune_status_entry_pid(e), getpid());
		held++;
	}
	perftune_status_iter_free(it);
	ck_assert_int_eq(held, 1);
	/* held by this process: it restores it (another process would need FORCE) */
	ck_assert_int_eq(perftune_restore(f.ctx, "kept", 0), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* release is the explicit end, with a result */
START_TEST(release_gives_a_hold_back_and_ends_the_transaction)
{
	struct perftune_tx *tx;

	/* uncommitted: what was staged is dropped, nothing is written */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "rel", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_release(tx), 0);
	ck_assert_int_eq(f.sim.writes, 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "11"), -EALREADY);
	ck_assert_int_eq(perftune_tx_commit(tx), -EALREADY);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "released"));
	perftune_tx_unref(tx);
	/* committed and held: rolled back, the count of keys written back */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "rel", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_eq(perftune_tx_release(tx), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_int_eq(fx_journals(&f), 0);
	perftune_tx_unref(tx);
	/* committed without a hold: stays in force */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "rel", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_eq(perftune_tx_release(tx), 0);
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
	ck_assert_int_eq(perftune_restore(f.ctx, "rel", 0), 1);
	ck_assert_int_eq(perftune_tx_release(NULL), -EINVAL);
}
END_TEST

START_TEST(dry_run_writes_nothing_and_lists_changes)
{
	struct perftune_tx *tx;
	struct perftune_change_iter *it;
	const struct perftune_change *e;
	struct snap *before = snap_take(f.root);
	int changed = 0, unchanged = 0;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "dry", PERFTUNE_TX_DRY_RUN, &tx), 0);
	ck_assert_int_ge(stage_big(tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.dirty_background_ratio", "10"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), BIG_WRITES);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	while ((e = perftune_change_iter_next(it))) {
		if (perftune_change_flags(e) & PERFTUNE_CHANGE_UNCHANGED)
			unchanged++;
		else
			changed++;
		if (!strcmp(perftune_change_key(e), "block.sda.scheduler")) {
			ck_assert_str_eq(perftune_change_old_value(e), "mq-deadline");
			ck_assert_str_eq(perftune_change_new_value(e), "bfq");
		}
	}
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
	ck_assert_int_eq(changed, BIG_WRITES);
	ck_assert_int_eq(unchanged, 1);
	ck_assert_int_eq(f.sim.writes, 0);
	ck_assert_int_eq(fx_journals(&f), 0);
	assert_same(before);
	snap_free(before);
}
END_TEST

/*
 * Issue 33 H14: a value is written as given, its blanks and tabs inside kept (as
 * systemd-sysctl writes kernel.core_pattern), and compared normalized: a vector that
 * differs only in its blanks is unchanged, and its read-back is the value.
 */
START_TEST(value_is_written_as_given_and_compared_normalized)
{
	char p[PATH_MAX];
	char *v = NULL;
	FILE *fp;

	snprintf(p, sizeof(p), "%s/proc/sys/kernel/core_pattern", f.root);
	ck_assert_ptr_nonnull(fp = fopen(p, "w"));
	fputs("/var/core/[%p]\n", fp);
	fclose(fp);
	ck_assert_int_eq(perftune_get(f.ctx, "sysctl.kernel.core_pattern", &v), 0);
	ck_assert_str_eq(v, "/var/core/[%p]"); /* not a selection: a bracket inside a word */
	free(v);
	ck_assert_msg(fx_set_one(&f, "ws", "sysctl.kernel.core_pattern", "a  b\tc") == 1, "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "proc/sys/kernel/core_pattern"), "a  b\tc");
	ck_assert_int_eq(fx_set_one(&f, "ws", "sysctl.kernel.core_pattern", "a  b\tc"), 0);
	ck_assert_int_eq(fx_set_one(&f, "ws", "sysctl.kernel.printk", "4 4 1 7"), 0);
	ck_assert_str_eq(fx_read(&f, "proc/sys/kernel/printk"), "4\t4\t1\t7");
	ck_assert_int_eq(fx_set_one(&f, "ws", "sysctl.kernel.printk", "5  4\t1 7"), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/kernel/printk"), "5  4\t1 7");
	ck_assert_int_eq(perftune_restore(f.ctx, "ws", 0), 2);
	ck_assert_str_eq(fx_read(&f, "proc/sys/kernel/printk"), "4\t4\t1\t7"); /* as it was */
	ck_assert_str_eq(fx_read(&f, "proc/sys/kernel/core_pattern"), "/var/core/[%p]");
}
END_TEST

START_TEST(held_transaction_cannot_be_restored_by_others)
{
	int p[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		ck_assert_int_ge(commit_big(PERFTUNE_TX_HOLD), 0);
		ck_assert_int_eq(write(p[1], "x", 1), 1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	ck_assert_int_eq(perftune_restore(f.ctx, "big", 0), -EBUSY);
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), BIG_WRITES - 1);
}
END_TEST

/* cpufreq clamps a new min to the current max: max goes first whatever the staging order */
START_TEST(cpufreq_max_is_written_before_min)
{
	struct perftune_tx *tx = NULL;

	f.sim.fault_at = 1; /* the first write fails: the error names it */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "limits", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.min_khz", "2400000"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.max_khz", "3500000"), 1);
	ck_assert_int_lt(perftune_tx_commit(tx), 0);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "cpu.0.max_khz: "),
		      "first write was not max_khz: %s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq"), "800000");
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(idle_max_latency_disables_deeper_states_and_restores_them)
{
	struct perftune_tx *tx;
	char *v = NULL;

	fx_write(&f, "sys/devices/system/cpu/cpu0/cpuidle/state2/disable", "1"); /* C1E off already */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "lat", 0, &tx), 0);
	/* deeper than 5 us: C1E and C6 on cpu0-1, C3 on cpu2-3 */
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.all.idle.max_latency_us", "5"), 6);
	ck_assert_int_eq(perftune_tx_commit(tx), 5); /* cpu0 C1E was already disabled */
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_get(f.ctx, "cpu.0-1.idle.max_latency_us", &v), 0);
	ck_assert_str_eq(v, "2");
	free(v);
	ck_assert_int_eq(perftune_get(f.ctx, "cpu.2.idle.C3.disable", &v), 0);
	ck_assert_str_eq(v, "1");
	free(v);
	ck_assert_int_eq(perftune_restore(f.ctx, "lat", 0), 5);
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/cpu/cpu0/cpuidle/state2/disable"), "1");
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/cpu/cpu1/cpuidle/state2/disable"), "0");
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/cpu/cpu3/cpuidle/state2/disable"), "0");
}
END_TEST

/* the power keys beside governor and idle states, in one transaction and back */
START_TEST(cpu_power_keys_set_and_restore)
{
	static const char *const files[][3] = {
		/* file, before, after */
		{ "sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us", "0", "10" },
		{ "sys/devices/system/cpu/cpu3/power/pm_qos_resume_latency_us", "0", "10" },
		{ "sys/devices/system/cpu/cpufreq/boost", "1", "0" },
		{ "sys/devices/system/cpu/cpu1/cpufreq/scaling_min_freq", "800000", "1000000" },
		{ "sys/devices/system/cpu/cpu2/cpufreq/scaling_min_freq", "800000", "800000" },
		{ "sys/devices/system/cpu/cpu2/cpufreq/energy_performance_preference",
		  "balance_performance", "performance" },
	};
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "power", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.resume_latency_us", "fast"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0.min_khz", "100"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.boost", "2"), -EINVAL);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.all.resume_latency_us", "10"), 4);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.boost", "0"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.0-1.min_khz", "1000000"), 2);
	ck_assert_int_eq(perftune_tx_set(tx, "cpu.all.epp", "performance"), 4);
	ck_assert_int_eq(perftune_tx_commit(tx), 11);
	perftune_tx_unref(tx);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		ck_assert_str_eq(fx_read(&f, files[i][0]), files[i][2]);
	ck_assert_int_eq(perftune_restore(f.ctx, "power", 0), 11);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		ck_assert_str_eq(fx_read(&f, files[i][0]), files[i][1]);
}
END_TEST

/* a busy queue (EAGAIN) is asked again; one that stays busy fails the commit, which rolls back */
START_TEST(busy_kernel_file_is_retried_then_given_up)
{
	struct perftune_tx *tx;
	struct snap *before = snap_take(f.root);

	f.sim.busy = 3;
	ck_assert_int_eq(perftune_tx_new(f.ctx, "busy", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "block.sda.scheduler", "bfq"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx);
	ck_assert_int_eq(f.sim.busy_seen, 3);
	ck_assert_str_eq(fx_read(&f, SDA_SCHED), "mq-deadline kyber [bfq] none");
	ck_assert_int_eq(perftune_restore(f.ctx, "busy", 0), 1);

	f.sim.busy = 1000;
	f.sim.busy_seen = 0;
	ck_assert_int_eq(perftune_tx_new(f.ctx, "busy2", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "3"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), -EAGAIN);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness"), "%s",
		      perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
	ck_assert_int_gt(f.sim.busy_seen, 10);
	ck_assert_int_lt(f.sim.busy_seen, 100);
	f.sim.busy = 0;
	ck_assert_int_eq(f.sim.writes, 2);
	ck_assert_int_eq(fx_journals(&f), 0);
	assert_same(before);
	snap_free(before);
}
END_TEST

/* the fds this process has open */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static off_t file_size(const char *rel)
{
	char full[PATH_MAX];
	struct stat st;

	snprintf(full, sizeof(full), "%s/%s", f.root, rel);
	ck_assert_int_eq(stat(full, &st), 0);
	return st.st_size;
}

/*
 * A transaction keeps its keys' files open from staging to its rollback and
 * writes through them: a shorter value replaces the longer one exactly (a
 * plain file is cut), and nothing stays open once the transaction is gone.
 */
START_TEST(kept_files_write_exactly_and_close_with_the_transaction)
{
	struct perftune_tx *tx;
	int fds;

	pt_attr_set_write_fn(f.ctx, NULL, NULL); /* the library's own write path, no simulator */
	fx_write(&f, "proc/sys/vm/swappiness", "100");
	fx_write(&f, "proc/sys/vm/dirty_ratio", "20");
	fds = open_fds();
	ck_assert_int_eq(perftune_tx_new(f.ctx, "kept", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "5"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.dirty_ratio", "40"), 1);
	ck_assert_int_ge(open_fds(), fds + 2); /* staged: open */
	ck_assert_msg(perftune_tx_commit(tx) == 2, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "5");
	ck_assert_int_eq(file_size("proc/sys/vm/swappiness"), 1); /* "5", not "500\n" */
	ck_assert_int_ge(open_fds(), fds + 2); /* kept for the rollback */
	ck_assert_msg(perftune_tx_rollback(tx) == 2, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "100");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/dirty_ratio"), "20");
	ck_assert_int_eq(file_size("proc/sys/vm/swappiness"), 3);
	ck_assert_int_eq(fx_journals(&f), 0);
	perftune_tx_unref(tx);
	ck_assert_int_le(open_fds(), fds + 2); /* the context's journal dir and lock at most */
	perftune_ctx_unref(f.ctx);
	f.ctx = NULL;
	ck_assert_int_lt(open_fds(), fds);
}
END_TEST

/* a staged key's file that goes away before the commit: refused by name, nothing written */
START_TEST(file_gone_between_staging_and_commit_names_the_key)
{
	struct snap *before;
	struct perftune_tx *tx;
	char full[PATH_MAX];
	int r;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "gone", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.dirty_ratio", "40"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "5"), 1);
	snprintf(full, sizeof(full), "%s/proc/sys/vm/swappiness", f.root);
	ck_assert_int_eq(unlink(full), 0);
	before = snap_take(f.root);
	r = perftune_tx_commit(tx);
	ck_assert_int_lt(r, 0);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness") != NULL, "%s",
		      perftune_ctx_last_error(f.ctx));
	assert_same(before); /* dirty_ratio written, then given back */
	ck_assert_int_eq(fx_journals(&f), 0);
	perftune_tx_unref(tx);
	snap_free(before);
}
END_TEST

/* more keys than a committed transaction keeps open: closed after the commit, still rolled back */
START_TEST(large_transaction_closes_its_files_after_commit)
{
	struct perftune_tx *tx;
	char rel[PATH_MAX], key[64];
	int fds;

	pt_attr_set_write_fn(f.ctx, NULL, NULL);
	for (int i = 0; i < 40; i++) { /* 40 sysctls more */
		FILE *fp;
		snprintf(rel, sizeof(rel), "%s/proc/sys/vm/bench_%d", f.root, i);
		fp = fopen(rel, "w");
		ck_assert_ptr_nonnull(fp);
		fputs("1000\n", fp);
		fclose(fp);
	}
	fds = open_fds();
	ck_assert_int_eq(perftune_tx_new(f.ctx, "large", 0, &tx), 0);
	for (int i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "sysctl.vm.bench_%d", i);
		ck_assert_int_eq(perftune_tx_set(tx, key, "7"), 1);
	}
	ck_assert_int_ge(open_fds(), fds + 40);
	ck_assert_msg(perftune_tx_commit(tx) == 40, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/bench_39"), "7");
	ck_assert_int_le(open_fds(), fds + 2);
	ck_assert_msg(perftune_tx_rollback(tx) == 40, "%s", perftune_ctx_last_error(f.ctx));
	for (int i = 0; i < 40; i++) { /* (plain files: the value comes back without its newline) */
		snprintf(rel, sizeof(rel), "proc/sys/vm/bench_%d", i);
		ck_assert_str_eq(fx_read(&f, rel), "1000");
	}
	ck_assert_int_eq(fx_journals(&f), 0);
	perftune_tx_unref(tx);
}
END_TEST

/*
 * Keys of several devices with the library's own writes (no simulator): with
 * io_uring, each rank of keys is one wave (sda's second key waits for the
 * second); every value written, read back, and given back by the rollback.
 */
START_TEST(devices_written_in_waves_and_given_back)
{
	static const char *const kv[][3] = { /* key, value, original */
		{ "block.sda.read_ahead_kb", "512", "128" },
		{ "block.sda.nomerges", "1", "0" },
		{ "block.sdb.read_ahead_kb", "256", "128" },
		{ "block.sdc.nr_requests", "32", "64" },
	};
	static const char *const file[] = { SDA_RA, Q("0/block/sda", "nomerges"),
					    Q("1/block/sdb", "read_ahead_kb"),
					    Q("2/block/sdc", "nr_requests") };
	struct perftune_tx *tx;
	int waves = 0;

	pt_attr_set_write_fn(f.ctx, NULL, NULL);
	perftune_ctx_set_log_fn(f.ctx, count_waves, PERFTUNE_LOG_DEBUG, &waves);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "waves", 0, &tx), 0);
	for (size_t i = 0; i < ARRAY_SIZE(kv); i++)
		ck_assert_int_eq(perftune_tx_set(tx, kv[i][0], kv[i][1]), 1);
	ck_assert_msg(perftune_tx_commit(tx) == 4, "%s", perftune_ctx_last_error(f.ctx));
	for (size_t i = 0; i < ARRAY_SIZE(kv); i++)
		ck_assert_str_eq(fx_read(&f, file[i]), kv[i][1]);
	if (pt_uring_available())
		ck_assert_int_eq(waves, 2); /* sda's second key in a wave of its own */
	else
		ck_assert_int_eq(waves, 0); /* threads instead */
	waves = 0;
	ck_assert_msg(perftune_tx_rollback(tx) == 4, "%s", perftune_ctx_last_error(f.ctx));
	for (size_t i = 0; i < ARRAY_SIZE(kv); i++)
		ck_assert_str_eq(fx_read(&f, file[i]), kv[i][2]);
	ck_assert_int_eq(waves, pt_uring_available() ? 2 : 0);
	ck_assert_int_eq(fx_journals(&f), 0);
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(committed_transaction_rejects_more)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "c", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "11"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "12"), -EALREADY);
	ck_assert_int_eq(perftune_tx_commit(tx), -EALREADY);
	ck_assert_int_eq(perftune_tx_rollback(tx), 1);
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_int_eq(perftune_tx_new(f.ctx, "../x", 0, &tx), -EINVAL);
	ck_assert_int_eq(perftune_tx_new(f.ctx, ".hidden", 0, &tx), -EINVAL);
	/* issue 33 H12: a name that restore would read as an option */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "-x", 0, &tx), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "not starting with '.' or '-'"));
	ck_assert_int_eq(perftune_tx_new(f.ctx, "x-", 0, &tx), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "x", 1u << 9, &tx), -EINVAL);
}
END_TEST

/* an empty transaction commits nothing (UBSan once caught qsort(NULL, 0) here) */
START_TEST(empty_transaction_commits_nothing)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "empty", PERFTUNE_TX_DRY_RUN, &tx), 0);
	ck_assert_int_eq(perftune_tx_commit(tx), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "empty", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_commit(tx), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(f.sim.writes, 0);
}
END_TEST

/*
 * Issue 27 hole A: a failed re-apply under the name of a committed
 * transaction leaves it as it was: its values, its holder (none), status
 * applied, untouched by restore --orphans.
 */
static const char *const keep1[][2] = { /* the committed transaction: 3 writes */
	{ "sysctl.vm.swappiness", "10" },
	{ "block.sda.scheduler", "bfq" },
	{ "block.sdb.nr_requests", "128" },
};
static const char *const keep2[][2] = { /* its re-apply: 2 keys of it, 3 new ones */
	{ "sysctl.vm.swappiness", "20" },
	{ "sysctl.vm.dirty_ratio", "40" },
	{ "block.sda.scheduler", "kyber" },
	{ "block.sda.read_ahead_kb", "512" },
	{ "block.sdb.nr_requests", "64" },
};
#define REAPPLY_WRITES 5

static int commit_kv(const char *name, const char *const (*kv)[2], size_t n, unsigned flags,
		     struct perftune_tx **keep)
{
	struct perftune_tx *tx;
	int r;

	ck_assert_int_eq(perftune_tx_new(f.ctx, name, flags, &tx), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(perftune_tx_set(tx, kv[i][0], kv[i][1]) >= 1, "%s: %s", kv[i][0],
			      perftune_ctx_last_error(f.ctx));
	r = perftune_tx_commit(tx);
	if (keep)
		*keep = tx;
	else
		perftune_tx_unref(tx);
	return r;
}

/* flags common to every live key of @name in status, ~0u if it has none; *npid its holder */
static unsigned status_flags(const char *name, int *npid)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	unsigned all = ~0u;

	*npid = -1;
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	while ((e = perftune_status_iter_next(it)))
		if (!strcmp(perftune_status_entry_tx_name(e), name)) {
			all &= perftune_status_entry_flags(e);
			*npid = perftune_status_entry_pid(e);
		}
	perftune_status_iter_free(it);
	return all;
}

static void assert_applied(const char *name)
{
	int pid;
	unsigned fl = status_flags(name, &pid);

	ck_assert_msg(fl != ~0u, "%s: not in status", name);
	ck_assert_msg(fl & PERFTUNE_STATUS_COMMITTED, "%s: not committed (0x%x)", name, fl);
	ck_assert_msg(!(fl & (PERFTUNE_STATUS_ORPHANED | PERFTUNE_STATUS_HELD)),
		      "%s: orphaned or held (0x%x, pid %d) after a failed re-apply", name, fl, pid);
	ck_assert_int_eq(pid, 0);
}

/* run @fn in a child (a second perftune process); its exit status */
static int in_child(void (*fn)(int), int arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void reapply_faulty(int i)
{
	f.sim.writes = 0;
	f.sim.fault_at = sweep_strategy_of(i, REAPPLY_WRITES);
	_exit(commit_kv("keep", keep2, ARRAY_SIZE(keep2), 0, NULL) == -EIO ? 3 : 4);
}

static void reapply_crash(int i)
{
	f.sim.writes = 0;
	f.sim.crash_at = sweep_strategy_of(i, REAPPLY_WRITES);
	commit_kv("keep", keep2, ARRAY_SIZE(keep2), 0, NULL);
}

/* in another process (the CLI's `perftune set --name keep ...` run again) */
START_TEST(failed_reapply_by_another_process_keeps_the_transaction)
{
	struct snap *before = snap_take(f.root), *applied;

	ck_assert_int_eq(commit_kv("keep", keep1, ARRAY_SIZE(keep1), 0, NULL), 3);
	applied = snap_take(f.root);
	ck_assert_int_eq(in_child(reapply_faulty, _i), 3);
	assert_same(applied);
	assert_applied("keep");
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	assert_same(applied);
	ck_assert_int_eq(fx_journals(&f), 1);
	/* and it still gives back the originals from before its first commit */
	ck_assert_msg(perftune_restore(f.ctx, "keep", 0) >= 3, "%s", perftune_ctx_last_error(f.ctx));
	assert_same(before);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(applied);
	snap_free(before);
}
END_TEST

/* in the same process, through the library */
START_TEST(failed_reapply_in_process_keeps_the_transaction)
{
	struct snap *applied;

	ck_assert_int_eq(commit_kv("keep", keep1, ARRAY_SIZE(keep1), 0, NULL), 3);
	applied = snap_take(f.root);
	f.sim.writes = 0;
	f.sim.fault_at = sweep_strategy_of(_i, REAPPLY_WRITES);
	ck_assert_int_eq(commit_kv("keep", keep2, ARRAY_SIZE(keep2), 0, NULL), -EIO);
	f.sim.fault_at = 0;
	assert_same(applied);
	assert_applied("keep");
	/* a second try that succeeds is a plain re-apply */
	ck_assert_int_eq(commit_kv("keep", keep2, ARRAY_SIZE(keep2), 0, NULL), REAPPLY_WRITES);
	assert_applied("keep");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "20");
	snap_free(applied);
}
END_TEST

/* a held transaction re-applied by its holder: still held by it */
START_TEST(failed_reapply_of_a_held_transaction_keeps_the_hold)
{
	struct perftune_tx *held;
	struct snap *applied;
	int pid;

	ck_assert_int_eq(commit_kv("keep", keep1, ARRAY_SIZE(keep1), PERFTUNE_TX_HOLD, &held), 3);
	applied = snap_take(f.root);
	f.sim.writes = 0;
	f.sim.fault_at = sweep_strategy_of(_i, REAPPLY_WRITES);
	ck_assert_int_eq(commit_kv("keep", keep2, ARRAY_SIZE(keep2), PERFTUNE_TX_HOLD, NULL), -EIO);
	f.sim.fault_at = 0;
	assert_same(applied);
	ck_assert(status_flags("keep", &pid) & PERFTUNE_STATUS_HELD);
	ck_assert_int_eq(pid, getpid());
	ck_assert_int_eq(perftune_tx_rollback(held), 3);
	perftune_tx_unref(held);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(applied);
}
END_TEST

/*
 * Killed in the middle of a re-apply: the transaction is an orphan (its last
 * holder died), and restore --orphans gives back the originals from before
 * its first commit, whichever writes of the re-apply happened.
 */
START_TEST(crash_in_reapply_then_restore_orphans_gives_back_the_originals)
{
	struct snap *before = snap_take(f.root);
	int pid;

	ck_assert_int_eq(commit_kv("keep", keep1, ARRAY_SIZE(keep1), 0, NULL), 3);
	ck_assert_int_eq(in_child(reapply_crash, _i), 99);
	ck_assert(status_flags("keep", &pid) & PERFTUNE_STATUS_ORPHANED);
	ck_assert_msg(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS) >= 1, "%s",
		      perftune_ctx_last_error(f.ctx));
	assert_same(before);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}
END_TEST

/* the same through a profile: perftune apply run again */
static void put_profile(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
	ck_assert_int_eq(chmod(path, 0644), 0);
}

static int apply_profile(const char *path)
{
	struct perftune_profile *p = NULL;
	struct perftune_tx *tx;
	int r;

	ck_assert_msg(perftune_profile_load(f.ctx, path, NULL, &p) == 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(perftune_tx_new(f.ctx, "prof", 0, &tx), 0);
	ck_assert_msg(perftune_profile_stage(p, tx, 0) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	r = perftune_tx_commit(tx);
	perftune_tx_unref(tx);
	perftune_profile_free(p);
	return r;
}

START_TEST(failed_profile_reapply_keeps_the_transaction)
{
	char p1[PATH_MAX], p2[PATH_MAX];
	struct snap *applied;

	snprintf(p1, sizeof(p1), "%s/../one.conf", f.root);
	snprintf(p2, sizeof(p2), "%s/../two.conf", f.root);
	put_profile(p1, "[sysctl]\nvm.swappiness=10\n[disk]\ndevices=sda\nreadahead=256\n");
	put_profile(p2, "[sysctl]\nvm.swappiness=20\nvm.dirty_ratio=40\n[disk]\ndevices=sda\n"
			"readahead=512\n");
	ck_assert_msg(apply_profile(p1) == 2, "%s", perftune_ctx_last_error(f.ctx));
	applied = snap_take(f.root);
	f.sim.writes = 0;
	f.sim.fault_at = _i;
	ck_assert_int_eq(apply_profile(p2), -EIO);
	f.sim.fault_at = 0;
	assert_same(applied);
	assert_applied("prof");
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	ck_assert_int_eq(fx_journals(&f), 1);
	snap_free(applied);
}
END_TEST

static Suite *tx_suite(void)
{
	Suite *s = suite_create("tx");
	TCase *tc = tcase_create("commit");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, commit_writes_every_key_and_restore_returns_all);
	tcase_add_test(tc, noop_commit_is_recorded_and_its_restore_gives_back_nothing);
	tcase_add_loop_test(tc, commit_and_restore_on_each_strategy, 0, 3);
	tcase_add_loop_test(tc, commit_fault_at_every_write_restores_all, 0, SWEEP_CASES);
	tcase_add_loop_test(tc, commit_crash_at_every_write_then_restore_orphans, 0, SWEEP_CASES);
	tcase_add_test(tc, hold_crash_after_commit_is_orphan_and_restorable);
	tcase_add_test(tc, applied_transaction_is_not_an_orphan);
	tcase_add_test(tc, unref_of_a_held_transaction_writes_nothing);
	tcase_add_test(tc, release_gives_a_hold_back_and_ends_the_transaction);
	tcase_add_test(tc, validation_failure_stages_nothing_and_writes_nothing);
	tcase_add_test(tc, scheduler_aliases_map_to_blk_mq_names);
	tcase_add_test(tc, bio_based_write_that_does_nothing_fails_and_rolls_back);
	tcase_add_test(tc, partial_hugepages_fail_unless_allowed);
	tcase_add_test(tc, iosched_param_of_new_scheduler_is_applied_after_it);
	tcase_add_test(tc, iosched_param_restored_under_same_scheduler);
	tcase_add_loop_test(tc, stacked_transactions_restore_in_any_order, 0, 2);
	tcase_add_test(tc, drift_is_reported_and_restored);
	tcase_add_test(tc, reapply_changes_only_what_differs);
	tcase_add_test(tc, pmqos_needs_a_hold);
	tcase_add_test(tc, dry_run_writes_nothing_and_lists_changes);
	tcase_add_test(tc, value_is_written_as_given_and_compared_normalized);
	tcase_add_test(tc, held_transaction_cannot_be_restored_by_others);
	tcase_add_test(tc, cpufreq_max_is_written_before_min);
	tcase_add_test(tc, idle_max_latency_disables_deeper_states_and_restores_them);
	tcase_add_test(tc, cpu_power_keys_set_and_restore);
	tcase_add_test(tc, busy_kernel_file_is_retried_then_given_up);
	tcase_add_test(tc, committed_transaction_rejects_more);
	tcase_add_test(tc, empty_transaction_commits_nothing);
	tcase_add_test(tc, kept_files_write_exactly_and_close_with_the_transaction);
	tcase_add_test(tc, file_gone_between_staging_and_commit_names_the_key);
	tcase_add_test(tc, large_transaction_closes_its_files_after_commit);
	tcase_add_test(tc, devices_written_in_waves_and_given_back);
	suite_add_tcase(s, tc);
	tc = tcase_create("reapply");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	/* every write position of the re-apply on each strategy: serial, waves, threads */
	tcase_add_loop_test(tc, failed_reapply_by_another_process_keeps_the_transaction, 0,
			    3 * REAPPLY_WRITES);
	tcase_add_loop_test(tc, failed_reapply_in_process_keeps_the_transaction, 0,
			    3 * REAPPLY_WRITES);
	tcase_add_loop_test(tc, failed_reapply_of_a_held_transaction_keeps_the_hold, 0,
			    3 * REAPPLY_WRITES);
	tcase_add_loop_test(tc, crash_in_reapply_then_restore_orphans_gives_back_the_originals, 0,
			    3 * REAPPLY_WRITES);
	tcase_add_loop_test(tc, failed_profile_reapply_keeps_the_transaction, 1, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { tx_suite };
	return harness_main(argc, argv, suites, 1);
}
