// SPDX-License-Identifier: LGPL-2.1-or-later
/* Helpers shared by the perftune subcommands: errors, usage, option tables,
 * changes, files.  The JSON emitter is the library's lib/shared/json.c. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include "common.h"

const char *program = "perftune";

void print_cmd_help(const struct cmd *c, FILE *f)
{
	fprintf(f,
		"Usage: %s %s\n\n%s\n\n"
		"The global options --root DIR, --journal-dir DIR and -v, --verbose go\n"
		"before the command (%s --help); after it, -v is the command's --var.\n",
		program, c->usage, c->help, program);
}

int usage_error(const struct cmd *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		fprintf(stderr, "Usage: %s %s\n", program, c->usage);
	return EXIT_USAGE;
}

int lib_error(struct perftune_ctx *ctx, int r, const char *what)
{
	const char *msg = perftune_ctx_last_error(ctx);

	if (msg && *msg)
		fprintf(stderr, "%s: %s\n", program, msg);
	else
		fprintf(stderr, "%s: %s: %s\n", program, what, strerror(-r));
	return EXIT_FAIL;
}

int key_error(const struct cmd *c, struct perftune_ctx *ctx, int r, const char *key)
{
	const char *msg = perftune_ctx_last_error(ctx);

	if (r != -EINVAL)
		return lib_error(ctx, r, key);
	if (msg && *msg)
		return usage_error(c, "%s", msg);
	return usage_error(c, "%s: %s", key, strerror(-r));
}

/* The usage error for getopt_long()'s '?' (an unknown option, or one without
 * its argument) with @optstring, with a hint where the global -v (--verbose)
 * was meant: after COMMAND, -v is --var VAR=VALUE or no option at all. */
static int bad_option(const struct cmd *c, char **argv, const char *optstring)
{
	bool verbose = optopt == 'v' || (optind > 0 && !strcmp(argv[optind - 1], "--verbose"));

	if (verbose && strstr(optstring, "v:"))
		return usage_error(c,
				   "-v after '%s' is --var VAR=VALUE; -v before it is --verbose "
				   "(%s -v %s ...)",
				   c->name, program, c->name);
	if (verbose)
		return usage_error(c, "-v, --verbose goes before the command: %s -v %s ...",
				   program, c->name);
	return usage_error(c, "bad option (see %s %s --help)", program, c->name);
}

/* what option @e sets: 0, or a usage error's status */
static int set_option(const struct cmd *c, const struct cmd_opt *e)
{
	struct cmd_vars *vars = e->dest;

	switch (e->kind) {
	case OPT_BOOL:
		*(bool *)e->dest = true;
		return 0;
	case OPT_FLAG:
		*(unsigned *)e->dest |= e->bit;
		return 0;
	case OPT_STR:
		*(const char **)e->dest = optarg;
		return 0;
	case OPT_VAR:
		if (vars->n == MAX_VARS || !strchr(optarg, '='))
			return usage_error(c, "-v takes VAR=VALUE (at most %d)", MAX_VARS);
		vars->v[vars->n++] = optarg;
		return 0;
	default:
		return e->call(c, e, optarg);
	}
}

#define CMD_OPTS_MAX 24

int cmd_parse(const struct cmd *c, int argc, char **argv, const struct cmd_opt *opts,
	      const char *order)
{
	struct option lo[CMD_OPTS_MAX + 2] = { { "help", no_argument, NULL, 'h' } };
	char optstr[2 * CMD_OPTS_MAX + 4];
	size_t n = 1, len = (size_t)snprintf(optstr, sizeof(optstr), "%s", order);
	int o;

	for (const struct cmd_opt *e = opts; e->name || e->letter; e++) {
		int arg = e->kind != OPT_BOOL && e->kind != OPT_FLAG && e->kind != OPT_CALL0;
		if (!e->name) /* the operands' entry (letter 1) */
			continue;
		lo[n] = (struct option){ e->name, arg, NULL, e->letter };
		if (!e->letter) /* a long option only: its index as getopt's value */
			lo[n].val = 256 + (int)(e - opts);
		if (e->letter > 1)
			optstr[len++] = (char)e->letter;
		if (e->letter > 1 && arg)
			optstr[len++] = ':';
		n++;
	}
	strcpy(optstr + len, "h");
	lo[n] = (struct option){ 0 };
	/*
	 * Not optind = 1: glibc reads the ordering ('+', '-', $POSIXLY_CORRECT)
	 * when optind is 0 only, so with 1 a command kept that of main()'s "+"
	 * parse of the global options, and stopped at its first operand
	 * ("apply PROFILE --dry-run": "apply takes one PROFILE").
	 */
	optind = 0;
	while ((o = getopt_long(argc, argv, optstr, lo, NULL)) != -1) {
		const struct cmd_opt *e = opts;
		if (o == 'h') {
			print_cmd_help(c, stdout);
			exit(0);
		}
		while ((e->name || e->letter) && e->letter != o && 256 + (e - opts) != o)
			e++;
		if (!e->name && e->letter != 1) {
			if (*order == '-') /* compare's message, as it always was */
				usage_error(c, "bad option");
			else
				bad_option(c, argv, optstr);
			return -1;
		}
		if (set_option(c, e))
			return -1;
	}
	return optind;
}

int opt_format(const struct cmd *c, const struct cmd_opt *e, const char *arg)
{
	static const char *const names[] = { "text", "json", "prometheus" };
	int *format = e->dest;

	if (e->kind == OPT_CALL0) { /* --json */
		*format = FORMAT_JSON;
		return 0;
	}
	for (int i = FORMAT_TEXT; i <= FORMAT_PROMETHEUS; i++)
		if (!strcmp(arg, names[i]))
			*format = i;
	if (strcmp(arg, names[*format]))
		return usage_error(c, "--format must be text, json or prometheus");
	return 0;
}

int parse_simple(const struct cmd *c, int argc, char **argv, bool *json)
{
	const struct cmd_opt opts[] = { OPT("json", 'j', OPT_BOOL, json), { 0 } };

	return cmd_parse(c, argc, argv, opts, "");
}

const char *or_str(const char *s, const char *fallback)
{
	if (s)
		return s;
	return fallback;
}

void print_tx_report(struct perftune_ctx *ctx, struct perftune_tx *tx, struct perftune_profile *p,
		     bool json)
{
	char *text, *warnings, *line, *next;
	int r = perftune_tx_report(tx, p, report_flags(json), &text, &warnings);

	if (r < 0) { /* the transaction is in force all the same */
		lib_error(ctx, r, "report");
		return;
	}
	fputs(text, stdout);
	for (line = warnings; line && *line; line = next) {
		next = strchrnul(line, '\n');
		if (*next)
			next++;
		fprintf(stderr, "%s: %.*s", program, (int)(next - line), line);
	}
	free(text);
	free(warnings);
}

int commit_tx(struct perftune_ctx *ctx, struct perftune_tx *tx, bool hold, sigset_t *set)
{
	int r;

	/* a signal during the commit is taken after it, and rolls it back */
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	if (hold)
		sigprocmask(SIG_BLOCK, set, NULL);
	r = perftune_tx_commit(tx);
	return r < 0 ? lib_error(ctx, r, "commit") : 0;
}

/* the transaction's hotplug watch opened (held all the same without it) */
static void hold_watch(struct perftune_ctx *ctx, struct perftune_tx *tx)
{
	if (perftune_tx_watch(tx) < 0)
		fprintf(stderr, "%s: warning: devices added now are not tuned: %s\n", program,
			perftune_ctx_last_error(ctx));
}

/* until a signal of @set, the watch's events dispatched (devices added are tuned) */
static int wait_signal(struct perftune_tx *tx, sigset_t *set)
{
	struct signalfd_siginfo si;
	int fd = signalfd(-1, set, SFD_CLOEXEC), sig = 0;

	if (fd < 0) { /* no signalfd (seccomp): signals alone, as before */
		sigwait(set, &sig);
		return sig;
	}
	perftune_tx_follow(tx, fd); /* at once if the watch failed: its warning was said */
	if (read(fd, &si, sizeof(si)) == sizeof(si))
		sig = (int)si.ssi_signo;
	close(fd);
	return sig;
}

pid_t held_elsewhere(struct perftune_ctx *ctx, const char *name)
{
	int pid = perftune_tx_holder(ctx, name);

	if (pid < 0 || pid == getpid())
		return 0;
	return pid;
}

int hold_until_signal(struct perftune_ctx *ctx, struct perftune_tx **txp, sigset_t *set,
		      hold_reload_fn reload, void *ud)
{
	char name[128]; /* a reload frees the transaction it replaces, and its name */
	int sig = 0, r;
	bool ours;

	snprintf(name, sizeof(name), "%s", perftune_tx_name(*txp));
	/* following devices before "holding" is said: one added after it is seen */
	hold_watch(ctx, *txp);
	printf("holding transaction '%s' (pid %d); SIGTERM or Ctrl-C restores it%s\n", name,
	       getpid(), reload ? ", SIGHUP reloads it" : "");
	fflush(stdout);
	while ((sig = wait_signal(*txp, set)) == SIGHUP && reload) {
		reload(ctx, txp, ud); /* a failure keeps what is in force: it says why */
		hold_watch(ctx, *txp);
	}
	ours = perftune_tx_holder(ctx, name) == getpid(); /* else perftune_tx_replace() took it */
	r = perftune_tx_rollback(*txp);
	if (r < 0)
		return lib_error(ctx, r, "rollback");
	if (!ours && r == 0)
		printf("transaction '%s' is not held here any more (replaced): nothing restored "
		       "(signal %d)\n",
		       name, sig);
	else
		printf("restored transaction '%s' (signal %d)\n", name, sig);
	return 0;
}

mode_t output_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0644 & ~mask;
}

int write_output(struct perftune_ctx *ctx, const char *output, const char *text)
{
	int r;

	if (!output || !strcmp(output, "-"))
		return fputs(text, stdout) < 0 ? EXIT_FAIL : 0;
	r = perftune_output_write_file(ctx, output, text, 0644);
	if (r < 0)
		return lib_error(ctx, r, output);
	return 0;
}

int print_report(char *text)
{
	int r = 0;

	if (fputs(text, stdout) < 0)
		r = EXIT_FAIL;
	free(text);
	return r;
}

unsigned report_flags(bool json)
{
	if (json)
		return PERFTUNE_REPORT_JSON;
	return 0;
}
