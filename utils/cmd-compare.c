// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune compare: does a change help this machine's workload?  The experiment
 * (rounds, the change held around each tuned run), its statistics, --metric's
 * number and the plot's script are the library's (lib/experiment/); here: the
 * options, CMD forked once per run (the measure), the signals, the report.
 * SIGINT/SIGTERM/SIGHUP come through a signalfd, end CMD (TERM, then KILL)
 * and abort the experiment, which gives the change back; CMD gets SIGKILL if
 * perftune dies (PDEATHSIG), and the journal covers the change then. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"
#include "spawn.h"

struct compare {
	unsigned rounds, warmup, seed, index;
	bool random_order, higher, json, progress;
	const char *metric, *plot, *log, *profile, *name;
	struct cmd_vars vars;
	int nkeys;
	char **keys, *gnuplot, txname[80], why[300], label[64];
	struct child_run run; /* CMD, its log (stderr), the signals */
	struct perftune_ctx *ctx;
	struct perftune_profile *prof;
	struct perftune_experiment *exp;
	struct perftune_metric *m;
};

/* --rounds, --warmup, --seed: a number from e->bit to 100000 */
static int opt_uint(const struct cmd *c, const struct cmd_opt *e, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || errno || v > 100000 || v < e->bit || *arg == '-')
		return usage_error(c, "--%s '%s': give a number from %u to 100000", e->name, arg,
				   e->bit);
	*(unsigned *)e->dest = (unsigned)v;
	return 0;
}

static int opt_order(const struct cmd *c, const struct cmd_opt *e, const char *arg)
{
	if (strcmp(arg, "abba") && strcmp(arg, "random"))
		return usage_error(c, "--order takes abba or random");
	*(bool *)e->dest = !strcmp(arg, "random");
	return 0;
}

/* a KEY=VALUE operand, in its place among the options */
static int opt_key(const struct cmd *c, const struct cmd_opt *e, const char *arg)
{
	struct compare *cmp = e->dest;

	(void)c;
	cmp->keys[cmp->nkeys++] = (char *)arg;
	return 0;
}

static int parse_opts(struct compare *c, int argc, char **argv)
{
	const struct cmd_opt opts[] = {
		{ "rounds", 'n', OPT_CALL, &c->rounds, 3, opt_uint },
		{ "warmup", 0, OPT_CALL, &c->warmup, 0, opt_uint },
		OPT("metric", 0, OPT_STR, &c->metric),
		OPT("higher-is-better", 0, OPT_BOOL, &c->higher),
		OPT("json", 0, OPT_BOOL, &c->json),
		OPT("plot", 0, OPT_STR, &c->plot),
		OPT("var", 'v', OPT_VAR, &c->vars),
		OPT("profile", 0, OPT_STR, &c->profile),
		OPT("name", 0, OPT_STR, &c->name),
		OPT("log", 0, OPT_STR, &c->log),
		{ "seed", 0, OPT_CALL, &c->seed, 0, opt_uint },
		{ "order", 0, OPT_CALL, &c->random_order, 0, opt_order },
		{ NULL, 1, OPT_CALL, c, 0, opt_key },
		{ 0 },
	};

	/* "-": options and KEY=VALUE operands in any order before "--" */
	if (cmd_parse(&cmd_compare, argc, argv, opts, "-") < 0)
		return EXIT_USAGE;
	return 0;
}

/* a file to write, refused before anything runs: "--log FILE: it is a FIFO: ..." */
static int path_error(struct perftune_ctx *ctx, const char *opt)
{
	fprintf(stderr, "%s: %s %s; nothing was changed\n", program, opt,
		perftune_ctx_last_error(ctx));
	return EXIT_FAIL;
}

/* --metric and --plot, checked before anything runs */
static int check_outputs(struct compare *c)
{
	size_t len = 0;
	char err[256];
	int r;

	if (c->metric && (r = perftune_metric_new(c->ctx, c->metric, &c->m)) < 0)
		return usage_error(&cmd_compare, "--metric %s", perftune_ctx_last_error(c->ctx));
	if (c->plot)
		len = strlen(c->plot);
	if (c->plot &&
	    (len < 5 || (strcmp(c->plot + len - 4, ".svg") && strcmp(c->plot + len - 4, ".png"))))
		return usage_error(&cmd_compare,
				   "--plot '%s': the file name must end in .svg or .png", c->plot);
	r = 0;
	if (c->plot)
		r = find_tool("gnuplot", "PERFTUNE_GNUPLOT", &c->gnuplot, err, sizeof(err));
	if (r == -ENOENT)
		return usage_error(&cmd_compare,
				   "--plot needs gnuplot: apt-get install gnuplot-nox (or dnf "
				   "install gnuplot)%s",
				   err);
	if (r < 0)
		return usage_error(&cmd_compare, "--plot: %s", err);
	if (perftune_output_check(c->ctx, c->log) < 0)
		return path_error(c->ctx, "--log");
	if (c->plot && perftune_output_check(c->ctx, c->plot) < 0)
		return path_error(c->ctx, "--plot");
	return 0;
}

/* everything that can be checked without running anything */
static int check_args(struct compare *c, int argc, char **argv, int dd)
{
	int r;

	if (dd < 0)
		return usage_error(&cmd_compare, "compare needs '--' before CMD");
	if (dd + 1 >= argc || !*argv[dd + 1])
		return usage_error(&cmd_compare, "compare needs a CMD after '--'");
	c->run.argv = argv + dd + 1;
	if (c->profile && c->nkeys)
		return usage_error(&cmd_compare,
				   "give either --profile P or KEY=VALUE..., not both");
	if (!c->profile && !c->nkeys)
		return usage_error(&cmd_compare,
				   "give either --profile P or KEY=VALUE..., not neither");
	if (c->vars.n && !c->profile)
		return usage_error(&cmd_compare, "-v VAR=VALUE needs --profile");
	for (int i = 0; i < c->nkeys; i++) {
		const char *value;
		char *key;
		if (perftune_setting_split(c->ctx, c->keys[i], &key, &value) < 0)
			return usage_error(&cmd_compare, "%s", perftune_ctx_last_error(c->ctx));
		free(key);
	}
	r = check_outputs(c);
	if (r)
		return r;
	c->run.exe = find_program(c->run.argv[0], NULL);
	if (!c->run.exe && strchr(c->run.argv[0], '/'))
		return usage_error(&cmd_compare, "CMD '%s': no such executable file",
				   c->run.argv[0]);
	if (!c->run.exe)
		return usage_error(&cmd_compare, "CMD '%s': command not found in PATH",
				   c->run.argv[0]);
	return 0;
}

/* the experiment, the profile loaded, the change validated as a dry run (as
 * apply and set do) and shown: 0, or EXIT_FAIL; @noop: it changes nothing */
static int check_change(struct compare *c, bool *noop)
{
	struct perftune_tx *tx = NULL;
	struct perftune_change_iter *it;
	const struct perftune_change *e;
	int r = perftune_experiment_new(c->ctx, c->txname, &c->exp);

	if (r >= 0 && c->profile)
		r = perftune_profile_load(c->ctx, c->profile, c->vars.v, &c->prof);
	if (r >= 0 && c->profile)
		r = perftune_experiment_set_profile(c->exp, c->prof);
	for (int i = 0; r >= 0 && i < c->nkeys; i++) {
		const char *value;
		char *key;
		r = perftune_setting_split(c->ctx, c->keys[i], &key, &value);
		if (r >= 0)
			r = perftune_experiment_set(c->exp, key, value);
		free(key);
	}
	if (r >= 0 && c->random_order)
		r = perftune_experiment_set_order(c->exp, PERFTUNE_ORDER_RANDOM);
	if (r >= 0)
		r = perftune_experiment_set_rounds(c->exp, c->rounds);
	if (r >= 0)
		r = perftune_experiment_set_warmup(c->exp, c->warmup);
	if (r >= 0)
		r = perftune_experiment_set_seed(c->exp, c->seed);
	if (r >= 0)
		r = perftune_experiment_set_higher_is_better(c->exp, c->higher);
	if (r >= 0)
		r = perftune_experiment_check(c->exp, &tx);
	if (r < 0) {
		lib_error(c->ctx, r, or_str(c->profile, "change"));
		fprintf(stderr, "%s: nothing was changed\n", program);
		return EXIT_FAIL;
	}
	*noop = true;
	if (!c->json)
		printf("change (transaction '%s', applied for each tuned run only):\n", c->txname);
	if (perftune_tx_changes(tx, &it) >= 0) {
		while ((e = perftune_change_iter_next(it))) {
			if (!(perftune_change_flags(e) & PERFTUNE_CHANGE_UNCHANGED))
				*noop = false;
			if (!c->json)
				printf("  %s: %s -> %s\n", perftune_change_key(e),
				       or_str(perftune_change_old_value(e), "?"),
				       perftune_change_new_value(e));
		}
		perftune_change_iter_free(it);
	}
	perftune_tx_unref(tx);
	return 0;
}

static void progress(struct compare *c, const struct perftune_run *run)
{
	double eta = perftune_run_eta(run);
	char what[64], when[32] = "ETA ...";
	long s;

	if (!c->progress)
		return;
	if (perftune_run_round(run))
		snprintf(what, sizeof(what), "round %u/%u", perftune_run_round(run), c->rounds);
	else
		snprintf(what, sizeof(what), "warmup %u/%u", perftune_run_warmup(run), c->warmup);
	if (!isnan(eta)) {
		s = lround(eta);
		snprintf(when, sizeof(when), "ETA %ld:%02ld", s / 60, s % 60);
	}
	fprintf(stderr, "\r\033[K%s, %s", what, when);
}

/* CMD's stdout (a memfd) appended to the log and read for the metric: 0 with
 * the number in @v, or -1 with the reason in @why */
static int read_metric(struct compare *c, int fd, double *v, char *why, size_t size)
{
	int r;

	/* from the start: CMD's writes moved the offset we share */
	if (lseek(fd, 0, SEEK_SET) < 0)
		r = -errno;
	else
		r = perftune_metric_feed_fd(c->m, fd, c->run.errfd);
	if (r > 0)
		fprintf(stderr, "%s: warning: cannot write the log %s: %s\n", program, c->log,
			strerror(r));
	if (r < 0) {
		snprintf(why, size, "cannot read CMD's output: %s", strerror(-r));
		return -1;
	}
	r = perftune_metric_end(c->m, v);
	if (r < 0)
		snprintf(why, size, "--metric %s%s", perftune_ctx_last_error(c->ctx),
			 r == -EINVAL ? "" : " in CMD's output");
	return r;
}

/* CMD once, in the state the library has set up: the experiment's measure */
static int measure(struct perftune_run *run, void *ud, double *value)
{
	struct compare *c = ud;
	int status, r;
	char why[200];

	snprintf(c->label, sizeof(c->label), "%s", perftune_run_label(run));
	c->index = perftune_run_index(run);
	progress(c, run);
	if (take_signals(&c->run, 0)) {
		perftune_experiment_abort(c->exp);
		return -EINTR;
	}
	dprintf(c->run.errfd, "=== %s ===\n", c->label);
	c->run.outfd = c->run.errfd;
	if (c->m)
		c->run.outfd = memfd_create("perftune-compare-stdout", MFD_CLOEXEC);
	if (c->run.outfd < 0) {
		snprintf(c->why, sizeof(c->why), "memfd_create: %s", strerror(errno));
		return -EIO;
	}
	r = child_run(&c->run);
	if (r < 0)
		snprintf(c->why, sizeof(c->why), "fork: %s", strerror(-r));
	*value = c->run.wall;
	status = c->run.status;
	if (r == 0 && c->m && !c->run.sig) /* into the log whatever CMD's exit */
		r = read_metric(c, c->run.outfd, value, why, sizeof(why));
	if (c->m)
		close(c->run.outfd);
	if (c->run.sig) {
		perftune_experiment_abort(c->exp);
		return -EIO;
	}
	if (c->why[0])
		return -EIO;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(c->why, sizeof(c->why), "CMD failed in %s: exit status %d", c->label,
			 WEXITSTATUS(status));
	else if (!WIFEXITED(status))
		snprintf(c->why, sizeof(c->why), "CMD failed in %s: killed by signal %d", c->label,
			 WTERMSIG(status));
	else if (r < 0)
		snprintf(c->why, sizeof(c->why), "%s of %s", why, c->label);
	if (c->why[0])
		return -EIO;
	return perftune_run_set_times(run, c->run.wall, c->run.user, c->run.sys);
}

/* why the experiment stopped, on stderr; EXIT_FAIL */
static int stop(struct compare *c, int r)
{
	const char *what = "aborted";

	if (c->progress)
		fputs("\r\033[K", stderr);
	if (r != -ECANCELED)
		what = perftune_ctx_last_error(c->ctx);
	if (c->run.sig)
		fprintf(stderr, "%s: interrupted by signal %d in %s; the machine is restored\n",
			program, c->run.sig, c->label);
	else if (!c->why[0]) /* the library's: applying or restoring the change */
		fprintf(stderr, "%s: %s (CMD's output: %s)\n", program, what, c->log);
	else if (c->index == 0 && c->m && strstr(c->why, "--metric"))
		fprintf(stderr, "%s: %s (the first run; see %s); nothing was changed\n", program,
			c->why, c->log);
	else
		fprintf(stderr, "%s: %s; the machine is restored (CMD's output: %s)\n", program,
			c->why, c->log);
	return EXIT_FAIL;
}

/* the library's script, drawn by gnuplot into c->plot: 0 or EXIT_FAIL */
static int plot(struct compare *c)
{
	char title[140] = "perftune compare:", *script = NULL;
	size_t len = strlen(title);
	unsigned flags = 0;
	int r;

	/* CMD as the title says it, cut to 119 characters */
	for (char **a = c->run.argv; *a && len < 18 + 119; a++)
		len += (size_t)snprintf(title + len, 18 + 120 - len, " %s", *a);
	if (len >= 18 + 119)
		strcpy(title + 18 + 116, "...");
	if (!strcmp(c->plot + strlen(c->plot) - 4, ".png"))
		flags = PERFTUNE_PLOT_PNG;
	r = perftune_experiment_plot(c->exp, title, or_str(c->metric, "wall time (s)"), flags,
				     &script);
	if (r < 0)
		return lib_error(c->ctx, r, "--plot");
	r = run_filter(c->ctx, c->gnuplot, script, c->plot, "--plot");
	free(script);
	return r;
}

/* the log is a new file renamed over the path at once (never a link, a FIFO
 * or another user's file followed or opened), CMD's output and ours appended */
static int open_log(struct compare *c)
{
	c->run.errfd = perftune_output_open_log(c->ctx, c->log, output_mode());
	if (c->run.errfd < 0)
		return path_error(c->ctx, "--log");
	return 0;
}

static int experiment(struct compare *c)
{
	char *report = NULL;
	unsigned flags = 0;
	int r = signals_to_fd(&c->run);
	if (r < 0)
		return lib_error(NULL, r, "signalfd");
	r = perftune_experiment_run(c->exp, measure, c);
	if (r < 0)
		return stop(c, r);
	if (c->progress)
		fputs("\r\033[K", stderr);
	sigprocmask(SIG_SETMASK, &c->run.mask, NULL);
	if (c->json)
		flags = PERFTUNE_REPORT_JSON;
	r = perftune_experiment_report(c->exp, flags, c->metric, c->log, c->plot, &report);
	if (r < 0)
		return lib_error(c->ctx, r, "compare");
	fputs(report, stdout);
	free(report);
	fflush(stdout);
	if (c->plot && plot(c))
		return EXIT_FAIL;
	if (c->plot && !c->json)
		printf("plot: %s\n", c->plot);
	return 0;
}

static int run_compare(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct compare c = { .rounds = 10,
			     .warmup = 1,
			     .seed = 1,
			     .ctx = ctx,
			     .log = "perftune-compare.log",
			     .run = { .errfd = -1, .sigfd = -1 } };
	int dd = -1, ret;
	bool noop = false;

	for (int i = 1; i < argc && dd < 0; i++)
		if (!strcmp(argv[i], "--"))
			dd = i;
	c.keys = calloc((size_t)argc, sizeof(*c.keys));
	if (!c.keys)
		return lib_error(NULL, -ENOMEM, "compare");
	ret = parse_opts(&c, dd < 0 ? argc : dd, argv);
	if (!ret)
		ret = check_args(&c, argc, argv, dd);
	snprintf(c.txname, sizeof(c.txname), "compare-%d", (int)getpid());
	if (c.name)
		snprintf(c.txname, sizeof(c.txname), "%s", c.name);
	if (!ret)
		ret = check_change(&c, &noop);
	if (!ret)
		ret = open_log(&c);
	if (!ret && noop)
		fprintf(stderr,
			"%s: note: every key is already at its value: this is an A/A "
			"comparison\n",
			program);
	c.progress = isatty(STDERR_FILENO);
	fflush(stdout);
	if (!ret)
		ret = experiment(&c);
	perftune_experiment_free(c.exp);
	perftune_metric_free(c.m);
	if (c.run.errfd >= 0)
		close(c.run.errfd);
	if (c.run.sigfd >= 0)
		close(c.run.sigfd);
	perftune_profile_free(c.prof);
	free((char *)c.run.exe);
	free(c.gnuplot);
	free(c.keys);
	return ret;
}

const struct cmd cmd_compare = {
	"compare",
	run_compare,
	"compare [--rounds N] [--warmup N] [--metric REGEX] [--higher-is-better] [--json]\n"
	"         [--plot FILE] [-v VAR=VALUE]... (--profile P | KEY=VALUE...) -- CMD [ARG...]",
	"Measure whether a change helps: run CMD N times (default 10) in the machine's\n"
	"state (baseline) and N times with the change (tuned), interleaved ABBA, after\n"
	"--warmup unmeasured runs of each (default 1).  The change is applied as a held\n"
	"transaction just before each tuned run and restored right after it, and on\n"
	"SIGINT/SIGTERM or a failing CMD (exit 1, naming the round); after kill -9,\n"
	"'restore --orphans' gives it back.  Reports per state n, median, IQR, CV, the\n"
	"change of the median with a bootstrap 95% CI, a Mann-Whitney U p-value and a\n"
	"verdict: better, worse or no difference.  Options may come anywhere before\n"
	"'--'.\n"
	"  --rounds N          rounds, each one run per state (at least 3)\n"
	"  --warmup N          unmeasured runs of each state first\n"
	"  --metric REGEX      the measure is the number REGEX's one capture group finds\n"
	"                      in the last line of CMD's stdout it matches (default:\n"
	"                      CMD's wall time)\n"
	"  --higher-is-better  for --metric: a larger number is better\n"
	"  --json              print the result as one JSON object\n"
	"  --plot FILE         draw both distributions, every sample and the CI (.svg, .png;\n"
	"                      needs gnuplot, run with no init file and no environment)\n"
	"  -v, --var VAR=VALUE override a profile variable\n"
	"  --profile P         the change is profile P (else the KEY=VALUE list)\n"
	"  --log FILE          CMD's stdout and stderr (default ./perftune-compare.log);\n"
	"                      like --plot, a new file: a link or a FIFO there is refused\n"
	"  --name NAME         the transaction's name (default compare-PID)\n"
	"  --seed N            seed of the bootstrap and of --order random (default 1)\n"
	"  --order abba|random the order of the two runs in each round (default abba)",
};
