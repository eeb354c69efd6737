// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune list | get | describe */
#include <stdlib.h>
#include <string.h>
#include "common.h"

static int run_list(struct perftune_ctx *ctx, int argc, char **argv)
{
	bool json = false, writable = false;
	const struct cmd_opt opts[] = {
		OPT("json", 'j', OPT_BOOL, &json),
		OPT("writable", 'w', OPT_BOOL, &writable),
		{ 0 },
	};
	int i = cmd_parse(&cmd_list, argc, argv, opts, ""), r;
	unsigned flags = report_flags(json);
	const char *prefix = NULL;
	char *text = NULL;

	if (i < 0)
		return EXIT_USAGE;
	if (argc - i > 1)
		return usage_error(&cmd_list, "list takes at most one PREFIX");
	if (i < argc)
		prefix = argv[i];
	if (writable)
		flags |= PERFTUNE_REPORT_WRITABLE;
	r = perftune_list_report(ctx, prefix, flags, &text);
	if (r < 0)
		return key_error(&cmd_list, ctx, r, or_str(prefix, "list"));
	return print_report(text);
}

const struct cmd cmd_list = {
	"list",
	run_list,
	"list [--json] [--writable] [PREFIX]",
	"List the tunables present on this machine with their values,\n"
	"optionally only those whose key starts with PREFIX (block.sda, sysctl.vm).\n"
	"Read-only sysctls (kernel.ostype) are marked '(read-only)'.\n"
	"  -j, --json      an array of {key, value, read_only, note} (see perftune(8))\n"
	"  -w, --writable  leave the read-only sysctls out\n"
	"  -h, --help      this help",
};

/* @v[0..@n) the tunables of one key: the value all those read have, or NULL if they differ */
static const char *common_value(const struct perftune_tunable *const *v, size_t n)
{
	const char *common = NULL;

	for (size_t i = 0; i < n; i++) {
		const char *x = perftune_tunable_value(v[i]);
		if (x && common && strcmp(x, common))
			return NULL;
		if (x)
			common = x;
	}
	return common;
}

/* "KEY = VALUE" (the value alone for @alone), or a member of get --json's object */
static void print_value(const char *key, const char *value, bool alone, struct json *j)
{
	if (j)
		json_kv(j, key, value);
	else if (alone)
		puts(value);
	else
		printf("%s = %s\n", key, value);
}

/*
 * One KEY of get: the value its tunables share, or each one's where they
 * differ; those that cannot be read said on stderr (JSON: null), an error
 * only when none can be.  0, or EXIT_FAIL.
 */
static int get_key(struct perftune_ctx *ctx, const char *key, bool alone, struct json *j)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t, **v = NULL, **grown;
	const char *common;
	size_t n = 0;
	int nread = perftune_get_each(ctx, key, &it), ret = 0;

	if (nread < 0)
		return key_error(&cmd_get, ctx, nread, key);
	while ((t = perftune_tunable_iter_next(it)) && (grown = realloc(v, (n + 1) * sizeof(*v))))
		(v = grown)[n++] = t;
	common = common_value(v, n);
	for (size_t i = 0; i < n; i++) {
		const char *x = perftune_tunable_value(v[i]), *why = perftune_tunable_note(v[i]);
		const char *cannot = "cannot read";
		if (perftune_tunable_flags(v[i]) & PERFTUNE_TUNABLE_ABSENT)
			cannot = "not here";
		if (!x && !nread)
			fprintf(stderr, "%s: %s\n", program, why);
		else if (!x)
			fprintf(stderr, "%s: %s: %s\n", program, cannot, why);
		else if (!common)
			print_value(perftune_tunable_key(v[i]), x, false, j);
		if (!x && !common && nread && j)
			json_kv(j, perftune_tunable_key(v[i]), NULL);
	}
	if (common)
		print_value(key, common, alone, j);
	if (!nread)
		ret = EXIT_FAIL;
	free(v);
	perftune_tunable_iter_free(it);
	return ret;
}

static int run_get(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct json j = JSON_INIT(stdout), *jp = NULL;
	bool json = false;
	int i = parse_simple(&cmd_get, argc, argv, &json), ret = 0;

	if (i < 0)
		return EXIT_USAGE;
	if (i >= argc)
		return usage_error(&cmd_get, "get needs at least one KEY");
	if (json) {
		jp = &j;
		json_open(jp, '{', 0);
	}
	for (int k = i; k < argc; k++) { /* a usage error (2) over a failure (1) */
		int r = get_key(ctx, argv[k], argc - i == 1, jp);
		if (r > ret)
			ret = r;
	}
	if (json)
		json_close(jp);
	return ret;
}

const struct cmd cmd_get = {
	"get",
	run_get,
	"get [--json] KEY...",
	"Print the current value of each KEY (alone for one key, 'KEY = VALUE' for\n"
	"several). A key that names several tunables prints their common value, or\n"
	"'KEY = VALUE' for each where they differ; one not here (a disk without the\n"
	"attribute) or unreadable is said on stderr and the others are read. Exit 1\n"
	"when none of a key's tunables can be read, 2 for a malformed or mistyped key.\n"
	"  -j, --json  one object: each KEY and its value (each tunable's where\n"
	"              they differ, null where one cannot be read)\n"
	"  -h, --help  this help",
};

static int run_describe(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct perftune_desc *d;
	bool json = false;
	int i = parse_simple(&cmd_describe, argc, argv, &json), r;
	char *text = NULL;

	if (i < 0)
		return EXIT_USAGE;
	if (argc - i != 1)
		return usage_error(&cmd_describe, "describe takes one KEY");
	r = perftune_describe(ctx, argv[i], &d);
	if (r < 0)
		return key_error(&cmd_describe, ctx, r, argv[i]);
	r = perftune_desc_report(d, report_flags(json), &text);
	perftune_desc_free(d);
	if (r < 0)
		return lib_error(ctx, r, argv[i]);
	return print_report(text);
}

const struct cmd cmd_describe = {
	"describe",
	run_describe,
	"describe [--json] KEY",
	"Show a tunable's value, file, allowed choices or range, unit, and whether\n"
	"it can be written (and why not). A file that refuses reads (EIO, a\n"
	"write-only trigger) shows as '(unreadable: REASON)'.\n"
	"  -j, --json  one object: key, value, unreadable, path, choices, min, max,\n"
	"              unit, writable, reason, info (see perftune(8))\n"
	"  -h, --help  this help",
};
