// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_profile_list_report(): the profiles on the search path as perftune
 * list-profiles prints them (perftune(8)): a line per profile with its
 * summary (or why it cannot be read) and its variables, or a JSON array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "shared/json.h"
#include "shared/report.h"

/* "a b" (the library's space-separated names) as the member "@key": ["a", "b"]; [] for NULL */
static void names_json(struct json *j, const char *key, const char *names)
{
	char *dup = NULL, *save = NULL;

	if (names)
		dup = strdup(names); /* out of memory: [] */
	json_key(j, key);
	json_open(j, '[', 0);
	if (dup)
		for (char *n = strtok_r(dup, " ", &save); n; n = strtok_r(NULL, " ", &save))
			json_str(j, n);
	json_close(j);
	free(dup);
}

static void entry_json(struct json *j, const struct perftune_profile_entry *e)
{
	json_open(j, '{', 0);
	json_kv(j, "name", perftune_profile_entry_name(e));
	json_kv(j, "summary", perftune_profile_entry_summary(e));
	json_kv(j, "path", perftune_profile_entry_path(e));
	json_kv(j, "error", perftune_profile_entry_error(e));
	names_json(j, "variables", perftune_profile_entry_variables(e));
	names_json(j, "unset", perftune_profile_entry_unset_variables(e));
	json_close(j);
}

static void entry_text(FILE *f, const struct perftune_profile_entry *e)
{
	const char *about = perftune_profile_entry_summary(e),
		   *vars = perftune_profile_entry_variables(e),
		   *unset = perftune_profile_entry_unset_variables(e);

	if (!about)
		about = perftune_profile_entry_error(e);
	if (!about)
		about = "";
	fprintf(f, "%-28s %s", perftune_profile_entry_name(e), about);
	pt_report_if(f, " (variables: ", vars, "");
	pt_report_if(f, "; unset: ", unset, "");
	if (vars)
		fputc(')', f);
	fputc('\n', f);
}

static int profile_list_report_impl(struct perftune_ctx *ctx, unsigned flags, char **text)
{
	struct perftune_profile_entry_iter *it;
	const struct perftune_profile_entry *e;
	struct pt_report rep;
	struct json j;
	int r;

	if (!ctx || !text || (flags & ~PERFTUNE_REPORT_JSON))
		return -EINVAL;
	*text = NULL;
	r = perftune_profile_list(ctx, &it);
	if (r < 0)
		return r;
	r = pt_report_open(&rep);
	if (r < 0) {
		perftune_profile_entry_iter_free(it);
		return r;
	}
	j = (struct json)JSON_INIT(rep.f);
	if (flags & PERFTUNE_REPORT_JSON)
		json_open(&j, '[', 2);
	while ((e = perftune_profile_entry_iter_next(it))) {
		if (flags & PERFTUNE_REPORT_JSON)
			entry_json(&j, e);
		else
			entry_text(rep.f, e);
	}
	if (flags & PERFTUNE_REPORT_JSON)
		json_close(&j);
	perftune_profile_entry_iter_free(it);
	return pt_report_end(&rep, text);
}

PERFTUNE_EXPORT int perftune_profile_list_report(struct perftune_ctx *ctx, unsigned flags,
						 char **text)
{
	return pt_api_ret(profile_list_report_impl(ctx, flags, text));
}
