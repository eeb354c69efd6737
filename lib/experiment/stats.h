/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_EXPERIMENT_STATS_H
#define PERFTUNE_EXPERIMENT_STATS_H

/* The statistics of an experiment (experiment.c, `perftune compare`): order
 * statistics, the Mann-Whitney U test as scipy.stats.mannwhitneyu computes it (method 'auto', two-sided),
 * and a seeded percentile bootstrap of the relative change of the median.
 * Pure functions of their inputs: no I/O, no global state. */
#include <stddef.h>
#include <stdint.h>

struct pt_stats_summary {
	size_t n;
	double median, q1, q3, iqr; /* quartiles by linear interpolation (numpy's default) */
	double mean, sd, cv;	    /* sd with n - 1; cv = sd / mean (0 if mean is 0) */
};

/* the @p quantile (0..1) of sorted @x, linear interpolation between order statistics */
double pt_stats_quantile(const double *sorted, size_t n, double p);
/* summary of @x (any order, n >= 1); -ENOMEM or 0 */
int pt_stats_summarize(const double *x, size_t n, struct pt_stats_summary *s);

/* Mann-Whitney U test of @x against @y, two-sided.  @u1 is U of x (scipy's
 * statistic: rank sum of x minus nx(nx+1)/2).  The p-value is exact when the
 * smaller sample has at most 8 values and there are no ties, else the normal
 * approximation with tie correction and continuity correction.  @exact tells
 * which (may be NULL).  @method forces one (as scipy's method=): the exact
 * one only without ties.  0, -EINVAL (an empty sample; exact with ties), -ENOMEM. */
enum pt_stats_method { PT_STATS_AUTO, PT_STATS_EXACT, PT_STATS_ASYMPTOTIC };
int pt_stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
			  enum pt_stats_method method, double *u1, double *p, int *exact);

/* The percentile bootstrap 95% interval of 100 * (median(t) / median(b) - 1):
 * @reps resamples of each, drawn with a splitmix64 generator seeded with
 * @seed, so the same inputs and seed give the same interval.  0, -EINVAL
 * (empty, reps < 100, a median of b that is 0), -ENOMEM. */
int pt_stats_bootstrap_change(const double *b, size_t nb, const double *t, size_t nt, uint64_t seed,
			      unsigned reps, double *lo, double *hi);

/* a uniform double in [0, 1) from a splitmix64 state (also for tests' noise) */
double pt_stats_uniform(uint64_t *state);

#endif
