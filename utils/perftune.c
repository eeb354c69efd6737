// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune: get, set and restore Linux kernel tunables safely. */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include "common.h"

static const struct cmd *const cmds[] = {
	&cmd_list,   &cmd_get,	 &cmd_describe,	     &cmd_set,	  &cmd_restore,
	&cmd_status, &cmd_apply, &cmd_list_profiles, &cmd_export, &cmd_exec,
	&cmd_verify, &cmd_why,	 &cmd_compare,	     &cmd_run,
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
		   "  -V, --version      print the version (with -v: the path resolver in use)\n"
		   "These come before COMMAND. A command's options may come before or after\n"
		   "its operands, '--' ending them (exec's end at CMD); after COMMAND, -v is\n"
		   "the command's --var VAR=VALUE (apply, export, verify, compare).\n\n"
		   "Exit status: 0 ok, 1 failed (and rolled back), 2 usage error (also a\n"
		   "malformed or mistyped key: 'did you mean KEY?').\n"
		   "Keys: block.<dev>.scheduler, thp.enabled, sysctl.vm.dirty_ratio, ... "
		   "see perftune(8).\n");
}

/*
 * The build tree's perftune finds the profiles it ships before they are
 * installed: meson writes the source tree's profiles/ directory into
 * "perftune.uninstalled" beside the build tree's binary, a file never
 * installed, so an installed perftune keeps the default path.  It goes first
 * on the search path; $PERFTUNE_PROFILE_PATH, when set, wins.  (Whoever can
 * write the binary's directory can replace the binary itself.)
 */
static void uninstalled_profile_path(void)
{
	char exe[PATH_MAX], dir[PATH_MAX] = "", path[2 * PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	size_t len;
	FILE *f;

	if (getenv("PERFTUNE_PROFILE_PATH") || n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash || (size_t)(slash - exe) + sizeof("/perftune.uninstalled") > sizeof(exe))
		return;
	strcpy(slash, "/perftune.uninstalled");
	f = fopen(exe, "re");
	if (!f)
		return;
	while (fgets(dir, sizeof(dir), f) && dir[0] == '#') /* the SPDX line */
		;
	if ((len = strcspn(dir, "\n")) > 1 && dir[0] == '/') {
		dir[len] = '\0';
		snprintf(path, sizeof(path), "%s:%s", dir, perftune_profile_default_path());
		setenv("PERFTUNE_PROFILE_PATH", path, 1);
	}
	fclose(f);
}

static void log_stderr(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	const char *what = "";

	(void)ctx;
	(void)ud;
	if (prio <= PERFTUNE_LOG_ERR)
		what = "error: ";
	else if (prio == PERFTUNE_LOG_WARNING)
		what = "warning: ";
	fprintf(stderr, "%s: %s%s\n", program, what, msg);
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
	int o, verbose = 0, version = 0, r, level = LOG_NOTICE;
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
	uninstalled_profile_path();
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
		if (verbose)
			level = LOG_INFO;
		if (verbose > 1)
			level = LOG_DEBUG;
		perftune_ctx_set_log_fn(ctx, log_stderr, level, NULL);
		r = cmds[i]->run(ctx, argc - optind, argv + optind);
		perftune_ctx_unref(ctx);
		return r;
	}
	return usage_error(NULL, "unknown command '%s' (see %s --help)", argv[optind], program);
}
