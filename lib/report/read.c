// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_desc_report() and perftune_list_report(): a tunable described and
 * the tunables listed, as perftune describe and perftune list print them
 * (perftune(8)), text or JSON.
 */
#include <errno.h>
#include <stdbool.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "shared/json.h"
#include "shared/report.h"

static void desc_json(struct perftune_desc *d, FILE *f)
{
	struct json j = JSON_INIT(f);
	long long min, max;

	json_open(&j, '{', 0);
	json_kv(&j, "key", perftune_desc_key(d));
	json_kv(&j, "value", perftune_desc_value(d));
	json_kv(&j, "unreadable", perftune_desc_unreadable(d));
	json_kv(&j, "path", perftune_desc_path(d));
	json_kv(&j, "choices", perftune_desc_choices(d));
	if (perftune_desc_range(d, &min, &max)) {
		json_ki(&j, "min", min);
		json_ki(&j, "max", max);
	}
	json_kv(&j, "unit", perftune_desc_unit(d));
	json_kb(&j, "writable", perftune_desc_writable(d));
	json_kv(&j, "reason", perftune_desc_reason(d));
	json_kv(&j, "info", perftune_desc_info(d));
	json_close(&j);
}

static void desc_text(struct perftune_desc *d, FILE *f)
{
	const char *unreadable = perftune_desc_unreadable(d), *writable = "no";
	long long min, max;

	fprintf(f, "key:      %s\n", perftune_desc_key(d));
	if (perftune_desc_value(d)) {
		fprintf(f, "value:    %s", perftune_desc_value(d));
		pt_report_if(f, " ", perftune_desc_unit(d), "");
		fputc('\n', f);
	} else {
		if (!unreadable)
			unreadable = "?";
		fprintf(f, "value:    (unreadable: %s)\n", unreadable);
	}
	pt_report_if(f, "file:     ", perftune_desc_path(d), "\n");
	pt_report_if(f, "choices:  ", perftune_desc_choices(d), "\n");
	if (perftune_desc_range(d, &min, &max))
		fprintf(f, "range:    %lld..%lld\n", min, max);
	if (perftune_desc_writable(d))
		writable = "yes";
	fprintf(f, "writable: %s", writable);
	pt_report_if(f, " - ", perftune_desc_reason(d), "");
	fputc('\n', f);
	pt_report_if(f, "info:     ", perftune_desc_info(d), "\n");
}

static int desc_report_impl(struct perftune_desc *d, unsigned flags, char **text)
{
	struct pt_report rep;
	int r;

	if (!d || !text || (flags & ~PERFTUNE_REPORT_JSON))
		return -EINVAL;
	*text = NULL;
	r = pt_report_open(&rep);
	if (r < 0)
		return r;
	if (flags & PERFTUNE_REPORT_JSON)
		desc_json(d, rep.f);
	else
		desc_text(d, rep.f);
	return pt_report_end(&rep, text);
}

PERFTUNE_EXPORT int perftune_desc_report(struct perftune_desc *d, unsigned flags, char **text)
{
	return pt_api_ret(desc_report_impl(d, flags, text));
}

/* one tunable of the list: "KEY = VALUE", or with @json an object of the array */
static void list_one(const struct perftune_tunable *t, bool json, struct json *j)
{
	const char *v = perftune_tunable_value(t), *ro = "";
	bool read_only = perftune_tunable_flags(t) & PERFTUNE_TUNABLE_READONLY;

	if (json) {
		json_open(j, '{', 0);
		json_kv(j, "key", perftune_tunable_key(t));
		json_kv(j, "value", v);
		json_kb(j, "read_only", read_only);
		if (perftune_tunable_note(t))
			json_kv(j, "note", perftune_tunable_note(t));
		json_close(j);
		return;
	}
	if (!v)
		v = "(unreadable)";
	if (read_only)
		ro = " (read-only)";
	fprintf(j->f, "%s = %s%s\n", perftune_tunable_key(t), v, ro);
}

static int list_report_impl(struct perftune_ctx *ctx, const char *prefix, unsigned flags,
			    char **text)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	struct pt_report rep;
	struct json j;
	int r;

	if (!ctx || !text || (flags & ~(PERFTUNE_REPORT_JSON | PERFTUNE_REPORT_WRITABLE)))
		return -EINVAL;
	*text = NULL;
	r = perftune_list(ctx, prefix, &it);
	if (r < 0)
		return r;
	r = pt_report_open(&rep);
	if (r < 0) {
		perftune_tunable_iter_free(it);
		return r;
	}
	j = (struct json)JSON_INIT(rep.f);
	if (flags & PERFTUNE_REPORT_JSON)
		json_open(&j, '[', 2);
	while ((t = perftune_tunable_iter_next(it)))
		if (!(flags & PERFTUNE_REPORT_WRITABLE) ||
		    !(perftune_tunable_flags(t) & PERFTUNE_TUNABLE_READONLY))
			list_one(t, flags & PERFTUNE_REPORT_JSON, &j);
	if (flags & PERFTUNE_REPORT_JSON)
		json_close(&j);
	perftune_tunable_iter_free(it);
	return pt_report_end(&rep, text);
}

PERFTUNE_EXPORT int perftune_list_report(struct perftune_ctx *ctx, const char *prefix,
					 unsigned flags, char **text)
{
	return pt_api_ret(list_report_impl(ctx, prefix, flags, text));
}
