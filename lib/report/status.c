// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_status_report(): the journaled transactions as perftune status
 * prints them (perftune(8)): per transaction its state and holder, per key
 * its original, written and current value and what befell it; or status
 * --json's array, one object per entry.  status --format prometheus is
 * perftune_status_metrics() (export/prometheus.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "shared/json.h"
#include "shared/report.h"

static void status_json(struct perftune_status_iter *it, FILE *f)
{
	static const struct {
		const char *name;
		unsigned flag;
	} status_flags[] = {
		{ "held", PERFTUNE_STATUS_HELD },
		{ "orphaned", PERFTUNE_STATUS_ORPHANED },
		{ "committed", PERFTUNE_STATUS_COMMITTED },
		{ "drift", PERFTUNE_STATUS_DRIFT },
		{ "shadowed", PERFTUNE_STATUS_SHADOWED },
		{ "gone", PERFTUNE_STATUS_GONE },
		{ "moved", PERFTUNE_STATUS_MOVED },
		{ "hotplug", PERFTUNE_STATUS_HOTPLUG },
		{ "refused", PERFTUNE_STATUS_REFUSED },
	};
	const struct perftune_status_entry *e;
	struct json j = JSON_INIT(f);

	json_open(&j, '[', 2);
	while ((e = perftune_status_iter_next(it))) {
		json_open(&j, '{', 0);
		json_kv(&j, "transaction", perftune_status_entry_tx_name(e));
		json_kv(&j, "key", perftune_status_entry_key(e));
		json_kv(&j, "original", perftune_status_entry_original(e));
		json_kv(&j, "written", perftune_status_entry_written(e));
		json_kv(&j, "current", perftune_status_entry_current(e));
		json_ki(&j, "pid", perftune_status_entry_pid(e));
		for (size_t i = 0; i < sizeof(status_flags) / sizeof(status_flags[0]); i++)
			json_kb(&j, status_flags[i].name,
				perftune_status_entry_flags(e) & status_flags[i].flag);
		json_kv(&j, "note", perftune_status_entry_note(e));
		json_close(&j);
	}
	json_close(&j);
}

/* the state of a transaction, from the flags of its entries */
static const char *tx_state(unsigned fl)
{
	if (fl & PERFTUNE_STATUS_ORPHANED)
		return "ORPHANED (holder gone: restore it)";
	if (fl & PERFTUNE_STATUS_HELD)
		return "held";
	if (fl & PERFTUNE_STATUS_COMMITTED)
		return "applied";
	return "incomplete";
}

/* " - note", if there is one */
static void note_text(FILE *f, const struct perftune_status_entry *e)
{
	const char *note = perftune_status_entry_note(e);

	if (note)
		fprintf(f, " - %s", note);
}

/* one key of a transaction: a line indented under its transaction's */
static void entry_text(FILE *f, const struct perftune_status_entry *e)
{
	static const struct {
		unsigned flag;
		const char *mark;
	} marks[] = {
		{ PERFTUNE_STATUS_DRIFT, " DRIFT" },
		{ PERFTUNE_STATUS_GONE, " GONE" },
		{ PERFTUNE_STATUS_MOVED, " MOVED" },
		{ PERFTUNE_STATUS_HOTPLUG, " HOTPLUG" },
	};
	unsigned fl = perftune_status_entry_flags(e);
	const char *written = perftune_status_entry_written(e);
	const char *current = perftune_status_entry_current(e);

	if (!*perftune_status_entry_key(e)) { /* the journal, not a key */
		const char *note = perftune_status_entry_note(e);
		fprintf(f, "  error: %s\n", note ? note : "unreadable journal");
		return;
	}
	fprintf(f, "  %s: ", perftune_status_entry_key(e));
	if (fl & PERFTUNE_STATUS_REFUSED) { /* a device added under a hold, not tuned */
		fputs("REFUSED", f);
		note_text(f, e);
		fputc('\n', f);
		return;
	}
	fprintf(f, "%s -> %s, now %s", perftune_status_entry_original(e),
		written ? written : "(not written)", current ? current : "?");
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (fl & marks[i].flag)
			fputs(marks[i].mark, f);
	note_text(f, e);
	fputc('\n', f);
}

/*
 * a line per transaction, its state and holder, above a line per key of it
 * (the entries come grouped by transaction, and stay valid until the iterator is freed)
 */
static void status_text(struct perftune_status_iter *it, FILE *f)
{
	const struct perftune_status_entry *e;
	const char *last = NULL;

	while ((e = perftune_status_iter_next(it))) {
		const char *name = perftune_status_entry_tx_name(e);
		if (!last || strcmp(last, name)) {
			last = name;
			fprintf(f, "%s: %s", name, tx_state(perftune_status_entry_flags(e)));
			if (perftune_status_entry_pid(e))
				fprintf(f, " pid %d", perftune_status_entry_pid(e));
			fputc('\n', f);
		}
		entry_text(f, e);
	}
	if (!last)
		fputs("no transactions\n", f);
}

static int status_report_impl(struct perftune_ctx *ctx, unsigned flags, char **text)
{
	struct perftune_status_iter *it;
	struct pt_report rep;
	int r;

	if (text)
		*text = NULL;
	if (!ctx || !text || (flags & ~PERFTUNE_REPORT_JSON))
		return -EINVAL;
	r = perftune_status(ctx, &it);
	if (r < 0)
		return r;
	r = pt_report_open(&rep);
	if (r >= 0) {
		if (flags & PERFTUNE_REPORT_JSON)
			status_json(it, rep.f);
		else
			status_text(it, rep.f);
		r = pt_report_end(&rep, text);
	}
	perftune_status_iter_free(it);
	return r;
}

PERFTUNE_EXPORT int perftune_status_report(struct perftune_ctx *ctx, unsigned flags, char **text)
{
	return pt_api_ret(status_report_impl(ctx, flags, text));
}
