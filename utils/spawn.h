/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_UTILS_SPAWN_H
#define PERFTUNE_UTILS_SPAWN_H

/* Programs perftune runs (compare's CMD and gnuplot): found on a path, and as
 * root only where root alone can change them; a filter run into a file perftune_output_open() made. */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "perftune.h"

/* a program's path: @name with a slash as is, else searched in @path (NULL:
 * $PATH); NULL if none */
char *find_program(const char *name, const char *path);
/* the tool @name, or $@env's program where that is set, in @prog: 0; -ENOENT
 * (not found; @why: " (ENV=x is no program)" or ""), -EPERM (as root, one that
 * others can change; @why says which file) */
int find_tool(const char *name, const char *env, char **prog, char *why, size_t size);
/*
 * @prog (found by find_tool()) run as a fixed program with the argument -d,
 * @input on its standard input and its standard output into @path
 * (perftune_output_open(): the program never opens a path), an environment of PATH alone
 * and / as its working directory: gnuplot with no init file, no HOME, no
 * GNUPLOT_* variables.  0, or EXIT_FAIL with the message naming @opt.
 */
int run_filter(struct perftune_ctx *ctx, const char *prog, const char *input, const char *path,
	       const char *opt);

/*
 * A command run once and measured (compare's CMD): in a process group of its
 * own (Ctrl-C goes to perftune, which ends it), SIGKILL if perftune dies,
 * /dev/null on stdin.  SIGINT/SIGTERM/SIGHUP reach perftune through @sigfd
 * (signals_to_fd()): one that comes while it runs ends it (TERM, then KILL
 * after 5 s) and is kept in @sig.  With @forward (run's CMD) it stays in
 * perftune's process group with its stdin, and each signal is passed on to
 * it as it came, never escalated: CMD decides when it ends.
 */
struct child_run {
	const char *exe;
	char **argv;
	int outfd, errfd, sigfd;
	bool forward;
	sigset_t mask;		/* the signal mask it gets */
	int sig;		/* the signal that came, or 0 */
	int status;		/* of waitpid() */
	double wall, user, sys; /* seconds */
};
/* Run it; 0 (see r->sig, r->status), or -errno of fork() or wait4(). */
int child_run(struct child_run *r);
/* SIGINT, SIGTERM, SIGHUP and SIGCHLD blocked, into a signalfd in r->sigfd,
 * the mask before in r->mask; 0 or -errno */
int signals_to_fd(struct child_run *r);
/* a signal read from r->sigfd (not SIGCHLD) kept in r->sig, with @pid > 0
 * ended (SIGTERM to its group) or, with r->forward, sent the signal; r->sig */
int take_signals(struct child_run *r, pid_t pid);

#endif
