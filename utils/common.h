/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_UTILS_COMMON_H
#define PERFTUNE_UTILS_COMMON_H

#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include "perftune.h"
#include "shared/json.h"

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
extern const struct cmd cmd_run;	     /* cmd-run.c */
extern const char *program;

/* print "perftune: <msg>" to stderr and return EXIT_USAGE */
int usage_error(const struct cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* print the library's message for @r and return EXIT_FAIL */
int lib_error(struct perftune_ctx *ctx, int r, const char *what);
/* The library's error for operand @key of command @c: -EINVAL (a malformed key,
 * a mistake "did you mean ...") is a usage error, EXIT_USAGE; else lib_error(). */
int key_error(const struct cmd *c, struct perftune_ctx *ctx, int r, const char *key);
void print_cmd_help(const struct cmd *c, FILE *f);
/* @s, or @fallback for NULL */
const char *or_str(const char *s, const char *fallback);
/*
 * perftune_tx_report() of @tx (and of profile @p, or NULL) on stdout, each of its
 * warnings on stderr after "perftune: "; its failure (out of memory) printed
 */
void print_tx_report(struct perftune_ctx *ctx, struct perftune_tx *tx, struct perftune_profile *p,
		     bool json);
/* Commit @tx; with @hold, SIGTERM/SIGINT/SIGHUP (@set) are blocked first so that
 * one arriving mid-commit is taken by hold_until_signal.  0, or EXIT_FAIL with the message. */
int commit_tx(struct perftune_ctx *ctx, struct perftune_tx *tx, bool hold, sigset_t *set);
/*
 * What SIGHUP does to a hold: in *@txp, a new transaction that replaced it
 * (perftune_tx_replace()), the old one dropped; on a failure *@txp stays in
 * force and the reason is printed.
 */
typedef void (*hold_reload_fn)(struct perftune_ctx *ctx, struct perftune_tx **txp, void *ud);
/* Stay in the foreground until a signal of @set arrives, then roll *@txp back; SIGHUP
 * calls @reload instead, if given. */
int hold_until_signal(struct perftune_ctx *ctx, struct perftune_tx **txp, sigset_t *set,
		      hold_reload_fn reload, void *ud);
/* the live process, not this one, that holds transaction @name, or 0 */
pid_t held_elsewhere(struct perftune_ctx *ctx, const char *name);

/* 0644 less the umask: the mode open(2) would give a new file of ours */
mode_t output_mode(void);
/* @text on stdout, or with @output (not "-") to that file through
 * perftune_output_write_file() (0644); 0, or EXIT_FAIL with the message naming
 * the file and the reason. */
int write_output(struct perftune_ctx *ctx, const char *output, const char *text);
/* @text, a report of the library (perftune_*_report()), on stdout, then freed: 0, or EXIT_FAIL */
int print_report(char *text);
/* the perftune_*_report() flags of --json */
unsigned report_flags(bool json);

/*
 * Options of a command, as a table: cmd_parse() builds getopt_long()'s
 * arguments from it, sets what each option sets and takes -h, --help (the
 * command's help, exit 0).  Options may come before or after the operands,
 * as GNU tools take them; "--" ends them.  @order "+" stops at the first
 * operand (exec, whose operand is a command); "-" hands each operand in its
 * place to the entry of letter 1 (compare's KEY=VALUE before its "--").
 */
#define MAX_VARS 64
struct cmd_vars {
	const char *v[MAX_VARS + 1]; /* NULL-terminated */
	int n;
};
enum opt_kind {
	OPT_BOOL, /* bool *dest = true */
	OPT_FLAG, /* unsigned *dest |= bit */
	OPT_STR,  /* const char **dest = the argument */
	OPT_VAR,  /* VAR=VALUE appended to struct cmd_vars *dest */
	OPT_CALL, /* call(c, entry, argument): 0, or a usage error's status */
	OPT_CALL0 /* the same for an option without an argument */
};
struct cmd_opt {
	const char *name; /* the long option */
	int letter;	  /* its short form, or 0 */
	enum opt_kind kind;
	void *dest;
	unsigned bit;
	int (*call)(const struct cmd *c, const struct cmd_opt *e, const char *arg);
};
#define OPT(name, letter, kind, dest)                                                              \
	{                                                                                          \
		(name), (letter), (kind), (dest), 0, NULL                                          \
	}
#define OPT_BIT(name, dest, bit)                                                                   \
	{                                                                                          \
		(name), 0, OPT_FLAG, (dest), (bit), NULL                                           \
	}
/* The index of the first operand, or -1 after a usage error's message. */
int cmd_parse(const struct cmd *c, int argc, char **argv, const struct cmd_opt *opts,
	      const char *order);

/* status and verify: --json, --format text|json|prometheus (int *e->dest) */
enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_PROMETHEUS };
int opt_format(const struct cmd *c, const struct cmd_opt *e, const char *arg);

/* Parse "--json" and "--help"-only option lists; returns the index of the first
 * operand, or -1 after printing the usage error */
int parse_simple(const struct cmd *c, int argc, char **argv, bool *json);

#endif
