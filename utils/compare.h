/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_UTILS_COMPARE_H
#define PERFTUNE_UTILS_COMPARE_H

/* perftune compare: shared by cmd-compare.c (options, report), compare-run.c
 * (running CMD in both states) and compare-plot.c (gnuplot). */
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include "common.h"
#include "stats.h"

#define COMPARE_MAX_VARS 64
#define COMPARE_ALPHA 0.05
#define COMPARE_REPS 2000

enum { BASELINE, TUNED };

struct run_sample {
	double value, wall, user, sys; /* metric, seconds */
};

struct compare_state {
	struct run_sample *s;
	size_t n;
	struct stats_summary sum;
	double *values; /* the metric of each sample, for the statistics */
};

struct compare {
	/* options */
	unsigned rounds, warmup;
	uint64_t seed;
	bool random_order, higher, json, progress;
	const char *metric, *plot, *log, *profile, *name, *vars[COMPARE_MAX_VARS + 1];
	int nvars, nkeys;
	char **keys, **cmd;
	char *exe, *gnuplot; /* resolved paths of CMD and gnuplot */
	regex_t re;
	bool have_re; /* re is compiled: regfree() it */
	char txname[80];
	/* the experiment */
	struct perftune_ctx *ctx;
	struct perftune_profile *prof;
	struct compare_state st[2];
	int logfd, sigfd;
	double started;
	/* the result */
	double change, lo, hi, u, p;
	int exact;
	const char *verdict;
};

/* compare-run.c: run the warmups and rounds; 0, or EXIT_FAIL after restoring */
int compare_run(struct compare *c);
/* stage the change into @tx (the profile or the KEY=VALUE list) */
int compare_stage(struct compare *c, struct perftune_tx *tx);
/* compare-plot.c: write c->plot with gnuplot; 0 or EXIT_FAIL */
int compare_plot(struct compare *c);
/* gnuplot for --plot in c->gnuplot: 0; -ENOENT (not installed), -EPERM (as
 * root: a gnuplot that others can change) with the reason in @why */
int compare_find_gnuplot(struct compare *c, char *why, size_t size);
/* a program's path: @name with a slash as is, else searched in @path (NULL:
 * $PATH); NULL if none */
char *find_program(const char *name, const char *path);
/* wall time in seconds (CLOCK_MONOTONIC) */
double now_s(void);

#endif
