// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune list | get | describe */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

/* list's options: --json, --writable, --help; index of the first operand, or -1
 * after the usage error */
static int parse_list(int argc, char **argv, bool *json, bool *writable)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "writable", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char optstr[] = "jwh";
	int o;

	cmd_getopt_reset();
	while ((o = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			*json = true;
			break;
		case 'w':
			*writable = true;
			break;
		case 'h':
			print_cmd_help(&cmd_list, stdout);
			exit(0);
		default:
			bad_option(&cmd_list, argv, optstr);
			return -1;
		}
	}
	return optind;
}

static int run_list(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	bool json = false, writable = false, first = true;
	int i = parse_list(argc, argv, &json, &writable), r;

	if (i < 0)
		return EXIT_USAGE;
	if (argc - i > 1)
		return usage_error(&cmd_list, "list takes at most one PREFIX");
	r = perftune_list(ctx, i < argc ? argv[i] : NULL, &it);
	if (r < 0)
		return key_error(&cmd_list, ctx, r, i < argc ? argv[i] : "list");
	if (json)
		fputs("[", stdout);
	while ((e = perftune_tunable_iter_next(it))) {
		const char *v = perftune_tunable_value(e);
		bool ro = perftune_tunable_flags(e) & PERFTUNE_TUNABLE_READONLY;
		if (writable && ro)
			continue;
		if (json) {
			bool f = true;
			printf("%s\n  {", first ? "" : ",");
			json_kv(stdout, &f, "key", perftune_tunable_key(e));
			json_kv(stdout, &f, "value", v);
			json_kb(stdout, &f, "read_only", ro);
			if (perftune_tunable_note(e))
				json_kv(stdout, &f, "note", perftune_tunable_note(e));
			fputs("}", stdout);
		} else {
			printf("%s = %s%s\n", perftune_tunable_key(e), v ? v : "(unreadable)",
			       ro ? " (read-only)" : "");
		}
		first = false;
	}
	if (json)
		puts(first ? "]" : "\n]");
	perftune_tunable_iter_free(it);
	return 0;
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
static void print_value(const char *key, const char *value, bool alone, bool json, bool *first)
{
	if (json)
		json_kv(stdout, first, key, value);
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
static int get_key(struct perftune_ctx *ctx, const char *key, bool alone, bool json, bool *first)
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
		if (!x && !nread)
			fprintf(stderr, "%s: %s\n", program, why);
		else if (!x)
			fprintf(stderr, "%s: %s: %s\n", program,
				perftune_tunable_flags(v[i]) & PERFTUNE_TUNABLE_ABSENT
					? "not here"
					: "cannot read",
				why);
		else if (!common)
			print_value(perftune_tunable_key(v[i]), x, false, json, first);
		if (!x && !common && nread && json)
			json_kv(stdout, first, perftune_tunable_key(v[i]), NULL);
	}
	if (common)
		print_value(key, common, alone, json, first);
	if (!nread)
		ret = EXIT_FAIL;
	free(v);
	perftune_tunable_iter_free(it);
	return ret;
}

static int run_get(struct perftune_ctx *ctx, int argc, char **argv)
{
	bool json = false, first = true;
	int i = parse_simple(&cmd_get, argc, argv, &json), ret = 0;

	if (i < 0)
		return EXIT_USAGE;
	if (i >= argc)
		return usage_error(&cmd_get, "get needs at least one KEY");
	if (json)
		fputs("{", stdout);
	for (int k = i; k < argc; k++) { /* a usage error (2) over a failure (1) */
		int r = get_key(ctx, argv[k], argc - i == 1, json, &first);
		if (r > ret)
			ret = r;
	}
	if (json)
		puts("}");
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
	bool json = false, first = true;
	long long min, max;
	int i = parse_simple(&cmd_describe, argc, argv, &json), r;
	bool range;

	if (i < 0)
		return EXIT_USAGE;
	if (argc - i != 1)
		return usage_error(&cmd_describe, "describe takes one KEY");
	r = perftune_describe(ctx, argv[i], &d);
	if (r < 0)
		return key_error(&cmd_describe, ctx, r, argv[i]);
	range = perftune_desc_range(d, &min, &max);
	if (json) {
		fputs("{", stdout);
		json_kv(stdout, &first, "key", perftune_desc_key(d));
		json_kv(stdout, &first, "value", perftune_desc_value(d));
		json_kv(stdout, &first, "unreadable", perftune_desc_unreadable(d));
		json_kv(stdout, &first, "path", perftune_desc_path(d));
		json_kv(stdout, &first, "choices", perftune_desc_choices(d));
		if (range) {
			json_ki(stdout, &first, "min", min);
			json_ki(stdout, &first, "max", max);
		}
		json_kv(stdout, &first, "unit", perftune_desc_unit(d));
		json_kb(stdout, &first, "writable", perftune_desc_writable(d));
		json_kv(stdout, &first, "reason", perftune_desc_reason(d));
		json_kv(stdout, &first, "info", perftune_desc_info(d));
		puts("}");
	} else {
		printf("key:      %s\n", perftune_desc_key(d));
		if (perftune_desc_value(d))
			printf("value:    %s%s%s\n", perftune_desc_value(d),
			       perftune_desc_unit(d) ? " " : "",
			       perftune_desc_unit(d) ? perftune_desc_unit(d) : "");
		else
			printf("value:    (unreadable: %s)\n",
			       perftune_desc_unreadable(d) ? perftune_desc_unreadable(d) : "?");
		if (perftune_desc_path(d))
			printf("file:     %s\n", perftune_desc_path(d));
		if (perftune_desc_choices(d))
			printf("choices:  %s\n", perftune_desc_choices(d));
		if (range)
			printf("range:    %lld..%lld\n", min, max);
		printf("writable: %s%s%s\n", perftune_desc_writable(d) ? "yes" : "no",
		       perftune_desc_reason(d) ? " - " : "",
		       perftune_desc_reason(d) ? perftune_desc_reason(d) : "");
		if (perftune_desc_info(d))
			printf("info:     %s\n", perftune_desc_info(d));
	}
	perftune_desc_free(d);
	return 0;
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
