// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The batch engine (lib/batch.c) on its own, on each of its three strategies:
 * the strategy chosen in one place, every group's items in order, group 0
 * first, a failure that stops the batch (commit) or not (restore), and the
 * waves' writes through the write hook (the simulated kernel), faults
 * included.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void)
{
	pt_batch_force(-1);
	fx_teardown(&f);
}

#define Q(d, a) "sys/devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:" d "/queue/" a

/* items: 2 without a device, then sda (3), sdb (2), sdc (1) */
static const char *const path[] = {
	"proc/sys/vm/swappiness", "proc/sys/vm/dirty_ratio",
	Q("0/block/sda", "read_ahead_kb"), Q("0/block/sda", "nomerges"), Q("0/block/sda", "rq_affinity"),
	Q("1/block/sdb", "read_ahead_kb"), Q("1/block/sdb", "nomerges"),
	Q("2/block/sdc", "read_ahead_kb"),
};
static const char *const value[] = { "11", "33", "512", "1", "2", "256", "2", "64" };
#define N ARRAY_SIZE(path)
static const size_t grp[][2] = { { 0, 2 }, { 2, 5 }, { 5, 7 }, { 7, 8 } };

struct t {
	int fail_at;	 /* item whose pre fails (-1: none) */
	bool files;	 /* offer the writes to waves */
	int ended[N];	 /* end() calls per item */
	int result[N];
	int seq[N];	 /* when each item ended */
	int next;
	pthread_mutex_t lock;
};

static int t_pre(void *ud, size_t g, size_t i)
{
	struct t *t = ud;

	(void)g;
	return (int)i == t->fail_at ? pt_err(f.ctx, -EINVAL, "item %zu fails", i) : 1;
}

static bool t_file(void *ud, size_t g, size_t i, const char **p, const char **v)
{
	(void)g;
	*p = path[i];
	*v = value[i];
	return ((struct t *)ud)->files;
}

static int t_write(void *ud, size_t g, size_t i)
{
	(void)ud, (void)g;
	return pt_attr_write(f.ctx, path[i], value[i]);
}

static int t_refused(void *ud, size_t g, size_t i, int r)
{
	(void)ud, (void)g, (void)i;
	return r;
}

static int t_post(void *ud, size_t g, size_t i, int r)
{
	(void)ud, (void)g, (void)i;
	return r;
}

static void t_end(void *ud, size_t g, size_t i, int r)
{
	struct t *t = ud;

	(void)g;
	pthread_mutex_lock(&t->lock);
	t->ended[i]++;
	t->result[i] = r;
	t->seq[i] = t->next++;
	pthread_mutex_unlock(&t->lock);
}

static struct pt_batch_ops ops = {
	.pre = t_pre, .file = t_file, .write = t_write, .refused = t_refused, .post = t_post,
	.end = t_end,
};

static void init(struct t *t, int fail_at, bool files)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->fail_at = fail_at;
	t->files = files;
}

static const char *const sname[] = { "serial", "waves", "threads" };

/* _i: strategy * 2 + whether the writes are offered to waves */
START_TEST(every_item_in_order_on_each_strategy)
{
	struct t t;
	int st = _i / 2;

	pt_batch_force(st);
	ck_assert_int_eq(pt_batch_strategy(3), st);
	ck_assert_int_eq(pt_batch_strategy(1), PT_BATCH_SERIAL); /* one device: no choice */
	init(&t, -1, _i % 2);
	ops.stop_on_error = true;
	ck_assert_int_eq(pt_batch_run(f.ctx, &ops, &t, grp, ARRAY_SIZE(grp)), 0);
	ck_assert_int_eq(f.sim.writes, (int)N);
	for (size_t i = 0; i < N; i++) {
		ck_assert_msg(t.ended[i] == 1 && t.result[i] == 0, "%s: item %zu ended %d times (%d)",
			      sname[st], i, t.ended[i], t.result[i]);
		ck_assert_str_eq(fx_read(&f, path[i]), value[i]);
	}
	for (size_t g = 0; g < ARRAY_SIZE(grp); g++) /* a group's items in order */
		for (size_t i = grp[g][0] + 1; i < grp[g][1]; i++)
			ck_assert_int_lt(t.seq[i - 1], t.seq[i]);
	for (size_t i = 2; i < N; i++) /* the keys without a device first */
		ck_assert_int_gt(t.seq[i], t.seq[1]);
}
END_TEST

/* a failure with stop_on_error: nothing starts after it; without: every other item ends */
START_TEST(failure_stops_or_not)
{
	struct t t;
	int st = _i % 3, stop = _i / 3;

	pt_batch_force(st);
	init(&t, 3, true); /* sda's second item */
	ops.stop_on_error = stop;
	ck_assert_int_eq(pt_batch_run(f.ctx, &ops, &t, grp, ARRAY_SIZE(grp)),
			 stop ? -ECANCELED : 0);
	ck_assert_int_eq(t.ended[3], 1);
	ck_assert_int_eq(t.result[3], -EINVAL);
	ck_assert_int_eq(t.ended[4], !stop); /* sda's next item */
	ck_assert_int_eq(t.ended[0] + t.ended[1], 2);
	if (!stop)
		for (size_t i = 0; i < N; i++)
			ck_assert_int_eq(t.ended[i], 1);
}
END_TEST

/* a fault of the simulated kernel at each write reaches the item, on each strategy */
START_TEST(fault_at_each_write_reaches_its_item)
{
	struct t t;
	int st = _i / (int)N, at = _i % (int)N + 1, failed = 0;

	pt_batch_force(st);
	init(&t, -1, true);
	ops.stop_on_error = false;
	f.sim.fault_at = at;
	ck_assert_int_eq(pt_batch_run(f.ctx, &ops, &t, grp, ARRAY_SIZE(grp)), 0);
	for (size_t i = 0; i < N; i++) {
		ck_assert_int_eq(t.ended[i], 1);
		if (t.result[i] < 0) {
			ck_assert_int_eq(t.result[i], -EIO);
			failed++;
		}
	}
	ck_assert_msg(failed == 1, "%s, fault at write %d: %d items failed", sname[st], at, failed);
	ck_assert_int_eq(f.sim.writes, (int)N);
}
END_TEST

START_TEST(strategy_is_chosen_in_one_place)
{
	pt_batch_force(-1);
	unsetenv("PERFTUNE_NO_IO_URING");
	ck_assert_int_eq(pt_batch_strategy(0), PT_BATCH_SERIAL);
	ck_assert_int_eq(pt_batch_strategy(1), PT_BATCH_SERIAL);
	ck_assert_int_eq(pt_batch_strategy(2), pt_uring_available() ? PT_BATCH_WAVES
								    : PT_BATCH_THREADS);
	setenv("PERFTUNE_NO_IO_URING", "1", 1);
	ck_assert(!pt_uring_available());
	ck_assert_int_eq(pt_batch_strategy(2), PT_BATCH_THREADS);
	unsetenv("PERFTUNE_NO_IO_URING");
}
END_TEST

static Suite *batch_suite(void)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("engine");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, strategy_is_chosen_in_one_place);
	tcase_add_loop_test(tc, every_item_in_order_on_each_strategy, 0, 6);
	tcase_add_loop_test(tc, failure_stops_or_not, 0, 6);
	tcase_add_loop_test(tc, fault_at_each_write_reaches_its_item, 0, 3 * (int)N);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { batch_suite };
	return harness_main(argc, argv, suites, 1);
}
