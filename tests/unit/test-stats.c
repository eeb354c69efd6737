// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * utils/stats.c, the statistics of `perftune compare`, against published
 * reference values: scipy.stats.mannwhitneyu's documented example (the ages
 * at diagnosis of its reference [4]), the p-values scipy's own test suite
 * checks (a no-ties sample and gh-1428's heavily tied one, whose p-value
 * comes from R's wilcox.test), exact tail probabilities that can be counted
 * by hand, numpy's default (linear) quantiles, and the seeded bootstrap.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "stats.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void assert_close(double got, double want, double rtol)
{
	ck_assert_msg(fabs(got - want) <= rtol * fabs(want), "got %.17g, want %.17g (rtol %g)", got,
		      want, rtol);
}

/* scipy.stats.mannwhitneyu, Examples: ages at diagnosis of type II diabetes */
static const double males[] = { 19, 22, 16, 29, 24 };
static const double females[] = { 20, 11, 17, 12 };

START_TEST(mwu_scipy_example_exact_u17_p_one_ninth)
{
	double u, p;
	int exact = -1;

	/* "U1, p = mannwhitneyu(males, females, method='exact')": 17.0, 0.1111111111111111 */
	ck_assert_int_eq(pt_stats_mann_whitney(males, 5, females, 4, PT_STATS_EXACT, &u, &p, &exact), 0);
	ck_assert_double_eq(u, 17);
	assert_close(p, 1.0 / 9, 1e-12);
	ck_assert_int_eq(exact, 1);
	/* method 'auto' picks the exact test: a sample of at most 8, no ties */
	ck_assert_int_eq(pt_stats_mann_whitney(males, 5, females, 4, PT_STATS_AUTO, &u, &p, &exact), 0);
	ck_assert_int_eq(exact, 1);
	assert_close(p, 1.0 / 9, 1e-12);
	/* U of the second sample: nx * ny - U1 = 3, the same two-sided p */
	ck_assert_int_eq(pt_stats_mann_whitney(females, 4, males, 5, PT_STATS_AUTO, &u, &p, NULL), 0);
	ck_assert_double_eq(u, 3);
	assert_close(p, 1.0 / 9, 1e-12);
}
END_TEST

START_TEST(mwu_scipy_example_asymptotic_with_continuity)
{
	double u, p;
	int exact = -1;

	/* the example's normal approximation with the continuity correction:
	 * 0.11134688653314041 */
	ck_assert_int_eq(pt_stats_mann_whitney(males, 5, females, 4, PT_STATS_ASYMPTOTIC, &u, &p, &exact),
			 0);
	ck_assert_int_eq(exact, 0);
	ck_assert_double_eq(u, 17);
	assert_close(p, 0.11134688653314041, 1e-12);
}
END_TEST

/* scipy's TestMannWhitneyU.X and .Y (30 and 20 values, no ties) */
static const double sx[] = {
	19.8958398126694, 19.5452691647182, 19.0577309166425, 21.716543054589,	20.3269502208702,
	20.0009273294025, 19.3440043632957, 20.4216806548105, 19.0649894736528, 18.7808043120398,
	19.3680942943298, 19.4848044069953, 20.7514611265663, 19.0894948874598, 19.4975522356628,
	18.9971170734274, 20.3239606288208, 20.6921298083835, 19.0724259532507, 18.9825187935021,
	19.5144462609601, 19.8256857844223, 20.5174677102032, 21.1122407995892, 17.9490854922535,
	18.2847521114727, 20.1072217648826, 18.6439891962179, 20.4970638083542, 19.5567594734914,
};
static const double sy[] = {
	19.2790668029091, 16.993808441865,  18.5416338448258, 17.2634018833575, 19.1577183624616,
	18.5119655377495, 18.6068455037221, 18.8358343362655, 19.0366413269742, 18.1135025515417,
	19.2201873866958, 17.8344909022841, 18.2894380745856, 18.6661374133922, 19.9688601693252,
	16.0672254617636, 19.00596360572,   19.201561539032,  19.0487501090183, 19.0847908674356,
};

START_TEST(mwu_scipy_suite_two_sided_no_ties)
{
	double u, p, u2, p2;
	int exact = -1;

	/* test_mannwhitneyu_two_sided: U 498 (102 the other way), p 9.188326533255e-05 */
	ck_assert_int_eq(pt_stats_mann_whitney(sx, N_OF(sx), sy, N_OF(sy), PT_STATS_AUTO, &u, &p, &exact),
			 0);
	ck_assert_int_eq(exact, 0); /* both samples larger than 8 */
	ck_assert_double_eq(u, 498);
	assert_close(p, 9.188326533255e-05, 1e-10);
	ck_assert_int_eq(pt_stats_mann_whitney(sy, N_OF(sy), sx, N_OF(sx), PT_STATS_AUTO, &u2, &p2, NULL),
			 0);
	ck_assert_double_eq(u2, 102);
	ck_assert_double_eq(p2, p);
}
END_TEST

/* gh-1428: 244 and 158 values of 1, 2 and 3 (counts of scipy's arrays) */
static double *tied(size_t ones, size_t twos, size_t threes, size_t *n)
{
	double *v;

	*n = ones + twos + threes;
	v = malloc(*n * sizeof(*v));
	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < *n; i++)
		v[i] = i < ones ? 1 : i < ones + twos ? 2 : 3;
	return v;
}

START_TEST(mwu_ties_match_r_wilcox_test)
{
	size_t nx, ny;
	double *x = tied(233, 10, 1, &nx), *y = tied(132, 25, 1, &ny), u, p;
	int exact = -1;

	/* U 16980.5, two-sided p 5.642865531266e-5: tie-corrected normal
	 * approximation (R: wilcox.test(x, y)) */
	ck_assert_int_eq(pt_stats_mann_whitney(x, nx, y, ny, PT_STATS_AUTO, &u, &p, &exact), 0);
	ck_assert_int_eq(exact, 0);
	ck_assert_double_eq(u, 16980.5);
	assert_close(p, 5.642865531266e-5, 1e-9);
	/* the exact test is for data without ties only */
	ck_assert_int_eq(pt_stats_mann_whitney(x, nx, y, ny, PT_STATS_EXACT, &u, &p, NULL), -EINVAL);
	free(x);
	free(y);
}
END_TEST

/* exact tails that can be counted: complete separation of m and n values has
 * probability 1 / C(m + n, m) in each tail */
static const struct {
	size_t m, n;
	double p;
} separated[] = {
	{ 3, 3, 2.0 / 20 },  { 4, 4, 2.0 / 70 },    { 5, 5, 2.0 / 252 },
	{ 3, 8, 2.0 / 165 }, { 8, 8, 2.0 / 12870 },
};

START_TEST(mwu_exact_separated_samples)
{
	double x[8], y[8], u, p;
	size_t m = separated[_i].m, n = separated[_i].n;

	for (size_t i = 0; i < m; i++)
		x[i] = 100 + (double)i;
	for (size_t i = 0; i < n; i++)
		y[i] = (double)i;
	ck_assert_int_eq(pt_stats_mann_whitney(x, m, y, n, PT_STATS_EXACT, &u, &p, NULL), 0);
	ck_assert_double_eq(u, (double)(m * n));
	assert_close(p, separated[_i].p, 1e-12);
	ck_assert_int_eq(pt_stats_mann_whitney(y, n, x, m, PT_STATS_EXACT, &u, &p, NULL), 0);
	ck_assert_double_eq(u, 0);
	assert_close(p, separated[_i].p, 1e-12);
}
END_TEST

START_TEST(mwu_identical_and_empty_samples)
{
	const double a[] = { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 };
	double u, p;

	/* every value tied: no evidence of a difference */
	ck_assert_int_eq(pt_stats_mann_whitney(a, 10, a, 10, PT_STATS_AUTO, &u, &p, NULL), 0);
	ck_assert_double_eq(u, 50);
	ck_assert_double_eq(p, 1);
	ck_assert_int_eq(pt_stats_mann_whitney(a, 0, a, 10, PT_STATS_AUTO, &u, &p, NULL), -EINVAL);
	ck_assert_int_eq(pt_stats_mann_whitney(a, 10, a, 0, PT_STATS_AUTO, &u, &p, NULL), -EINVAL);
}
END_TEST

START_TEST(summary_numpy_linear_quartiles)
{
	/* numpy.percentile([1..10], [25, 50, 75]) = 3.25, 5.5, 7.75 */
	const double x[] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };
	struct pt_stats_summary s;

	ck_assert_int_eq(pt_stats_summarize(x, N_OF(x), &s), 0);
	ck_assert_uint_eq(s.n, 10);
	ck_assert_double_eq(s.median, 5.5);
	ck_assert_double_eq(s.q1, 3.25);
	ck_assert_double_eq(s.q3, 7.75);
	ck_assert_double_eq(s.iqr, 4.5);
	ck_assert_double_eq(s.mean, 5.5);
	/* sample sd of 1..10 is sqrt(55 / 6) */
	assert_close(s.sd, sqrt(55.0 / 6), 1e-12);
	assert_close(s.cv, sqrt(55.0 / 6) / 5.5, 1e-12);
	/* odd n: the middle value; one value: itself, sd 0 */
	ck_assert_int_eq(pt_stats_summarize(x, 3, &s), 0);
	ck_assert_double_eq(s.median, 9);
	ck_assert_int_eq(pt_stats_summarize(x, 1, &s), 0);
	ck_assert_double_eq(s.median, 10);
	ck_assert_double_eq(s.sd, 0);
	ck_assert_int_eq(pt_stats_summarize(x, 0, &s), -EINVAL);
}
END_TEST

/* seeded log-normal samples: base * exp(sd * z) */
static void sample(double *v, size_t n, double base, double sd, uint64_t seed)
{
	uint64_t st = seed;

	for (size_t i = 0; i < n; i++) {
		double u1 = pt_stats_uniform(&st), u2 = pt_stats_uniform(&st);
		v[i] = base * exp(sd * sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2));
	}
}

START_TEST(bootstrap_is_seeded_and_covers_a_known_change)
{
	double b[20], t[20], lo, hi, lo2, hi2;
	int covered = 0;

	sample(b, 20, 100, 0.05, 1);
	sample(t, 20, 80, 0.05, 2);
	ck_assert_int_eq(pt_stats_bootstrap_change(b, 20, t, 20, 7, 2000, &lo, &hi), 0);
	ck_assert_int_eq(pt_stats_bootstrap_change(b, 20, t, 20, 7, 2000, &lo2, &hi2), 0);
	ck_assert_double_eq(lo, lo2); /* the same seed, the same interval */
	ck_assert_double_eq(hi, hi2);
	ck_assert_msg(lo < -20 && -20 < hi && hi < 0, "CI %g .. %g", lo, hi);
	/* a 95% interval covers the truth (-20%) in most of 50 seeded experiments:
	 * fewer than 42 has probability < 1e-3 at 95% coverage (a percentile
	 * bootstrap of medians runs a little narrow at n = 20, hence not 47) */
	for (uint64_t k = 0; k < 50; k++) {
		sample(b, 20, 100, 0.05, 1000 + 2 * k);
		sample(t, 20, 80, 0.05, 1001 + 2 * k);
		ck_assert_int_eq(pt_stats_bootstrap_change(b, 20, t, 20, k, 2000, &lo, &hi), 0);
		covered += lo <= -20 && -20 <= hi;
	}
	ck_assert_msg(covered >= 42, "the CI covered -20%% in %d of 50", covered);
}
END_TEST

START_TEST(bootstrap_refuses_what_it_cannot_do)
{
	const double z[] = { 0, 0, 0 }, one[] = { 1, 2, 3 };
	double lo, hi;

	ck_assert_int_eq(pt_stats_bootstrap_change(one, 3, one, 3, 1, 99, &lo, &hi), -EINVAL);
	ck_assert_int_eq(pt_stats_bootstrap_change(one, 0, one, 3, 1, 1000, &lo, &hi), -EINVAL);
	/* a baseline median of 0 has no relative change */
	ck_assert_int_eq(pt_stats_bootstrap_change(z, 3, one, 3, 1, 1000, &lo, &hi), -EINVAL);
}
END_TEST

START_TEST(a_a_p_values_reject_at_most_alpha)
{
	/* two samples of the same distribution: p < 0.05 in about 5% of 400
	 * seeded experiments; more than 32 (8%) has probability < 0.2% */
	double x[10], y[10], u, p;
	int rejected = 0;

	for (uint64_t k = 0; k < 400; k++) {
		sample(x, 10, 100, 0.1, 5000 + 2 * k);
		sample(y, 10, 100, 0.1, 5001 + 2 * k);
		ck_assert_int_eq(pt_stats_mann_whitney(x, 10, y, 10, PT_STATS_AUTO, &u, &p, NULL), 0);
		rejected += p < 0.05;
	}
	ck_assert_msg(rejected <= 32, "p < 0.05 in %d of 400 A/A experiments", rejected);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("stats");

	tcase_add_test(tc, mwu_scipy_example_exact_u17_p_one_ninth);
	tcase_add_test(tc, mwu_scipy_example_asymptotic_with_continuity);
	tcase_add_test(tc, mwu_scipy_suite_two_sided_no_ties);
	tcase_add_test(tc, mwu_ties_match_r_wilcox_test);
	tcase_add_loop_test(tc, mwu_exact_separated_samples, 0, (int)N_OF(separated));
	tcase_add_test(tc, mwu_identical_and_empty_samples);
	tcase_add_test(tc, summary_numpy_linear_quartiles);
	tcase_add_test(tc, bootstrap_is_seeded_and_covers_a_known_change);
	tcase_add_test(tc, bootstrap_refuses_what_it_cannot_do);
	tcase_add_test(tc, a_a_p_values_reject_at_most_alpha);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
