// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The perftune side of the differential tier (tuned-diff.py): a test-only
 * entry point to the profile reader, one case per line of stdin, one line of
 * JSON per case on stdout.
 *
 *   pt-eval expand ROOT   each line: a value in hex; ${...} expanded (no variables)
 *                         -> {"ok": "..."} | {"skip": "why"} | {"err": "message"}
 *   pt-eval load ROOT     each line: "DIR NAME" (hex each); the profile NAME read from
 *                         DIR with its includes and merged, [variables] defined, every
 *                         value expanded -> {"err": ...} | {"main": {...}, "units": [...]}
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/log.h"
#include "profile/profile-internal.h"

static void quiet(struct perftune_ctx *ctx, int priority, const char *msg, void *data)
{
	(void)ctx;
	(void)priority;
	(void)msg;
	(void)data;
}

static void json_str(const char *s)
{
	putchar('"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			printf("\\u%04x", *c);
		else
			putchar(*c); /* UTF-8 passes; invalid bytes are read with errors=surrogateescape */
	}
	putchar('"');
}

static char *unhex(const char *s)
{
	size_t n = strlen(s) / 2;
	char *out = malloc(n + 1);

	for (size_t i = 0; out && i < n; i++) {
		unsigned v;
		sscanf(s + 2 * i, "%2x", &v);
		out[i] = (char)v;
	}
	if (out)
		out[n] = '\0';
	return out;
}

static struct perftune_profile *profile_new(struct perftune_ctx *ctx)
{
	struct perftune_profile *p = calloc(1, sizeof(*p));

	if (!p)
		exit(2);
	p->ctx = perftune_ctx_ref(ctx);
	p->vars = pt_vars_new();
	return p;
}

/* {"ok": v} | {"skip": why} | {"err": message} of one expansion */
static void expand_one(struct perftune_profile *p, const struct pt_popt *o)
{
	_cleanup_free_ char *out = NULL, *why = NULL;
	int r;

	pt_err_clear(p->ctx);
	r = pt_vars_expand(p, o->value, o, &out, &why);
	if (r < 0) {
		printf("{\"err\": ");
		json_str(perftune_ctx_last_error(p->ctx));
	} else if (why) {
		printf("{\"skip\": ");
		json_str(why);
	} else {
		printf("{\"ok\": ");
		json_str(out);
	}
	putchar('}');
}

static void expand_cases(struct perftune_ctx *ctx)
{
	struct perftune_profile *p = profile_new(ctx);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	p->path = strdup("pt-eval"); /* what a value's error names */
	while ((n = getline(&line, &cap, stdin)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		_cleanup_free_ char *v = unhex(line);
		struct pt_popt o = { (char *)"value", v, "case", 1 };
		expand_one(p, &o);
		putchar('\n');
		fflush(stdout);
	}
	free(line);
	perftune_profile_free(p);
}

static void dump_opts(struct perftune_profile *p, const struct pt_popt *o, size_t n, bool expand)
{
	putchar('[');
	for (size_t i = 0; i < n; i++) {
		printf("%s[", i ? ", " : "");
		json_str(o[i].name);
		printf(", ");
		if (expand) {
			expand_one(p, &o[i]);
		} else {
			printf("{\"ok\": ");
			json_str(o[i].value);
			putchar('}');
		}
		putchar(']');
	}
	putchar(']');
}

/* a unit attribute expanded as TuneD's loader expands it (null if absent) */
static void dump_attr(struct perftune_profile *p, const struct pt_punit *u, const char *attr,
		      const char *v)
{
	char an[160];
	struct pt_popt a;

	printf(", \"%s\": ", attr);
	if (!v) {
		printf("null");
		return;
	}
	a = pt_unit_attr(u, attr, v, an, sizeof(an));
	expand_one(p, &a);
}

static void load_case(struct perftune_ctx *ctx, const char *dir, const char *name)
{
	struct perftune_profile *p = profile_new(ctx);
	int r;

	setenv("PERFTUNE_PROFILE_PATH", dir, 1);
	pt_err_clear(ctx);
	r = pt_profile_read(p, name);
	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (!strcmp(p->u[i].name, "variables"))
			r = pt_vars_define(p, &p->u[i]);
	if (r < 0) {
		printf("{\"err\": ");
		json_str(perftune_ctx_last_error(ctx));
		printf("}\n");
		perftune_profile_free(p);
		return;
	}
	printf("{\"main\": ");
	dump_opts(p, p->main, p->nmain, false);
	printf(", \"units\": [");
	for (size_t i = 0, k = 0; i < p->n; i++) {
		struct pt_punit *u = &p->u[i];
		if (!strcmp(u->name, "variables"))
			continue;
		printf("%s{\"name\": ", k++ ? ", " : "");
		json_str(u->name);
		printf(", \"type\": ");
		json_str(u->type);
		printf(", \"enabled\": %s, \"replace\": %s", u->enabled ? "true" : "false",
		       u->replace ? "true" : "false");
		dump_attr(p, u, "devices", u->devices);
		dump_attr(p, u, "cpuinfo_regex", u->cpuinfo_regex);
		dump_attr(p, u, "uname_regex", u->uname_regex);
		printf(", \"options\": ");
		dump_opts(p, u->opt, u->n, true);
		putchar('}');
	}
	printf("]}\n");
	perftune_profile_free(p);
}

static void load_cases(struct perftune_ctx *ctx)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) > 0) {
		char *sp = strchr(line, ' ');
		if (!sp)
			exit(2);
		*sp = '\0';
		sp[strcspn(sp + 1, "\n") + 1] = '\0';
		_cleanup_free_ char *dir = unhex(line), *name = unhex(sp + 1);
		load_case(ctx, dir, name);
		fflush(stdout);
	}
	free(line);
}

int main(int argc, char **argv)
{
	struct perftune_ctx *ctx;

	if (argc != 3 || perftune_ctx_new(&ctx) < 0 || perftune_ctx_set_root(ctx, argv[2]) < 0) {
		fprintf(stderr, "usage: pt-eval expand|load ROOT\n");
		return 2;
	}
	perftune_ctx_set_log_fn(ctx, quiet, PERFTUNE_LOG_ERR, NULL);
	if (!strcmp(argv[1], "expand"))
		expand_cases(ctx);
	else if (!strcmp(argv[1], "load"))
		load_cases(ctx);
	else
		return 2;
	perftune_ctx_unref(ctx);
	return 0;
}
