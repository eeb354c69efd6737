// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_tx_report(): what perftune set and apply print of a transaction
 * (perftune(8)): "key: old -> new" per change, with a profile the options
 * it skipped or kept, and apart the warnings of the persistent sources that
 * will put a key back (perftune_tx_conflicts()); or one JSON object, set
 * --json's, apply --json's with a profile.  A dry run, known from the
 * transaction's flags, shows each staged key; a commit the keys it wrote.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "engine/tx.h"
#include "shared/json.h"
#include "shared/report.h"

static bool dry_run(struct perftune_tx *tx)
{
	return pt_tx_flags(tx) & PERFTUNE_TX_DRY_RUN;
}

/* a change the report shows: each of a dry run, else those the commit wrote (or kept, gave back) */
static bool shown(struct perftune_tx *tx, const struct perftune_change *e)
{
	const unsigned done =
		PERFTUNE_CHANGE_WRITTEN | PERFTUNE_CHANGE_UNCHANGED | PERFTUNE_CHANGE_GIVEN_BACK;

	return dry_run(tx) || (perftune_change_flags(e) & done);
}

static void change_text(FILE *f, const struct perftune_change *e)
{
	unsigned fl = perftune_change_flags(e);
	const char *old = perftune_change_old_value(e), *note = perftune_change_note(e);

	if (!old || !*old)
		old = "?";
	fprintf(f, "%s: %s -> %s", perftune_change_key(e), old, perftune_change_new_value(e));
	if (fl & PERFTUNE_CHANGE_UNCHANGED)
		fputs(" (unchanged)", f);
	if (fl & PERFTUNE_CHANGE_GIVEN_BACK)
		fputs(" (given back: only the replaced transaction had it)", f);
	if (note)
		fprintf(f, " (%s)", note);
	fputc('\n', f);
}

static void change_json(struct json *j, const struct perftune_change *e)
{
	unsigned fl = perftune_change_flags(e);

	json_open(j, '{', 0);
	json_kv(j, "key", perftune_change_key(e));
	json_kv(j, "old", perftune_change_old_value(e));
	json_kv(j, "new", perftune_change_new_value(e));
	json_kb(j, "unchanged", fl & PERFTUNE_CHANGE_UNCHANGED);
	if (fl & PERFTUNE_CHANGE_GIVEN_BACK) /* only after a replace: the members of before kept */
		json_kb(j, "given_back", true);
	json_kv(j, "note", perftune_change_note(e));
	json_close(j);
}

/* each change shown, as a text line onto @f or (@j) an element of the array open */
static int changes(struct perftune_tx *tx, FILE *f, struct json *j)
{
	struct perftune_change_iter *it;
	const struct perftune_change *e;
	int r = perftune_tx_changes(tx, &it);

	if (r < 0)
		return r;
	while ((e = perftune_change_iter_next(it))) {
		if (!shown(tx, e))
			continue;
		if (j)
			change_json(j, e);
		else
			change_text(f, e);
	}
	perftune_change_iter_free(it);
	return 0;
}

static void item_text(FILE *f, const struct perftune_profile_item *e)
{
	unsigned fl = perftune_profile_item_flags(e);
	const char *key = perftune_profile_item_key(e), *note = perftune_profile_item_note(e);

	if (fl & PERFTUNE_PROFILE_ITEM_SKIPPED) {
		note = perftune_profile_item_skip_reason(e);
		fprintf(f, "skipped: %s", perftune_profile_item_option(e));
		if (key && !(note && strstr(note, key))) /* unless the reason names it */
			fprintf(f, " (%s)", key);
		fprintf(f, ": %s\n", note ? note : "");
	} else if (fl & PERFTUNE_PROFILE_ITEM_UNCHANGED) {
		fprintf(f, "kept: %s = %s (%s: %s)\n", key, perftune_profile_item_value(e),
			perftune_profile_item_option(e), note ? note : "");
	}
}

static void item_json(struct json *j, const struct perftune_profile_item *e)
{
	const char *reason = perftune_profile_item_skip_reason(e);

	if (!reason)
		reason = perftune_profile_item_note(e);
	json_open(j, '{', 0);
	json_kv(j, "option", perftune_profile_item_option(e));
	json_kv(j, "key", perftune_profile_item_key(e));
	json_kv(j, "value", perftune_profile_item_value(e));
	json_kv(j, "origin", perftune_profile_item_location(e));
	json_kv(j, "reason", reason);
	json_close(j);
}

/*
 * @p's items of flag @want (SKIPPED, UNCHANGED; text: both, @want 0) as text
 * lines onto @f or (@j) elements of the array open
 */
static int items(struct perftune_profile *p, unsigned want, FILE *f, struct json *j)
{
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *e;
	int r = perftune_profile_items(p, &it);

	if (r < 0)
		return r;
	while ((e = perftune_profile_item_iter_next(it))) {
		if (!j)
			item_text(f, e);
		else if (perftune_profile_item_flags(e) & want)
			item_json(j, e);
	}
	perftune_profile_item_iter_free(it);
	return 0;
}

static void warning_text(FILE *f, const struct perftune_source *s)
{
	const char *v = perftune_source_value(s);

	fprintf(f, "warning: %s: %s %s ", perftune_source_key(s), perftune_source_kind(s),
		perftune_source_location(s));
	if (v)
		fprintf(f, "puts back %s", v);
	else
		fputs("sets it again", f);
	fprintf(f, " (%s)\n", perftune_source_note(s));
}

/* a warning's members in JSON, in this order */
static const struct {
	const char *name;
	const char *(*get)(const struct perftune_source *s);
} warning_members[] = {
	{ "key", perftune_source_key },		  { "kind", perftune_source_kind },
	{ "location", perftune_source_location }, { "value", perftune_source_value },
	{ "note", perftune_source_note },
};

static void warning_json(struct json *j, const struct perftune_source *s)
{
	json_open(j, '{', 0);
	for (size_t i = 0; i < ARRAY_SIZE(warning_members); i++)
		json_kv(j, warning_members[i].name, warning_members[i].get(s));
	json_close(j);
}

/*
 * One warning per key written (each staged key of a dry run) that a persistent
 * source will put back, a text line onto @f or (@j) an element of the array
 * open.  Advisory: if the sources cannot be read (out of memory) there are none.
 */
static void warnings_of(struct perftune_tx *tx, FILE *f, struct json *j)
{
	struct perftune_source_iter *it = NULL;
	const struct perftune_source *s;
	unsigned flags = 0;

	if (dry_run(tx))
		flags = PERFTUNE_CONFLICTS_STAGED;
	if (perftune_tx_conflicts(pt_tx_ctx(tx), tx, flags, &it) < 0)
		return;
	while ((s = perftune_source_iter_next(it))) {
		if (j)
			warning_json(j, s);
		else
			warning_text(f, s);
	}
	perftune_source_iter_free(it);
}

/* "name": [ elements on rows of their own ] as a member of @j on a line of its own */
static void array_open(struct json *j, const char *name)
{
	json_break(j, 2);
	json_key(j, name);
	json_open(j, '[', 4);
}

static int report_json(struct perftune_tx *tx, struct perftune_profile *p, FILE *f)
{
	struct json j = JSON_INIT(f);
	int r;

	json_open(&j, '{', 0);
	if (p) {
		json_kv(&j, "profile", perftune_profile_name(p));
		json_kv(&j, "path", perftune_profile_path(p));
	}
	json_kv(&j, "transaction", perftune_tx_name(tx));
	json_kb(&j, "dry_run", dry_run(tx));
	array_open(&j, "changes");
	r = changes(tx, NULL, &j);
	json_close(&j);
	if (p && r >= 0) {
		array_open(&j, "skipped");
		r = items(p, PERFTUNE_PROFILE_ITEM_SKIPPED, NULL, &j);
		json_close(&j);
	}
	if (p && r >= 0) {
		array_open(&j, "kept");
		r = items(p, PERFTUNE_PROFILE_ITEM_UNCHANGED, NULL, &j);
		json_close(&j);
	}
	array_open(&j, "warnings");
	if (r >= 0)
		warnings_of(tx, NULL, &j);
	json_close(&j);
	json_break(&j, 0);
	json_close(&j);
	return r;
}

static int report_text(struct perftune_tx *tx, struct perftune_profile *p, FILE *f, char **warnings)
{
	struct pt_report w;
	int r = changes(tx, f, NULL);

	if (r >= 0 && p)
		r = items(p, 0, f, NULL);
	if (r < 0 || !warnings)
		return r;
	r = pt_report_open(&w);
	if (r < 0)
		return r;
	warnings_of(tx, w.f, NULL);
	r = pt_report_end(&w, warnings);
	if (r >= 0 && !**warnings) { /* none */
		free(*warnings);
		*warnings = NULL;
	}
	return r;
}

static int tx_report_impl(struct perftune_tx *tx, struct perftune_profile *p, unsigned flags,
			  char **text, char **warnings)
{
	struct pt_report rep;
	char *body;
	int r;

	if (text)
		*text = NULL;
	if (warnings)
		*warnings = NULL;
	if (!tx || !text || (flags & ~PERFTUNE_REPORT_JSON))
		return -EINVAL;
	r = pt_report_open(&rep);
	if (r < 0)
		return r;
	if (flags & PERFTUNE_REPORT_JSON)
		r = report_json(tx, p, rep.f);
	else
		r = report_text(tx, p, rep.f, warnings);
	if (pt_report_end(&rep, &body) < 0 && r >= 0)
		r = -ENOMEM;
	if (r >= 0) {
		*text = body;
		return 0;
	}
	free(body);
	if (warnings) {
		free(*warnings);
		*warnings = NULL;
	}
	return r;
}

PERFTUNE_EXPORT int perftune_tx_report(struct perftune_tx *tx, struct perftune_profile *p,
				       unsigned flags, char **text, char **warnings)
{
	return pt_api_ret(tx_report_impl(tx, p, flags, text, warnings));
}
