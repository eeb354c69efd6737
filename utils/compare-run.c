// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune compare: run CMD in the baseline and the tuned state, round by round.
 *
 * The tuned state exists only while a tuned run is on: each tuned run commits
 * the change as a HOLD transaction just before CMD starts and rolls it back as
 * soon as CMD has exited (both outside the measured time).  So a baseline run
 * always sees the machine as it was, an interrupted experiment has at most one
 * run's worth of change to give back, and a kill -9 of perftune leaves a
 * journal whose holder is gone: `status` shows it orphaned and `restore
 * --orphans` gives it back.  CMD gets SIGKILL if perftune dies (PDEATHSIG). */
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

static const char *const state_name[] = { "baseline", "tuned" };

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

int compare_stage(struct compare *c, struct perftune_tx *tx)
{
	if (c->prof)
		return perftune_profile_stage(c->prof, tx, PERFTUNE_PROFILE_HOLD);
	for (int i = 0; i < c->nkeys; i++) {
		char *key = strdup(c->keys[i]), *eq;
		int r;
		if (!key)
			return -ENOMEM;
		eq = setting_eq(key);
		*eq = '\0';
		r = perftune_tx_set(tx, key, eq + 1);
		free(key);
		if (r < 0)
			return r;
	}
	return 0;
}

/* "round 3 (tuned run)", "warmup 1 (baseline run)" */
static void run_label(char *buf, size_t size, unsigned round, unsigned warm, int state)
{
	snprintf(buf, size, "%s %u (%s run)", round ? "round" : "warmup", round ? round : warm,
		 state_name[state]);
}

static void progress(struct compare *c, unsigned round, unsigned warm, unsigned done, unsigned total)
{
	double el = now_s() - c->started;
	long eta = done ? lround(el / done * (total - done)) : -1;
	char what[64], when[32] = "ETA ...";

	if (!c->progress)
		return;
	if (round)
		snprintf(what, sizeof(what), "round %u/%u", round, c->rounds);
	else
		snprintf(what, sizeof(what), "warmup %u/%u", warm, c->warmup);
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

struct one_run {
	unsigned round, warm; /* round 0: warmup run number @warm */
	int state;
	struct run_sample out;
	char label[64], why[256];
	int sig; /* the signal that interrupted it */
};

static int apply_change(struct compare *c, struct perftune_tx **txp, struct one_run *run)
{
	int r = perftune_tx_new(c->ctx, c->txname, PERFTUNE_TX_HOLD, txp);

	if (r >= 0)
		r = compare_stage(c, *txp);
	if (r >= 0)
		r = perftune_tx_commit(*txp);
	if (r < 0) {
		snprintf(run->why, sizeof(run->why), "cannot apply the change before %s: %s",
			 run->label, perftune_ctx_last_error(c->ctx));
		perftune_tx_unref(*txp);
		*txp = NULL;
	}
	return r;
}

static int give_back(struct compare *c, struct perftune_tx *tx)
{
	int r;

	if (!tx)
		return 0;
	r = perftune_tx_rollback(tx);
	if (r < 0)
		fprintf(stderr, "%s: cannot restore transaction '%s': %s; run '%s restore %s'\n",
			program, c->txname, perftune_ctx_last_error(c->ctx), program, c->txname);
	perftune_tx_release(tx);
	perftune_tx_unref(tx);
	return r;
}

/* one run of CMD; -1 with run->why (or run->sig) set when the experiment must stop */
static int run_once(struct compare *c, struct one_run *run, const sigset_t *orig)
{
	struct perftune_tx *tx = NULL;
	struct rusage ru;
	int outfd = c->logfd, status = 0, r, metric = 0;
	double t0;
	pid_t pid, parent = getpid();
	char why[200];

	run_label(run->label, sizeof(run->label), run->round, run->warm, run->state);
	dprintf(c->logfd, "=== %s ===\n", run->label);
	if (c->metric && (outfd = memfd_create("perftune-compare-stdout", MFD_CLOEXEC)) < 0) {
		snprintf(run->why, sizeof(run->why), "memfd_create: %s", strerror(errno));
		return -1;
	}
	if (run->state == TUNED && apply_change(c, &tx, run) < 0)
		goto fail;
	pid = fork();
	/* the clock starts in the parent once fork() returns: the copy of
	 * perftune's page tables is perftune's cost, not CMD's */
	t0 = now_s();
	if (pid == 0)
		child(c, outfd, orig, parent);
	if (pid < 0) {
		snprintf(run->why, sizeof(run->why), "fork: %s", strerror(errno));
		goto fail;
	}
	setpgid(pid, pid);
	r = wait_child(c, pid, &status, &ru, &run->sig);
	run->out.wall = now_s() - t0;
	if (give_back(c, tx) < 0 && !run->sig) {
		snprintf(run->why, sizeof(run->why), "the restore after %s failed", run->label);
		tx = NULL;
		goto fail;
	}
	tx = NULL;
	if (run->sig || r < 0)
		goto fail;
	run->out.user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	run->out.sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	run->out.value = run->out.wall;
	if (c->metric) /* into the log whatever CMD's exit */
		metric = collect_stdout(c, outfd, &run->out.value, why, sizeof(why));
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFEXITED(status))
			snprintf(run->why, sizeof(run->why), "CMD failed in %s: exit status %d",
				 run->label, WEXITSTATUS(status));
		else
			snprintf(run->why, sizeof(run->why),
				 "CMD failed in %s: killed by signal %d", run->label,
				 WTERMSIG(status));
		goto fail;
	}
	if (metric < 0) {
		snprintf(run->why, sizeof(run->why), "%s of %s", why, run->label);
		goto fail;
	}
	if (outfd != c->logfd)
		close(outfd);
	return 0;
fail:
	give_back(c, tx);
	if (outfd != c->logfd)
		close(outfd);
	return -1;
}

static int record(struct compare *c, const struct one_run *run)
{
	struct compare_state *s = &c->st[run->state];

	s->s[s->n++] = run->out;
	return 0;
}

/* the states in run order for round @i (1-based): ABBA, or a seeded coin per
 * round; the first run of all is a baseline run either way, so that a
 * --metric that never matches is found before anything was changed */
static void round_order(struct compare *c, unsigned i, uint64_t *rng, int order[2])
{
	bool tuned_first;

	if (c->random_order)
		tuned_first = stats_uniform(rng) < 0.5 && !(i == 1 && !c->warmup);
	else
		tuned_first = i % 2 == 0;
	order[0] = tuned_first ? TUNED : BASELINE;
	order[1] = !order[0];
}

static int stop(struct compare *c, const struct one_run *run, bool first)
{
	if (c->progress)
		fputs("\r\033[K", stderr);
	if (run->sig)
		fprintf(stderr, "%s: interrupted by signal %d in %s; the machine is restored\n",
			program, run->sig, run->label);
	else if (first && c->metric && strstr(run->why, "--metric"))
		fprintf(stderr, "%s: %s (the first run; see %s); nothing was changed\n", program,
			run->why, c->log);
	else
		fprintf(stderr, "%s: %s; the machine is restored (CMD's output: %s)\n", program,
			run->why, c->log);
	return EXIT_FAIL;
}

static int setup_signals(struct compare *c, sigset_t *orig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, orig) < 0)
		return -errno;
	c->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return c->sigfd < 0 ? -errno : 0;
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

int compare_run(struct compare *c)
{
	unsigned total = 2 * (c->warmup + c->rounds), done = 0;
	uint64_t rng = c->seed ^ 0x6f72646572ULL;
	sigset_t orig;
	bool first = true;
	int r;

	for (int s = 0; s < 2; s++) {
		c->st[s].s = calloc(c->rounds, sizeof(struct run_sample));
		if (!c->st[s].s)
			return lib_error(NULL, -ENOMEM, "compare");
	}
	if ((r = setup_signals(c, &orig)) < 0)
		return lib_error(NULL, r, "signalfd");
	c->started = now_s();
	for (unsigned i = 0; i < c->warmup + c->rounds; i++) {
		unsigned round = i < c->warmup ? 0 : i - c->warmup + 1;
		int order[2] = { BASELINE, TUNED };
		if (round)
			round_order(c, round, &rng, order);
		for (int k = 0; k < 2; k++) {
			struct one_run run = { .round = round, .warm = i + 1, .state = order[k] };
			progress(c, round, i + 1, done, total);
			run.sig = pending_signal(c);
			if (run.sig) {
				run_label(run.label, sizeof(run.label), round, i + 1, order[k]);
				return stop(c, &run, first);
			}
			if (run_once(c, &run, &orig) < 0)
				return stop(c, &run, first);
			first = false;
			if (round)
				record(c, &run);
			done++;
		}
	}
	if (c->progress)
		fputs("\r\033[K", stderr);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return 0;
}
