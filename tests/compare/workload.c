// SPDX-License-Identifier: LGPL-2.1-or-later
/* A fake workload for `perftune compare` tests: it reads a (fake) kernel file,
 * and prints "result: X ms" where X = base, times ratio if the file shows the
 * tuned value, times seeded log-normal noise.  The n-th call (a counter file)
 * draws the n-th noise value of its seed, so every experiment is reproducible.
 *   workload FILE TUNED_VALUE RATIO BASE NOISE_SD COUNTER SEED [fail-at N | hang DIR]
 * "fail-at N": the N-th call (0-based) exits 3; "hang DIR": a tuned call
 * creates DIR/hanging and sleeps, for signal tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stats.h"

/* the bracketed choice of a selection file, else its trimmed content */
static void current(const char *path, char *out, size_t size)
{
	char buf[256] = "", *p, *e;
	FILE *f = fopen(path, "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	p = strchr(buf, '[');
	if (p && (e = strchr(p, ']'))) {
		*e = '\0';
		p++;
	} else {
		p = buf;
		p[strcspn(p, " \n")] = '\0';
	}
	snprintf(out, size, "%s", p);
}

static long next_call(const char *counter)
{
	long n = 0;
	FILE *f = fopen(counter, "r");

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = 0;
		fclose(f);
	}
	f = fopen(counter, "w");
	if (!f)
		exit(4);
	fprintf(f, "%ld\n", n + 1);
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	char cur[128];
	double ratio, base, sd, u1, u2, z;
	uint64_t st;
	long n;
	int tuned;

	if (argc < 8) {
		fprintf(stderr,
			"usage: %s FILE TUNED RATIO BASE SD COUNTER SEED [fail-at N|hang DIR]\n",
			argv[0]);
		return 2;
	}
	current(argv[1], cur, sizeof(cur));
	tuned = !strcmp(cur, argv[2]);
	ratio = atof(argv[3]);
	base = atof(argv[4]);
	sd = atof(argv[5]);
	n = next_call(argv[6]);
	st = strtoull(argv[7], NULL, 10) * 1000003ULL + (uint64_t)n;
	if (argc > 9 && !strcmp(argv[8], "fail-at") && n == atol(argv[9]))
		return 3;
	if (argc > 9 && !strcmp(argv[8], "hang") && tuned) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/hanging", argv[9]);
		fclose(fopen(path, "w"));
		for (;;)
			pause();
	}
	u1 = pt_stats_uniform(&st);
	u2 = pt_stats_uniform(&st);
	z = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
	fprintf(stderr, "workload call %ld: %s is %s\n", n, argv[1], cur);
	printf("noise %.3f\nresult: %.6f ms\n", z, base * (tuned ? ratio : 1) * exp(sd * z));
	return 0;
}
