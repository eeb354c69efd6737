/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_EXPERIMENT_INTERNAL_H
#define PERFTUNE_EXPERIMENT_INTERNAL_H

/* The experiment object, shared by experiment.c (the object, its options and
 * results) and run.c (the rounds, the change held and given back, the
 * statistics). */
#include <stdatomic.h>
#include "perftune.h"
#include "stats.h"

struct perftune_experiment {
	struct perftune_ctx *ctx;      /* a reference */
	char *name;		       /* of the transaction */
	struct perftune_profile *prof; /* borrowed; or the settings: */
	char **keys, **values;
	size_t nset;
	unsigned rounds, warmup;
	enum perftune_order order;
	uint64_t seed;
	bool higher;
	bool ran;	    /* perftune_experiment_run() was called */
	atomic_int aborted; /* perftune_experiment_abort() */
	/* the results */
	double *samples[2];
	double (*times[2])[3]; /* each sample's wall, user and system seconds, or NaN */
	size_t n[2];
	struct pt_stats_summary sum[2];
	double change, lo, hi, u, p;
	bool exact;
	enum perftune_verdict verdict;
};

/* results.c: the statistics of the samples, once the rounds are done; 0, -ENOMEM */
int pt_experiment_analyse(struct perftune_experiment *exp);

#endif
