// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static char base_root[PATH_MAX]; /* the pristine tree, built once */

/*
 * Where the fake trees go: $TMPDIR if set, else /tmp.  Each test copies a tree
 * of ~500 files and removes it; on a disk-backed /tmp that is most of a
 * test's time, so run as root harness_main() gives the tests a tmpfs of
 * their own (private_tmpfs()) and points $TMPDIR at it.  (Not /dev/shm:
 * umockdev takes every path below /dev for its own.)
 */
const char *fx_scratch_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/*
 * As root: a private mount namespace with a tmpfs on a new directory below
 * /tmp, seen by this process and its children only; it goes away with them
 * (the empty directory is removed at the end of harness_main()).  Anyone
 * else, or where that fails, keeps /tmp.
 */
static void private_tmpfs(void)
{
	static char dir[] = "/tmp/perftune-unit-tmpfs-XXXXXX";

	const char *no = getenv("PERFTUNE_TEST_NO_TMPFS");

	if (geteuid() != 0 || (no && *no))
		return;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return;
	if (!mkdtemp(dir))
		return;
	if (mount("perftune-unit", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=2g,mode=0700") < 0) {
		rmdir(dir);
		return;
	}
	setenv("TMPDIR", dir, 1);
	setenv("PERFTUNE_TEST_TMPFS", dir, 1);
}

static void private_tmpfs_end(void)
{
	const char *dir = getenv("PERFTUNE_TEST_TMPFS");

	if (dir && umount2(dir, MNT_DETACH) == 0)
		rmdir(dir);
}

static void run(const char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_ge(pid, 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s failed", argv[0]);
}

static int slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

static int spill(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* iosched parameters of each scheduler, recreated on a switch as the kernel does */
static void switch_iosched(const char *qdir, const char *sched)
{
	char dir[PATH_MAX], cmd[PATH_MAX + 32];
	static const char *const dl[] = { "read_expire", "500", "write_expire", "5000",
					  "fifo_batch", "16", "front_merges", "1", NULL };
	static const char *const bfq[] = { "slice_idle", "8", "low_latency", "1", NULL };
	static const char *const ky[] = { "read_lat_nsec", "2000000", NULL };
	const char *const *p = !strcmp(sched, "mq-deadline") ? dl : !strcmp(sched, "bfq") ? bfq
			       : !strcmp(sched, "kyber") ? ky : NULL;

	snprintf(dir, sizeof(dir), "%s/iosched", qdir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return;
	if (!p)
		return;
	mkdir(dir, 0755);
	for (; *p; p += 2) {
		char f[PATH_MAX];
		FILE *fp;
		snprintf(f, sizeof(f), "%s/%s", dir, p[0]);
		fp = fopen(f, "w");
		if (fp) {
			fprintf(fp, "%s\n", p[1]);
			fclose(fp);
		}
	}
}

static int sim_write_locked(struct perftune_ctx *ctx, const char *path, const char *buf,
			    size_t len, void *ud);

/*
 * An IRQ's affinity: EIO for a managed one (the fixture marks it), else the
 * list, and the effective affinity (one CPU of it, as x86 delivers).
 */
static int sim_irq(const char *full, const char *val)
{
	char dir[PATH_MAX], f[PATH_MAX + 32], out[PT_VAL];
	struct stat st;

	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(full, '/') - full), full);
	snprintf(f, sizeof(f), "%s/managed", dir);
	if (stat(f, &st) == 0)
		return -EIO;
	snprintf(out, sizeof(out), "%s\n", val);
	if (spill(full, out, strlen(out)) < 0)
		return -EIO;
	snprintf(f, sizeof(f), "%s/effective_affinity_list", dir);
	snprintf(out, sizeof(out), "%.*s\n", (int)strspn(val, "0123456789"), val);
	chmod(f, 0644);
	spill(f, out, strlen(out));
	chmod(f, 0444);
	return 0;
}

/* A kernel write is atomic to a process that dies: so is the simulated one. */
static int sim_write(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len,
		     void *ud)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	int r;

	pthread_mutex_lock(&lock);
	r = sim_write_locked(ctx, path, buf, len, ud);
	pthread_mutex_unlock(&lock);
	return r;
}

static int sim_write_locked(struct perftune_ctx *ctx, const char *path, const char *buf,
			    size_t len, void *ud)
{
	struct sim *s = ud;
	char full[PATH_MAX], raw[PT_VAL], val[PT_VAL], out[PT_VAL];
	long long v, cur;

	(void)ctx;
	if (s->busy > 0) {
		s->busy--;
		s->busy_seen++;
		return -EAGAIN;
	}
	s->writes++;
	if (s->crash_at == s->writes)
		_exit(99); /* died mid-commit: no cleanup, the journal stays */
	if (s->fault_at == s->writes)
		return -EIO;
	snprintf(full, sizeof(full), "%s/%s", s->root, path);
	if (!strcmp(path, "dev/cpu_dma_latency"))
		return spill(full, buf, len);
	if (len >= sizeof(val))
		return -EINVAL;
	memcpy(val, buf, len);
	val[len] = '\0';
	pt_trim(val);
	if (slurp(full, raw, sizeof(raw)) < 0)
		return -ENOENT;
	if (strstr(path, "/dm-0/queue/"))
		return 0; /* bio-based: the kernel takes the write and ignores it */
	if (!strncmp(path, "proc/irq/", 9) && strstr(path, "/smp_affinity_list"))
		return sim_irq(full, val);
	if (strstr(path, "default_smp_affinity") || strstr(path, "/cpumask")) {
		snprintf(out, sizeof(out), "%s\n", val); /* a hex mask, "1" or "f" */
		return spill(full, out, strlen(out));
	}
	if (pt_is_selection(raw)) { /* a selection file: move the brackets */
		char choices[PT_VAL], *save = NULL;
		size_t o = 0;
		if (!pt_choice_in(raw, val))
			return -EINVAL;
		pt_choices(raw, choices, sizeof(choices));
		for (char *t = strtok_r(choices, " ", &save); t; t = strtok_r(NULL, " ", &save))
			o += (size_t)snprintf(out + o, sizeof(out) - o, !strcmp(t, val) ? "[%s] " : "%s ",
					      t);
		out[o ? o - 1 : 0] = '\n';
		out[o] = '\0';
		if (strstr(path, "/queue/scheduler")) {
			char q[PATH_MAX];
			snprintf(q, sizeof(q), "%.*s", (int)(strrchr(full, '/') - full), full);
			switch_iosched(q, val);
		}
		return spill(full, out, strlen(out));
	}
	pt_normalize(raw);
	if (pt_parse_ll(raw, &cur) == 0 && pt_parse_ll(val, &v) < 0 && strcmp(val, "n/a"))
		return -EINVAL;
	if (strstr(path, "nr_hugepages") && s->hp_cap >= 0 && pt_parse_ll(val, &v) == 0 &&
	    v > s->hp_cap)
		snprintf(val, sizeof(val), "%ld", s->hp_cap); /* partial allocation */
	snprintf(out, sizeof(out), "%s\n", val);
	return spill(full, out, strlen(out));
}

void fx_setup(struct fx *f)
{
	char tmpl[PATH_MAX];
	const char *cp[] = { "cp", "-a", NULL, NULL, NULL };
	char src[PATH_MAX + 4];

	memset(f, 0, sizeof(*f));
	snprintf(tmpl, sizeof(tmpl), "%s/perftune-unit-XXXXXX", fx_scratch_dir());
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	snprintf(f->root, sizeof(f->root), "%s/root", tmpl);
	snprintf(src, sizeof(src), "%s/.", base_root);
	mkdir(f->root, 0755);
	cp[2] = src;
	cp[3] = f->root;
	run(cp);
	snprintf(f->jdir, sizeof(f->jdir), "%s/journal", tmpl);
	setenv("UMOCKDEV_DIR", f->root, 1); /* libudev, libcpupower read this tree */
	ck_assert_int_eq(perftune_ctx_new(&f->ctx), 0);
	ck_assert_int_eq(perftune_ctx_set_root(f->ctx, f->root), 0);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(f->ctx, f->jdir), 0);
	snprintf(f->sim.root, sizeof(f->sim.root), "%s", f->root);
	f->sim.hp_cap = -1;
	pt_attr_set_write_fn(f->ctx, sim_write, &f->sim);
}

void fx_teardown(struct fx *f)
{
	char top[PATH_MAX];
	const char *rm[] = { "rm", "-rf", top, NULL };

	perftune_ctx_unref(f->ctx);
	snprintf(top, sizeof(top), "%.*s", (int)(strrchr(f->root, '/') - f->root), f->root);
	run(rm);
}

const char *fx_read(struct fx *f, const char *rel)
{
	static char bufs[8][PT_VAL];
	static int slot;
	char full[PATH_MAX], *b = bufs[slot++ % 8];

	snprintf(full, sizeof(full), "%s/%s", f->root, rel);
	if (slurp(full, b, PT_VAL) < 0)
		return NULL;
	pt_trim(b);
	return b;
}

void fx_write(struct fx *f, const char *rel, const char *value)
{
	char full[PATH_MAX], buf[PT_VAL];

	snprintf(full, sizeof(full), "%s/%s", f->root, rel);
	snprintf(buf, sizeof(buf), "%s\n", value);
	ck_assert_int_eq(spill(full, buf, strlen(buf)), 0);
}

void fx_mkdirs(struct fx *f, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	for (char *c = p + strlen(f->root) + 1; (c = strchr(c, '/')); c++) {
		*c = '\0';
		mkdir(p, 0755);
		*c = '/';
	}
	mkdir(p, 0755);
}

void fx_put(struct fx *f, const char *rel, const char *value)
{
	char p[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "%s\n", value);
	fclose(fp);
}

int fx_journals(struct fx *f)
{
	DIR *d = opendir(f->jdir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strstr(de->d_name, ".journal") != NULL;
	if (d)
		closedir(d);
	return n;
}

/* ---- snapshots ---- */

struct snap {
	size_t n;
	char **path, **data;
};

static struct snap *cur_snap;
static size_t cur_skip;

static int snap_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char buf[PT_VAL];
	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || strstr(path + cur_skip, "/run/"))
		return 0;
	if (slurp(path, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	cur_snap->path = realloc(cur_snap->path, (cur_snap->n + 1) * sizeof(char *));
	cur_snap->data = realloc(cur_snap->data, (cur_snap->n + 1) * sizeof(char *));
	cur_snap->path[cur_snap->n] = strdup(path + cur_skip);
	cur_snap->data[cur_snap->n] = strdup(buf);
	cur_snap->n++;
	return 0;
}

struct snap *snap_take(const char *root)
{
	cur_snap = calloc(1, sizeof(*cur_snap));
	cur_skip = strlen(root);
	nftw(root, snap_one, 32, FTW_PHYS);
	return cur_snap;
}

char *snap_diff(const struct snap *a, const struct snap *b)
{
	char *msg = NULL;

	for (size_t i = 0; i < a->n; i++) {
		size_t j;
		for (j = 0; j < b->n; j++)
			if (!strcmp(a->path[i], b->path[j]))
				break;
		if (j == b->n) {
			if (asprintf(&msg, "%s vanished", a->path[i]) < 0)
				msg = NULL;
			return msg;
		}
		if (strcmp(a->data[i], b->data[j])) {
			if (asprintf(&msg, "%s: was '%s', now '%s'", a->path[i], a->data[i],
				     b->data[j]) < 0)
				msg = NULL;
			return msg;
		}
	}
	if (a->n != b->n && asprintf(&msg, "%zu files before, %zu after", a->n, b->n) < 0)
		msg = NULL;
	return msg;
}

void snap_free(struct snap *s)
{
	for (size_t i = 0; s && i < s->n; i++) {
		free(s->path[i]);
		free(s->data[i]);
	}
	if (s) {
		free(s->path);
		free(s->data);
	}
	free(s);
}

/* ---- main ---- */

/* the build made the fake machine (MKROOT_TREE) after the last change of mkroot.sh */
static bool prebuilt_root(void)
{
	struct stat stamp, script;

	if (stat(MKROOT_STAMP, &stamp) < 0 || stat(MKROOT, &script) < 0)
		return false;
	if (stamp.st_mtim.tv_sec != script.st_mtim.tv_sec)
		return stamp.st_mtim.tv_sec > script.st_mtim.tv_sec;
	return stamp.st_mtim.tv_nsec >= script.st_mtim.tv_nsec;
}

int harness_main(int argc, char **argv, Suite *(*const *suites)(void), int n)
{
	SRunner *sr;
	int failed;
	const char *base = getenv("PERFTUNE_TEST_BASE");

	(void)argc;
	if (!base) {
		/* build the pristine tree, then re-exec under umockdev so that libnuma's
		 * constructor, libudev and libcpupower see it instead of the host */
		char tmpl[PATH_MAX], cmd[PATH_MAX * 2];
		private_tmpfs();
		snprintf(tmpl, sizeof(tmpl), "%s/perftune-base-XXXXXX", fx_scratch_dir());
		if (!mkdtemp(tmpl))
			return 1;
		if (prebuilt_root())
			snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s'", MKROOT_TREE, tmpl);
		else
			snprintf(cmd, sizeof(cmd), "%s '%s'", MKROOT, tmpl);
		if (system(cmd) != 0)
			return 1;
		setenv("PERFTUNE_TEST_BASE", tmpl, 1);
		setenv("UMOCKDEV_DIR", tmpl, 1);
		setenv("LD_PRELOAD", "libumockdev-preload.so.0", 1);
		setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 0);
		execv("/proc/self/exe", argv);
		perror("re-exec under umockdev");
		return 1;
	}
	snprintf(base_root, sizeof(base_root), "%s", base);
	sr = srunner_create(suites[0]());
	for (int i = 1; i < n; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	snprintf(base_root, sizeof(base_root), "rm -rf '%s'", base);
	if (system(base_root) != 0)
		fprintf(stderr, "could not remove %s\n", base);
	private_tmpfs_end();
	return failed ? 1 : 0;
}

void fx_strategy(int st)
{
	pt_batch_force(-1);
	unsetenv("PERFTUNE_NO_IO_URING");
	if (st == PT_BATCH_SERIAL)
		pt_batch_force(PT_BATCH_SERIAL);
	else if (st == PT_BATCH_WAVES && !pt_uring_available())
		pt_batch_force(PT_BATCH_WAVES);
	else if (st == PT_BATCH_THREADS)
		setenv("PERFTUNE_NO_IO_URING", "1", 1);
	ck_assert_int_eq(pt_batch_strategy(2), st);
}

int fx_set_one(struct fx *f, const char *name, const char *key, const char *value)
{
	struct perftune_tx *tx = NULL;
	int r = perftune_tx_new(f->ctx, name, 0, &tx);

	ck_assert_int_eq(r, 0);
	r = perftune_tx_set(tx, key, value);
	if (r >= 0)
		r = perftune_tx_commit(tx);
	perftune_tx_unref(tx);
	return r;
}

void fx_get_is(struct fx *f, const char *key, const char *want)
{
	char *v = NULL;
	int r = perftune_get(f->ctx, key, &v);

	ck_assert_msg(r == 0, "%s: %s", key, perftune_ctx_last_error(f->ctx));
	ck_assert_str_eq(v, want);
	free(v);
}

void fx_get_fails(struct fx *f, const char *key, int err, const char *msg)
{
	char *v = NULL;
	int r = perftune_get(f->ctx, key, &v);
	const char *m = perftune_ctx_last_error(f->ctx);

	ck_assert_msg(r == err, "%s: %d (%s), not %d", key, r, v ? v : m, err);
	ck_assert_msg(strstr(m, key), "%s: message does not name it: %s", key, m);
	ck_assert_msg(!msg || strstr(m, msg), "%s: '%s' not in: %s", key, msg, m);
}

void fx_bad_key_is_refused(struct fx *f, const struct fx_bad_key *row)
{
	fx_get_fails(f, row->key, row->err, row->msg);
}

void fx_set_fails(struct fx *f, const char *key, const char *value, int err, const char *msg)
{
	struct perftune_tx *tx = NULL;
	struct perftune_change_iter *it;
	const char *m;
	int r;

	ck_assert_int_eq(perftune_tx_new(f->ctx, "fails", PERFTUNE_TX_DRY_RUN, &tx), 0);
	r = perftune_tx_set(tx, key, value);
	m = perftune_ctx_last_error(f->ctx);
	ck_assert_msg(r == err, "%s=%s: %d, not %d (%s)", key, value, r, err, m);
	ck_assert_msg(strstr(m, key), "%s: message does not name it: %s", key, m);
	ck_assert_msg(!msg || strstr(m, msg), "%s=%s: '%s' not in: %s", key, value, msg, m);
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	ck_assert_ptr_null(perftune_change_iter_next(it)); /* nothing staged */
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
}

const char *fx_staged(struct fx *f, const char *key, const char *value)
{
	static char out[PT_VAL];
	struct perftune_tx *tx = NULL;
	struct perftune_change_iter *it;
	const struct perftune_change *c;
	int r;

	ck_assert_int_eq(perftune_tx_new(f->ctx, "staged", PERFTUNE_TX_DRY_RUN, &tx), 0);
	r = perftune_tx_set(tx, key, value);
	ck_assert_msg(r == 1, "%s=%s: %d (%s)", key, value, r, perftune_ctx_last_error(f->ctx));
	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	c = perftune_change_iter_next(it);
	ck_assert_ptr_nonnull(c);
	snprintf(out, sizeof(out), "%s", perftune_change_new_value(c));
	perftune_change_iter_free(it);
	perftune_tx_unref(tx);
	return out;
}

void fx_value_is_staged_or_refused(struct fx *f, const struct fx_value *row)
{
	if (row->staged)
		ck_assert_str_eq(fx_staged(f, row->key, row->value), row->staged);
	else
		fx_set_fails(f, row->key, row->value, row->err, row->msg);
}

const char *fx_each_keys(struct fx *f, const char *key)
{
	static char out[PT_VAL];
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	size_t o = 0;
	int r = perftune_get_each(f->ctx, key, &it);

	ck_assert_msg(r >= 0, "%s: %d (%s)", key, r, perftune_ctx_last_error(f->ctx));
	out[0] = '\0';
	while ((t = perftune_tunable_iter_next(it)))
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s", o ? " " : "",
				      perftune_tunable_key(t));
	perftune_tunable_iter_free(it);
	return out;
}

const char *fx_list_keys(struct fx *f, const char *prefix, bool values)
{
	static char out[16384];
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	size_t o = 0;

	ck_assert_int_eq(perftune_list(f->ctx, prefix, &it), 0);
	out[0] = '\0';
	while ((t = perftune_tunable_iter_next(it)) && o < sizeof(out))
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s%s%s", o ? " " : "",
				      perftune_tunable_key(t), values ? "=" : "",
				      values ? perftune_tunable_value(t) : "");
	perftune_tunable_iter_free(it);
	return out;
}
