// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune run: a change held while one command runs (power-profiles-daemon's launch). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"
#include "spawn.h"

/* CMD's program, found before anything changes: NULL with the reason and the
 * status a shell gives (127 not found, 126 not executable) in @status */
static char *find_cmd(const char *name, int *status)
{
	char *exe = find_program(name, NULL);
	struct stat st;

	if (exe)
		return exe;
	*status = 127;
	if (!strchr(name, '/')) {
		fprintf(stderr, "%s: run: %s: command not found on PATH\n", program, name);
	} else if (stat(name, &st) < 0) {
		fprintf(stderr, "%s: run: %s: %s\n", program, name, strerror(errno));
	} else {
		*status = 126;
		fprintf(stderr, "%s: run: %s: not an executable file\n", program, name);
	}
	fprintf(stderr, "%s: nothing was changed\n", program);
	return NULL;
}

/* the change, PROFILE or KEY=VALUE..., staged into a new HOLD transaction in @tx */
static int stage(struct perftune_ctx *ctx, char **ops, int n, const char *name,
		 struct cmd_vars *vars, struct perftune_tx **tx)
{
	struct perftune_profile *p = NULL;
	const char *value;
	char *key = NULL;
	/* a PROFILE has no '=' (but for one in a key's brackets) */
	bool profile = perftune_setting_split(ctx, ops[0], &key, &value) < 0 && ops[0][0] != '=';
	int r;

	free(key);
	if (profile && n > 1)
		return usage_error(&cmd_run, "run takes one PROFILE or KEY=VALUE settings");
	if (!profile && vars->n)
		return usage_error(&cmd_run, "-v VAR=VALUE is for a profile");
	for (int k = 0; k < n && !profile; k++) {
		if (perftune_setting_split(ctx, ops[k], &key, &value) < 0)
			return usage_error(&cmd_run, "%s", perftune_ctx_last_error(ctx));
		free(key);
	}
	if (profile && (r = perftune_profile_load(ctx, ops[0], vars->v, &p)) < 0)
		goto fail;
	r = perftune_tx_new(ctx, name, PERFTUNE_TX_HOLD, tx);
	if (r == -EINVAL) {
		perftune_profile_free(p);
		return usage_error(&cmd_run, "%s", perftune_ctx_last_error(ctx));
	}
	if (r >= 0 && profile)
		r = perftune_profile_stage(p, *tx, PERFTUNE_PROFILE_HOLD);
	for (int k = 0; r >= 0 && k < n && !profile; k++) {
		r = perftune_setting_split(ctx, ops[k], &key, &value);
		if (r >= 0)
			r = perftune_tx_set(*tx, key, value);
		free(key);
	}
	perftune_profile_free(p);
	if (r >= 0)
		return 0;
fail:
	lib_error(ctx, r, ops[0]);
	fprintf(stderr, "%s: nothing was changed\n", program);
	return EXIT_FAIL;
}

/* CMD's status as a shell gives it: its exit status, or 128 + the signal that killed it */
static int shell_status(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int run_run(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct child_run cr = { .outfd = 1, .errfd = 2, .sigfd = -1, .forward = true };
	struct cmd_vars vars = { 0 };
	struct perftune_tx *tx = NULL;
	const char *name = NULL;
	char defname[32];
	int dash = 1, i, r, ret = 127;
	const struct cmd_opt opts[] = {
		OPT("name", 'n', OPT_STR, &name),
		OPT("var", 'v', OPT_VAR, &vars),
		{ 0 },
	};

	/* ours end at "--": what follows is CMD's, its options too */
	while (dash < argc && strcmp(argv[dash], "--"))
		dash++;
	i = cmd_parse(&cmd_run, dash, argv, opts, "");
	if (i < 0)
		return EXIT_USAGE;
	if (dash >= argc - 1)
		return usage_error(&cmd_run, "run needs '--' and a command after it");
	if (i >= dash)
		return usage_error(&cmd_run, "run needs a PROFILE or KEY=VALUE before '--'");
	snprintf(defname, sizeof(defname), "run-%d", getpid());
	cr.argv = argv + dash + 1;
	cr.exe = find_cmd(cr.argv[0], &ret);
	if (!cr.exe)
		return ret;
	ret = stage(ctx, argv + i, dash - i, or_str(name, defname), &vars, &tx);
	if (!ret && (r = signals_to_fd(&cr)) < 0) /* one during the commit is taken after it */
		ret = lib_error(ctx, r, "signalfd");
	if (!ret && (r = perftune_tx_commit(tx)) < 0)
		ret = lib_error(ctx, r, "commit");
	if (ret)
		goto out;
	if (take_signals(&cr, 0)) /* before CMD started: it does not */
		ret = 128 + cr.sig;
	else if ((r = child_run(&cr)) < 0)
		ret = lib_error(NULL, r, "fork");
	else
		ret = shell_status(cr.status);
	r = perftune_tx_rollback(tx);
	if (r < 0) {
		lib_error(ctx, r, "rollback");
		fprintf(stderr, "%s: the journal is kept: perftune restore %s\n", program,
			perftune_tx_name(tx));
		if (!ret)
			ret = EXIT_FAIL;
	}
out:
	/* the signals stay blocked: one after the rollback must not change CMD's status */
	if (cr.sigfd >= 0)
		close(cr.sigfd);
	perftune_tx_unref(tx);
	free((char *)cr.exe);
	return ret;
}

const struct cmd cmd_run = {
	"run",
	run_run,
	"run [-n|--name NAME] [-v|--var VAR=VALUE]... PROFILE|KEY=VALUE...\n"
	"         -- CMD [ARG]...",
	"Hold a change (a profile, or KEY=VALUE settings) while CMD runs, PM QoS\n"
	"included, and give it back when CMD ends or is killed. CMD is checked before\n"
	"anything changes, and runs with perftune's own privileges, its stdin and its\n"
	"process group. SIGINT, SIGTERM and SIGHUP sent to perftune are passed on to\n"
	"CMD; if perftune is killed (kill -9), so is CMD, and 'perftune restore\n"
	"--orphans' gives the change back. Runs nest: each holds its own transaction.\n"
	"Exit status: CMD's (128+N if signal N killed it); 126/127 CMD not executable\n"
	"or not found; 1 or 2 as the other commands when nothing was run.\n"
	"  -n, --name NAME      transaction name (default run-PID)\n"
	"  -v, --var VAR=VALUE  set the profile's variable VAR; repeatable\n"
	"  -h, --help           this help",
};
