// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune: get, set and restore Linux kernel tunables safely. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "common.h"

static const struct cmd *const cmds[] = {
	&cmd_list,   &cmd_get,	 &cmd_describe,	     &cmd_set,	  &cmd_restore,
	&cmd_status, &cmd_apply, &cmd_list_profiles, &cmd_export, &cmd_exec,
	&cmd_compare,
};

static void help(FILE *f)
{
	fprintf(f,
		"Usage: %s [--root DIR] [--journal-dir DIR] [-v] COMMAND [ARGS]\n\n"
		"Get, set and restore Linux kernel tunables safely: all-or-nothing changes,\n"
		"originals journaled before every write, every write read back.\n\n"
		"Commands:\n",
		program);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %s\n", cmds[i]->usage);
	fprintf(f, "\nOptions:\n"
		   "  --root DIR         read and write kernel files below DIR (tests)\n"
		   "  --journal-dir DIR  keep journals in DIR (default /run/perftune,\n"
		   "                     or $PERFTUNE_JOURNAL_DIR)\n"
		   "  -v, --verbose      log what is written\n"
		   "  -h, --help         this help;  COMMAND --help for a command's\n"
		   "  -V, --version      print the version (with -v: the path resolver in use)\n\n"
		   "Exit status: 0 ok, 1 failed (and rolled back), 2 usage error.\n"
		   "Keys: block.<dev>.scheduler, thp.enabled, sysctl.vm.dirty_ratio, ... "
		   "see perftune(8).\n");
}

static void log_stderr(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	(void)ctx;
	(void)ud;
	fprintf(stderr, "%s: %s%s\n", program,
		prio <= PERFTUNE_LOG_ERR       ? "error: "
		: prio == PERFTUNE_LOG_WARNING ? "warning: "
					       : "",
		msg);
}

/* --version; with --verbose, how this machine's kernel files are reached */
static int print_version(const char *root, int verbose)
{
	struct perftune_ctx *ctx;
	int r;

	printf("perftune %s\n", perftune_version());
	if (!verbose)
		return 0;
	r = perftune_ctx_new(&ctx);
	if (r < 0)
		return lib_error(NULL, r, "cannot create context");
	if (root && (r = perftune_ctx_set_root(ctx, root)) < 0)
		return lib_error(ctx, r, "--root");
	printf("root: %s\nresolver: %s\n", perftune_ctx_get_root(ctx),
	       perftune_ctx_get_resolver(ctx));
	perftune_ctx_unref(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "journal-dir", required_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *root = getenv("PERFTUNE_ROOT"), *jdir = NULL;
	int o, verbose = 0, version = 0, r;
	struct perftune_ctx *ctx;

	while ((o = getopt_long(argc, argv, "+vhV", opts, NULL)) != -1) {
		switch (o) {
		case 'r':
			root = optarg;
			break;
		case 'J':
			jdir = optarg;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			help(stdout);
			return 0;
		case 'V':
			version = 1;
			break;
		default:
			help(stderr);
			return EXIT_USAGE;
		}
	}
	if (version)
		return print_version(root, verbose);
	if (optind >= argc) {
		help(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[optind], cmds[i]->name))
			continue;
		r = perftune_ctx_new(&ctx);
		if (r < 0)
			return lib_error(NULL, r, "cannot create context");
		if (root && (r = perftune_ctx_set_root(ctx, root)) < 0)
			return lib_error(ctx, r, "--root");
		if (jdir && (r = perftune_ctx_set_journal_dir(ctx, jdir)) < 0)
			return usage_error(NULL, "--journal-dir must be an absolute path");
		perftune_ctx_set_log_fn(ctx, log_stderr,
					verbose > 1 ? LOG_DEBUG
					: verbose   ? LOG_INFO
						    : LOG_NOTICE,
					NULL);
		r = cmds[i]->run(ctx, argc - optind, argv + optind);
		perftune_ctx_unref(ctx);
		return r;
	}
	return usage_error(NULL, "unknown command '%s' (see %s --help)", argv[optind], program);
}
