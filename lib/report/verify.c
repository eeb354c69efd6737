// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_verify_report(): the checks of a verification as perftune verify
 * prints them (perftune(8)): a line per setting and the counts per state, or
 * one JSON object with the settings, whether all are in force and the counts.
 * JSON says "in_force" before the settings, so the checks are all read first.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "shared/array.h"
#include "shared/json.h"
#include "shared/report.h"

#define NSTATES (PERFTUNE_CHECK_SKIPPED + 1)

/* the checks of an iterator, read to its end, and how many there are of each state */
struct checks {
	const struct perftune_check **v;
	size_t n, cap;
	int counts[NSTATES];
	int bad; /* not in force, as perftune_verify() counts them */
};

static int read_checks(struct perftune_check_iter *it, struct checks *c)
{
	const struct perftune_check *e;

	while ((e = perftune_check_iter_next(it))) {
		int st = perftune_check_status(e);
		if (pt_grow(&c->v, &c->cap, c->n + 1, 16) < 0)
			return -ENOMEM;
		c->v[c->n++] = e;
		if (st >= 0 && st < NSTATES)
			c->counts[st]++;
		if (st == PERFTUNE_CHECK_DIFFERS || st == PERFTUNE_CHECK_CLAMPED ||
		    st == PERFTUNE_CHECK_NEEDS_REBOOT)
			c->bad++;
	}
	return 0;
}

static void verify_text(const struct checks *c, FILE *f)
{
	const int *n = c->counts;

	for (size_t i = 0; i < c->n; i++) {
		const struct perftune_check *e = c->v[i];
		fprintf(f, "%-12s %s", perftune_check_status_name(perftune_check_status(e)),
			perftune_check_key(e));
		pt_report_if(f, " = ", perftune_check_expected(e), "");
		pt_report_if(f, " (", perftune_check_reason(e), ")");
		fputc('\n', f);
	}
	fprintf(f,
		"%d in force, %d differ, %d clamped, %d not here, %d need a reboot, %d skipped\n",
		n[PERFTUNE_CHECK_IN_FORCE], n[PERFTUNE_CHECK_DIFFERS], n[PERFTUNE_CHECK_CLAMPED],
		n[PERFTUNE_CHECK_NOT_HERE], n[PERFTUNE_CHECK_NEEDS_REBOOT],
		n[PERFTUNE_CHECK_SKIPPED]);
}

static void verify_json(const struct checks *c, const char *what, FILE *f)
{
	struct json j = JSON_INIT(f);

	json_open(&j, '{', 0);
	json_kv(&j, "verified", what);
	json_kb(&j, "in_force", c->bad == 0);
	json_key(&j, "settings");
	json_open(&j, '[', 2);
	for (size_t i = 0; i < c->n; i++) {
		const struct perftune_check *e = c->v[i];
		json_open(&j, '{', 0);
		json_kv(&j, "key", perftune_check_key(e));
		json_kv(&j, "status", perftune_check_status_name(perftune_check_status(e)));
		json_kv(&j, "expected", perftune_check_expected(e));
		json_kv(&j, "current", perftune_check_current(e));
		json_kv(&j, "reason", perftune_check_reason(e));
		json_kv(&j, "origin", perftune_check_origin(e));
		json_close(&j);
	}
	json_close(&j);
	json_key(&j, "counts");
	json_open(&j, '{', 0);
	for (int s = PERFTUNE_CHECK_IN_FORCE; s <= PERFTUNE_CHECK_SKIPPED; s++)
		json_ki(&j, perftune_check_status_name(s), c->counts[s]);
	json_close(&j);
	json_close(&j);
}

static int verify_report_impl(struct perftune_check_iter *it, const char *what, unsigned flags,
			      char **text)
{
	struct checks c = { 0 };
	struct pt_report rep;
	int r;

	if (!it || !text || (flags & ~PERFTUNE_REPORT_JSON))
		return -EINVAL;
	*text = NULL;
	r = read_checks(it, &c);
	if (r >= 0)
		r = pt_report_open(&rep);
	if (r < 0) {
		free(c.v);
		return r;
	}
	if (flags & PERFTUNE_REPORT_JSON)
		verify_json(&c, what, rep.f);
	else
		verify_text(&c, rep.f);
	free(c.v);
	r = pt_report_end(&rep, text);
	if (r < 0)
		return r;
	return c.bad;
}

PERFTUNE_EXPORT int perftune_verify_report(struct perftune_check_iter *it, const char *what,
					   unsigned flags, char **text)
{
	return pt_api_ret(verify_report_impl(it, what, flags, text));
}
