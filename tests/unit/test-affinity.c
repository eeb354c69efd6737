// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * proc.<sel>.cpus on fake processes: /proc/<pid>/stat and task/ in the fake
 * tree, the affinity syscalls answered by a table of threads (pt_attr's hook).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "shared/dlopen.h"

static struct fx f;

/* the simulated threads: tid, mask (bits), refused (PF_NO_SETAFFINITY), gone */
#define NTHR 16
static struct {
	int tid;
	unsigned mask;
	bool refuse, gone;
} thr[NTHR];
static int nthr, sets;

static int sim_affinity(struct perftune_ctx *ctx, int tid, unsigned char *mask, bool set, void *ud)
{
	(void)ctx, (void)ud;
	for (int i = 0; i < nthr; i++) {
		if (thr[i].tid != tid || thr[i].gone)
			continue;
		if (!set) {
			memset(mask, 0, PT_CPUS_BYTES);
			mask[0] = (unsigned char)thr[i].mask;
			return 0;
		}
		if (thr[i].refuse || !(mask[0] & 0xf))
			return -EINVAL;
		thr[i].mask = mask[0] & 0xf; /* 4 CPUs: the kernel keeps the active ones */
		sets++;
		return 0;
	}
	return -ESRCH;
}

static unsigned mask_of(int tid)
{
	for (int i = 0; i < nthr; i++)
		if (thr[i].tid == tid)
			return thr[i].mask;
	return 0;
}

/* a process @pid (@comm, stat flags @flags) with threads tids[i] named comms[i] on masks[i] */
static void fake_proc(int pid, const char *comm, unsigned long flags, int n, const int *tids,
		      const char *const *comms, const unsigned *masks)
{
	char rel[128], stat[256];

	snprintf(rel, sizeof(rel), "proc/%d/task", pid);
	fx_mkdirs(&f, rel);
	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	snprintf(stat, sizeof(stat), "%d (%s) S 1 %d %d 0 -1 %lu 0 0 0", pid, comm, pid, pid, flags);
	fx_put(&f, rel, stat);
	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "proc/%d/task/%d", pid, tids[i]);
		fx_mkdirs(&f, rel);
		snprintf(rel, sizeof(rel), "proc/%d/task/%d/stat", pid, tids[i]);
		snprintf(stat, sizeof(stat), "%d (%s) S 1 %d %d 0 -1 %lu 0 0 0", tids[i], comms[i],
			 pid, pid, flags);
		fx_put(&f, rel, stat);
		thr[nthr].tid = tids[i];
		thr[nthr].mask = masks[i];
		thr[nthr].refuse = flags & PT_PF_NO_SETAFFINITY;
		thr[nthr++].gone = false;
	}
}

static void setup(void)
{
	fx_setup(&f);
	nthr = sets = 0;
	pt_attr_set_affinity_fn(f.ctx, sim_affinity, NULL);
	/* an application with a poll-mode thread, kthreadd, a per-CPU kthread, a VM */
	fake_proc(100, "app", 0x400100, 3, (int[]){ 100, 101, 102 },
		  (const char *const[]){ "app", "pmd-c03/id:8", "app-worker" },
		  (unsigned[]){ 0xf, 0x8, 0x2 });
	fake_proc(2, "kthreadd", PT_PF_KTHREAD, 1, (int[]){ 2 },
		  (const char *const[]){ "kthreadd" }, (unsigned[]){ 0xf });
	fake_proc(20, "ksoftirqd/1", PT_PF_KTHREAD | PT_PF_NO_SETAFFINITY, 1, (int[]){ 20 },
		  (const char *const[]){ "ksoftirqd/1" }, (unsigned[]){ 0x2 });
	fake_proc(300, "qemu-kvm", 0x400100, 2, (int[]){ 300, 301 },
		  (const char *const[]){ "qemu-kvm", "CPU 0/KVM" }, (unsigned[]){ 0xf, 0x8 });
}

static void teardown(void)
{
	fx_teardown(&f);
}

static char *get(const char *key)
{
	static char buf[PT_VAL];
	char *v = NULL;

	ck_assert_msg(perftune_get(f.ctx, key, &v) == 0, "%s: %s", key,
		      perftune_ctx_last_error(f.ctx));
	snprintf(buf, sizeof(buf), "%s", v);
	free(v);
	return buf;
}

static int set(const char *name, const char *key, const char *value)
{
	return fx_set_one(&f, name, key, value);
}

START_TEST(read_shows_one_list_or_each_threads_own)
{
	ck_assert_str_eq(get("proc.2.cpus"), "0-3");
	ck_assert_str_eq(get("proc.100.cpus"), "@100=0-3 101=3 102=1");
	thr[1].mask = thr[2].mask = 0xf;
	ck_assert_str_eq(get("proc.100.cpus"), "0-3");
}
END_TEST

START_TEST(set_moves_every_thread_restore_gives_each_its_own)
{
	ck_assert_int_ge(set("t", "proc.100.cpus", "0-1"), 0);
	ck_assert_uint_eq(mask_of(100), 0x3);
	ck_assert_uint_eq(mask_of(101), 0x3);
	ck_assert_uint_eq(mask_of(102), 0x3);
	ck_assert_str_eq(get("proc.100.cpus"), "0-1");
	ck_assert_int_ge(perftune_restore(f.ctx, "t", 0), 0);
	ck_assert_uint_eq(mask_of(100), 0xf);
	ck_assert_uint_eq(mask_of(101), 0x8);
	ck_assert_uint_eq(mask_of(102), 0x2);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* TuneD's isolated_cores: each thread keeps its CPUs inside the list, or gets the list */
START_TEST(within_keeps_each_threads_cpus_inside_and_touches_no_other)
{
	ck_assert_int_ge(set("t", "proc.100.cpus", "&0-2"), 0);
	ck_assert_uint_eq(mask_of(100), 0x7); /* 0-3 & 0-2 */
	ck_assert_uint_eq(mask_of(101), 0x7); /* 3 & 0-2 is empty: 0-2 */
	ck_assert_uint_eq(mask_of(102), 0x2); /* 1: inside already */
	ck_assert_int_eq(sets, 2);
	thr[2].mask = 0x1; /* the application moves its worker meanwhile */
	ck_assert_int_ge(perftune_restore(f.ctx, "t", 0), 0);
	ck_assert_uint_eq(mask_of(100), 0xf);
	ck_assert_uint_eq(mask_of(101), 0x8);
	ck_assert_uint_eq(mask_of(102), 0x1); /* not ours: left as the application set it */
}
END_TEST

START_TEST(named_threads_only)
{
	ck_assert_int_ge(set("t", "proc.100.cpus", "@100,102=&0-1"), 0);
	ck_assert_uint_eq(mask_of(100), 0x3);
	ck_assert_uint_eq(mask_of(101), 0x8);
	ck_assert_uint_eq(mask_of(102), 0x2);
	ck_assert_int_ge(perftune_restore(f.ctx, "t", 0), 0);
	ck_assert_uint_eq(mask_of(100), 0xf);
}
END_TEST

START_TEST(explicit_unmovable_kernel_thread_is_an_error)
{
	ck_assert_int_eq(set("t", "proc.20.cpus", "0"), -EPERM);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "kernel thread"));
	ck_assert_int_eq(set("t", "proc.4242.cpus", "0"), -ENODEV);
	ck_assert_int_eq(sets, 0);
}
END_TEST

static const char *const bad[] = { "x", "",	 "@", "@abc=1",	     "@100=",
				   "4", "0-3,9", "&", "@100=1 100=2" };

START_TEST(bad_values_name_the_key_and_change_nothing)
{
	ck_assert_int_lt(set("t", "proc.100.cpus", bad[_i]), 0);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "proc.100.cpus"));
	ck_assert_int_eq(sets, 0);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* which processes a selector reaches (by pid, "," separated) */
static const char *const selectors[][2] = {
	{ "proc.all.cpus", "100,2,300" }, /* ksoftirqd/1 skipped: bound to its CPU */
	{ "proc.user.cpus", "100,300" },  { "proc.kernel.cpus", "2" },
	{ "proc[^qemu].cpus", "300" },	  { "proc.user[p+$].cpus", "100" },
	{ "proc.kernel[irq].cpus", "" },
};

static void selector_reaches(int i)
{
	struct perftune_tx *tx = NULL;
	struct perftune_change_iter *it = NULL;
	const struct perftune_change *c;
	char got[256] = "";

	ck_assert_int_eq(perftune_tx_new(f.ctx, "t", PERFTUNE_TX_DRY_RUN, &tx), 0);
	if (!selectors[i][1][0]) {
		ck_assert_int_eq(perftune_tx_set(tx, selectors[i][0], "0"), -ENODEV);
		perftune_tx_unref(tx);
		return;
	}
	ck_assert_int_ge(perftune_tx_set(tx, selectors[i][0], "0-1"), 1);
	ck_assert_int_ge(perftune_tx_commit(tx), 0);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	while ((c = perftune_change_iter_next(it))) {
		int pid = 0;
		sscanf(perftune_change_key(c), "proc.%d.cpus", &pid);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d", got[0] ? "," : "",
			 pid);
	}
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
	/* the changes come in /proc's order: compare as sets */
	int n = 0, want = 1;
	for (const char *k = selectors[i][1]; *k; k++)
		want += *k == ',';
	for (char *p = strtok(got, ","); p; p = strtok(NULL, ","), n++) {
		char w[64];
		snprintf(w, sizeof(w), ",%s,", selectors[i][1]);
		char pp[16];
		snprintf(pp, sizeof(pp), ",%s,", p);
		ck_assert_msg(strstr(w, pp), "%s reached %s", selectors[i][0], p);
	}
	ck_assert_int_eq(n, want);
	ck_assert_int_eq(sets, 0);
}

START_TEST(selectors_pick_processes_and_skip_unmovable)
{
	selector_reaches(_i);
}
END_TEST

/*
 * PCRE2 before 10.34 (RHEL 8's 10.32) has no pcre2_pattern_convert(): the
 * selectors reach the same processes through shared/ere.c, and a regex that
 * does not compile is still an error naming the key
 */
START_TEST(selectors_without_pcre2_pattern_convert_pick_the_same)
{
	struct perftune_tx *tx = NULL;

	pt_dl_hide_optional(PT_DL_PCRE2);
	ck_assert(!pt_libpcre2.pcre2_pattern_convert);
	selector_reaches(_i);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "t", PERFTUNE_TX_DRY_RUN, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "proc.user[(].cpus", "0"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx),
				     "proc.user[(].cpus: not an extended regular expression"));
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(bad_regex_is_an_error)
{
	ck_assert_int_eq(set("t", "proc.user[(].cpus", "0"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "regular expression"));
	ck_assert_int_eq(set("t", "proc.nobody.cpus", "0"), -EINVAL);
}
END_TEST

START_TEST(process_gone_before_restore_is_reported_not_fatal)
{
	ck_assert_int_ge(set("t", "proc.300.cpus", "0"), 0);
	ck_assert_uint_eq(mask_of(301), 0x1);
	thr[nthr - 1].gone = thr[nthr - 2].gone = true;
	ck_assert_int_eq(unlink(strcat(strcpy((char[PATH_MAX]){ 0 }, f.root), "/proc/300/stat")), 0);
	ck_assert_int_ge(perftune_restore(f.ctx, "t", 0), 0);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

START_TEST(thread_gone_before_restore_the_others_restored)
{
	ck_assert_int_ge(set("t", "proc.100.cpus", "0"), 0);
	thr[1].gone = true; /* 101 ended */
	ck_assert_int_ge(perftune_restore(f.ctx, "t", 0), 0);
	ck_assert_uint_eq(mask_of(100), 0xf);
	ck_assert_uint_eq(mask_of(102), 0x2);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* a transaction of affinity and sysctl keys that fails at its last write gives every thread back */
START_TEST(late_failure_restores_every_thread)
{
	struct perftune_tx *tx = NULL;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "t", 0, &tx), 0);
	ck_assert_int_ge(perftune_tx_set(tx, "proc.user.cpus", "&0"), 1);
	ck_assert_int_ge(perftune_tx_set(tx, "sysctl.vm.swappiness", "1"), 1);
	f.sim.fault_at = 1; /* the sysctl write, after the threads moved */
	ck_assert_int_lt(perftune_tx_commit(tx), 0);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "swappiness"));
	perftune_tx_unref(tx);
	ck_assert_int_gt(sets, 4);
	ck_assert_uint_eq(mask_of(100), 0xf);
	ck_assert_uint_eq(mask_of(101), 0x8);
	ck_assert_uint_eq(mask_of(102), 0x2);
	ck_assert_uint_eq(mask_of(300), 0xf);
	ck_assert_uint_eq(mask_of(301), 0x8);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

START_TEST(reapply_of_the_same_value_moves_nothing)
{
	ck_assert_int_ge(set("t", "proc.100.cpus", "&0-2"), 0);
	sets = 0;
	ck_assert_int_ge(set("u", "proc.100.cpus", "&0-2"), 0);
	ck_assert_int_eq(sets, 0);
	ck_assert_int_ge(perftune_restore(f.ctx, "u", 0), 0);
	ck_assert_int_ge(perftune_restore(f.ctx, "t", 0), 0);
	ck_assert_uint_eq(mask_of(101), 0x8);
}
END_TEST

/* ---- TuneD's [scheduler] isolated_cores, ps_blacklist, ps_whitelist ---- */

static int apply_profile(const char *text, const char *tx_name, char *skipped, size_t size)
{
	struct perftune_profile *p = NULL;
	struct perftune_profile_item_iter *it = NULL;
	const struct perftune_profile_item *e;
	struct perftune_tx *tx;
	char path[PATH_MAX];
	int r;

	snprintf(path, sizeof(path), "%s/../tuned.conf", f.root);
	fx_put(&f, "../tuned.conf", text);
	ck_assert_msg(perftune_profile_load(f.ctx, path, NULL, &p) == 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(perftune_tx_new(f.ctx, tx_name, 0, &tx), 0);
	r = perftune_profile_stage(p, tx, 0);
	if (r >= 0)
		r = perftune_tx_commit(tx);
	skipped[0] = '\0';
	ck_assert_int_eq(perftune_profile_items(p, &it), 0);
	while ((e = perftune_profile_item_iter_next(it)))
		if (perftune_profile_item_flags(e) & PERFTUNE_PROFILE_ITEM_SKIPPED)
			snprintf(skipped + strlen(skipped), size - strlen(skipped), "%s;",
				 perftune_profile_item_option(e));
	perftune_profile_item_iter_free(it);
	perftune_tx_unref(tx);
	perftune_profile_free(p);
	return r;
}

/* comm lists as TuneD's _set_all_obj_affinity reads them: process, then each thread */
START_TEST(isolated_cores_moves_threads_off_except_the_blacklisted)
{
	char skipped[512];

	ck_assert_msg(apply_profile("[scheduler]\nisolated_cores=3\n"
				    "ps_blacklist=.*pmd.*;^qemu-kvm\n",
				    "iso", skipped, sizeof(skipped)) >= 0,
		      "%s", perftune_ctx_last_error(f.ctx));
	/* (a managed IRQ of the fake machine is the IRQ side's skip: isolate.c) */
	ck_assert_ptr_null(strstr(skipped, "ps_blacklist"));
	ck_assert_uint_eq(mask_of(100), 0x7); /* app: 0-3 -> 0-2 */
	ck_assert_uint_eq(mask_of(101), 0x8); /* its pmd thread: blacklisted, stays on 3 */
	ck_assert_uint_eq(mask_of(102), 0x2); /* on 1 already */
	ck_assert_uint_eq(mask_of(2), 0x7);   /* kthreadd moves, as TuneD moves it */
	ck_assert_uint_eq(mask_of(20), 0x2);  /* ksoftirqd/1: bound to its CPU */
	ck_assert_uint_eq(mask_of(300), 0xf); /* qemu-kvm: blacklisted with its threads */
	ck_assert_uint_eq(mask_of(301), 0x8);
	ck_assert_int_ge(perftune_restore(f.ctx, "iso", 0), 0);
	ck_assert_uint_eq(mask_of(100), 0xf);
	ck_assert_uint_eq(mask_of(2), 0xf);
	ck_assert_uint_eq(mask_of(101), 0x8);
}
END_TEST

/* ps_whitelist: only what it finds; ";" separates, "\;" does not */
START_TEST(whitelist_takes_only_what_it_finds)
{
	char skipped[512];

	ck_assert_int_ge(apply_profile("[scheduler]\nisolated_cores=0\nps_whitelist=^app$;^kth\n"
				       "ps_blacklist=x\\;y\n",
				       "iso", skipped, sizeof(skipped)),
			 0);
	ck_assert_uint_eq(mask_of(100), 0xe); /* 0-3 -> 1-3 */
	ck_assert_uint_eq(mask_of(101), 0x8); /* thread comm "pmd-c03/id:8": not whitelisted */
	ck_assert_uint_eq(mask_of(102), 0x2); /* "app-worker": not ^app$ */
	ck_assert_uint_eq(mask_of(2), 0xe);   /* kthreadd */
	ck_assert_uint_eq(mask_of(300), 0xf); /* qemu-kvm: not whitelisted */
	ck_assert_int_ge(perftune_restore(f.ctx, "iso", 0), 0);
	ck_assert_uint_eq(mask_of(100), 0xf);
}
END_TEST

START_TEST(isolated_cores_off_line_or_blacklist_alone_is_skipped)
{
	char skipped[512];

	ck_assert_int_ge(apply_profile("[scheduler]\nisolated_cores=7\nps_blacklist=pmd\n", "iso",
				       skipped, sizeof(skipped)),
			 0);
	ck_assert_str_eq(skipped, "[scheduler] isolated_cores;");
	ck_assert_int_ge(apply_profile("[scheduler]\nps_blacklist=pmd\n", "iso2", skipped,
				       sizeof(skipped)),
			 0);
	ck_assert_str_eq(skipped, "[scheduler] ps_blacklist;");
	ck_assert_int_eq(sets, 0);
}
END_TEST

START_TEST(bad_blacklist_regex_is_an_error_naming_it)
{
	struct perftune_profile *p = NULL;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/../tuned.conf", f.root);
	fx_put(&f, "../tuned.conf", "[scheduler]\nisolated_cores=3\nps_blacklist=(\n");
	ck_assert_int_eq(perftune_profile_load(f.ctx, path, NULL, &p), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "ps_blacklist"));
	ck_assert_int_eq(sets, 0);
}
END_TEST

static Suite *affinity_suite(void)
{
	Suite *s = suite_create("affinity");
	TCase *tc = tcase_create("affinity");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_shows_one_list_or_each_threads_own);
	tcase_add_test(tc, set_moves_every_thread_restore_gives_each_its_own);
	tcase_add_test(tc, within_keeps_each_threads_cpus_inside_and_touches_no_other);
	tcase_add_test(tc, named_threads_only);
	tcase_add_test(tc, explicit_unmovable_kernel_thread_is_an_error);
	tcase_add_loop_test(tc, bad_values_name_the_key_and_change_nothing, 0, ARRAY_SIZE(bad));
	tcase_add_loop_test(tc, selectors_pick_processes_and_skip_unmovable, 0,
			    ARRAY_SIZE(selectors));
	tcase_add_loop_test(tc, selectors_without_pcre2_pattern_convert_pick_the_same, 0,
			    ARRAY_SIZE(selectors));
	tcase_add_test(tc, bad_regex_is_an_error);
	tcase_add_test(tc, process_gone_before_restore_is_reported_not_fatal);
	tcase_add_test(tc, thread_gone_before_restore_the_others_restored);
	tcase_add_test(tc, late_failure_restores_every_thread);
	tcase_add_test(tc, reapply_of_the_same_value_moves_nothing);
	tcase_add_test(tc, isolated_cores_moves_threads_off_except_the_blacklisted);
	tcase_add_test(tc, whitelist_takes_only_what_it_finds);
	tcase_add_test(tc, isolated_cores_off_line_or_blacklist_alone_is_skipped);
	tcase_add_test(tc, bad_blacklist_regex_is_an_error_naming_it);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { affinity_suite };

	return harness_main(argc, argv, suites, 1);
}
