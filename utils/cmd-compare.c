// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune compare: does a change help this machine's workload?  Options,
 * validation (all before anything is changed) and the report.  The experiment
 * and its statistics are the library's (perftune_experiment_*), its measure
 * (CMD forked per run) compare-run.c, the plot compare-plot.c. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compare.h"

static int parse_uint(const char *opt, const char *s, unsigned min, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v > 100000 || v < min || *s == '-')
		return usage_error(&cmd_compare, "%s '%s': give a number from %u to 100000", opt, s,
				   min);
	*out = (unsigned)v;
	return 0;
}

static int parse_opts(struct compare *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "metric", required_argument, NULL, 'm' },
		{ "higher-is-better", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'P' },
		{ "var", required_argument, NULL, 'v' },
		{ "profile", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'N' },
		{ "log", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "order", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned seed;
	int o, r = 0;

	/* "-": options and KEY=VALUE operands in any order before "--" (as GNU
	 * tools take them, whatever POSIXLY_CORRECT says), each operand returned
	 * as 1 in its place; optind 0 makes glibc read that "-" (with 1 it keeps
	 * the ordering of the global options' parse) */
	optind = 0;
	while (r == 0 && (o = getopt_long(argc, argv, "-n:v:h", opts, NULL)) != -1) {
		switch (o) {
		case 1:
			c->keys[c->nkeys++] = optarg;
			break;
		case 'n':
			r = parse_uint("--rounds", optarg, 3, &c->rounds);
			break;
		case 'w':
			r = parse_uint("--warmup", optarg, 0, &c->warmup);
			break;
		case 'm':
			c->metric = optarg;
			break;
		case 'H':
			c->higher = true;
			break;
		case 'j':
			c->json = true;
			break;
		case 'P':
			c->plot = optarg;
			break;
		case 'p':
			c->profile = optarg;
			break;
		case 'N':
			c->name = optarg;
			break;
		case 'l':
			c->log = optarg;
			break;
		case 's':
			r = parse_uint("--seed", optarg, 0, &seed);
			c->seed = seed;
			break;
		case 'o':
			if (strcmp(optarg, "abba") && strcmp(optarg, "random"))
				return usage_error(&cmd_compare, "--order takes abba or random");
			c->random_order = !strcmp(optarg, "random");
			break;
		case 'v':
			if (c->nvars == COMPARE_MAX_VARS || !strchr(optarg, '='))
				return usage_error(&cmd_compare, "-v takes VAR=VALUE (at most %d)",
						   COMPARE_MAX_VARS);
			c->vars[c->nvars++] = optarg;
			break;
		case 'h':
			print_cmd_help(&cmd_compare, stdout);
			exit(0);
		default:
			return usage_error(&cmd_compare, "bad option");
		}
	}
	return r;
}

/* a file to write, refused before anything runs: "--log FILE: it is a FIFO: ..." */
static int path_error(const char *opt, const char *path, const char *why)
{
	fprintf(stderr, "%s: %s %s: %s; nothing was changed\n", program, opt, path, why);
	return EXIT_FAIL;
}

/* everything that can be checked without running anything */
static int check_args(struct compare *c, int argc, char **argv, int dd)
{
	char err[256];
	size_t len;
	int r;

	if (dd < 0)
		return usage_error(&cmd_compare, "compare needs '--' before CMD");
	if (dd + 1 >= argc || !*argv[dd + 1])
		return usage_error(&cmd_compare, "compare needs a CMD after '--'");
	c->cmd = argv + dd + 1;
	if (!c->profile == !c->nkeys)
		return usage_error(&cmd_compare, "give either --profile P or KEY=VALUE..., not %s",
				   c->profile ? "both" : "neither");
	if (c->nvars && !c->profile)
		return usage_error(&cmd_compare, "-v VAR=VALUE needs --profile");
	for (int i = 0; i < c->nkeys; i++)
		if (!setting_eq(c->keys[i]) || c->keys[i][0] == '=')
			return usage_error(&cmd_compare, "'%s' is not KEY=VALUE", c->keys[i]);
	if (c->metric) {
		r = regcomp(&c->re, c->metric, REG_EXTENDED | REG_NEWLINE);
		if (r) {
			regerror(r, &c->re, err, sizeof(err));
			return usage_error(&cmd_compare, "--metric '%s': %s", c->metric, err);
		}
		c->have_re = true;
		if (c->re.re_nsub != 1)
			return usage_error(
				&cmd_compare,
				"--metric '%s' has %zu capture groups: it needs exactly one, "
				"around the number, e.g. 'time: ([0-9.]+)'",
				c->metric, c->re.re_nsub);
	}
	if (c->plot) {
		len = strlen(c->plot);
		if (len < 5 ||
		    (strcmp(c->plot + len - 4, ".svg") && strcmp(c->plot + len - 4, ".png")))
			return usage_error(&cmd_compare,
					   "--plot '%s': the file name must end in .svg or .png",
					   c->plot);
		r = compare_find_gnuplot(c, err, sizeof(err));
		if (r == -ENOENT)
			return usage_error(&cmd_compare,
					   "--plot needs gnuplot: apt-get install gnuplot-nox (or "
					   "dnf install gnuplot)%s",
					   err);
		if (r < 0)
			return usage_error(&cmd_compare, "--plot: %s", err);
	}
	if (out_file_check(c->log, err, sizeof(err)) < 0)
		return path_error("--log", c->log, err);
	if (c->plot && out_file_check(c->plot, err, sizeof(err)) < 0)
		return path_error("--plot", c->plot, err);
	c->exe = find_program(c->cmd[0], NULL);
	if (!c->exe)
		return usage_error(&cmd_compare, "CMD '%s': %s", c->cmd[0],
				   strchr(c->cmd[0], '/') ? "no such executable file"
							  : "command not found in PATH");
	return 0;
}

/* the experiment, the profile loaded: 0, or -errno (the library's message) */
static int setup(struct compare *c)
{
	int r = perftune_experiment_new(c->ctx, c->txname, &c->exp);

	if (r >= 0 && c->profile) {
		r = perftune_profile_load(c->ctx, c->profile, c->vars, &c->prof);
		if (r >= 0)
			r = perftune_experiment_set_profile(c->exp, c->prof);
	}
	for (int i = 0; r >= 0 && i < c->nkeys; i++) {
		char *eq = setting_eq(c->keys[i]);
		*eq = '\0'; /* KEY=VALUE split in place: the key is printed no more */
		r = perftune_experiment_set(c->exp, c->keys[i], eq + 1);
		*eq = '=';
	}
	if (r >= 0)
		r = perftune_experiment_set_rounds(c->exp, c->rounds);
	if (r >= 0)
		r = perftune_experiment_set_warmup(c->exp, c->warmup);
	if (r >= 0)
		r = perftune_experiment_set_seed(c->exp, c->seed);
	if (r >= 0 && c->random_order)
		r = perftune_experiment_set_order(c->exp, PERFTUNE_ORDER_RANDOM);
	if (r >= 0)
		r = perftune_experiment_set_higher_is_better(c->exp, c->higher);
	return r;
}

/* validate the change as a dry run, exactly as apply/set do, and show it */
static int check_change(struct compare *c, bool *noop)
{
	struct perftune_tx *tx = NULL;
	struct perftune_change_iter *it;
	const struct perftune_change *e;
	int r = setup(c);

	if (r >= 0)
		r = perftune_experiment_check(c->exp, &tx);
	if (r < 0) {
		lib_error(c->ctx, r, c->profile ? c->profile : "change");
		fprintf(stderr, "%s: nothing was changed\n", program);
		return EXIT_FAIL;
	}
	*noop = true;
	if (!c->json)
		printf("change (transaction '%s', applied for each tuned run only):\n", c->txname);
	if (perftune_tx_changes(tx, &it) >= 0) {
		while ((e = perftune_change_iter_next(it))) {
			const char *old = perftune_change_old_value(e);
			if (!(perftune_change_flags(e) & PERFTUNE_CHANGE_UNCHANGED))
				*noop = false;
			if (!c->json)
				printf("  %s: %s -> %s\n", perftune_change_key(e), old ? old : "?",
				       perftune_change_new_value(e));
		}
		perftune_change_iter_free(it);
	}
	perftune_tx_unref(tx);
	return 0;
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fputs("null", f);
}

static double sample_field(const struct run_sample *r, int k)
{
	switch (k) {
	case 0:
		return r->value;
	case 1:
		return r->wall;
	case 2:
		return r->user;
	default:
		return r->sys;
	}
}

static void json_state(struct compare *c, enum perftune_state s)
{
	static const char *const arr[] = { "samples", "wall_s", "user_s", "sys_s" };
	struct perftune_experiment *e = c->exp;
	const struct {
		const char *name;
		double v;
	} f[] = { { "median", perftune_experiment_median(e, s) },
		  { "q1", perftune_experiment_q1(e, s) },
		  { "q3", perftune_experiment_q3(e, s) },
		  { "iqr", perftune_experiment_iqr(e, s) },
		  { "mean", perftune_experiment_mean(e, s) },
		  { "cv", perftune_experiment_cv(e, s) } };

	printf("  \"%s\": {\"n\": %zu", perftune_state_name(s), c->n[s]);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		printf(", \"%s\": ", f[i].name);
		json_num(stdout, f[i].v);
	}
	for (int k = 0; k < 4; k++) {
		printf(",\n    \"%s\": [", arr[k]);
		for (size_t i = 0; i < c->n[s]; i++) {
			if (i)
				fputs(", ", stdout);
			json_num(stdout, sample_field(&c->s[s][i], k));
		}
		putchar(']');
	}
	fputs("},\n", stdout);
}

static void report_json(struct compare *c)
{
	struct perftune_experiment *e = c->exp;
	bool f = true;

	fputs("{", stdout);
	json_kv(stdout, &f, "metric", c->metric ? c->metric : "wall_time");
	json_kv(stdout, &f, "unit", c->metric ? NULL : "s");
	json_kb(stdout, &f, "higher_is_better", c->higher);
	json_ki(stdout, &f, "rounds", c->rounds);
	json_ki(stdout, &f, "warmup", c->warmup);
	json_kv(stdout, &f, "order", c->random_order ? "random" : "ABBA");
	json_ki(stdout, &f, "seed", (long long)c->seed);
	json_kv(stdout, &f, "transaction", c->txname);
	json_kv(stdout, &f, "log", c->log);
	json_kv(stdout, &f, "plot", c->plot);
	fputs(",\n", stdout);
	json_state(c, PERFTUNE_BASELINE);
	json_state(c, PERFTUNE_TUNED);
	fputs("  \"change_pct\": ", stdout);
	json_num(stdout, perftune_experiment_change_pct(e));
	fputs(", \"ci95\": [", stdout);
	json_num(stdout, perftune_experiment_ci95_low(e));
	fputs(", ", stdout);
	json_num(stdout, perftune_experiment_ci95_high(e));
	fputs("], \"u\": ", stdout);
	json_num(stdout, perftune_experiment_u(e));
	fputs(", \"p_value\": ", stdout);
	json_num(stdout, perftune_experiment_p_value(e));
	printf(", \"p_method\": \"%s\", \"alpha\": %g,\n  \"verdict\": \"%s\"}\n",
	       perftune_experiment_p_exact(e) ? "exact" : "asymptotic", PERFTUNE_EXPERIMENT_ALPHA,
	       perftune_verdict_name(perftune_experiment_verdict(e)));
}

/* the median of the user (@k 2) or system (3) seconds of @s's runs */
static double cpu_median(struct compare *c, enum perftune_state s, int k)
{
	double *v = malloc(c->n[s] * sizeof(double)), m = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < c->n[s]; i++)
		v[i] = sample_field(&c->s[s][i], k);
	perftune_median(v, c->n[s], &m);
	free(v);
	return m;
}

static void report_text(struct compare *c)
{
	struct perftune_experiment *e = c->exp;
	const char *unit = c->metric ? "" : " s";
	enum perftune_verdict verdict = perftune_experiment_verdict(e);
	double change = perftune_experiment_change_pct(e), p = perftune_experiment_p_value(e);

	printf("%u rounds, %s order, %u warmup run%s of each; CMD's output in %s\n", c->rounds,
	       c->random_order ? "random" : "ABBA", c->warmup, c->warmup == 1 ? "" : "s", c->log);
	if (c->metric)
		printf("metric: last match of '%s' in CMD's stdout, %s is better\n\n", c->metric,
		       c->higher ? "higher" : "lower");
	else
		printf("metric: wall time in seconds, lower is better\n\n");
	printf("%-9s %4s %12s %12s %7s %10s %10s\n", "state", "n", "median", "IQR", "CV", "user s",
	       "sys s");
	for (int s = 0; s < 2; s++)
		printf("%-9s %4zu %10.6g%-2s %10.6g%-2s %6.1f%% %10.4g %10.4g\n",
		       perftune_state_name(s), c->n[s], perftune_experiment_median(e, s), unit,
		       perftune_experiment_iqr(e, s), unit, 100 * perftune_experiment_cv(e, s),
		       cpu_median(c, s, 2), cpu_median(c, s, 3));
	printf("\nchange of the median: %+.1f%% (95%% CI %+.1f%% .. %+.1f%%; bootstrap, %d "
	       "resamples, seed %llu)\n",
	       change, perftune_experiment_ci95_low(e), perftune_experiment_ci95_high(e),
	       PERFTUNE_EXPERIMENT_RESAMPLES, (unsigned long long)c->seed);
	printf("Mann-Whitney U = %g, two-sided p = %.2g (%s)\n", perftune_experiment_u(e), p,
	       perftune_experiment_p_exact(e) ? "exact" : "normal approximation, tie-corrected");
	if (verdict == PERFTUNE_NO_DIFFERENCE)
		printf("verdict: no difference: at p < %.2g with a CI excluding 0, this experiment "
		       "shows no change\n",
		       PERFTUNE_EXPERIMENT_ALPHA);
	else
		printf("verdict: %s: the tuned median is %.1f%% %s (p = %.2g, the CI excludes 0)\n",
		       perftune_verdict_name(verdict), fabs(change),
		       change > 0 ? "higher" : "lower", p);
}

/* the log is a new file renamed over the path at once (an out_file: never a
 * link, a FIFO or another user's file followed or opened), written from then on */
static int open_log(struct compare *c)
{
	struct out_file o;
	char why[256];
	int r = out_file_open(&o, c->log, out_file_mode(), why, sizeof(why));

	if (r >= 0)
		r = out_file_commit(&o, why, sizeof(why));
	if (r >= 0 && fcntl(o.fd, F_SETFL, O_APPEND) < 0) {
		r = -errno;
		snprintf(why, sizeof(why), "%s", strerror(errno));
	}
	if (r >= 0) {
		c->logfd = o.fd;
		o.fd = -1;
	}
	out_file_close(&o);
	return r < 0 ? path_error("--log", c->log, why) : 0;
}

static int run_compare(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct compare c = { .rounds = 10,
			     .warmup = 1,
			     .seed = 1,
			     .ctx = ctx,
			     .logfd = -1,
			     .sigfd = -1,
			     .log = "perftune-compare.log" };
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
	if (ret)
		goto out;
	snprintf(c.txname, sizeof(c.txname), "%s", c.name ? c.name : "compare");
	if (!c.name)
		snprintf(c.txname, sizeof(c.txname), "compare-%d", (int)getpid());
	if ((ret = check_change(&c, &noop)) || (ret = open_log(&c)))
		goto out;
	if (noop)
		fprintf(stderr,
			"%s: note: every key is already at its value: this is an A/A "
			"comparison\n",
			program);
	c.progress = isatty(STDERR_FILENO);
	fflush(stdout);
	if ((ret = compare_run(&c)))
		goto out;
	if (c.json)
		report_json(&c);
	else
		report_text(&c);
	if (c.plot) {
		fflush(stdout);
		ret = compare_plot(&c);
		if (!ret && !c.json)
			printf("plot: %s\n", c.plot);
	}
out:
	if (c.have_re)
		regfree(&c.re);
	free(c.s[PERFTUNE_BASELINE]);
	free(c.s[PERFTUNE_TUNED]);
	perftune_experiment_free(c.exp);
	if (c.logfd >= 0)
		close(c.logfd);
	if (c.sigfd >= 0)
		close(c.sigfd);
	perftune_profile_free(c.prof);
	free(c.exe);
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
