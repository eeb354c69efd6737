// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_experiment_report(): an experiment's results as perftune compare
 * prints them (perftune(8)), a text table or one JSON object, so that the
 * bindings report an experiment as the program does.  The wall, user and
 * system seconds of each measured run are the measure callback's to give
 * (perftune_run_set_times()): the library runs nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "core/log.h"
#include "shared/json.h"
#include "shared/report.h"
#include "experiment-internal.h"

static const char *const time_names[] = { "wall_s", "user_s", "sys_s" };

static void json_state(struct perftune_experiment *exp, struct json *j, enum perftune_state s)
{
	json_break(j, 2);
	json_key(j, perftune_state_name(s));
	json_open(j, '{', 0);
	json_ki(j, "n", (long long)exp->n[s]);
	json_kn(j, "median", perftune_experiment_median(exp, s));
	json_kn(j, "q1", perftune_experiment_q1(exp, s));
	json_kn(j, "q3", perftune_experiment_q3(exp, s));
	json_kn(j, "iqr", perftune_experiment_iqr(exp, s));
	json_kn(j, "mean", perftune_experiment_mean(exp, s));
	json_kn(j, "cv", perftune_experiment_cv(exp, s));
	json_break(j, 4);
	json_key(j, "samples");
	json_open(j, '[', 0);
	for (size_t i = 0; i < exp->n[s]; i++)
		json_num(j, exp->samples[s][i]);
	json_close(j);
	for (int k = 0; k < 3; k++) {
		json_break(j, 4);
		json_key(j, time_names[k]);
		json_open(j, '[', 0);
		for (size_t i = 0; i < exp->n[s]; i++)
			json_num(j, exp->times[s][i][k]);
		json_close(j);
	}
	json_close(j);
}

static void report_json(struct perftune_experiment *exp, FILE *f, const char *metric,
			const char *log, const char *plot)
{
	struct json j = JSON_INIT(f);
	const char *unit = "s", *order = "ABBA", *p_method = "asymptotic";

	if (metric)
		unit = NULL;
	if (exp->order == PERFTUNE_ORDER_RANDOM)
		order = "random";
	if (exp->exact)
		p_method = "exact";
	json_open(&j, '{', 0);
	json_kv(&j, "metric", metric ? metric : "wall_time");
	json_kv(&j, "unit", unit);
	json_kb(&j, "higher_is_better", exp->higher);
	json_ki(&j, "rounds", exp->rounds);
	json_ki(&j, "warmup", exp->warmup);
	json_kv(&j, "order", order);
	json_ki(&j, "seed", (long long)exp->seed);
	json_kv(&j, "transaction", exp->name);
	json_kv(&j, "log", log);
	json_kv(&j, "plot", plot);
	json_state(exp, &j, PERFTUNE_BASELINE);
	json_state(exp, &j, PERFTUNE_TUNED);
	json_break(&j, 2);
	json_kn(&j, "change_pct", exp->change);
	json_key(&j, "ci95");
	json_open(&j, '[', 0);
	json_num(&j, exp->lo);
	json_num(&j, exp->hi);
	json_close(&j);
	json_kn(&j, "u", exp->u);
	json_kn(&j, "p_value", exp->p);
	json_kv(&j, "p_method", p_method);
	json_kn(&j, "alpha", PERFTUNE_EXPERIMENT_ALPHA);
	json_break(&j, 2);
	json_kv(&j, "verdict", perftune_verdict_name(exp->verdict));
	json_close(&j);
}

/* the median of @s's wall (@k 0), user (1) or system (2) seconds; NaN if none was given */
static double time_median(struct perftune_experiment *exp, enum perftune_state s, int k)
{
	double *v, m = NAN;

	if (!exp->n[s] || isnan(exp->times[s][0][k]))
		return NAN; /* the callback gave no times (a comparison of NaN would not sort) */
	v = calloc(exp->n[s], sizeof(double));
	for (size_t i = 0; v && i < exp->n[s]; i++)
		v[i] = exp->times[s][i][k];
	if (v && perftune_median(v, exp->n[s], &m) < 0)
		m = NAN;
	free(v);
	return m;
}

/* the first lines: how it ran and what it measured */
static void text_head(struct perftune_experiment *exp, FILE *f, const char *metric, const char *log)
{
	const char *order = "ABBA", *plural = "s", *better = "lower";

	if (exp->order == PERFTUNE_ORDER_RANDOM)
		order = "random";
	if (exp->warmup == 1)
		plural = "";
	fprintf(f, "%u rounds, %s order, %u warmup run%s of each", exp->rounds, order, exp->warmup,
		plural);
	if (log)
		fprintf(f, "; CMD's output in %s", log);
	fputc('\n', f);
	if (exp->higher)
		better = "higher";
	if (metric)
		fprintf(f, "metric: last match of '%s' in CMD's stdout, %s is better\n\n", metric,
			better);
	else
		fprintf(f, "metric: wall time in seconds, lower is better\n\n");
}

static void report_text(struct perftune_experiment *exp, FILE *f, const char *metric,
			const char *log)
{
	const char *unit = " s", *p_method = "normal approximation, tie-corrected";
	const char *direction = "lower";

	text_head(exp, f, metric, log);
	if (metric)
		unit = "";
	fprintf(f, "%-9s %4s %12s %12s %7s %10s %10s\n", "state", "n", "median", "IQR", "CV",
		"user s", "sys s");
	for (int s = 0; s < 2; s++)
		fprintf(f, "%-9s %4zu %10.6g%-2s %10.6g%-2s %6.1f%% %10.4g %10.4g\n",
			perftune_state_name(s), exp->n[s], exp->sum[s].median, unit,
			exp->sum[s].iqr, unit, 100 * exp->sum[s].cv, time_median(exp, s, 1),
			time_median(exp, s, 2));
	fprintf(f,
		"\nchange of the median: %+.1f%% (95%% CI %+.1f%% .. %+.1f%%; bootstrap, %d "
		"resamples, seed %llu)\n",
		exp->change, exp->lo, exp->hi, PERFTUNE_EXPERIMENT_RESAMPLES,
		(unsigned long long)exp->seed);
	if (exp->exact)
		p_method = "exact";
	fprintf(f, "Mann-Whitney U = %g, two-sided p = %.2g (%s)\n", exp->u, exp->p, p_method);
	if (exp->change > 0)
		direction = "higher";
	if (exp->verdict == PERFTUNE_NO_DIFFERENCE)
		fprintf(f,
			"verdict: no difference: at p < %.2g with a CI excluding 0, this "
			"experiment shows no change\n",
			PERFTUNE_EXPERIMENT_ALPHA);
	else
		fprintf(f,
			"verdict: %s: the tuned median is %.1f%% %s (p = %.2g, the CI excludes "
			"0)\n",
			perftune_verdict_name(exp->verdict), fabs(exp->change), direction, exp->p);
}

static int report_impl(struct perftune_experiment *exp, unsigned flags, const char *metric,
		       const char *log, const char *plot, char **text)
{
	struct pt_report r;

	if (!exp || !text || (flags & ~PERFTUNE_REPORT_JSON))
		return -EINVAL;
	*text = NULL;
	if (!exp->n[PERFTUNE_BASELINE])
		return pt_err(exp->ctx, -EINVAL, "experiment '%s' has no results to report",
			      exp->name);
	if (pt_report_open(&r) < 0)
		return -ENOMEM;
	if (flags & PERFTUNE_REPORT_JSON)
		report_json(exp, r.f, metric, log, plot);
	else
		report_text(exp, r.f, metric, log);
	return pt_report_end(&r, text);
}

PERFTUNE_EXPORT int perftune_experiment_report(struct perftune_experiment *exp, unsigned flags,
					       const char *metric, const char *log,
					       const char *plot, char **text)
{
	return pt_api_ret(report_impl(exp, flags, metric, log, plot, text));
}
