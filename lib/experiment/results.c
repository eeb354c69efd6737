// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An experiment's results: the statistics of the two samples (stats.c) and
 * the verdict, computed once the rounds are done, read through accessors.
 */
#include <errno.h>
#include <math.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "experiment-internal.h"

int pt_experiment_analyse(struct perftune_experiment *exp)
{
	const double *b = exp->samples[PERFTUNE_BASELINE], *t = exp->samples[PERFTUNE_TUNED];
	size_t nb = exp->n[PERFTUNE_BASELINE], nt = exp->n[PERFTUNE_TUNED];
	bool up;
	bool sig;
	int exact = 0, r;

	for (int s = 0; s < 2; s++) {
		r = pt_stats_summarize(exp->samples[s], exp->n[s], &exp->sum[s]);
		if (r < 0)
			return r;
	}
	r = pt_stats_mann_whitney(t, nt, b, nb, PT_STATS_AUTO, &exp->u, &exp->p, &exact);
	if (r < 0)
		return r;
	exp->exact = exact;
	exp->change = exp->lo = exp->hi = NAN;
	if (exp->sum[PERFTUNE_BASELINE].median != 0) {
		exp->change =
			100 *
			(exp->sum[PERFTUNE_TUNED].median / exp->sum[PERFTUNE_BASELINE].median - 1);
		if (pt_stats_bootstrap_change(b, nb, t, nt, exp->seed,
					      PERFTUNE_EXPERIMENT_RESAMPLES, &exp->lo, &exp->hi) < 0)
			exp->lo = exp->hi = NAN;
	}
	/* significant: the test rejects at ALPHA and the CI agrees (excludes 0) */
	sig = exp->p < PERFTUNE_EXPERIMENT_ALPHA && (isnan(exp->lo) || exp->lo > 0 || exp->hi < 0);
	up = exp->sum[PERFTUNE_TUNED].median > exp->sum[PERFTUNE_BASELINE].median;
	exp->verdict = PERFTUNE_NO_DIFFERENCE;
	if (sig && up == exp->higher)
		exp->verdict = PERFTUNE_BETTER;
	else if (sig)
		exp->verdict = PERFTUNE_WORSE;
	return 0;
}

PERFTUNE_EXPORT size_t perftune_experiment_samples(struct perftune_experiment *exp,
						   enum perftune_state state, const double **values)
{
	if (!exp || (state != PERFTUNE_BASELINE && state != PERFTUNE_TUNED))
		return 0;
	if (values)
		*values = exp->samples[state];
	return exp->n[state];
}

PERFTUNE_EXPORT const char *perftune_state_name(enum perftune_state state)
{
	if (state == PERFTUNE_TUNED)
		return "tuned";
	return "baseline";
}

/* the summary of @state once computed, else NULL */
static const struct pt_stats_summary *summary(struct perftune_experiment *exp,
					      enum perftune_state state)
{
	if (!exp || (state != PERFTUNE_BASELINE && state != PERFTUNE_TUNED))
		return NULL;
	if (exp->sum[state].n == 0)
		return NULL;
	return &exp->sum[state];
}

PERFTUNE_EXPORT double perftune_experiment_median(struct perftune_experiment *exp,
						  enum perftune_state state)
{
	const struct pt_stats_summary *s = summary(exp, state);

	if (s)
		return s->median;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_q1(struct perftune_experiment *exp,
					      enum perftune_state state)
{
	const struct pt_stats_summary *s = summary(exp, state);

	if (s)
		return s->q1;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_q3(struct perftune_experiment *exp,
					      enum perftune_state state)
{
	const struct pt_stats_summary *s = summary(exp, state);

	if (s)
		return s->q3;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_iqr(struct perftune_experiment *exp,
					       enum perftune_state state)
{
	const struct pt_stats_summary *s = summary(exp, state);

	if (s)
		return s->iqr;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_mean(struct perftune_experiment *exp,
						enum perftune_state state)
{
	const struct pt_stats_summary *s = summary(exp, state);

	if (s)
		return s->mean;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_cv(struct perftune_experiment *exp,
					      enum perftune_state state)
{
	const struct pt_stats_summary *s = summary(exp, state);

	if (s)
		return s->cv;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_change_pct(struct perftune_experiment *exp)
{
	if (exp)
		return exp->change;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_ci95_low(struct perftune_experiment *exp)
{
	if (exp)
		return exp->lo;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_ci95_high(struct perftune_experiment *exp)
{
	if (exp)
		return exp->hi;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_u(struct perftune_experiment *exp)
{
	if (exp)
		return exp->u;
	return NAN;
}

PERFTUNE_EXPORT double perftune_experiment_p_value(struct perftune_experiment *exp)
{
	if (exp)
		return exp->p;
	return NAN;
}

PERFTUNE_EXPORT bool perftune_experiment_p_exact(struct perftune_experiment *exp)
{
	return exp && exp->exact;
}

PERFTUNE_EXPORT enum perftune_verdict perftune_experiment_verdict(struct perftune_experiment *exp)
{
	if (exp)
		return exp->verdict;
	return PERFTUNE_NO_DIFFERENCE;
}

PERFTUNE_EXPORT const char *perftune_verdict_name(enum perftune_verdict verdict)
{
	switch (verdict) {
	case PERFTUNE_BETTER:
		return "better";
	case PERFTUNE_WORSE:
		return "worse";
	default:
		return "no difference";
	}
}

PERFTUNE_EXPORT int perftune_median(const double *values, size_t n, double *median)
{
	struct pt_stats_summary s;
	int r;

	if (!values || !median || n == 0)
		return -EINVAL;
	r = pt_stats_summarize(values, n, &s);
	if (r < 0)
		return pt_api_ret(r);
	*median = s.median;
	return 0;
}
