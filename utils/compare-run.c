// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune compare: the measure of the library's experiment
 * (perftune_experiment_run(), which holds the change around each tuned run
 * and gives it back, see lib/experiment/run.c): CMD forked once per run, its
 * wall time or the number --metric finds in its stdout.  Signals are ours:
 * SIGINT/SIGTERM/SIGHUP come through a signalfd, end CMD (TERM, then KILL)
 * and abort the experiment, which gives the change back.  CMD gets SIGKILL if
 * perftune dies (PDEATHSIG); the journal covers the change then. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
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
#include "compare.h"
#include "compare-metric.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *find_program(const char *name, const char *path)
{
	char *buf;

	if (!*name)
		return NULL;
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	if (!path)
		path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	buf = malloc(strlen(path) + strlen(name) + 3);
	if (!buf)
		return NULL;
	for (const char *p = path, *e; *p; p = *e ? e + 1 : e) {
		struct stat st;
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

static void progress(struct compare *c, const struct perftune_run *run)
{
	unsigned done = perftune_run_index(run), total = perftune_run_total(run);
	double el = now_s() - c->started;
	long eta = done ? lround(el / done * (total - done)) : -1;
	char what[64], when[32] = "ETA ...";

	if (!c->progress)
		return;
	if (perftune_run_round(run))
		snprintf(what, sizeof(what), "round %u/%u", perftune_run_round(run), c->rounds);
	else
		snprintf(what, sizeof(what), "warmup %u/%u", perftune_run_warmup(run), c->warmup);
	if (eta >= 0)
		snprintf(when, sizeof(when), "ETA %ld:%02ld", eta / 60, eta % 60);
	fprintf(stderr, "\r\033[K%s, %s", what, when);
}

/* wait for @pid; a SIGINT/SIGTERM/SIGHUP meanwhile ends it (TERM, then KILL
 * after 5 s) and is returned in @sig */
static int wait_child(struct compare *c, pid_t pid, int *status, struct rusage *ru, int *sig)
{
	struct pollfd pfd = { .fd = c->sigfd, .events = POLLIN };
	struct signalfd_siginfo si;
	int timeout = -1;

	for (;;) {
		pid_t w = wait4(pid, status, WNOHANG, ru);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (poll(&pfd, 1, timeout) == 0 && *sig) {
			kill(-pid, SIGKILL); /* CMD ignored SIGTERM for 5 s */
			timeout = -1;
			continue;
		}
		while (read(c->sigfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD || *sig)
				continue;
			*sig = (int)si.ssi_signo;
			kill(-pid, SIGTERM);
			timeout = 5000;
		}
	}
}

static void child(struct compare *c, int outfd, const sigset_t *orig, pid_t parent)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0); /* Ctrl-C goes to perftune, which ends CMD and restores */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (null < 0 || dup2(null, 0) < 0 || dup2(outfd, 1) < 0 || dup2(c->logfd, 2) < 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, orig, NULL);
	execv(c->exe, c->cmd);
	dprintf(2, "perftune compare: cannot run %s: %s\n", c->exe, strerror(errno));
	_exit(127);
}

#define CHUNK (1024 * 1024)

/* @n bytes to @fd, whole: 0 or -1 */
static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* CMD's stdout (a memfd) appended to the log and scanned for the metric, a
 * chunk at a time (any size: no read is asked for more than CHUNK bytes); 0
 * with the number in @v, or -1 with @why */
static int collect_stdout(struct compare *c, int fd, double *v, char *why, size_t wsize)
{
	struct metric_scan s;
	char *buf = malloc(CHUNK);
	bool logged = true;
	off_t off = 0;
	ssize_t n;
	int r = -1;

	if (!buf || metric_scan_init(&s, &c->re, 0) < 0) {
		free(buf);
		snprintf(why, wsize, "cannot read CMD's output: %s", strerror(ENOMEM));
		return -1;
	}
	while ((n = pread(fd, buf, CHUNK, off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		off += n;
		if (logged && write_all(c->logfd, buf, (size_t)n) < 0) {
			fprintf(stderr, "%s: warning: cannot write the log %s: %s\n", program,
				c->log, strerror(errno));
			logged = false;
		}
		metric_scan_feed(&s, buf, (size_t)n);
	}
	if (n < 0) {
		snprintf(why, wsize, "cannot read CMD's output: %s", strerror(errno));
	} else {
		metric_scan_end(&s);
		r = metric_scan_value(&s, c->metric, v, why, wsize);
	}
	metric_scan_free(&s);
	free(buf);
	return r;
}

/* a signal that came between two runs */
static int pending_signal(struct compare *c)
{
	struct signalfd_siginfo si;

	while (read(c->sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			return (int)si.ssi_signo;
	return 0;
}

/* CMD's exit: 0, or -1 with c->why */
static int exit_status(struct compare *c, int status)
{
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFEXITED(status))
		snprintf(c->why, sizeof(c->why), "CMD failed in %s: exit status %d", c->label,
			 WEXITSTATUS(status));
	else
		snprintf(c->why, sizeof(c->why), "CMD failed in %s: killed by signal %d", c->label,
			 WTERMSIG(status));
	return -1;
}

/* one run of CMD: fork, wait, the measure; -1 with c->why or c->sig */
static int run_cmd(struct compare *c, int outfd, struct run_sample *out)
{
	struct rusage ru;
	int status = 0, r, metric = 0;
	double t0;
	pid_t pid, parent = getpid();
	char why[200];

	pid = fork();
	/* the clock starts in the parent once fork() returns: the copy of
	 * perftune's page tables is perftune's cost, not CMD's */
	t0 = now_s();
	if (pid == 0)
		child(c, outfd, &c->orig, parent);
	if (pid < 0) {
		snprintf(c->why, sizeof(c->why), "fork: %s", strerror(errno));
		return -1;
	}
	setpgid(pid, pid);
	r = wait_child(c, pid, &status, &ru, &c->sig);
	out->wall = now_s() - t0;
	if (c->sig || r < 0)
		return -1;
	out->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	out->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	out->value = out->wall;
	if (c->metric) /* into the log whatever CMD's exit */
		metric = collect_stdout(c, outfd, &out->value, why, sizeof(why));
	if (exit_status(c, status) < 0)
		return -1;
	if (metric < 0) {
		snprintf(c->why, sizeof(c->why), "%s of %s", why, c->label);
		return -1;
	}
	return 0;
}

/* the experiment's measure: CMD once, in the state the library has set up */
static int measure(struct perftune_run *run, void *ud, double *value)
{
	struct compare *c = ud;
	struct run_sample out = { 0 };
	int outfd = c->logfd, r;

	snprintf(c->label, sizeof(c->label), "%s", perftune_run_label(run));
	c->index = perftune_run_index(run);
	progress(c, run);
	c->sig = pending_signal(c);
	if (c->sig) {
		perftune_experiment_abort(c->exp);
		return -EINTR;
	}
	dprintf(c->logfd, "=== %s ===\n", c->label);
	if (c->metric && (outfd = memfd_create("perftune-compare-stdout", MFD_CLOEXEC)) < 0) {
		snprintf(c->why, sizeof(c->why), "memfd_create: %s", strerror(errno));
		return -EIO;
	}
	r = run_cmd(c, outfd, &out);
	if (outfd != c->logfd)
		close(outfd);
	if (c->sig)
		perftune_experiment_abort(c->exp);
	if (r < 0)
		return -EIO;
	*value = out.value;
	if (perftune_run_round(run)) {
		enum perftune_state s = perftune_run_state(run);
		c->s[s][c->n[s]++] = out;
	}
	return 0;
}

/* why the experiment stopped, on stderr; EXIT_FAIL */
static int stop(struct compare *c, int r, bool first)
{
	if (c->progress)
		fputs("\r\033[K", stderr);
	if (c->sig)
		fprintf(stderr, "%s: interrupted by signal %d in %s; the machine is restored\n",
			program, c->sig, c->label);
	else if (!c->why[0]) /* the library's: applying or restoring the change */
		fprintf(stderr, "%s: %s (CMD's output: %s)\n", program,
			r == -ECANCELED ? "aborted" : perftune_ctx_last_error(c->ctx), c->log);
	else if (first && c->metric && strstr(c->why, "--metric"))
		fprintf(stderr, "%s: %s (the first run; see %s); nothing was changed\n", program,
			c->why, c->log);
	else
		fprintf(stderr, "%s: %s; the machine is restored (CMD's output: %s)\n", program,
			c->why, c->log);
	return EXIT_FAIL;
}

static int setup_signals(struct compare *c)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &c->orig) < 0)
		return -errno;
	c->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return c->sigfd < 0 ? -errno : 0;
}

int compare_run(struct compare *c)
{
	int r;

	for (int s = 0; s < 2; s++) {
		c->s[s] = calloc(c->rounds, sizeof(struct run_sample));
		if (!c->s[s])
			return lib_error(NULL, -ENOMEM, "compare");
	}
	if ((r = setup_signals(c)) < 0)
		return lib_error(NULL, r, "signalfd");
	c->started = now_s();
	r = perftune_experiment_run(c->exp, measure, c);
	if (r < 0)
		return stop(c, r, c->index == 0);
	if (c->progress)
		fputs("\r\033[K", stderr);
	sigprocmask(SIG_SETMASK, &c->orig, NULL);
	return 0;
}
