// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Benchmark driver for tests/bench/run (never a pass/fail on timing).
 *
 *   ptbench floor ROUNDS PATH=VALUE...     the raw floor: per tunable, serially, read
 *                                          the original, write, read back; then
 *                                          write each original back and read it back
 *   ptbench jfloor ROUNDS JDIR PATH=VALUE...
 *                                          the floor plus the file operations of a
 *                                          crash-safe journal in JDIR (no library)
 *   ptbench pfloor ROUNDS PATH=VALUE...    the floor with one thread per file (for
 *                                          different devices): how far the kernel
 *                                          itself lets switches overlap
 *   ptbench put PATH=VALUE...              one step of the floor, untimed (to be run as
 *                                          a process by exec): read, write, read back
 *   ptbench get PATH                       the value as the floor reads it
 *   ptbench true                           exits 0 at once: the empty C program, the
 *                                          floor of a process start (as ptfloor: libc only)
 *   ptbench lib ROUNDS [--root DIR] KEY=VALUE...
 *                                          libperftune in-process: tx_new, set, commit
 *                                          (apply); tx_rollback (restore); its line
 *                                          starts with "stage MED MIN MAX" (tx_new +
 *                                          tx_set, a part of apply)
 *   ptbench orphans ROUNDS ROOT JDIR NKEYS
 *                                          restore --orphans of a journal of NKEYS
 *                                          sysctls in the fake tree ROOT (made here);
 *                                          $PTBENCH_ORPHAN_BLOCK: two keys a disk of
 *                                          NKEYS/2 fake disks (mkfake) instead
 *   ptbench exec ROUNDS APPLY... -- RESTORE...
 *                                          two processes per round (CLI, TuneD)
 *   ptbench load ROUNDS LOADER LIB         LOADER LIB per round: a fresh process not
 *                                          linked with the library times dlopen(LIB)
 *                                          (LOADER is this file built with -DPTBENCH_LOADER)
 *   ptbench mkfake DIR NDEV                NDEV more disks (fake0...) in a fake machine,
 *                                          laid out as tests/unit/mkroot.sh does
 *   ptbench loopdel N...                   LOOP_CTL_REMOVE loop devices (ours, detached)
 *
 * A PATH of the form sched:PID is no file but the CPU affinity of process PID (one
 * thread, as the `sleep` the bench starts): sched_getaffinity() read as a CPU list
 * ("0-1"), sched_setaffinity() written from one, so that the floor does what
 * proc.PID.cpus does without the library.
 *
 * Built with -DPTBENCH_NOLIB (without libperftune): every mode but lib, so that the
 * floor's processes load no library.  With -DPTBENCH_LOADER: only the dlopen timer.
 *
 * Timing modes print one line: "apply MED MIN MAX restore MED MIN MAX total MED MIN MAX
 * retries N" in microseconds over ROUNDS rounds (after $PTBENCH_WARMUP warm-up rounds,
 * default 1).  A restore that fails (the kernel can answer EAGAIN while many queues switch
 * at once) is retried up to 5 times and counted in "retries", its message on stderr; any
 * other failure exits 1 with a message.  Every mode leaves the values as it found them.
 */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if !defined(PTBENCH_NOLIB) && !defined(PTBENCH_LOADER)
#include "perftune.h"
#endif

#define VAL_MAX 4096

extern char **environ;

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "ptbench: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

#ifndef PTBENCH_LOADER
static int warmup = 1;	/* $PTBENCH_WARMUP rounds first, not counted */
static int retries;	/* failed restores (or EAGAIN reads of the floor) tried again */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void stats(const char *name, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	printf("%s %.1f %.1f %.1f ", name, n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0],
	       v[n - 1]);
}

static void report(double *apply, double *restore, int n)
{
	double *tot = malloc(sizeof(double) * (size_t)n);

	for (int i = 0; i < n; i++)
		tot[i] = apply[i] + restore[i];
	stats("apply", apply, n);
	stats("restore", restore, n);
	stats("total", tot, n);
	printf("retries %d\n", retries);
	free(tot);
}

/* ---- the floor: no library, just the file operations ---- */

/* sched:PID, the affinity of one process as a CPU list: "0-3,6" */
static int sched_pid(const char *path)
{
	return strncmp(path, "sched:", 6) ? 0 : atoi(path + 6);
}

static void sched_rd(const char *path, char *buf)
{
	cpu_set_t set;
	size_t len = 0;

	if (sched_getaffinity(sched_pid(path), sizeof(set), &set) < 0)
		die("read %s: %s", path, strerror(errno));
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;
		if (!CPU_ISSET(c, &set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
			e++;
		len += (size_t)snprintf(buf + len, VAL_MAX - len, e > c ? "%s%d-%d" : "%s%d",
					len ? "," : "", c, e);
		c = e;
	}
}

static void sched_wr(const char *path, const char *value)
{
	cpu_set_t set;
	const char *s = value;

	CPU_ZERO(&set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == s || a < 0 || b >= CPU_SETSIZE || (*end && *end != ','))
			die("%s: not a CPU list: %s", path, value);
		for (long c = a; c <= b; c++)
			CPU_SET(c, &set);
		s = *end ? end + 1 : end;
	}
	if (sched_setaffinity(sched_pid(path), sizeof(set), &set) < 0)
		die("write %s: %s", path, strerror(errno));
}

static void rd(const char *path, char *buf)
{
	if (sched_pid(path)) {
		sched_rd(path, buf);
		return;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, VAL_MAX - 1) : -1;

	for (int i = 0; fd >= 0 && n < 0 && errno == EAGAIN && i < 5; i++) {
		__atomic_add_fetch(&retries, 1, __ATOMIC_RELAXED); /* pfloor: from threads */
		usleep(1000);
		n = read(fd, buf, VAL_MAX - 1);
	}
	if (fd < 0 || n < 0)
		die("read %s: %s", path, strerror(errno));
	close(fd);
	buf[n] = '\0';
	/* the current choice of a selection file, else the text without its newline */
	char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;
	if (l && r) {
		memmove(buf, l + 1, (size_t)(r - l - 1));
		n = r - l - 1;
		buf[n] = '\0';
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
}

static void wr(const char *path, const char *value)
{
	if (sched_pid(path)) {
		sched_wr(path, value);
		return;
	}
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);

	if (fd < 0 || write(fd, value, len) != (ssize_t)len)
		die("write %s: %s", path, strerror(errno));
	close(fd);
}

static void set_checked(const char *path, const char *value)
{
	char back[VAL_MAX];

	wr(path, value);
	rd(path, back);
	if (strcmp(back, value))
		die("%s reads back '%s'", path, back);
}

/* PATH=VALUE arguments: the paths (copies) and the values (in place) */
static void split_pv(int n, char **pv, char **path, char **val)
{
	for (int i = 0; i < n; i++) {
		char *eq = strchr(pv[i], '=');
		if (!eq)
			die("expected PATH=VALUE, got %s%s", pv[i], "");
		path[i] = strndup(pv[i], (size_t)(eq - pv[i]));
		val[i] = eq + 1;
	}
}

static int floor_mode(int rounds, int n, char **pv)
{
	char **path = calloc((size_t)n, sizeof(char *)), **val = calloc((size_t)n, sizeof(char *));
	char (*orig)[VAL_MAX] = calloc((size_t)n, VAL_MAX);
	double *ap = calloc((size_t)rounds, sizeof(double)), *rs = calloc((size_t)rounds, sizeof(double));

	split_pv(n, pv, path, val);
	for (int r = -warmup; r < rounds; r++) {
		double t0 = now_us(), t1;
		for (int i = 0; i < n; i++) {
			rd(path[i], orig[i]);
			set_checked(path[i], val[i]);
		}
		t1 = now_us();
		for (int i = n - 1; i >= 0; i--)
			set_checked(path[i], orig[i]);
		if (r >= 0) {
			ap[r] = t1 - t0;
			rs[r] = now_us() - t1;
		}
	}
	report(ap, rs, rounds);
	return 0;
}

/*
 * ---- the floor with a journal: the floor plus the file operations of a
 * crash-safe journal of libperftune's format, still no library: take the
 * lock (dir, .lock, flock); create the journal whole (O_TMPFILE, header,
 * linkat); per tunable an "orig" record before the write and a "wrote"
 * record after the read-back; "commit".  The restore: the lock, the journal
 * read, each original written back and read back, the "restored" records in
 * one write, the journal unlinked.  What any tool keeping originals that
 * survive a crash pays at least.
 */

static void jput(int fd, const char *line)
{
	size_t len = strlen(line);

	if (write(fd, line, len) != (ssize_t)len)
		die("journal write: %s%s", strerror(errno), "");
}

static int jlock(const char *jdir, int *dfd)
{
	int lfd;

	*dfd = open(jdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	lfd = *dfd >= 0 ? openat(*dfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)
			: -1;
	if (lfd < 0 || flock(lfd, LOCK_EX) < 0)
		die("journal lock in %s: %s", jdir, strerror(errno));
	return lfd;
}

static int jfloor_mode(int rounds, const char *jdir, int n, char **pv)
{
	char **path = calloc((size_t)n, sizeof(char *)), **val = calloc((size_t)n, sizeof(char *));
	char (*orig)[VAL_MAX] = calloc((size_t)n, VAL_MAX), line[2 * VAL_MAX], jbuf[65536];
	double *ap = calloc((size_t)rounds, sizeof(double)), *rs = calloc((size_t)rounds, sizeof(double));
	const char *hdr = "perftune-journal 1\nname jfloor\nboot 00000000-0000-0000-0000-000000000000\n"
			  "flags 0\npid 1 1\n";

	split_pv(n, pv, path, val);
	for (int r = -warmup; r < rounds; r++) {
		double t0 = now_us(), t1;
		int dfd, lfd = jlock(jdir, &dfd), jfd;
		size_t len = 0;
		jfd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_APPEND | O_CLOEXEC, 0600);
		if (jfd < 0 || fchmod(jfd, 0600) < 0)
			die("journal in %s: %s", jdir, strerror(errno));
		jput(jfd, hdr);
		if (linkat(jfd, "", dfd, "jfloor.journal", AT_EMPTY_PATH) < 0)
			die("journal link in %s: %s", jdir, strerror(errno));
		for (int i = 0; i < n; i++) {
			rd(path[i], orig[i]);
			snprintf(line, sizeof(line), "orig %d %s\t%s\n", i, path[i], orig[i]);
			jput(jfd, line);
			set_checked(path[i], val[i]);
			snprintf(line, sizeof(line), "wrote %s\t%s\n", path[i], val[i]);
			jput(jfd, line);
		}
		jput(jfd, "commit\npid 0 0\n");
		close(jfd);
		close(lfd);
		close(dfd);
		t1 = now_us();
		lfd = jlock(jdir, &dfd);
		jfd = openat(dfd, "jfloor.journal", O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		if (jfd < 0 || read(jfd, jbuf, sizeof(jbuf)) <= 0)
			die("journal read in %s: %s", jdir, strerror(errno));
		for (int i = n - 1; i >= 0; i--) {
			set_checked(path[i], orig[i]);
			len += (size_t)snprintf(jbuf + len, sizeof(jbuf) - len, "restored %s\n", path[i]);
		}
		jput(jfd, jbuf);
		if (unlinkat(dfd, "jfloor.journal", 0) < 0)
			die("journal unlink in %s: %s", jdir, strerror(errno));
		close(jfd);
		close(lfd);
		close(dfd);
		if (r >= 0) {
			ap[r] = t1 - t0;
			rs[r] = now_us() - t1;
		}
	}
	report(ap, rs, rounds);
	return 0;
}

/* ---- the parallel floor: one thread per file, no library ---- */

struct pjob {
	const char *path, *val;
	char orig[VAL_MAX];
	int restore;
};

static void *pjob_run(void *arg)
{
	struct pjob *j = arg;

	if (j->restore) {
		set_checked(j->path, j->orig);
	} else {
		rd(j->path, j->orig);
		set_checked(j->path, j->val);
	}
	return NULL;
}

static void pfan(struct pjob *j, int n, int restore)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));

	for (int i = 0; i < n; i++) {
		j[i].restore = restore;
		if (pthread_create(&t[i], NULL, pjob_run, &j[i]) != 0)
			die("pthread_create: %s%s", strerror(errno), "");
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
}

static int pfloor_mode(int rounds, int n, char **pv)
{
	struct pjob *j = calloc((size_t)n, sizeof(*j));
	double *ap = calloc((size_t)rounds, sizeof(double)), *rs = calloc((size_t)rounds, sizeof(double));

	for (int i = 0; i < n; i++) {
		char *eq = strchr(pv[i], '=');
		if (!eq)
			die("expected PATH=VALUE, got %s%s", pv[i], "");
		j[i].path = strndup(pv[i], (size_t)(eq - pv[i]));
		j[i].val = eq + 1;
	}
	for (int r = -warmup; r < rounds; r++) {
		double t0 = now_us(), t1;
		pfan(j, n, 0);
		t1 = now_us();
		pfan(j, n, 1);
		if (r >= 0) {
			ap[r] = t1 - t0;
			rs[r] = now_us() - t1;
		}
	}
	report(ap, rs, rounds);
	return 0;
}

/* one step of the floor as its own process: per PATH=VALUE in order, read, write, read back */
static int put_mode(int n, char **pv)
{
	char orig[VAL_MAX];

	for (int i = 0; i < n; i++) {
		char *eq = strchr(pv[i], '=');
		if (!eq)
			die("expected PATH=VALUE, got %s%s", pv[i], "");
		*eq = '\0';
		rd(pv[i], orig);
		set_checked(pv[i], eq + 1);
		*eq = '=';
	}
	return 0;
}

static void put(const char *path, const char *text);
static int mkfake(const char *root, int ndev);

/* ---- the library in-process ---- */

#ifndef PTBENCH_NOLIB

static int lib_mode(int rounds, const char *root, int n, char **kv)
{
	struct perftune_ctx *ctx;
	double *ap = calloc((size_t)rounds, sizeof(double)), *rs = calloc((size_t)rounds, sizeof(double));
	double *st = calloc((size_t)rounds, sizeof(double));

	if (perftune_ctx_new(&ctx) < 0 || (root && perftune_ctx_set_root(ctx, root) < 0))
		die("context: %s%s", root ? root : "/", "");
	for (int r = -warmup; r < rounds; r++) {
		struct perftune_tx *tx;
		double t0 = now_us(), t1;
		int rc = perftune_tx_new(ctx, "ptbench", 0, &tx);
		for (int i = 0; i < n && rc >= 0; i++) {
			char *eq = strchr(kv[i], '=');
			if (!eq)
				die("expected KEY=VALUE, got %s%s", kv[i], "");
			*eq = '\0';
			rc = perftune_tx_set(tx, kv[i], eq + 1);
			*eq = '=';
		}
		double ts = now_us();
		if (rc >= 0)
			rc = perftune_tx_commit(tx);
		if (rc < 0 && retries < 5) { /* rolled back: the round again */
			fprintf(stderr, "ptbench: apply: %s (%s); the round again\n",
				perftune_ctx_last_error(ctx), strerror(-rc));
			retries++;
			perftune_tx_unref(tx);
			usleep(10000);
			r--;
			continue;
		}
		if (rc < 0)
			die("apply: %s (%s)", perftune_ctx_last_error(ctx), strerror(-rc));
		t1 = now_us();
		rc = perftune_tx_rollback(tx);
		for (int i = 0; rc < 0 && i < 5; i++) { /* the journal is kept: restore it */
			fprintf(stderr, "ptbench: rollback: %s (%s); restoring again\n",
				perftune_ctx_last_error(ctx), strerror(-rc));
			retries++;
			usleep(10000);
			rc = perftune_restore(ctx, "ptbench", PERFTUNE_RESTORE_FORCE);
		}
		if (rc < 0)
			die("rollback: %s (%s)", perftune_ctx_last_error(ctx), strerror(-rc));
		perftune_tx_unref(tx);
		if (r >= 0) {
			ap[r] = t1 - t0;
			rs[r] = now_us() - t1;
			st[r] = ts - t0;
		}
	}
	perftune_ctx_unref(ctx);
	stats("stage", st, rounds); /* tx_new + tx_set: resolve, validate, read */
	report(ap, rs, rounds);
	return 0;
}

/*
 * restore --orphans of one orphaned journal of NKEYS sysctls (proc/sys/many/kN
 * of the fake tree ROOT, made here), journals in JDIR: each round sets every
 * value and writes the journal (untimed), then times perftune_restore().
 * Linear means 4 times the keys take about 4 times as long.
 */
static void orphan_round(const char *root, const char *jdir, int nkeys, bool block)
{
	char p[4096], v[32];
	size_t cap = (size_t)nkeys * 96 + 256, len;
	char *j = malloc(cap);
	int fd;

	if (!j)
		die("out of memory%s%s", "", "");
	char boot[64] = "";

	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, boot, sizeof(boot) - 1) <= 0)
		die("boot id: %s%s", strerror(errno), "");
	close(fd);
	boot[strcspn(boot, "\n")] = '\0';
	len = (size_t)snprintf(j, cap, "perftune-journal 1\nname orphan\nboot %s\nflags 0\n"
				       "pid 4194303 1\n", boot);
	for (int i = 0; i < nkeys; i++) {
		if (block) { /* two keys a disk: read_ahead_kb 128 -> 256, nr_requests 64 -> 128 */
			const char *attr = i % 2 ? "nr_requests" : "read_ahead_kb";
			int was = i % 2 ? 64 : 128;
			snprintf(p, sizeof(p), "%s/sys/devices/virtual/block/fake%d/queue/%s", root,
				 i / 2, attr);
			snprintf(v, sizeof(v), "%d\n", was * 2);
			put(p, v);
			len += (size_t)snprintf(j + len, cap - len,
						"orig %d block.fake%d.%s\t%d\nwrote block.fake%d.%s\t%d\n",
						i + 1, i / 2, attr, was, i / 2, attr, was * 2);
			continue;
		}
		snprintf(p, sizeof(p), "%s/proc/sys/many/k%d", root, i);
		snprintf(v, sizeof(v), "%d\n", i + 1000000);
		put(p, v);
		len += (size_t)snprintf(j + len, cap - len,
					"orig %d sysctl.many.k%d\t%d\nwrote sysctl.many.k%d\t%d\n", i + 1,
					i, i, i, i + 1000000);
	}
	snprintf(p, sizeof(p), "%s/orphan.journal", jdir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, j, len) != (ssize_t)len)
		die("write %s: %s", p, strerror(errno));
	close(fd);
	free(j);
}

static int orphans_mode(int rounds, const char *root, const char *jdir, int nkeys)
{
	struct perftune_ctx *ctx;
	double *t = calloc((size_t)rounds, sizeof(double));

	bool block = getenv("PTBENCH_ORPHAN_BLOCK") != NULL; /* disks of a mkfake tree instead */

	mkdir(root, 0755);
	mkdir(jdir, 0700);
	if (block)
		mkfake(root, (nkeys + 1) / 2);
	if (perftune_ctx_new(&ctx) < 0 || perftune_ctx_set_root(ctx, root) < 0 ||
	    perftune_ctx_set_journal_dir(ctx, jdir) < 0)
		die("context: %s%s", root, "");
	for (int r = -warmup; r < rounds; r++) {
		double t0;
		int rc;
		orphan_round(root, jdir, nkeys, block);
		t0 = now_us();
		rc = perftune_restore(ctx, NULL, PERFTUNE_RESTORE_ORPHANS);
		if (rc != nkeys)
			die("restore --orphans: %s (%s)", perftune_ctx_last_error(ctx),
			    rc < 0 ? strerror(-rc) : "not every key written");
		if (r >= 0)
			t[r] = now_us() - t0;
	}
	perftune_ctx_unref(ctx);
	stats("restore", t, rounds);
	printf("keys %d\n", nkeys);
	free(t);
	return 0;
}
#endif

/* ---- processes ---- */

static int run1(char **argv) /* its stdout to /dev/null, its stderr kept */
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0)
		die("cannot run %s: %s", argv[0], strerror(errno));
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return 0;
}

static void run_restore(char **argv)
{
	for (int i = 0; run1(argv) < 0; i++) {
		if (i == 5)
			die("%s %s failed 6 times", argv[0], argv[1] ? argv[1] : "");
		fprintf(stderr, "ptbench: %s failed; running it again\n", argv[0]);
		retries++;
		usleep(10000);
	}
}

static int exec_mode(int rounds, int argc, char **argv)
{
	char **restore = NULL;
	double *ap = calloc((size_t)rounds, sizeof(double)), *rs = calloc((size_t)rounds, sizeof(double));

	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			argv[i] = NULL;
			restore = &argv[i + 1];
		}
	if (!restore || !restore[0])
		die("exec: APPLY... -- RESTORE...%s%s", "", "");
	for (int r = -warmup; r < rounds; r++) {
		double t0 = now_us(), t1;
		if (run1(argv) < 0) { /* the CLI rolled back: the round again */
			if (retries >= 5)
				die("%s %s failed", argv[0], argv[1] ? argv[1] : "");
			fprintf(stderr, "ptbench: %s failed; the round again\n", argv[0]);
			retries++;
			run1(restore); /* in case it left a journal */
			usleep(10000);
			r--;
			continue;
		}
		t1 = now_us();
		run_restore(restore);
		if (r >= 0) {
			ap[r] = t1 - t0;
			rs[r] = now_us() - t1;
		}
	}
	report(ap, rs, rounds);
	return 0;
}

static int load_mode(int rounds, const char *loader, const char *lib)
{
	double *v = calloc((size_t)rounds, sizeof(double));

	for (int r = -warmup; r < rounds; r++) {
		int fd[2], st;
		pid_t pid;
		char buf[64] = "";
		char *argv[] = { (char *)loader, (char *)lib, NULL };
		posix_spawn_file_actions_t fa;

		if (pipe(fd) < 0)
			die("pipe: %s%s", strerror(errno), "");
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
		if (posix_spawn(&pid, loader, &fa, NULL, argv, environ) != 0)
			die("spawn %s%s", loader, "");
		close(fd[1]);
		if (read(fd[0], buf, sizeof(buf) - 1) <= 0 || waitpid(pid, &st, 0) != pid || st)
			die("%s %s failed", loader, lib);
		close(fd[0]);
		posix_spawn_file_actions_destroy(&fa);
		if (r >= 0)
			v[r] = atof(buf);
	}
	stats("load", v, rounds);
	putchar('\n');
	return 0;
}


/* ---- a fake machine with many disks, as tests/unit/mkroot.sh lays them out ---- */

static void mkparents(const char *path)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
}

static void put(const char *path, const char *text)
{
	int fd;

	mkparents(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("create %s: %s", path, strerror(errno));
	close(fd);
}

static int mkfake(const char *root, int ndev)
{
	char p[4096], t[4096];

	for (int i = 0; i < ndev; i++) {
		const char *f[][2] = { { "scheduler", "[none] mq-deadline kyber bfq\n" },
				       { "read_ahead_kb", "128\n" },
				       { "nr_requests", "64\n" },
				       { "rotational", "0\n" } };
		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
			snprintf(p, sizeof(p), "%s/sys/devices/virtual/block/fake%d/queue/%s", root, i,
				 f[k][0]);
			put(p, f[k][1]);
		}
		snprintf(p, sizeof(p), "%s/sys/devices/virtual/block/fake%d/dev", root, i);
		snprintf(t, sizeof(t), "254:%d\n", i);
		put(p, t);
		snprintf(p, sizeof(p), "%s/sys/block/fake%d", root, i);
		snprintf(t, sizeof(t), "../devices/virtual/block/fake%d", i);
		mkparents(p);
		if (symlink(t, p) < 0 && errno != EEXIST)
			die("symlink %s: %s", p, strerror(errno));
	}
	snprintf(p, sizeof(p), "%s/proc/sys/vm/swappiness", root);
	put(p, "60\n");
	snprintf(p, sizeof(p), "%s/proc/sys/kernel/random/boot_id", root);
	put(p, "00000000-0000-0000-0000-000000000001\n");
	snprintf(p, sizeof(p), "%s/dev/null", root);
	put(p, "");
	return 0;
}

static int loopdel(int n, char **nums)
{
	int fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC), rc = 0;

	if (fd < 0)
		die("/dev/loop-control: %s%s", strerror(errno), "");
	for (int i = 0; i < n; i++)
		if (ioctl(fd, LOOP_CTL_REMOVE, atoi(nums[i])) < 0) {
			fprintf(stderr, "ptbench: remove loop%s: %s\n", nums[i], strerror(errno));
			rc = 1;
		}
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 0;
	const char *w = getenv("PTBENCH_WARMUP");

	if (w && *w)
		warmup = atoi(w);

	if (argc == 2 && !strcmp(argv[1], "true"))
		return 0;
	if (argc < 3)
		die("usage: ptbench floor|jfloor|pfloor|put|get|true|lib|exec|load|mkfake|loopdel ...%s%s",
		    "", "");
	if (!strcmp(argv[1], "get") && argc == 3) {
		char v[VAL_MAX];
		rd(argv[2], v);
		puts(v);
		return 0;
	}
	if (!strcmp(argv[1], "mkfake") && argc == 4)
		return mkfake(argv[2], atoi(argv[3]));
	if (!strcmp(argv[1], "loopdel"))
		return loopdel(argc - 2, argv + 2);
	if (!strcmp(argv[1], "put"))
		return put_mode(argc - 2, argv + 2);
	if (rounds < 1)
		die("ROUNDS must be >= 1, got %s%s", argv[2], "");
	if (!strcmp(argv[1], "floor"))
		return floor_mode(rounds, argc - 3, argv + 3);
	if (!strcmp(argv[1], "jfloor") && argc > 3)
		return jfloor_mode(rounds, argv[3], argc - 4, argv + 4);
	if (!strcmp(argv[1], "pfloor"))
		return pfloor_mode(rounds, argc - 3, argv + 3);
#ifndef PTBENCH_NOLIB
	if (!strcmp(argv[1], "lib")) {
		if (argc > 4 && !strcmp(argv[3], "--root"))
			return lib_mode(rounds, argv[4], argc - 5, argv + 5);
		return lib_mode(rounds, NULL, argc - 3, argv + 3);
	}
	if (!strcmp(argv[1], "orphans") && argc == 6)
		return orphans_mode(rounds, argv[3], argv[4], atoi(argv[5]));
#endif
	if (!strcmp(argv[1], "exec"))
		return exec_mode(rounds, argc - 3, argv + 3);
	if (!strcmp(argv[1], "load") && argc == 5)
		return load_mode(rounds, argv[3], argv[4]);
	die("unknown mode %s%s", argv[1], "");
}
#else
static int load1(const char *lib)
{
	double t0 = now_us();
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		die("dlopen: %s%s", dlerror(), "");
	printf("%.1f\n", now_us() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	return argc == 2 ? load1(argv[1]) : 2;
}
#endif
