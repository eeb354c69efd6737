// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune verify | why */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

/* ---- why ---- */

static void why_source(const char *key, const struct perftune_source *s, int n)
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

	printf("  %d. %-11s %s", n, perftune_source_kind(s), perftune_source_location(s));
	print_if(": ", perftune_source_value(s), "");
	if (strcmp(perftune_source_key(s), key))
		printf(" (%s)", perftune_source_key(s));
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (perftune_source_flags(s) & marks[i].flag)
			fputs(marks[i].mark, stdout);
	putchar('\n');
	print_if("     ", perftune_source_note(s), "\n");
}

static void why_text(const char *key, const char *value, struct perftune_source_iter *it)
{
	const struct perftune_source *s;
	char boot[512] = "";
	int n = 0;

	printf("%s = %s\n", key, or_str(value, "(cannot be read)"));
	while ((s = perftune_source_iter_next(it))) {
		unsigned fl = perftune_source_flags(s);
		const char *v = perftune_source_value(s);
		why_source(key, s, ++n);
		if ((fl & PERFTUNE_SOURCE_PERSISTENT) && v && !(fl & PERFTUNE_SOURCE_OVERRIDDEN))
			snprintf(boot, sizeof(boot), "%s (%s %s)", v, perftune_source_kind(s),
				 perftune_source_location(s));
	}
	if (!n)
		printf("  nothing else on this machine sets it\n");
	else if (boot[0]) /* the last persistent source to act: what a reboot brings back */
		printf("after a reboot: %s\n", boot);
}

static void why_json(const char *key, const char *value, struct perftune_source_iter *it)
{
	const struct perftune_source *s;
	struct json j = JSON_INIT(stdout);

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

static int run_why(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct perftune_source_iter *it;
	bool json = false;
	int i = parse_simple(&cmd_why, argc, argv, &json), r;
	char *value = NULL;

	if (i < 0)
		return EXIT_USAGE;
	if (argc - i != 1)
		return usage_error(&cmd_why, "why takes one KEY");
	r = perftune_why(ctx, argv[i], NULL, &it);
	if (r < 0)
		return key_error(&cmd_why, ctx, r, argv[i]);
	if (perftune_get(ctx, argv[i], &value) < 0)
		value = NULL;
	if (json)
		why_json(argv[i], value, it);
	else
		why_text(argv[i], value, it);
	free(value);
	perftune_source_iter_free(it);
	return 0;
}

const struct cmd cmd_why = {
	"why",
	run_why,
	"why [--json] KEY",
	"Print the value of KEY now and every source on this machine that sets it, in\n"
	"the order they take effect: the kernel command line, sysctl.d (which file and\n"
	"line wins), udev rules for the device, TuneD's active profile and includes,\n"
	"daemons that set it again (tuned, power-profiles-daemon), perftune's own\n"
	"transactions. Files are read below --root.\n"
	"  -j, --json  print the sources as JSON (see perftune(8))\n"
	"  -h, --help  this help",
};

/* ---- verify ---- */

static void verify_text(struct perftune_check_iter *it, int *counts)
{
	const struct perftune_check *c;

	while ((c = perftune_check_iter_next(it))) {
		int st = perftune_check_status(c);
		counts[st]++;
		printf("%-12s %s", perftune_check_status_name(st), perftune_check_key(c));
		print_if(" = ", perftune_check_expected(c), "");
		print_if(" (", perftune_check_reason(c), ")");
		putchar('\n');
	}
	printf("%d in force, %d differ, %d clamped, %d not here, %d need a reboot, %d skipped\n",
	       counts[PERFTUNE_CHECK_IN_FORCE], counts[PERFTUNE_CHECK_DIFFERS],
	       counts[PERFTUNE_CHECK_CLAMPED], counts[PERFTUNE_CHECK_NOT_HERE],
	       counts[PERFTUNE_CHECK_NEEDS_REBOOT], counts[PERFTUNE_CHECK_SKIPPED]);
}

static void verify_json(const char *what, struct perftune_check_iter *it, int *counts, int bad)
{
	const struct perftune_check *c;
	struct json j = JSON_INIT(stdout);

	json_open(&j, '{', 0);
	json_kv(&j, "verified", what);
	json_kb(&j, "in_force", bad == 0);
	json_key(&j, "settings");
	json_open(&j, '[', 2);
	while ((c = perftune_check_iter_next(it))) {
		int st = perftune_check_status(c);
		counts[st]++;
		json_open(&j, '{', 0);
		json_kv(&j, "key", perftune_check_key(c));
		json_kv(&j, "status", perftune_check_status_name(st));
		json_kv(&j, "expected", perftune_check_expected(c));
		json_kv(&j, "current", perftune_check_current(c));
		json_kv(&j, "reason", perftune_check_reason(c));
		json_kv(&j, "origin", perftune_check_origin(c));
		json_close(&j);
	}
	json_close(&j);
	json_key(&j, "counts");
	json_open(&j, '{', 0);
	for (int s = PERFTUNE_CHECK_IN_FORCE; s <= PERFTUNE_CHECK_SKIPPED; s++)
		json_ki(&j, perftune_check_status_name(s), counts[s]);
	json_close(&j);
	json_close(&j);
}

/* a transaction of that name, else a profile; -ENOENT for neither */
static int verify_named(struct perftune_ctx *ctx, const char *name, const char *const *vars,
			struct perftune_check_iter **it)
{
	struct perftune_profile *p = NULL;
	int r = -ENOENT;

	if (!strchr(name, '/'))
		r = perftune_verify_transaction(ctx, name, it);
	if (r != -ENOENT)
		return r;
	r = perftune_profile_load(ctx, name, vars, &p);
	if (r >= 0)
		r = perftune_verify_profile(p, it);
	perftune_profile_free(p);
	return r;
}

/* verify --format prometheus: 1 if a setting is not in force, as the other formats */
static int verify_prometheus(struct perftune_ctx *ctx, struct perftune_check_iter *it,
			     const char *what, const char *output)
{
	char *text = NULL;
	int r = perftune_verify_metrics(it, what, &text);

	if (r < 0)
		return -lib_error(ctx, r, what);
	if (write_output(ctx, output, text))
		r = -EXIT_FAIL;
	free(text);
	return r;
}

static int run_verify(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct cmd_vars vars = { 0 };
	const char *output = NULL, *what;
	int format = FORMAT_TEXT;
	const struct cmd_opt opts[] = {
		{ "json", 0, OPT_CALL0, &format, 0, opt_format },
		OPT("var", 'v', OPT_VAR, &vars),
		{ "format", 0, OPT_CALL, &format, 0, opt_format },
		OPT("output", 'o', OPT_STR, &output),
		{ 0 },
	};
	struct perftune_check_iter *it = NULL;
	int i = cmd_parse(&cmd_verify, argc, argv, opts, ""), r, settings = 0;
	int counts[PERFTUNE_CHECK_SKIPPED + 1] = { 0 };

	if (i < 0)
		return EXIT_USAGE;
	if (output && format != FORMAT_PROMETHEUS)
		return usage_error(&cmd_verify, "-o FILE needs --format prometheus");
	if (i >= argc)
		return usage_error(&cmd_verify, "verify needs a PROFILE, a NAME or KEY=VALUE...");
	for (int k = i; k < argc; k++)
		settings += strchr(argv[k], '=') != NULL;
	if ((settings && settings != argc - i) || (!settings && argc - i > 1))
		return usage_error(&cmd_verify, "verify takes one PROFILE or NAME, or KEY=VALUE...");
	what = argv[i];
	if (settings) {
		what = "settings";
		r = perftune_verify(ctx, (const char *const *)argv + i, &it);
	} else {
		r = verify_named(ctx, argv[i], vars.v, &it);
	}
	if (r == -ENOENT && !settings)
		return usage_error(&cmd_verify, "no transaction or profile '%s': %s", argv[i],
				   perftune_ctx_last_error(ctx));
	if (r == -EINVAL)
		return usage_error(&cmd_verify, "%s", perftune_ctx_last_error(ctx));
	if (r < 0)
		return lib_error(ctx, r, argv[i]);
	if (format == FORMAT_PROMETHEUS)
		r = verify_prometheus(ctx, it, what, output);
	else if (format == FORMAT_JSON)
		verify_json(what, it, counts, r);
	else
		verify_text(it, counts);
	perftune_check_iter_free(it);
	if (r < 0) /* a failure of verify_prometheus */
		return -r;
	if (r)
		return EXIT_FAIL;
	return 0;
}

const struct cmd cmd_verify = {
	"verify",
	run_verify,
	"verify [--json|--format text|json|prometheus] [-o FILE]\n"
	"         [-v|--var VAR=VALUE]... (PROFILE | NAME | KEY=VALUE...)",
	"Check whether settings are in force: a profile's, those a transaction NAME\n"
	"wrote (a transaction is looked up before a profile), or KEY=VALUE given. Each\n"
	"setting is 'in force', 'differs' (now X, expected Y, and the source that set\n"
	"X), 'clamped' (the kernel holds less than asked), 'not here' (the machine\n"
	"lacks it), 'needs reboot' (boot loader cmdline not on /proc/cmdline) or\n"
	"'skipped' (by policy). Exit 0 if every applicable setting is in force, 1 if\n"
	"not, 2 on usage errors: also a malformed or mistyped key (never 'not here').\n"
	"  --json               print the result as JSON (see perftune(8))\n"
	"  --format prometheus  metrics for node_exporter's textfile collector\n"
	"  -o, --output FILE    write FILE (replaced atomically) instead of stdout;\n"
	"                       prometheus only\n"
	"  -v, --var VAR=VALUE  set the profile's variable VAR to VALUE; repeatable.\n"
	"                       Not --verbose, which goes before the command\n"
	"  -h, --help           this help",
};
