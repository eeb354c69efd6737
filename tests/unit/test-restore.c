// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * restore.c against the simulated kernel: a fault and a kill at every write of
 * a restore, on each strategy of the batch engine (the journal keeps what was
 * not given back, and the next restore gives it back); --all across stacked
 * transactions; a key whose file went away before the restore (logged, skipped).
 * Identity (issue 33, H4 and H11): a pid whose start time changed (another
 * process, or a thread replaced), a NIC deleted and made again under its name
 * (another ifindex, on the scripted netlink kernel), a NIC renamed (followed by
 * its ifindex), a disk whose diskseq changed, a NIC of another network
 * namespace (kept), and re-applies and stacked transactions across them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fakenl.h"
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

/* ---- identity ---- */

static char idlog[8192];
static void id_log(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	(void)ctx, (void)prio, (void)ud;
	snprintf(idlog + strlen(idlog), sizeof(idlog) - strlen(idlog), "%s\n", msg);
}

/* create a file of the fake tree, and the directories on its way */
static void put(const char *rel, const char *value)
{
	char p[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f.root, rel);
	for (char *c = p + strlen(f.root) + 1; (c = strchr(c, '/')); c++) {
		*c = '\0';
		mkdir(p, 0755);
		*c = '/';
	}
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "%s\n", value);
	fclose(fp);
}

/* a symbolic link of the fake tree (replaced), as /proc/<pid>/ns/net is one */
static void put_link(const char *rel, const char *target)
{
	char p[PATH_MAX];

	put(rel, "");
	snprintf(p, sizeof(p), "%s/%s", f.root, rel);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink(target, p), 0);
}

/* the simulated threads of fake processes: tid and mask (4 CPUs) */
static struct {
	int tid;
	unsigned mask;
} thr[8];
static int nthr, thr_sets;

static int sim_affinity(struct perftune_ctx *ctx, int tid, unsigned char *mask, bool set, void *ud)
{
	(void)ctx, (void)ud;
	for (int i = 0; i < nthr; i++) {
		if (thr[i].tid != tid)
			continue;
		if (set) {
			thr[i].mask = mask[0] & 0xf;
			thr_sets++;
		} else {
			memset(mask, 0, PT_CPUS_BYTES);
			mask[0] = (unsigned char)thr[i].mask;
		}
		return 0;
	}
	return -ESRCH;
}

static unsigned *mask_of(int tid)
{
	for (int i = 0; i < nthr; i++)
		if (thr[i].tid == tid)
			return &thr[i].mask;
	ck_abort_msg("no thread %d", tid);
	return NULL;
}

/* thread @tid of process @pid (its main thread when equal), started @start ticks after boot */
static void fake_thread(int pid, int tid, unsigned long long start, unsigned mask)
{
	char rel[128], stat[256];

	/* proc(5): pid (comm) state ppid pgrp session tty tpgid flags, 12 more, starttime */
	snprintf(stat, sizeof(stat),
		 "%d (app) S 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %llu 0 0", tid, pid,
		 pid, start);
	snprintf(rel, sizeof(rel), "proc/%d/task/%d/stat", pid, tid);
	put(rel, stat);
	if (tid == pid) {
		snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
		put(rel, stat);
	}
	for (int i = 0; i < nthr; i++)
		if (thr[i].tid == tid) {
			thr[i].mask = mask;
			return;
		}
	thr[nthr].tid = tid;
	thr[nthr++].mask = mask;
}

/* process 300 exits; another gets pid 300 and tid 301, on CPU 1 (taskset -c 1) */
static void reuse_pid_300(void)
{
	fake_thread(300, 300, 5000, 0x2);
	fake_thread(300, 301, 5001, 0x2);
}

static struct fnl *k;

static void id_setup(void)
{
	fx_setup(&f);
	nthr = thr_sets = 0;
	idlog[0] = '\0';
	pt_attr_set_affinity_fn(f.ctx, sim_affinity, NULL);
	perftune_ctx_set_log_fn(f.ctx, id_log, PERFTUNE_LOG_NOTICE, NULL);
	k = fnl_new(f.root);
	ck_assert_ptr_nonnull(k);
	fnl_install(f.ctx, k);
	/* process 300: its main thread on CPUs 0-3, a second thread on CPU 1 */
	fake_thread(300, 300, 1000, 0xf);
	fake_thread(300, 301, 1005, 0x2);
}

static void id_teardown(void)
{
	fnl_free(k);
	fx_teardown(&f);
}

/* the status of @key: its flags, and its note in @note */
static unsigned status_of(const char *key, char *note, size_t size)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	unsigned fl = 0;
	bool found = false;

	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	while ((e = perftune_status_iter_next(it)))
		if (!strcmp(perftune_status_entry_key(e), key)) {
			fl = perftune_status_entry_flags(e);
			snprintf(note, size, "%s",
				 perftune_status_entry_note(e) ? perftune_status_entry_note(e) : "");
			found = true;
		}
	perftune_status_iter_free(it);
	ck_assert_msg(found, "status has no %s", key);
	return fl;
}

static void commit_kv(const char *name, const char *const *kv, int n)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, name, 0, &tx), 0);
	for (int i = 0; i < n; i++)
		ck_assert_msg(perftune_tx_set(tx, kv[2 * i], kv[2 * i + 1]) >= 1, "%s: %s",
			      kv[2 * i], perftune_ctx_last_error(f.ctx));
	ck_assert_msg(perftune_tx_commit(tx) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
}

/* H4: the pid is another process's now (another start time): nothing of it is written */
START_TEST(restore_never_writes_a_process_that_only_has_the_pid)
{
	char note[PT_ERR_MAX];

	commit_kv("t", (const char *[]){ "proc.300.cpus", "0" }, 1);
	ck_assert_uint_eq(*mask_of(300), 0x1);
	reuse_pid_300();
	ck_assert_uint_eq(status_of("proc.300.cpus", note, sizeof(note)) & PERFTUNE_STATUS_GONE,
			  PERFTUNE_STATUS_GONE);
	ck_assert_msg(strstr(note, "pid 300 is another process now (started at 5000, journaled "
				   "1000)"),
		      "status note: %s", note);
	thr_sets = 0;
	ck_assert_int_eq(perftune_restore(f.ctx, "t", 0), 0);
	ck_assert_int_eq(thr_sets, 0);
	ck_assert_uint_eq(*mask_of(300), 0x2);
	ck_assert_uint_eq(*mask_of(301), 0x2);
	ck_assert_msg(strstr(idlog, "proc.300.cpus: skipped, gone: proc.300.cpus: pid 300 is "
				    "another process now"),
		      "log: %s", idlog);
	ck_assert_int_eq(fx_journals(&f), 0); /* gone for good: nothing left to give back */
}
END_TEST

/* the same process, one of its threads replaced by another with its tid: the rest back */
START_TEST(restore_leaves_out_a_thread_that_only_has_the_tid)
{
	commit_kv("t", (const char *[]){ "proc.300.cpus", "0" }, 1);
	fake_thread(300, 301, 1100, 0x4); /* thread 301 ended, a new one got its tid */
	ck_assert_int_eq(perftune_restore(f.ctx, "t", 0), 1);
	ck_assert_uint_eq(*mask_of(300), 0xf);
	ck_assert_uint_eq(*mask_of(301), 0x4);
	ck_assert_msg(strstr(idlog, "thread 301 is another thread now (started at 1100, journaled "
				    "1005): not given back"),
		      "log: %s", idlog);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* a re-apply under the name: the original of the process gone is dropped, the new one's kept */
START_TEST(reapply_after_the_pid_was_reused_journals_the_new_process)
{
	commit_kv("t", (const char *[]){ "proc.300.cpus", "0" }, 1);
	reuse_pid_300();
	commit_kv("t", (const char *[]){ "proc.300.cpus", "0" }, 1);
	ck_assert_uint_eq(*mask_of(300), 0x1);
	ck_assert_int_eq(perftune_restore(f.ctx, "t", 0), 1);
	ck_assert_uint_eq(*mask_of(300), 0x2); /* the new process's own, not the first one's */
	ck_assert_uint_eq(*mask_of(301), 0x2);
}
END_TEST

/* stacked on one pid across a reuse: nothing handed over from the process gone */
START_TEST(stacked_transactions_across_a_pid_reuse_keep_their_own_processes)
{
	commit_kv("a", (const char *[]){ "proc.300.cpus", "0" }, 1);
	reuse_pid_300();
	commit_kv("b", (const char *[]){ "proc.300.cpus", "3" }, 1);
	ck_assert_int_eq(perftune_restore(f.ctx, "a", 0), 0);
	ck_assert_uint_eq(*mask_of(300), 0x8); /* b's value stays: a's process is gone */
	ck_assert_int_eq(perftune_restore(f.ctx, "b", 0), 1);
	ck_assert_uint_eq(*mask_of(300), 0x2);
	ck_assert_uint_eq(*mask_of(301), 0x2);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

#define ETH1_QLEN "sys/class/net/eth1/tx_queue_len"
static const char *const nic_kv[] = { "net.eth1.txqueuelen", "500", "net.eth1.coalesce.rx_usecs",
				      "100" };

/* H4: eth1 deleted and made again under its name (another ifindex): the newcomer untouched */
START_TEST(restore_never_writes_a_nic_made_again_under_the_name)
{
	char note[PT_ERR_MAX];

	commit_kv("n", nic_kv, 2);
	ck_assert_str_eq(fx_read(&f, ETH1_QLEN), "500");
	fnl_recreate(k, 1, 7);
	fx_write(&f, ETH1_QLEN, "900");
	k->dev[1].rx_usecs = 10;
	ck_assert_uint_eq(status_of("net.eth1.txqueuelen", note, sizeof(note)) &
				  PERFTUNE_STATUS_GONE,
			  PERFTUNE_STATUS_GONE);
	ck_assert_int_eq(perftune_restore(f.ctx, "n", 0), 0);
	ck_assert_str_eq(fx_read(&f, ETH1_QLEN), "900");
	ck_assert_uint_eq(k->dev[1].rx_usecs, 10);
	ck_assert_msg(strstr(idlog, "network device eth1 is gone (no device has ifindex 3 now; one "
				    "made since has its name)"),
		      "log: %s", idlog);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* H11: eth1 renamed eth9, and another eth1 made: the original goes to eth9, by its ifindex */
START_TEST(restore_follows_a_renamed_nic_by_its_ifindex)
{
	char note[PT_ERR_MAX];

	commit_kv("n", nic_kv, 2);
	fnl_rename(k, 1, "eth9");
	put(ETH1_QLEN, "900"); /* a newcomer named eth1, ifindex 8 */
	put("sys/class/net/eth1/ifindex", "8");
	ck_assert_uint_eq(status_of("net.eth1.txqueuelen", note, sizeof(note)) &
				  (PERFTUNE_STATUS_MOVED | PERFTUNE_STATUS_GONE),
			  PERFTUNE_STATUS_MOVED);
	ck_assert_msg(strstr(note, "network device eth1 is eth9 now (ifindex 3): restore gives it "
				   "back as net.eth9.txqueuelen"),
		      "status note: %s", note);
	ck_assert_int_eq(perftune_restore(f.ctx, "n", 0), 2);
	ck_assert_str_eq(fx_read(&f, "sys/class/net/eth9/tx_queue_len"), "1000");
	ck_assert_uint_eq(k->dev[1].rx_usecs, 50);
	ck_assert_str_eq(fx_read(&f, ETH1_QLEN), "900");
	ck_assert_msg(strstr(idlog, "net.eth1.coalesce.rx_usecs: network device eth1 is eth9 now "
				    "(ifindex 3): given back as net.eth9.coalesce.rx_usecs"),
		      "log: %s", idlog);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* a re-apply on the newcomer's name would lose the renamed device's original: refused */
START_TEST(reapply_on_the_name_of_a_renamed_nic_is_refused)
{
	commit_kv("n", nic_kv, 1);
	fnl_rename(k, 1, "eth9");
	put(ETH1_QLEN, "900");
	put("sys/class/net/eth1/ifindex", "8");
	ck_assert_int_eq(fx_set_one(&f, "n", "net.eth1.txqueuelen", "600"), -EBUSY);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx),
			     "net.eth1.txqueuelen: transaction 'n' holds the original of what is "
			     "net.eth9.txqueuelen now"),
		      "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, ETH1_QLEN), "900");
	ck_assert_int_eq(perftune_restore(f.ctx, "n", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/class/net/eth9/tx_queue_len"), "1000");
}
END_TEST

/* stacked across a rename: the earlier original is handed over to the later, under the new name */
START_TEST(stacked_transactions_across_a_rename_hand_over)
{
	commit_kv("a", nic_kv, 1);
	fnl_rename(k, 1, "eth9");
	commit_kv("b", (const char *[]){ "net.eth9.txqueuelen", "600" }, 1);
	ck_assert_int_eq(perftune_restore(f.ctx, "a", 0), 0);
	ck_assert_str_eq(fx_read(&f, "sys/class/net/eth9/tx_queue_len"), "600");
	ck_assert_int_eq(perftune_restore(f.ctx, "b", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/class/net/eth9/tx_queue_len"), "1000");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* journaled in another network namespace that still lives: not written, and kept */
START_TEST(a_nic_of_another_live_namespace_is_kept_not_written)
{
	char note[PT_ERR_MAX];

	put_link("proc/self/ns/net", "net:[4026531840]");
	commit_kv("n", nic_kv, 1);
	put_link("proc/self/ns/net", "net:[4026532000]"); /* restored from another namespace */
	put_link("proc/77/ns/net", "net:[4026531840]");	  /* where a process still is */
	ck_assert_int_eq(perftune_restore(f.ctx, "n", 0), -EIO);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "restore it there (ip netns exec)"),
		      "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, ETH1_QLEN), "500");
	ck_assert_int_eq(fx_journals(&f), 1);
	status_of("net.eth1.txqueuelen", note, sizeof(note));
	ck_assert_msg(strstr(note, "is in network namespace net:[4026531840]"), "note: %s", note);
	/* back in its namespace: given back */
	put_link("proc/self/ns/net", "net:[4026531840]");
	ck_assert_int_eq(perftune_restore(f.ctx, "n", 0), 1);
	ck_assert_str_eq(fx_read(&f, ETH1_QLEN), "1000");
}
END_TEST

/* its namespace gone (no process in it, no mount of it): gone for good, dropped */
START_TEST(a_nic_of_a_namespace_gone_is_dropped)
{
	put_link("proc/self/ns/net", "net:[4026531840]");
	commit_kv("n", nic_kv, 1);
	put_link("proc/self/ns/net", "net:[4026532000]");
	ck_assert_int_eq(perftune_restore(f.ctx, "n", 0), 0);
	ck_assert_str_eq(fx_read(&f, ETH1_QLEN), "500"); /* this namespace's eth1: not ours */
	ck_assert_msg(strstr(idlog, "its network namespace net:[4026531840] is gone"), "log: %s",
		      idlog);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

#define RPF(dev) "proc/sys/net/ipv4/conf/" dev "/rp_filter"

/* a NIC's sysctls belong to it: renamed, they go with it; made again, they are its own */
START_TEST(sysctls_of_a_nic_follow_it_and_are_not_the_newcomer_s)
{
	char from[PATH_MAX], to[PATH_MAX];

	commit_kv("s", (const char *[]){ "sysctl.net.ipv4.conf.eth0.rp_filter", "0" }, 1);
	fnl_rename(k, 0, "eth5");
	snprintf(from, sizeof(from), "%s/" RPF("eth0"), f.root);
	snprintf(to, sizeof(to), "%s/" RPF("eth5"), f.root);
	*strrchr(from, '/') = *strrchr(to, '/') = '\0';
	ck_assert_int_eq(rename(from, to), 0);
	ck_assert_int_eq(perftune_restore(f.ctx, "s", 0), 1);
	ck_assert_str_eq(fx_read(&f, RPF("eth5")), "2");
	ck_assert_msg(strstr(idlog, "given back as sysctl.net.ipv4.conf.eth5.rp_filter"), "log: %s",
		      idlog);
	/* eth5 deleted, and eth5 made again (its conf made again too, with a value of its own) */
	commit_kv("s", (const char *[]){ "sysctl.net.ipv4.conf.eth5.rp_filter", "0" }, 1);
	fnl_recreate(k, 0, 9);
	fx_write(&f, RPF("eth5"), "1");
	ck_assert_int_eq(perftune_restore(f.ctx, "s", 0), 0);
	ck_assert_str_eq(fx_read(&f, RPF("eth5")), "1");
	ck_assert_msg(strstr(idlog, "network device eth5 is gone (no device has ifindex 2 now"),
		      "log: %s", idlog);
}
END_TEST

#define SDB "sys/devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:1/block/sdb/"

/* another disk under sdb's name and dev_t (its diskseq tells): not written */
START_TEST(restore_never_writes_a_disk_that_only_has_the_name)
{
	put(SDB "diskseq", "5");
	commit_kv("d", (const char *[]){ "block.sdb.read_ahead_kb", "1024" }, 1);
	put(SDB "diskseq", "9");
	fx_write(&f, SDB "queue/read_ahead_kb", "256");
	ck_assert_int_eq(perftune_restore(f.ctx, "d", 0), 0);
	ck_assert_str_eq(fx_read(&f, SDB "queue/read_ahead_kb"), "256");
	ck_assert_msg(strstr(idlog, "another object now (dev=8:16 diskseq=9; journaled dev=8:16 "
				    "diskseq=5)"),
		      "log: %s", idlog);
	/* the same disk: given back */
	commit_kv("d", (const char *[]){ "block.sdb.read_ahead_kb", "1024" }, 1);
	ck_assert_int_eq(perftune_restore(f.ctx, "d", 0), 1);
	ck_assert_str_eq(fx_read(&f, SDB "queue/read_ahead_kb"), "256");
}
END_TEST

/* the whole file, byte for byte (fx_read trims) */
static const char *file_bytes(const char *rel)
{
	static char buf[PT_VAL];
	char full[PATH_MAX];
	FILE *fp;
	size_t n;

	snprintf(full, sizeof(full), "%s/%s", f.root, rel);
	ck_assert_ptr_nonnull(fp = fopen(full, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return buf;
}

#define CORE "proc/sys/kernel/core_pattern"

/* a sysctl string the fake tree has not: "a  b<TAB>c", as the kernel shows it */
static void core_pattern_is(const char *bytes)
{
	char full[PATH_MAX];
	FILE *fp;

	snprintf(full, sizeof(full), "%s/%s", f.root, CORE);
	ck_assert_ptr_nonnull(fp = fopen(full, "w"));
	fputs(bytes, fp);
	fclose(fp);
}

static void core_pattern_made(void)
{
	core_pattern_is("a  b\tc\n");
}

/*
 * Issue 33, H14: an original is journaled as the kernel gave it, not as a read
 * shows it ("a b c"), and a restore and a rollback write it back byte for byte.
 */
START_TEST(original_blanks_and_tabs_are_restored_byte_for_byte)
{
	struct perftune_tx *tx;

	core_pattern_made();
	fx_get_is(&f, "sysctl.kernel.core_pattern", "a b c"); /* shown normalized */
	ck_assert_int_eq(fx_set_one(&f, "cp", "sysctl.kernel.core_pattern", "core"), 1);
	ck_assert_str_eq(file_bytes(CORE), "core\n");
	ck_assert_int_eq(perftune_restore(f.ctx, "cp", 0), 1);
	ck_assert_str_eq(file_bytes(CORE), "a  b\tc\n");

	/* a commit that fails after the write rolls the same bytes back */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "cp", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.kernel.core_pattern", "core"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	f.sim.writes = 0;
	f.sim.fault_at = 2;
	ck_assert_int_lt(perftune_tx_commit(tx), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(f.sim.writes, 3); /* two writes, and the rollback of the first */
	ck_assert_str_eq(file_bytes(CORE), "a  b\tc\n");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

/*
 * An original with a control byte (set behind our back: printf '|x\001y' >
 * core_pattern) is journaled %-escaped like any byte and given back as it
 * was; the journal used to refuse such a record when it was read, so the
 * restore of a set that had succeeded failed on a "corrupt" journal.
 */
START_TEST(original_with_a_control_byte_is_restored)
{
	core_pattern_is("|x\001y\n");
	ck_assert_int_eq(fx_set_one(&f, "cp", "sysctl.kernel.core_pattern", "core"), 1);
	ck_assert_str_eq(file_bytes(CORE), "core\n");
	ck_assert_int_eq(perftune_restore(f.ctx, "cp", 0), 1);
	ck_assert_str_eq(file_bytes(CORE), "|x\001y\n");
}
END_TEST

/* the same value with other blanks is the same value: nothing written, nothing journaled */
START_TEST(original_with_other_blanks_is_unchanged)
{
	core_pattern_made();
	f.sim.writes = 0;
	ck_assert_int_eq(fx_set_one(&f, "cp", "sysctl.kernel.core_pattern", "a b c"), 0);
	ck_assert_int_eq(f.sim.writes, 0);
	ck_assert_str_eq(file_bytes(CORE), "a  b\tc\n");
}
END_TEST

static Suite *identity_suite(void)
{
	Suite *s = suite_create("identity");
	TCase *tc = tcase_create("identity");

	tcase_add_checked_fixture(tc, id_setup, id_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, restore_never_writes_a_process_that_only_has_the_pid);
	tcase_add_test(tc, restore_leaves_out_a_thread_that_only_has_the_tid);
	tcase_add_test(tc, reapply_after_the_pid_was_reused_journals_the_new_process);
	tcase_add_test(tc, stacked_transactions_across_a_pid_reuse_keep_their_own_processes);
	tcase_add_test(tc, restore_never_writes_a_nic_made_again_under_the_name);
	tcase_add_test(tc, restore_follows_a_renamed_nic_by_its_ifindex);
	tcase_add_test(tc, reapply_on_the_name_of_a_renamed_nic_is_refused);
	tcase_add_test(tc, stacked_transactions_across_a_rename_hand_over);
	tcase_add_test(tc, a_nic_of_another_live_namespace_is_kept_not_written);
	tcase_add_test(tc, a_nic_of_a_namespace_gone_is_dropped);
	tcase_add_test(tc, restore_never_writes_a_disk_that_only_has_the_name);
	tcase_add_test(tc, sysctls_of_a_nic_follow_it_and_are_not_the_newcomer_s);
	suite_add_tcase(s, tc);
	return s;
}

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
	tcase_add_test(tc, original_blanks_and_tabs_are_restored_byte_for_byte);
	tcase_add_test(tc, original_with_other_blanks_is_unchanged);
	tcase_add_test(tc, original_with_a_control_byte_is_restored);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { restore_suite, identity_suite };

	return harness_main(argc, argv, suites, 2);
}
