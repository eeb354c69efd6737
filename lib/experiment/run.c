// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_experiment_run(): the warmups and rounds, the change held and
 * given back, the measure callback, the statistics at the end.
 *
 * The tuned state exists only while a tuned run is on: each tuned run
 * commits the change as a HOLD transaction just before the callback and
 * rolls it back as soon as the callback returns.  So a baseline run always
 * sees the machine as it was, a stopped experiment has at most one run's
 * change to give back, and a process killed during a tuned run leaves a
 * journal whose holder is gone (status: orphaned; restore gives it back).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "core/log.h"
#include "experiment-internal.h"

struct perftune_run {
	struct perftune_experiment *exp;
	unsigned round, warm; /* round 0: warmup run @warm */
	unsigned index, total;
	enum perftune_state state;
	char label[64];
	double started; /* CLOCK_MONOTONIC seconds when the first run began */
};

static double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* stage the change into @tx: the profile or the settings */
static int stage(struct perftune_experiment *exp, struct perftune_tx *tx)
{
	if (exp->prof)
		return perftune_profile_stage(exp->prof, tx, PERFTUNE_PROFILE_HOLD);
	for (size_t i = 0; i < exp->nset; i++) {
		int r = perftune_tx_set(tx, exp->keys[i], exp->values[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* a transaction with the change committed under @flags, or an error */
static int commit_change(struct perftune_experiment *exp, unsigned flags, struct perftune_tx **txp)
{
	int r;

	*txp = NULL;
	if (!exp->prof && !exp->nset)
		return pt_err(exp->ctx, -EINVAL, "experiment '%s': no change given", exp->name);
	r = perftune_tx_new(exp->ctx, exp->name, flags, txp);
	if (r >= 0)
		r = stage(exp, *txp);
	if (r >= 0)
		r = perftune_tx_commit(*txp);
	if (r < 0) {
		perftune_tx_unref(*txp);
		*txp = NULL;
	}
	return r;
}

PERFTUNE_EXPORT int perftune_experiment_check(struct perftune_experiment *exp,
					      struct perftune_tx **txp)
{
	struct perftune_tx *tx;
	int r;

	if (!exp)
		return -EINVAL;
	r = commit_change(exp, PERFTUNE_TX_DRY_RUN | PERFTUNE_TX_HOLD, &tx);
	if (r < 0)
		return pt_api_ret(r);
	if (txp)
		*txp = tx;
	else
		perftune_tx_unref(tx);
	return 0;
}

/* the change back after a tuned run: 0, or the rollback's error (journal kept) */
static int give_back(struct perftune_run *run, struct perftune_tx *tx)
{
	struct perftune_experiment *exp = run->exp;
	int r, rr;

	if (!tx)
		return 0;
	r = perftune_tx_rollback(tx);
	if (r < 0)
		pt_err(exp->ctx, r,
		       "cannot restore transaction '%s' after %s: %s; its journal is kept: "
		       "restore '%s' gives the change back",
		       exp->name, run->label, pt_errmsg(exp->ctx), exp->name);
	rr = perftune_tx_release(tx);
	perftune_tx_unref(tx);
	if (r < 0)
		return r;
	if (rr < 0)
		return rr;
	return 0;
}

/* one run: the change applied for a tuned one, measured, given back */
static int run_once(struct perftune_run *run, perftune_measure_fn measure, void *ud, double *value,
		    bool *from_measure)
{
	struct perftune_experiment *exp = run->exp;
	struct perftune_tx *tx = NULL;
	int r, back;

	if (atomic_load(&exp->aborted))
		return pt_err(exp->ctx, -ECANCELED, "experiment '%s' aborted before %s", exp->name,
			      run->label);
	if (run->state == PERFTUNE_TUNED) {
		r = commit_change(exp, PERFTUNE_TX_HOLD, &tx);
		if (r < 0)
			return pt_err(exp->ctx, r, "cannot apply the change before %s: %s",
				      run->label, pt_errmsg(exp->ctx));
	}
	r = measure(run, ud, value);
	back = give_back(run, tx);
	if (back < 0)
		return back;
	if (atomic_load(&exp->aborted))
		return pt_err(exp->ctx, -ECANCELED, "experiment '%s' aborted in %s", exp->name,
			      run->label);
	*from_measure = r < 0;
	if (r < 0)
		return r;
	return 0;
}

/* the states in run order for round @i (1-based): ABBA, or a seeded coin per
 * round; the first run of all is a baseline run either way, so that a
 * measure that cannot work fails before anything was changed */
static void round_order(struct perftune_experiment *exp, unsigned i, uint64_t *rng,
			enum perftune_state order[2])
{
	bool tuned_first;

	if (exp->order == PERFTUNE_ORDER_RANDOM)
		tuned_first = pt_stats_uniform(rng) < 0.5 && !(i == 1 && !exp->warmup);
	else
		tuned_first = i % 2 == 0;
	order[0] = PERFTUNE_BASELINE;
	order[1] = PERFTUNE_TUNED;
	if (tuned_first) {
		order[0] = PERFTUNE_TUNED;
		order[1] = PERFTUNE_BASELINE;
	}
}

static void run_label(struct perftune_run *run)
{
	const char *state = perftune_state_name(run->state);

	if (run->round)
		snprintf(run->label, sizeof(run->label), "round %u (%s run)", run->round, state);
	else
		snprintf(run->label, sizeof(run->label), "warmup %u (%s run)", run->warm, state);
}

/* every run in turn; 0, or the first error (*from_measure: @measure's own) */
static int run_all(struct perftune_experiment *exp, perftune_measure_fn measure, void *ud,
		   bool *from_measure)
{
	struct perftune_run run = { .exp = exp, .total = 2 * (exp->warmup + exp->rounds) };
	uint64_t rng = exp->seed ^ 0x6f72646572ULL;

	run.started = monotonic_s();
	for (unsigned i = 0; i < exp->warmup + exp->rounds; i++) {
		enum perftune_state order[2] = { PERFTUNE_BASELINE, PERFTUNE_TUNED };
		run.round = i < exp->warmup ? 0 : i - exp->warmup + 1;
		run.warm = run.round ? 0 : i + 1;
		if (run.round)
			round_order(exp, run.round, &rng, order);
		for (int k = 0; k < 2; k++) {
			double v = 0;
			int r;
			run.state = order[k];
			run_label(&run);
			r = run_once(&run, measure, ud, &v, from_measure);
			if (r < 0)
				return r;
			if (run.round)
				exp->samples[run.state][exp->n[run.state]++] = v;
			run.index++;
		}
	}
	return 0;
}

PERFTUNE_EXPORT int perftune_experiment_run(struct perftune_experiment *exp,
					    perftune_measure_fn measure, void *userdata)
{
	bool from_measure = false;
	int r;

	if (!exp || !measure)
		return -EINVAL;
	if (exp->ran)
		return pt_err(exp->ctx, -EALREADY, "experiment '%s' has run already", exp->name);
	if (!exp->prof && !exp->nset)
		return pt_err(exp->ctx, -EINVAL, "experiment '%s': no change given", exp->name);
	exp->ran = true;
	for (int s = 0; s < 2; s++) {
		exp->samples[s] = calloc(exp->rounds, sizeof(double));
		exp->times[s] = calloc(exp->rounds, sizeof(*exp->times[s]));
		if (!exp->samples[s] || !exp->times[s])
			return -ENOMEM;
		for (unsigned i = 0; i < exp->rounds; i++)
			exp->times[s][i][0] = exp->times[s][i][1] = exp->times[s][i][2] = NAN;
	}
	r = run_all(exp, measure, userdata, &from_measure);
	if (r >= 0)
		r = pt_experiment_analyse(exp);
	if (r < 0) /* no half results: the counts are 0 and the figures NaN */
		exp->n[PERFTUNE_BASELINE] = exp->n[PERFTUNE_TUNED] = 0;
	if (r < 0 && from_measure)
		return r; /* the caller's own error, as it gave it */
	return pt_api_ret(r);
}

PERFTUNE_EXPORT int perftune_run_set_times(struct perftune_run *run, double wall, double user,
					   double sys)
{
	double *t;

	if (!run)
		return -EINVAL;
	if (!run->round)
		return 0; /* a warmup run: not reported */
	t = run->exp->times[run->state][run->exp->n[run->state]];
	t[0] = wall;
	t[1] = user;
	t[2] = sys;
	return 0;
}

PERFTUNE_EXPORT void perftune_experiment_abort(struct perftune_experiment *exp)
{
	if (exp)
		atomic_store(&exp->aborted, 1);
}

PERFTUNE_EXPORT unsigned perftune_run_round(const struct perftune_run *run)
{
	if (run)
		return run->round;
	return 0;
}

PERFTUNE_EXPORT unsigned perftune_run_warmup(const struct perftune_run *run)
{
	if (run)
		return run->warm;
	return 0;
}

PERFTUNE_EXPORT enum perftune_state perftune_run_state(const struct perftune_run *run)
{
	if (run)
		return run->state;
	return PERFTUNE_BASELINE;
}

PERFTUNE_EXPORT unsigned perftune_run_index(const struct perftune_run *run)
{
	if (run)
		return run->index;
	return 0;
}

PERFTUNE_EXPORT unsigned perftune_run_total(const struct perftune_run *run)
{
	if (run)
		return run->total;
	return 0;
}

PERFTUNE_EXPORT double perftune_run_eta(const struct perftune_run *run)
{
	if (!run || !run->index)
		return NAN;
	/* the pace of the runs so far, for those left */
	return (monotonic_s() - run->started) / run->index * (run->total - run->index);
}

PERFTUNE_EXPORT const char *perftune_run_label(const struct perftune_run *run)
{
	if (run)
		return run->label;
	return NULL;
}

PERFTUNE_EXPORT struct perftune_experiment *perftune_run_experiment(const struct perftune_run *run)
{
	if (run)
		return run->exp;
	return NULL;
}
