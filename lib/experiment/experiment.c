// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The experiment object: what changes (a profile or KEY=VALUE settings), how
 * it runs (rounds, warmups, order, seed) and, once run.c has run it, the
 * samples and statistics read through the accessors.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "core/log.h"
#include "experiment-internal.h"

#define MAX_COUNT 100000 /* rounds and warmups, as the CLI takes them */

static int experiment_new_impl(struct perftune_ctx *ctx, const char *name,
			       struct perftune_experiment **expp)
{
	struct perftune_experiment *exp;
	char def[64];

	if (!ctx || !expp)
		return -EINVAL;
	*expp = NULL;
	if (!name) {
		snprintf(def, sizeof(def), "experiment-%d", (int)getpid());
		name = def;
	}
	if (!*name)
		return pt_err(ctx, -EINVAL, "experiment: an empty name");
	exp = calloc(1, sizeof(*exp));
	if (!exp)
		return -ENOMEM;
	exp->name = strdup(name);
	if (!exp->name) {
		free(exp);
		return -ENOMEM;
	}
	exp->ctx = perftune_ctx_ref(ctx);
	exp->rounds = 10;
	exp->warmup = 1;
	exp->seed = 1;
	exp->change = exp->lo = exp->hi = exp->u = exp->p = NAN;
	*expp = exp;
	return 0;
}

PERFTUNE_EXPORT int perftune_experiment_new(struct perftune_ctx *ctx, const char *name,
					    struct perftune_experiment **expp)
{
	return pt_api_ret(experiment_new_impl(ctx, name, expp));
}

PERFTUNE_EXPORT void perftune_experiment_free(struct perftune_experiment *exp)
{
	if (!exp)
		return;
	for (size_t i = 0; i < exp->nset; i++) {
		free(exp->keys[i]);
		free(exp->values[i]);
	}
	free(exp->keys);
	free(exp->values);
	free(exp->samples[PERFTUNE_BASELINE]);
	free(exp->samples[PERFTUNE_TUNED]);
	free(exp->times[PERFTUNE_BASELINE]);
	free(exp->times[PERFTUNE_TUNED]);
	free(exp->name);
	perftune_ctx_unref(exp->ctx);
	free(exp);
}

PERFTUNE_EXPORT const char *perftune_experiment_name(struct perftune_experiment *exp)
{
	if (exp)
		return exp->name;
	return NULL;
}

static int experiment_set_impl(struct perftune_experiment *exp, const char *key, const char *value)
{
	char **k, **v;

	if (!exp || !key || !value)
		return -EINVAL;
	if (exp->prof)
		return pt_err(exp->ctx, -EINVAL, "%s: the change is a profile already", key);
	k = realloc(exp->keys, (exp->nset + 1) * sizeof(*k));
	if (k)
		exp->keys = k;
	v = realloc(exp->values, (exp->nset + 1) * sizeof(*v));
	if (v)
		exp->values = v;
	if (!k || !v)
		return -ENOMEM;
	k[exp->nset] = strdup(key);
	v[exp->nset] = strdup(value);
	if (!k[exp->nset] || !v[exp->nset]) {
		free(k[exp->nset]);
		free(v[exp->nset]);
		return -ENOMEM;
	}
	exp->nset++;
	return 0;
}

PERFTUNE_EXPORT int perftune_experiment_set(struct perftune_experiment *exp, const char *key,
					    const char *value)
{
	return pt_api_ret(experiment_set_impl(exp, key, value));
}

PERFTUNE_EXPORT int perftune_experiment_set_profile(struct perftune_experiment *exp,
						    struct perftune_profile *p)
{
	if (!exp || !p)
		return -EINVAL;
	if (exp->nset)
		return pt_err(exp->ctx, -EINVAL, "%s: the change is KEY=VALUE settings already",
			      perftune_profile_name(p));
	exp->prof = p;
	return 0;
}

PERFTUNE_EXPORT int perftune_experiment_set_rounds(struct perftune_experiment *exp, unsigned rounds)
{
	if (!exp)
		return -EINVAL;
	if (rounds < 3 || rounds > MAX_COUNT)
		return pt_err(exp->ctx, -EINVAL, "rounds %u: give a number from 3 to %d", rounds,
			      MAX_COUNT);
	exp->rounds = rounds;
	return 0;
}

PERFTUNE_EXPORT int perftune_experiment_set_warmup(struct perftune_experiment *exp, unsigned warmup)
{
	if (!exp)
		return -EINVAL;
	if (warmup > MAX_COUNT)
		return pt_err(exp->ctx, -EINVAL, "warmup %u: give a number from 0 to %d", warmup,
			      MAX_COUNT);
	exp->warmup = warmup;
	return 0;
}

PERFTUNE_EXPORT int perftune_experiment_set_order(struct perftune_experiment *exp,
						  enum perftune_order order)
{
	if (!exp)
		return -EINVAL;
	if (order != PERFTUNE_ORDER_ABBA && order != PERFTUNE_ORDER_RANDOM)
		return pt_err(exp->ctx, -EINVAL, "order %d: abba (0) or random (1)", (int)order);
	exp->order = order;
	return 0;
}

PERFTUNE_EXPORT int perftune_experiment_set_seed(struct perftune_experiment *exp, uint64_t seed)
{
	if (!exp)
		return -EINVAL;
	exp->seed = seed;
	return 0;
}

PERFTUNE_EXPORT int perftune_experiment_set_higher_is_better(struct perftune_experiment *exp,
							     bool higher)
{
	if (!exp)
		return -EINVAL;
	exp->higher = higher;
	return 0;
}

PERFTUNE_EXPORT unsigned perftune_experiment_rounds(struct perftune_experiment *exp)
{
	if (exp)
		return exp->rounds;
	return 0;
}

PERFTUNE_EXPORT unsigned perftune_experiment_warmup(struct perftune_experiment *exp)
{
	if (exp)
		return exp->warmup;
	return 0;
}

PERFTUNE_EXPORT enum perftune_order perftune_experiment_order(struct perftune_experiment *exp)
{
	if (exp)
		return exp->order;
	return PERFTUNE_ORDER_ABBA;
}

PERFTUNE_EXPORT uint64_t perftune_experiment_seed(struct perftune_experiment *exp)
{
	if (exp)
		return exp->seed;
	return 0;
}
