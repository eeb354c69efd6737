// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune verify | why */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

/* ---- why ---- */

static int run_why(struct perftune_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	int i = parse_simple(&cmd_why, argc, argv, &json), r;
	char *text = NULL;

	if (i < 0)
		return EXIT_USAGE;
	if (argc - i != 1)
		return usage_error(&cmd_why, "why takes one KEY");
	r = perftune_why_report(ctx, argv[i], report_flags(json), &text);
	if (r < 0)
		return key_error(&cmd_why, ctx, r, argv[i]);
	return print_report(text);
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

/* verify's report in @format, written to @output (prometheus) or stdout: the number of
 * settings not in force (the exit status is 1 if one is not), or -EXIT_FAIL */
static int verify_print(struct perftune_ctx *ctx, struct perftune_check_iter *it, const char *what,
			int format, const char *output)
{
	char *text = NULL;
	int r;

	if (format == FORMAT_PROMETHEUS)
		r = perftune_verify_metrics(it, what, &text);
	else
		r = perftune_verify_report(it, what, report_flags(format == FORMAT_JSON), &text);
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
		r = perftune_verify_named(ctx, argv[i], vars.v, 0, &it);
	}
	if (r == -ENOENT && !settings)
		return usage_error(&cmd_verify, "no transaction or profile '%s': %s", argv[i],
				   perftune_ctx_last_error(ctx));
	if (r == -EINVAL)
		return usage_error(&cmd_verify, "%s", perftune_ctx_last_error(ctx));
	if (r < 0)
		return lib_error(ctx, r, argv[i]);
	r = verify_print(ctx, it, what, format, output);
	perftune_check_iter_free(it);
	if (r < 0) /* a failure of verify_print */
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
