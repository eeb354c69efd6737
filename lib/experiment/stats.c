// SPDX-License-Identifier: LGPL-2.1-or-later
/* The statistics of an experiment (experiment.c): quartiles, Mann-Whitney U,
 * bootstrap CI.  No library state: the unit test and the compare tests' fake
 * workload build this file on its own. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pt_stats_quantile(const double *sorted, size_t n, double p)
{
	double h = p * (double)(n - 1);
	size_t i = (size_t)floor(h);

	if (n == 0)
		return NAN;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (h - (double)i) * (sorted[i + 1] - sorted[i]);
}

int pt_stats_summarize(const double *x, size_t n, struct pt_stats_summary *s)
{
	double *v, sum = 0, ss = 0;

	memset(s, 0, sizeof(*s));
	if (n == 0)
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	s->n = n;
	s->median = pt_stats_quantile(v, n, 0.5);
	s->q1 = pt_stats_quantile(v, n, 0.25);
	s->q3 = pt_stats_quantile(v, n, 0.75);
	s->iqr = s->q3 - s->q1;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	s->cv = s->mean != 0 ? s->sd / fabs(s->mean) : 0;
	free(v);
	return 0;
}

struct tagged {
	double v;
	int from_x;
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_double(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

/* rank sum of x (mid-ranks for ties) and sum over tie groups of t^3 - t */
static int rank_sum(const double *x, size_t nx, const double *y, size_t ny, double *r1, double *ties)
{
	size_t n = nx + ny;
	struct tagged *a = malloc(n * sizeof(*a));

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		a[i] = (struct tagged){ i < nx ? x[i] : y[i - nx], i < nx };
	qsort(a, n, sizeof(*a), cmp_tagged);
	*r1 = 0;
	*ties = 0;
	for (size_t i = 0, j; i < n; i = j) {
		double t, mid;
		for (j = i + 1; j < n && a[j].v == a[i].v; j++)
			;
		t = (double)(j - i);
		mid = (double)(i + 1 + j) / 2; /* ranks i+1 .. j */
		for (size_t k = i; k < j; k++)
			if (a[k].from_x)
				*r1 += mid;
		*ties += t * t * t - t;
	}
	free(a);
	return 0;
}

/* P(U >= u) under H0 without ties: the counts of U are the coefficients of the
 * Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) */
static int exact_sf(size_t m, size_t n, double u, double *sf)
{
	size_t deg = m * n;
	double *c = calloc(deg + 1, sizeof(*c)), total = 0, tail = 0;

	if (!c)
		return -ENOMEM;
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t k = deg; k >= n + i; k--) /* times (1 - q^(n+i)) */
			c[k] -= c[k - n - i];
		for (size_t k = i; k <= deg; k++) /* divided by (1 - q^i) */
			c[k] += c[k - i];
	}
	for (size_t k = 0; k <= deg; k++) {
		total += c[k];
		if ((double)k >= u)
			tail += c[k];
	}
	*sf = tail / total;
	free(c);
	return 0;
}

int pt_stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
			  enum pt_stats_method method, double *u1, double *p, int *exact)
{
	double r1, ties, n1 = (double)nx, n2 = (double)ny, n = n1 + n2, u, mu, s;
	int r;

	if (nx == 0 || ny == 0)
		return -EINVAL;
	r = rank_sum(x, nx, y, ny, &r1, &ties);
	if (r < 0)
		return r;
	*u1 = r1 - n1 * (n1 + 1) / 2;
	u = fmax(*u1, n1 * n2 - *u1);
	if (method == PT_STATS_EXACT && ties != 0)
		return -EINVAL;
	if (method == PT_STATS_AUTO)
		method = (nx <= 8 || ny <= 8) && ties == 0 ? PT_STATS_EXACT : PT_STATS_ASYMPTOTIC;
	if (method == PT_STATS_EXACT) {
		if (exact)
			*exact = 1;
		r = exact_sf(nx < ny ? nx : ny, nx < ny ? ny : nx, u, p);
		if (r < 0)
			return r;
		*p = fmin(1, 2 * *p);
		return 0;
	}
	if (exact)
		*exact = 0;
	mu = n1 * n2 / 2;
	s = sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))));
	/* all values tied: no evidence either way */
	*p = s > 0 ? fmin(1, erfc((u - mu - 0.5) / s / M_SQRT2)) : 1;
	return 0;
}

double pt_stats_uniform(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1.0p-53;
}

static double resampled_median(const double *x, size_t n, double *buf, uint64_t *st)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = x[(size_t)(pt_stats_uniform(st) * (double)n)];
	qsort(buf, n, sizeof(*buf), cmp_double);
	return pt_stats_quantile(buf, n, 0.5);
}

int pt_stats_bootstrap_change(const double *b, size_t nb, const double *t, size_t nt, uint64_t seed,
			      unsigned reps, double *lo, double *hi)
{
	double *buf, *ch;
	uint64_t st = seed;
	unsigned k = 0;

	if (!nb || !nt || reps < 100)
		return -EINVAL;
	buf = malloc((nb > nt ? nb : nt) * sizeof(*buf));
	ch = malloc(reps * sizeof(*ch));
	if (!buf || !ch) {
		free(buf);
		free(ch);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < reps; i++) {
		double mb = resampled_median(b, nb, buf, &st);
		double mt = resampled_median(t, nt, buf, &st);
		if (mb != 0)
			ch[k++] = 100 * (mt / mb - 1);
	}
	free(buf);
	if (k < reps / 2) { /* the baseline's median is 0 most of the time */
		free(ch);
		return -EINVAL;
	}
	qsort(ch, k, sizeof(*ch), cmp_double);
	*lo = pt_stats_quantile(ch, k, 0.025);
	*hi = pt_stats_quantile(ch, k, 0.975);
	free(ch);
	return 0;
}
