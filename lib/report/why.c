// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_why_report(): a key's value now and every source that sets it, as
 * perftune why prints them (perftune(8)): one numbered line per source with
 * its marks and note, and what a reboot brings back; or one JSON object.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "shared/json.h"
#include "shared/report.h"

static void why_source(FILE *f, const char *key, const struct perftune_source *s, int n)
{
	static const struct {
		unsigned flag;
		const char *mark;
	} marks[] = {
		{ PERFTUNE_SOURCE_WINS, "  [wins]" },
		{ PERFTUNE_SOURCE_OVERRIDDEN, "  [overridden]" },
		{ PERFTUNE_SOURCE_DIFFERS, "  [differs from now]" },
		{ PERFTUNE_SOURCE_ERROR, "  [error]" },
	};

	fprintf(f, "  %d. %-11s %s", n, perftune_source_kind(s), perftune_source_location(s));
	pt_report_if(f, ": ", perftune_source_value(s), "");
	if (strcmp(perftune_source_key(s), key))
		fprintf(f, " (%s)", perftune_source_key(s));
	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		if (perftune_source_flags(s) & marks[i].flag)
			fputs(marks[i].mark, f);
	fputc('\n', f);
	pt_report_if(f, "     ", perftune_source_note(s), "\n");
}

static void why_text(FILE *f, const char *key, const char *value, struct perftune_source_iter *it)
{
	const struct perftune_source *s, *boot = NULL;
	int n = 0;

	if (!value)
		value = "(cannot be read)";
	fprintf(f, "%s = %s\n", key, value);
	while ((s = perftune_source_iter_next(it))) {
		unsigned fl = perftune_source_flags(s);
		why_source(f, key, s, ++n);
		if ((fl & PERFTUNE_SOURCE_PERSISTENT) && perftune_source_value(s) &&
		    !(fl & PERFTUNE_SOURCE_OVERRIDDEN))
			boot = s;
	}
	if (!n)
		fputs("  nothing else on this machine sets it\n", f);
	else if (boot) /* the last persistent source to act: what a reboot brings back */
		fprintf(f, "after a reboot: %s (%s %s)\n", perftune_source_value(boot),
			perftune_source_kind(boot), perftune_source_location(boot));
}

static void why_json(FILE *f, const char *key, const char *value, struct perftune_source_iter *it)
{
	const struct perftune_source *s;
	struct json j = JSON_INIT(f);

	json_open(&j, '{', 0);
	json_kv(&j, "key", key);
	json_kv(&j, "value", value);
	json_key(&j, "sources");
	json_open(&j, '[', 2);
	while ((s = perftune_source_iter_next(it))) {
		unsigned fl = perftune_source_flags(s);
		json_open(&j, '{', 0);
		json_kv(&j, "kind", perftune_source_kind(s));
		json_kv(&j, "key", perftune_source_key(s));
		json_kv(&j, "location", perftune_source_location(s));
		json_kv(&j, "value", perftune_source_value(s));
		json_kv(&j, "note", perftune_source_note(s));
		json_kb(&j, "wins", fl & PERFTUNE_SOURCE_WINS);
		json_kb(&j, "overridden", fl & PERFTUNE_SOURCE_OVERRIDDEN);
		json_kb(&j, "persistent", fl & PERFTUNE_SOURCE_PERSISTENT);
		json_kb(&j, "differs", fl & PERFTUNE_SOURCE_DIFFERS);
		json_kb(&j, "error", fl & PERFTUNE_SOURCE_ERROR);
		json_ki(&j, "pid", perftune_source_pid(s));
		json_close(&j);
	}
	json_close(&j);
	json_close(&j);
}

static int why_report_impl(struct perftune_ctx *ctx, const char *key, unsigned flags, char **text)
{
	struct perftune_source_iter *it;
	struct pt_report rep;
	char *value = NULL;
	int r;

	if (!ctx || !key || !text || (flags & ~PERFTUNE_REPORT_JSON))
		return -EINVAL;
	*text = NULL;
	r = perftune_why(ctx, key, NULL, &it); /* its message, for a key that names nothing */
	if (r < 0)
		return r;
	if (perftune_get(ctx, key, &value) < 0)
		value = NULL; /* shown as such: why a key cannot be read is a question of its own */
	r = pt_report_open(&rep);
	if (r >= 0 && (flags & PERFTUNE_REPORT_JSON))
		why_json(rep.f, key, value, it);
	else if (r >= 0)
		why_text(rep.f, key, value, it);
	if (r >= 0)
		r = pt_report_end(&rep, text);
	free(value);
	perftune_source_iter_free(it);
	return r;
}

PERFTUNE_EXPORT int perftune_why_report(struct perftune_ctx *ctx, const char *key, unsigned flags,
					char **text)
{
	return pt_api_ret(why_report_impl(ctx, key, flags, text));
}
