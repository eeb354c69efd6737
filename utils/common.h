/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_UTILS_COMMON_H
#define PERFTUNE_UTILS_COMMON_H

#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include "perftune.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2

struct cmd {
	const char *name;
	int (*run)(struct perftune_ctx *ctx, int argc, char **argv);
	const char *usage;
	const char *help;
};

extern const struct cmd cmd_list, cmd_get, cmd_describe, cmd_set, cmd_restore, cmd_status;
extern const struct cmd cmd_apply, cmd_list_profiles, cmd_export,
	cmd_exec;			     /* cmd-profile.c, cmd-export.c */
extern const struct cmd cmd_verify, cmd_why; /* cmd-why.c */
extern const struct cmd cmd_compare;	     /* cmd-compare.c */
extern const char *program;

/* print "perftune: <msg>" to stderr and return EXIT_USAGE */
int usage_error(const struct cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* print the library's message for @r and return EXIT_FAIL */
int lib_error(struct perftune_ctx *ctx, int r, const char *what);
void print_cmd_help(const struct cmd *c, FILE *f);
/* "key: old -> new (note)" for each staged key (all of them with @dry, else those written) */
void print_changes(struct perftune_tx *tx, bool dry);
/* the same as "changes": [...] (JSON, no braces around it) */
void print_changes_json(struct perftune_tx *tx, bool dry);
/* Commit @tx; with @hold, SIGTERM/SIGINT/SIGHUP (@set) are blocked first so that
 * one arriving mid-commit is taken by hold_until_signal.  0, or EXIT_FAIL with the message. */
int commit_tx(struct perftune_ctx *ctx, struct perftune_tx *tx, bool hold, sigset_t *set);
/* Stay in the foreground until a signal of @set arrives, then roll @tx back. */
int hold_until_signal(struct perftune_ctx *ctx, struct perftune_tx *tx, sigset_t *set);

/* Write @text to @path through a temporary file in the same directory, renamed
 * over it: a reader (node_exporter's textfile collector) never sees half of it.
 * 0 or -errno. */
int write_file_atomic(const char *path, const char *text);
/* @text on stdout, or with @output (not "-") to that file through
 * write_file_atomic(); 0, or EXIT_FAIL with the message naming the file. */
int write_output(const char *output, const char *text);

/*
 * One warning per key of @tx (written, or staged with @dry) that a persistent
 * source (sysctl.d, udev, TuneD, the command line) will put back: on stderr,
 * or with @json as the list "warnings": [...] on @json.  Returns how many.
 */
int print_conflicts(struct perftune_ctx *ctx, struct perftune_tx *tx, bool dry, FILE *json);

/* JSON output */
void json_str(FILE *f, const char *s); /* quoted, escaped; null for NULL */
void json_kv(FILE *f, bool *first, const char *key, const char *value);
void json_kb(FILE *f, bool *first, const char *key, bool value);
void json_ki(FILE *f, bool *first, const char *key, long long value);

/* the '=' of "KEY=VALUE": the first outside the key's brackets, which may hold '=' of their
 * own ("net[driver=ixgbe].txqueuelen=1", "net[v\=1].txqueuelen=1"); NULL if none */
char *setting_eq(const char *kv);

/* Parse "--json" and "--help"-only option lists; returns index of first operand or -1 */
int parse_simple(const struct cmd *c, int argc, char **argv, bool *json);

#endif
