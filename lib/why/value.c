// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Two values compared as the kernel shows them: the bracketed choice, the
 * blk-mq scheduler aliases, "a|b" alternatives, numbers, CPU lists, blanks
 * in vectors.  verify.c's comparison and why.c's DIFFERS flag.
 */
#include <stdio.h>
#include <string.h>
#include "macro.h"
#include "internal.h"
#include "shared/cpulist.h"
#include "shared/util.h"
#include "why-internal.h"

#define CPUS_MAX 8192

/* the kernel's names of a scheduler: what a transaction maps the aliases to */
static const char *sched_alias(const char *v)
{
	static const char *const alias[][2] = { { "deadline", "mq-deadline" },
						{ "noop", "none" },
						{ "cfq", "bfq" } };

	for (size_t i = 0; i < ARRAY_SIZE(alias); i++)
		if (!strcmp(v, alias[i][0]))
			return alias[i][1];
	return v;
}

static bool same_one(const char *cur, const char *want)
{
	unsigned char a[CPUS_MAX / 8], b[CPUS_MAX / 8]; /* not static: calls run in parallel */
	long long x, y;

	if (!strcmp(cur, want) || !strcmp(cur, sched_alias(want)))
		return true;
	if (pt_parse_ll(cur, &x) == 0 && pt_parse_ll(want, &y) == 0)
		return x == y;
	if (strpbrk(want, ",-") && pt_parse_cpulist(cur, a, CPUS_MAX) == 0 &&
	    pt_parse_cpulist(want, b, CPUS_MAX) == 0)
		return !memcmp(a, b, sizeof(a));
	return false;
}

bool pt_value_same(const char *cur, const char *want)
{
	char c[PT_VAL], w[PT_VAL], *save = NULL;

	if (!cur || !want)
		return false;
	snprintf(c, sizeof(c), "%s", cur);
	snprintf(w, sizeof(w), "%s", want);
	pt_normalize(c); /* the bracketed choice; blanks in vectors collapsed */
	pt_normalize(w);
	if (same_one(c, w))
		return true;
	if (!strchr(w, '|'))
		return false;
	for (char *alt = strtok_r(w, "|", &save); alt; alt = strtok_r(NULL, "|", &save))
		if (same_one(c, alt)) /* "a|b": the first one offered, whichever that was */
			return true;
	return false;
}
