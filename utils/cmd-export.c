// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune export */
#include <stdlib.h>
#include <string.h>
#include "common.h"

/* -v as the other commands take it, with export's own message, as it always was */
static int export_var(const struct cmd *c, const struct cmd_opt *e, const char *arg)
{
	struct cmd_vars *vars = e->dest;

	if (vars->n == MAX_VARS || !strchr(arg, '='))
		return usage_error(c, "-v takes VAR=VALUE");
	vars->v[vars->n++] = arg;
	return 0;
}

static int run_export(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct cmd_vars vars = { 0 };
	const char *format = NULL, *output = NULL, *what;
	bool profile = false, transaction = false;
	const struct cmd_opt opts[] = {
		OPT("format", 'f', OPT_STR, &format),
		OPT("output", 'o', OPT_STR, &output),
		OPT("profile", 0, OPT_BOOL, &profile),
		OPT("transaction", 0, OPT_BOOL, &transaction),
		{ "var", 'v', OPT_CALL, &vars, 0, export_var },
		{ 0 },
	};
	int i = cmd_parse(&cmd_export, argc, argv, opts, ""), r;
	enum perftune_export_format fmt;
	unsigned named = 0;
	char *text = NULL;

	if (i < 0)
		return EXIT_USAGE;
	if (i != argc - 1)
		return usage_error(&cmd_export, "export takes one NAME or PROFILE");
	if (!format || perftune_export_format_from_name(format, &fmt) < 0)
		return usage_error(&cmd_export, "--format must be sysctl, udev, cmdline or tuned");
	if (profile && transaction)
		return usage_error(&cmd_export, "give --profile or --transaction, not both");
	what = argv[i];
	if (profile)
		named = PERFTUNE_NAMED_PROFILE;
	if (transaction)
		named = PERFTUNE_NAMED_TRANSACTION;
	/* a journaled transaction of that name first, else a profile */
	r = perftune_export_named(ctx, what, vars.v, fmt, named, &text);
	if (r < 0)
		return lib_error(ctx, r, what);
	r = write_output(ctx, output, text);
	free(text);
	return r;
}

const struct cmd cmd_export = {
	"export",
	run_export,
	"export -f|--format sysctl|udev|cmdline|tuned [-o FILE]\n"
	"         [--profile|--transaction] [-v|--var VAR=VALUE]... NAME|PROFILE",
	"Write what a journaled transaction NAME wrote, or what PROFILE maps to, in a\n"
	"format that persists without perftune: a sysctl.d file, udev rules for block\n"
	"queue attributes, a kernel command line fragment (huge pages, THP), or a\n"
	"TuneD profile. NAME is looked up as a transaction first, then as a profile.\n"
	"Keys the format cannot carry are listed in comments (cmdline: on stderr);\n"
	"options this machine skips are kept as '# skipped here:' comments.\n"
	"  -f, --format F       sysctl, udev, cmdline or tuned (required)\n"
	"  -o, --output FILE    write FILE (replaced atomically) instead of stdout\n"
	"  --profile            PROFILE is a profile even if a transaction has its name\n"
	"  --transaction        NAME must be a journaled transaction\n"
	"  -v, --var VAR=VALUE  set the profile's variable VAR to VALUE; repeatable.\n"
	"                       Not --verbose, which goes before the command\n"
	"  -h, --help           this help",
};
