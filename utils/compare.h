/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_UTILS_COMPARE_H
#define PERFTUNE_UTILS_COMPARE_H

/* perftune compare: the experiment is the library's (perftune_experiment_*);
 * cmd-compare.c parses the options and prints the report, compare-run.c is the
 * measure (CMD forked once per run) and compare-plot.c the gnuplot picture. */
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "common.h"

#define COMPARE_MAX_VARS 64

struct run_sample {
	double value, wall, user, sys; /* metric, seconds */
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
	struct perftune_experiment *exp;
	struct run_sample *s[2]; /* each measured run, per state, in round order */
	size_t n[2];
	int logfd, sigfd;
	sigset_t orig; /* the signal mask CMD gets */
	double started;
	unsigned index; /* of the run going on (0: the first) */
	/* why the measure stopped the experiment (EXIT_FAIL's message) */
	char why[300], label[64];
	int sig;
};

/* compare-run.c: the experiment run, CMD forked once per run; 0, or
 * EXIT_FAIL with the machine restored */
int compare_run(struct compare *c);
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
