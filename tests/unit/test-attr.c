// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attr.c, the one module that opens, reads and writes kernel files: which
 * paths it takes, how it reads and normalizes, writes a fake root's plain
 * files, keeps files open for a call, retries a busy file, and answers a
 * batch of writes.  It has no public API: the internal functions are called
 * here, on a small tree of its own (no fake machine).  Internal symbols used:
 * pt_attr_open, pt_attr_read, pt_attr_read_raw, pt_attr_write, pt_attr_exists,
 * pt_attr_is_dir, pt_attr_tunable, pt_attr_writable, pt_attr_dir_has_entries,
 * pt_attr_readlink, pt_attr_gone, pt_attr_cache_begin, pt_attr_cache_end,
 * pt_attr_kept_fd, pt_attr_cache_use, pt_attr_cache_unuse, pt_attr_cache_files,
 * pt_attr_cache_destroy, pt_attr_set_write_fn, pt_attr_write_batch.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "lib-all.h"
#include "plain.h"

static char root[PATH_MAX];
static struct perftune_ctx *ctx;

static void put(const char *rel, const char *text, mode_t mode)
{
	plain_put(root, rel, text, mode);
}

/* the file's bytes, as a test reads them (static buffer) */
static const char *bytes(const char *rel)
{
	static char buf[256];
	char p[PATH_MAX * 2];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void setup(void)
{
	char p[PATH_MAX * 2];

	snprintf(root, sizeof(root), "/tmp/pt-attr-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	put("secret", "secret\n", 0644);
	put("sys/q/read_ahead_kb", "128\n", 0644);
	put("sys/q/scheduler", "mq-deadline [kyber] none\n", 0644);
	put("sys/q/vector", "4\t4  1\t7\n", 0644);
	put("sys/q/hw_sector_size", "512\n", 0444);
	put("sys/q/trigger", "\n", 0200);
	put("sys/q/dir/x", "1\n", 0644);
	put("proc/sys/vm/swappiness", "60\n", 0644);
	put("proc/1/status", "Name:\tinit\n", 0444);
	put("dev/cpu_dma_latency", "", 0600);
	snprintf(p, sizeof(p), "%s/sys/q/empty", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/sys/q/fifo", root);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/sys/q/link", root);
	ck_assert_int_eq(symlink("read_ahead_kb", p), 0);
	snprintf(p, sizeof(p), "%s/sys/q/out", root);
	ck_assert_int_eq(symlink("../../secret", p), 0);
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_int_eq(perftune_ctx_set_root(ctx, root), 0);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	perftune_ctx_unref(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* a path and what pt_attr_read() gives: text, or -errno */
static const struct {
	const char *path, *text;
	int err;
} reads[] = {
	{ "sys/q/read_ahead_kb", "128", 0 },
	{ "sys/q/scheduler", "kyber", 0 }, /* a selection: its choice */
	{ "sys/q/vector", "4 4 1 7", 0 },  /* blanks collapsed */
	{ "sys/q/link", "128", 0 },	   /* a link below the top */
	{ "proc/sys/vm/swappiness", "60", 0 },
	{ "sys", NULL, -EMEDIUMTYPE }, /* the top itself: not a file */
	{ "sys/q/dir", NULL, -EMEDIUMTYPE },
	{ "sys/q/nosuch", NULL, -ENOENT },
	{ "sys/q/fifo", NULL, -EMEDIUMTYPE }, /* refused, never waited on */
	{ "sys/q/out", NULL, -EPERM },	      /* a link out of the top */
	{ "sys/../secret", NULL, -EPERM },
	/* only sys/, proc/ and dev/ of the root, spelled as such */
	{ "secret", NULL, -EPERM },
	{ "/sys/q/read_ahead_kb", NULL, -EPERM },
	{ "sysq/read_ahead_kb", NULL, -EPERM },
	{ "sys//q/read_ahead_kb", NULL, -EPERM },
	{ "", NULL, -EPERM },
};

START_TEST(read_gives_the_normalized_value_or_why_not)
{
	char buf[64] = "untouched";
	int r = pt_attr_read(ctx, reads[_i].path, buf, sizeof(buf));

	if (reads[_i].text) {
		ck_assert_int_eq(r, (int)strlen(reads[_i].text));
		ck_assert_str_eq(buf, reads[_i].text);
	} else {
		ck_assert_msg(r == reads[_i].err, "%s: %d, not %d", reads[_i].path, r,
			      reads[_i].err);
	}
}
END_TEST

START_TEST(raw_read_is_bounded_by_the_buffer)
{
	char buf[4];

	ck_assert_int_eq(pt_attr_read_raw(ctx, "sys/q/vector", buf, sizeof(buf)), 3);
	ck_assert_str_eq(buf, "4\t4");
	ck_assert_int_eq(pt_attr_read_raw(ctx, "sys/q/vector", buf, 0), -EINVAL);
	ck_assert_int_eq(pt_attr_read_raw(ctx, "sys/q/read_ahead_kb", buf, 1), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* path: exists, is a directory, a tunable (mode with read and write bits), writable */
static const struct {
	const char *path;
	bool exists, dir, tunable;
	int writable;
	const char *reason;
} kinds[] = {
	{ "sys/q/read_ahead_kb", true, false, true, 1, "" },
	{ "sys/q/hw_sector_size", true, false, false, 0, "read-only in this kernel (mode 0444)" },
	{ "sys/q/trigger", true, false, false, 1, "" }, /* write-only: writable, no tunable */
	{ "sys/q/dir", true, true, false, 0, "not a regular attribute file" },
	{ "sys/q/link", true, false, true, 1, "" },
	{ "dev/cpu_dma_latency", true, false, true, 1, "" },
	{ "sys/q/nosuch", false, false, false, -ENOENT, "" },
	{ "sys/q/out", false, false, false, -EPERM, "" },
};

START_TEST(file_kinds_are_told_apart)
{
	char reason[160] = "";

	ck_assert(pt_attr_exists(ctx, kinds[_i].path) == kinds[_i].exists);
	ck_assert(pt_attr_is_dir(ctx, kinds[_i].path) == kinds[_i].dir);
	ck_assert(pt_attr_tunable(ctx, kinds[_i].path) == kinds[_i].tunable);
	ck_assert_int_eq(pt_attr_writable(ctx, kinds[_i].path, reason, sizeof(reason)),
			 kinds[_i].writable);
	ck_assert_str_eq(reason, kinds[_i].reason);
}
END_TEST

START_TEST(directory_entries_and_links_are_read_below_the_top)
{
	char buf[64];

	ck_assert_int_eq(pt_attr_dir_has_entries(ctx, "sys/q/dir"), 1);
	ck_assert_int_eq(pt_attr_dir_has_entries(ctx, "sys/q/empty"), 0);
	ck_assert_int_eq(pt_attr_dir_has_entries(ctx, "sys/q/nosuch"), -ENOENT);
	ck_assert_int_eq(pt_attr_readlink(ctx, "sys/q/link", buf, sizeof(buf)), 13);
	ck_assert_str_eq(buf, "read_ahead_kb");
	ck_assert_int_eq(pt_attr_readlink(ctx, "sys/q/out", buf, sizeof(buf)), 12);
	ck_assert_str_eq(buf, "../../secret"); /* the link itself, never followed */
	ck_assert_int_eq(pt_attr_readlink(ctx, "sys/q/read_ahead_kb", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(pt_attr_readlink(ctx, "nolink", buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(write_of_a_fake_roots_file_replaces_its_content)
{
	ck_assert_int_eq(pt_attr_write(ctx, "sys/q/read_ahead_kb", "8"), 0);
	ck_assert_str_eq(bytes("sys/q/read_ahead_kb"), "8"); /* not "828\n" */
	/* a write never follows a link at the end, in the top or out of it */
	ck_assert_int_eq(pt_attr_write(ctx, "sys/q/out", "x"), -ELOOP);
	ck_assert_str_eq(bytes("secret"), "secret\n");
	ck_assert_int_eq(pt_attr_write(ctx, "sys/q/link", "16"), -ELOOP);
	ck_assert_str_eq(bytes("sys/q/read_ahead_kb"), "8");
}
END_TEST

START_TEST(kept_file_is_opened_once_per_call_and_closed_at_its_end)
{
	char buf[16];
	int fd;

	ck_assert_int_eq(pt_attr_kept_fd(ctx, "sys/q/read_ahead_kb"), -1); /* no call yet */
	pt_attr_cache_begin(ctx);
	pt_attr_cache_begin(ctx); /* nested: the outermost end counts */
	fd = pt_attr_kept_fd(ctx, "sys/q/read_ahead_kb");
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pt_attr_kept_fd(ctx, "sys/q/read_ahead_kb"), fd);
	/* written through the kept fd: a longer value, then a shorter one, whole */
	ck_assert_int_eq(pt_attr_write(ctx, "sys/q/read_ahead_kb", "4096"), 0);
	ck_assert_int_eq(pt_attr_write(ctx, "sys/q/read_ahead_kb", "16"), 0);
	ck_assert_str_eq(bytes("sys/q/read_ahead_kb"), "16");
	ck_assert_int_eq(pt_attr_read(ctx, "sys/q/read_ahead_kb", buf, sizeof(buf)), 2);
	/* never dev/ (an open is a PM QoS request) nor proc/ outside proc/sys (seq files) */
	ck_assert_int_eq(pt_attr_kept_fd(ctx, "dev/cpu_dma_latency"), -1);
	ck_assert_int_eq(pt_attr_kept_fd(ctx, "proc/1/status"), -1);
	ck_assert_int_ge(pt_attr_kept_fd(ctx, "proc/sys/vm/swappiness"), 0);
	pt_attr_cache_end(ctx);
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC); /* still kept */
	pt_attr_cache_end(ctx);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1); /* closed */
	ck_assert_int_eq(pt_attr_kept_fd(ctx, "sys/q/read_ahead_kb"), -1);
}
END_TEST

START_TEST(kept_file_replaced_in_a_fake_root_is_opened_again)
{
	char buf[16], p[PATH_MAX * 2];

	pt_attr_cache_begin(ctx);
	ck_assert_int_eq(pt_attr_read(ctx, "sys/q/read_ahead_kb", buf, sizeof(buf)), 3);
	/* as a simulated kernel replaces a file (the iosched/ of a new scheduler) */
	snprintf(p, sizeof(p), "%s/sys/q/read_ahead_kb", root);
	ck_assert_int_eq(unlink(p), 0);
	put("sys/q/read_ahead_kb", "999\n", 0644);
	ck_assert_int_eq(pt_attr_read(ctx, "sys/q/read_ahead_kb", buf, sizeof(buf)), 3);
	ck_assert_str_eq(buf, "999");
	/* and one gone for good is gone */
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(pt_attr_read(ctx, "sys/q/read_ahead_kb", buf, sizeof(buf)), -ENOENT);
	pt_attr_cache_end(ctx);
}
END_TEST

START_TEST(own_cache_keeps_its_files_until_destroyed)
{
	struct pt_fcache *own = NULL, *prev;
	char buf[16];
	int fd;

	prev = pt_attr_cache_use(ctx, &own);
	ck_assert_ptr_nonnull(own);
	ck_assert_int_eq(pt_attr_read(ctx, "sys/q/read_ahead_kb", buf, sizeof(buf)), 3);
	ck_assert_int_eq(pt_attr_read(ctx, "proc/sys/vm/swappiness", buf, sizeof(buf)), 2);
	fd = pt_attr_kept_fd(ctx, "sys/q/read_ahead_kb");
	pt_attr_cache_unuse(ctx, prev);
	ck_assert_uint_eq(pt_attr_cache_files(own), 2);
	ck_assert_int_eq(pt_attr_kept_fd(ctx, "sys/q/read_ahead_kb"), -1); /* not the context's */
	ck_assert_int_ge(fcntl(fd, F_GETFD), 0);
	pt_attr_cache_destroy(own);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	ck_assert_uint_eq(pt_attr_cache_files(NULL), 0);
}
END_TEST

struct hook {
	int calls, busy; /* answer -EAGAIN to the first @busy calls */
	int answer;	 /* then this */
	char seen[256];
};

static int hook_write(struct perftune_ctx *c, const char *path, const char *buf, size_t len,
		      void *ud)
{
	struct hook *h = ud;
	size_t o = strlen(h->seen);

	(void)c;
	h->calls++;
	snprintf(h->seen + o, sizeof(h->seen) - o, "%s=%.*s;", path, (int)len, buf);
	if (h->busy > 0) {
		h->busy--;
		return -EAGAIN;
	}
	return h->answer;
}

START_TEST(busy_file_is_written_again)
{
	struct hook h = { .busy = 2 };

	pt_attr_set_write_fn(ctx, hook_write, &h);
	ck_assert_int_eq(pt_attr_write(ctx, "sys/q/scheduler", "none"), 0);
	ck_assert_int_eq(h.calls, 3);
	ck_assert_str_eq(h.seen, "sys/q/scheduler=none;sys/q/scheduler=none;sys/q/scheduler=none;");
	h = (struct hook){ .answer = -EINVAL };
	ck_assert_int_eq(pt_attr_write(ctx, "sys/q/scheduler", "bogus"), -EINVAL);
	ck_assert_int_eq(h.calls, 1); /* a refusal is not retried */
	pt_attr_set_write_fn(ctx, NULL, NULL);
	ck_assert_str_eq(bytes("sys/q/scheduler"),
			 "mq-deadline [kyber] none\n"); /* the hook wrote */
}
END_TEST

/* what a write hook answers, and what a batch makes of it */
static const int batch_answers[][2] = {
	{ 0, 0 },
	{ -EIO, -EIO },
	{ -EINVAL, -EINVAL },
	{ -EAGAIN, -EINPROGRESS }, /* busy: the caller writes it again itself */
	{ -ENOENT, -EINPROGRESS }, /* gone: reopened by the caller */
	{ -ENODEV, -EINPROGRESS },
	{ -ESTALE, -EINPROGRESS },
};

START_TEST(batch_result_is_done_refused_or_to_write_again)
{
	struct hook h = { .answer = batch_answers[_i][0] };
	const char *paths[] = { "sys/q/read_ahead_kb", "sys/q/scheduler" };
	int fds[2] = { -1, -1 }, res[2] = { 1, 1 };
	struct iovec iov[2] = { { (void *)"64", 2 }, { (void *)"none", 4 } };

	ck_assert_int_eq(pt_attr_gone(batch_answers[_i][0]),
			 batch_answers[_i][1] == -EINPROGRESS && batch_answers[_i][0] != -EAGAIN);
	pt_attr_set_write_fn(ctx, hook_write, &h);
	pt_attr_write_batch(ctx, 2, paths, fds, iov, res);
	ck_assert_str_eq(h.seen, "sys/q/read_ahead_kb=64;sys/q/scheduler=none;"); /* in order */
	ck_assert_int_eq(res[0], batch_answers[_i][1]);
	ck_assert_int_eq(res[1], batch_answers[_i][1]);
	pt_attr_set_write_fn(ctx, NULL, NULL);
}
END_TEST

START_TEST(batch_without_a_hook_writes_each_file_whole)
{
	const char *paths[] = { "sys/q/read_ahead_kb", "proc/sys/vm/swappiness" };
	int fds[2], res[2] = { 1, 1 };
	struct iovec iov[2] = { { (void *)"7", 1 }, { (void *)"10", 2 } };

	for (int i = 0; i < 2; i++)
		ck_assert_int_ge(fds[i] = pt_attr_open(ctx, paths[i], O_WRONLY), 0);
	pt_attr_write_batch(ctx, 2, paths, fds, iov, res); /* io_uring, else threads */
	ck_assert_int_eq(res[0], 0);
	ck_assert_int_eq(res[1], 0);
	ck_assert_str_eq(bytes("sys/q/read_ahead_kb"), "7"); /* cut to what was written */
	ck_assert_str_eq(bytes("proc/sys/vm/swappiness"), "10");
	close(fds[0]);
	close(fds[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attr");
	TCase *tc = tcase_create("attr");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, read_gives_the_normalized_value_or_why_not, 0,
			    (int)ARRAY_SIZE(reads));
	tcase_add_test(tc, raw_read_is_bounded_by_the_buffer);
	tcase_add_loop_test(tc, file_kinds_are_told_apart, 0, (int)ARRAY_SIZE(kinds));
	tcase_add_test(tc, directory_entries_and_links_are_read_below_the_top);
	tcase_add_test(tc, write_of_a_fake_roots_file_replaces_its_content);
	tcase_add_test(tc, kept_file_is_opened_once_per_call_and_closed_at_its_end);
	tcase_add_test(tc, kept_file_replaced_in_a_fake_root_is_opened_again);
	tcase_add_test(tc, own_cache_keeps_its_files_until_destroyed);
	tcase_add_test(tc, busy_file_is_written_again);
	tcase_add_loop_test(tc, batch_result_is_done_refused_or_to_write_again, 0,
			    (int)ARRAY_SIZE(batch_answers));
	tcase_add_test(tc, batch_without_a_hook_writes_each_file_whole);
	suite_add_tcase(s, tc);
	return plain_main(s);
}
