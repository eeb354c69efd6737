// SPDX-License-Identifier: LGPL-2.1-or-later
/* Programs perftune runs: compare's CMD and its --plot's gnuplot.  gnuplot runs
 * as a fixed program (execve, no shell) found where only root can change it
 * when perftune is root; it reads the library's script on its standard input
 * and writes the picture to its standard output, which is the plot file
 * perftune made (perftune_output_open(): gnuplot never opens a path), with -d (no
 * gnuplotrc, no ~/.gnuplot, no $XDG_CONFIG_HOME/gnuplot/gnuplotrc), an
 * environment of PATH alone (no HOME, no GNUPLOT_* variables, no locale or font
 * paths of the caller) and / as its working directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "spawn.h"
#include "shared/trust.h"

char *find_program(const char *name, const char *path)
{
	struct stat st;
	const char *e;
	char *buf;

	if (!*name)
		return NULL;
	if (strchr(name, '/') && access(name, X_OK) == 0)
		return strdup(name);
	if (strchr(name, '/'))
		return NULL;
	if (!path)
		path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	buf = malloc(strlen(path) + strlen(name) + 3);
	for (const char *p = path; buf && *p; p = e + (*e == ':')) {
		e = strchrnul(p, ':');
		if (e == p) /* an empty entry is the current directory */
			sprintf(buf, "./%s", name);
		else
			sprintf(buf, "%.*s/%s", (int)(e - p), p, name);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return buf;
	}
	free(buf);
	return NULL;
}

/* 0 if as root @prog may be run: it and the directories above it can be
 * changed by root alone (shared/trust.c), else -EPERM and why not */
static int trusted(const char *name, const char *prog, char *why, size_t size)
{
	char chain[PATH_MAX + 64];

	if (geteuid() != 0 || pt_trust_check(prog, NULL, chain, sizeof(chain)) == 0)
		return 0;
	snprintf(why, size, "%s %s: %s: as root, perftune runs no program that others can change",
		 name, prog, chain);
	return -EPERM;
}

int find_tool(const char *name, const char *env, char **prog, char *why, size_t size)
{
	const char *set = getenv(env), *path = NULL;

	/* as root, not the caller's PATH: it may be another user's (sudo -E, su -m) */
	if (geteuid() == 0)
		path = "/usr/local/bin:/usr/bin:/bin";
	*prog = find_program(or_str(set, name), path);
	*why = '\0';
	if (!*prog && set)
		snprintf(why, size, " (%s=%s is no program)", env, set);
	if (!*prog)
		return -ENOENT;
	return trusted(name, *prog, why, size);
}

/* @text in a memory file, read from its start; -1 with errno */
static int memory_file(const char *text)
{
	int fd = memfd_create("perftune-input", MFD_CLOEXEC);
	size_t len = strlen(text), done = 0;

	while (fd >= 0 && done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (fd >= 0 && lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int run_filter(struct perftune_ctx *ctx, const char *prog, const char *input, const char *path,
	       const char *opt)
{
	char *const argv[] = { (char *)prog, "-d", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	struct perftune_output *out = NULL;
	int in = memory_file(input), status = 0, r;
	pid_t pid;

	if (in < 0) {
		fprintf(stderr, "%s: %s: cannot write a gnuplot script: %s\n", program, opt,
			strerror(errno));
		return EXIT_FAIL;
	}
	r = perftune_output_open(ctx, path, output_mode(), &out);
	if (r < 0) {
		fprintf(stderr, "%s: %s %s\n", program, opt, perftune_ctx_last_error(ctx));
		close(in);
		return EXIT_FAIL;
	}
	pid = fork();
	if (pid == 0) {
		if (dup2(in, 0) < 0 || dup2(perftune_output_fd(out), 1) < 0 || chdir("/") < 0)
			_exit(127);
		execve(prog, argv, envp);
		dprintf(2, "%s: %s: cannot run %s: %s\n", program, opt, prog, strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(in);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: %s %s: gnuplot (%s) failed\n", program, opt, path, prog);
		perftune_output_free(out);
		return EXIT_FAIL;
	}
	r = perftune_output_commit(out);
	perftune_output_free(out);
	if (r < 0) {
		fprintf(stderr, "%s: %s %s\n", program, opt, perftune_ctx_last_error(ctx));
		return EXIT_FAIL;
	}
	return 0;
}

/* wall time in seconds (CLOCK_MONOTONIC) */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int signals_to_fd(struct child_run *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &r->mask) < 0)
		return -errno;
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sigfd < 0)
		return -errno;
	return 0;
}

int take_signals(struct child_run *r, pid_t pid)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		/* a terminal's Ctrl-C or hangup (SI_KERNEL) went to our process
		 * group, CMD's too: passed on, CMD would get it twice */
		if (r->forward && pid > 0 && si.ssi_code != SI_KERNEL)
			kill(pid, (int)si.ssi_signo);
		if (r->forward)
			r->sig = (int)si.ssi_signo;
		if (r->forward || r->sig)
			continue;
		r->sig = (int)si.ssi_signo;
		if (pid > 0)
			kill(-pid, SIGTERM);
	}
	return r->sig;
}

/* wait for @pid; a signal meanwhile ends it (TERM, then KILL after 5 s) */
static int wait_child(struct child_run *r, pid_t pid, struct rusage *ru)
{
	struct pollfd pfd = { .fd = r->sigfd, .events = POLLIN };
	int timeout = -1, had;

	for (;;) {
		pid_t w = wait4(pid, &r->status, WNOHANG, ru);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (poll(&pfd, 1, timeout) == 0 && r->sig) {
			kill(-pid, SIGKILL); /* it ignored SIGTERM for 5 s */
			timeout = -1;
			continue;
		}
		had = r->sig;
		if (take_signals(r, pid) && !had && !r->forward)
			timeout = 5000;
	}
}

static void child(struct child_run *r, pid_t parent)
{
	int null;

	if (!r->forward) { /* Ctrl-C goes to perftune, which ends CMD and restores */
		setpgid(0, 0);
		null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0)
			_exit(127);
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent || (r->outfd != 1 && dup2(r->outfd, 1) < 0) ||
	    (r->errfd != 2 && dup2(r->errfd, 2) < 0))
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &r->mask, NULL);
	execv(r->exe, r->argv);
	dprintf(2, "perftune %s: cannot run %s: %s\n", r->forward ? "run" : "compare", r->exe,
		strerror(errno));
	_exit(127);
}

int child_run(struct child_run *r)
{
	struct rusage ru = { 0 };
	pid_t parent = getpid(), pid = fork();
	double t0 = now_s(); /* once fork() returned: copying our page tables is not CMD's cost */
	int ret;

	if (pid == 0)
		child(r, parent);
	if (pid < 0)
		return -errno;
	if (!r->forward)
		setpgid(pid, pid);
	ret = wait_child(r, pid, &ru);
	r->wall = now_s() - t0;
	r->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	r->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	return ret;
}
