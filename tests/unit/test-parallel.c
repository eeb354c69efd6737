// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parallel.c: the fan-out the threads strategy writes devices with.  Every
 * index runs exactly once; one item or one thread runs in the caller; more run
 * side by side (a scheduler switch on N disks costs about one, not N); the
 * thread cap holds.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include "harness.h"

#define N 300

struct run {
	int count[N];
	pthread_t who[N];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int active, most, wait_for; /* wait_for: hold each item until that many run at once */
};

static void item(size_t i, void *ud)
{
	struct run *r = ud;
	struct timespec until;

	pthread_mutex_lock(&r->lock);
	r->count[i]++;
	r->who[i] = pthread_self();
	if (++r->active > r->most)
		r->most = r->active;
	pthread_cond_broadcast(&r->cond);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10; /* a bound, not a timing: serial execution fails the test, not hangs it */
	while (r->wait_for && r->active < r->wait_for && r->most < r->wait_for)
		if (pthread_cond_timedwait(&r->cond, &r->lock, &until) == ETIMEDOUT)
			break;
	r->active--;
	pthread_mutex_unlock(&r->lock);
}

static struct run *run_new(int wait_for)
{
	struct run *r = calloc(1, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->wait_for = wait_for;
	return r;
}

static void run_free(struct run *r)
{
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}

START_TEST(every_index_runs_exactly_once)
{
	static const size_t ns[] = { 1, 2, 7, N }, maxes[] = { 1, 2, 4, 64 };

	for (size_t a = 0; a < ARRAY_SIZE(ns); a++)
		for (size_t b = 0; b < ARRAY_SIZE(maxes); b++) {
			struct run *r = run_new(0);

			ck_assert_int_eq(pt_parallel(ns[a], maxes[b], item, r), 0);
			for (size_t i = 0; i < N; i++)
				ck_assert_msg(r->count[i] == (i < ns[a]),
					      "n %zu max %zu: index %zu ran %d times", ns[a],
					      maxes[b], i, r->count[i]);
			run_free(r);
		}
}
END_TEST

START_TEST(nothing_to_do_calls_nothing)
{
	struct run *r = run_new(0);

	ck_assert_int_eq(pt_parallel(0, 8, item, r), 0);
	for (size_t i = 0; i < N; i++)
		ck_assert_int_eq(r->count[i], 0);
	run_free(r);
}
END_TEST

/* one device, or a cap of one thread: no thread is started, the caller does it all */
START_TEST(one_item_or_one_thread_runs_in_the_caller)
{
	struct run *r = run_new(0);

	ck_assert_int_eq(pt_parallel(1, 8, item, r), 0);
	ck_assert(pthread_equal(r->who[0], pthread_self()));
	run_free(r);
	r = run_new(0);
	ck_assert_int_eq(pt_parallel(5, 1, item, r), 0);
	for (size_t i = 0; i < 5; i++)
		ck_assert(pthread_equal(r->who[i], pthread_self()));
	ck_assert_int_eq(r->most, 1);
	run_free(r);
}
END_TEST

/* four items on four threads: all four are in flight at once (each waits for the others) */
START_TEST(items_run_side_by_side)
{
	struct run *r = run_new(4);

	ck_assert_int_eq(pt_parallel(4, 4, item, r), 0);
	ck_assert_int_eq(r->most, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert(!pthread_equal(r->who[i], pthread_self()));
	run_free(r);
}
END_TEST

/* a cap above PT_THREADS_MAX is PT_THREADS_MAX; a cap of 3 never has 4 in flight */
START_TEST(the_thread_cap_holds)
{
	struct run *r = run_new(0);

	ck_assert_int_eq(pt_parallel(N, 3, item, r), 0);
	ck_assert_int_le(r->most, 3);
	run_free(r);
	r = run_new(0);
	ck_assert_int_eq(pt_parallel(N, 100000, item, r), 0);
	ck_assert_int_le(r->most, PT_THREADS_MAX);
	for (size_t i = 0; i < N; i++)
		ck_assert_int_eq(r->count[i], 1);
	run_free(r);
}
END_TEST

static Suite *parallel_suite(void)
{
	Suite *s = suite_create("parallel");
	TCase *tc = tcase_create("parallel");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_index_runs_exactly_once);
	tcase_add_test(tc, nothing_to_do_calls_nothing);
	tcase_add_test(tc, one_item_or_one_thread_runs_in_the_caller);
	tcase_add_test(tc, items_run_side_by_side);
	tcase_add_test(tc, the_thread_cap_holds);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	static Suite *(*const suites[])(void) = { parallel_suite };

	return harness_main(argc, argv, suites, 1);
}
