// SPDX-License-Identifier: LGPL-2.1-or-later
/* Helpers shared by the perftune subcommands: errors, usage, JSON output, files. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common.h"

const char *program = "perftune";

void print_cmd_help(const struct cmd *c, FILE *f)
{
	fprintf(f, "Usage: %s %s\n\n%s\n", program, c->usage, c->help);
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

void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_key(FILE *f, bool *first, const char *key)
{
	if (!*first)
		fputs(", ", f);
	*first = false;
	json_str(f, key);
	fputs(": ", f);
}

void json_kv(FILE *f, bool *first, const char *key, const char *value)
{
	json_key(f, first, key);
	json_str(f, value);
}

void json_kb(FILE *f, bool *first, const char *key, bool value)
{
	json_key(f, first, key);
	fputs(value ? "true" : "false", f);
}

void json_ki(FILE *f, bool *first, const char *key, long long value)
{
	json_key(f, first, key);
	fprintf(f, "%lld", value);
}

int parse_simple(const struct cmd *c, int argc, char **argv, bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int o;

	optind = 1;
	while ((o = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			*json = true;
			break;
		case 'h':
			print_cmd_help(c, stdout);
			exit(0);
		default:
			return -1;
		}
	}
	return optind;
}

void print_changes(struct perftune_tx *tx, bool dry)
{
	struct perftune_change_iter *it;
	const struct perftune_change *e;

	if (perftune_tx_changes(tx, &it) < 0)
		return;
	while ((e = perftune_change_iter_next(it))) {
		unsigned fl = perftune_change_flags(e);
		const char *note = perftune_change_note(e), *old = perftune_change_old_value(e);
		if (!dry && !(fl & (PERFTUNE_CHANGE_WRITTEN | PERFTUNE_CHANGE_UNCHANGED)))
			continue;
		printf("%s: %s -> %s%s%s%s%s\n", perftune_change_key(e), old && *old ? old : "?",
		       perftune_change_new_value(e),
		       fl & PERFTUNE_CHANGE_UNCHANGED ? " (unchanged)" : "", note ? " (" : "",
		       note ? note : "", note ? ")" : "");
	}
	perftune_change_iter_free(it);
}

/* "changes": [...] of @tx, as print_changes() prints them */
void print_changes_json(struct perftune_tx *tx, bool dry)
{
	struct perftune_change_iter *it;
	const struct perftune_change *e;
	bool first = true;

	fputs("\"changes\": [", stdout);
	if (perftune_tx_changes(tx, &it) >= 0) {
		while ((e = perftune_change_iter_next(it))) {
			unsigned fl = perftune_change_flags(e);
			bool f = true;
			if (!dry && !(fl & (PERFTUNE_CHANGE_WRITTEN | PERFTUNE_CHANGE_UNCHANGED)))
				continue;
			printf("%s\n    {", first ? "" : ",");
			json_kv(stdout, &f, "key", perftune_change_key(e));
			json_kv(stdout, &f, "old", perftune_change_old_value(e));
			json_kv(stdout, &f, "new", perftune_change_new_value(e));
			json_kb(stdout, &f, "unchanged", fl & PERFTUNE_CHANGE_UNCHANGED);
			json_kv(stdout, &f, "note", perftune_change_note(e));
			fputs("}", stdout);
			first = false;
		}
		perftune_change_iter_free(it);
	}
	fputs(first ? "]" : "\n  ]", stdout);
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

int hold_until_signal(struct perftune_ctx *ctx, struct perftune_tx *tx, sigset_t *set)
{
	int sig = 0, r;

	printf("holding transaction '%s' (pid %d); SIGTERM or Ctrl-C restores it\n",
	       perftune_tx_name(tx), getpid());
	fflush(stdout);
	sigwait(set, &sig);
	r = perftune_tx_rollback(tx);
	if (r < 0)
		return lib_error(ctx, r, "rollback");
	printf("restored transaction '%s' (signal %d)\n", perftune_tx_name(tx), sig);
	return 0;
}

int write_file_atomic(const char *path, const char *text)
{
	char *tmp = NULL;
	FILE *f;
	int r = 0;

	if (asprintf(&tmp, "%s.perftune-XXXXXX", path) < 0)
		return -ENOMEM;
	int fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		free(tmp);
		return r;
	}
	if (fputs(text, f) < 0 || fchmod(fd, 0644) < 0)
		r = -errno;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}

int write_output(const char *output, const char *text)
{
	int r;

	if (!output || !strcmp(output, "-"))
		return fputs(text, stdout) < 0 ? EXIT_FAIL : 0;
	r = write_file_atomic(output, text);
	if (r < 0)
		fprintf(stderr, "%s: %s: %s\n", program, output, strerror(-r));
	return r < 0 ? EXIT_FAIL : 0;
}

char *setting_eq(const char *kv)
{
	for (const char *p = kv; *p; p++) {
		if (*p == '=')
			return (char *)p;
		if (*p != '[')
			continue;
		while (*++p && *p != ']') /* a key's bracket: '\' takes the next character */
			if (*p == '\\' && p[1])
				p++;
		if (!*p)
			return NULL;
	}
	return NULL;
}
