// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune export */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define MAX_VARS 64

struct export_opts {
	const char *format, *output, *vars[MAX_VARS + 1];
	int nvars;
	bool profile, transaction;
	enum perftune_export_format fmt;
};

static int parse_export(int argc, char **argv, struct export_opts *e)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "profile", no_argument, NULL, 'P' },
		{ "transaction", no_argument, NULL, 'T' },
		{ "var", required_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char optstr[] = "f:o:v:h";
	int o;

	cmd_getopt_reset();
	while ((o = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			e->format = optarg;
			break;
		case 'o':
			e->output = optarg;
			break;
		case 'P':
			e->profile = true;
			break;
		case 'T':
			e->transaction = true;
			break;
		case 'v':
			if (e->nvars == MAX_VARS || !strchr(optarg, '='))
				return usage_error(&cmd_export, "-v takes VAR=VALUE");
			e->vars[e->nvars++] = optarg;
			break;
		case 'h':
			print_cmd_help(&cmd_export, stdout);
			exit(0);
		default:
			return bad_option(&cmd_export, argv, optstr);
		}
	}
	if (optind != argc - 1)
		return usage_error(&cmd_export, "export takes one NAME or PROFILE");
	if (!e->format || perftune_export_format_from_name(e->format, &e->fmt) < 0)
		return usage_error(&cmd_export, "--format must be sysctl, udev, cmdline or tuned");
	if (e->profile && e->transaction)
		return usage_error(&cmd_export, "give --profile or --transaction, not both");
	return 0;
}

static int run_export(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct export_opts e = { 0 };
	struct perftune_profile *p = NULL;
	char *text = NULL;
	const char *what;
	int r;

	if ((r = parse_export(argc, argv, &e)) != 0)
		return r;
	what = argv[optind];
	/* a journaled transaction of that name first, else a profile */
	r = e.profile || strchr(what, '/') ? -ENOENT
					   : perftune_export_transaction(ctx, what, e.fmt, &text);
	if (r == -ENOENT && !e.transaction) {
		r = perftune_profile_load(ctx, what, e.vars, &p);
		if (r >= 0)
			r = perftune_export_profile(p, e.fmt, &text);
		perftune_profile_free(p);
	}
	if (r < 0)
		return lib_error(ctx, r, what);
	r = write_output(e.output, text);
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
