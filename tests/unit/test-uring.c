// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uring.c: many writes at once through one io_uring, and the waves of
 * writes built on it.  No public API: the internal functions are called
 * here, on files of a small tree of its own.  Where io_uring is missing or
 * refused (the oldkernel tier's seccomp filter), the same tests check the
 * answer that sends the caller to threads.  Internal symbols used:
 * pt_uring_available, pt_uring_write, pt_wave_init, pt_wave_add, pt_wave_run,
 * pt_wave_reset, pt_wave_free, PT_WAVE_MAX, pt_attr_set_write_fn,
 * pt_attr_cache_begin, pt_attr_cache_end.
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

#define NFILES 8

static char root[PATH_MAX];
static struct perftune_ctx *ctx;
static bool ring; /* io_uring works here */

static void path_of(char *p, size_t size, int i)
{
	snprintf(p, size, "%s/sys/w/f%d", root, i);
}

static const char *bytes(int i)
{
	static char buf[64];
	char p[PATH_MAX + 16];
	int fd;
	ssize_t n;

	path_of(p, sizeof(p), i);
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	return buf;
}

static void setup(void)
{
	char rel[32];

	snprintf(root, sizeof(root), "/tmp/pt-uring-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	for (int i = 0; i < NFILES; i++) {
		snprintf(rel, sizeof(rel), "sys/w/f%d", i);
		plain_put(root, rel, "old\n", 0644);
	}
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_int_eq(perftune_ctx_set_root(ctx, root), 0);
	unsetenv("PERFTUNE_NO_IO_URING");
	ring = pt_uring_available();
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	perftune_ctx_unref(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(each_write_lands_at_offset_zero_of_its_file)
{
	int fds[NFILES], res[NFILES];
	struct iovec iov[NFILES];
	char val[NFILES][8], p[PATH_MAX + 16];

	for (int i = 0; i < NFILES; i++) {
		path_of(p, sizeof(p), i);
		fds[i] = open(p, O_WRONLY);
		ck_assert_int_ge(fds[i], 0);
		ck_assert_int_eq(lseek(fds[i], 3, SEEK_SET), 3); /* ignored: written at 0 */
		snprintf(val[i], sizeof(val[i]), "v%d", i);
		iov[i] = (struct iovec){ val[i], strlen(val[i]) };
		res[i] = 12345;
	}
	if (!ring) { /* missing or refused: the caller's threads write, nothing here */
		ck_assert_int_eq(pt_uring_write(NFILES, fds, iov, res), -EOPNOTSUPP);
		for (int i = 0; i < NFILES; i++) {
			ck_assert_str_eq(bytes(i), "old\n");
			ck_assert_int_eq(res[i], 12345);
		}
	} else {
		ck_assert_int_eq(pt_uring_write(NFILES, fds, iov, res), NFILES);
		for (int i = 0; i < NFILES; i++) {
			ck_assert_int_eq(res[i], 2); /* bytes written */
			snprintf(p, sizeof(p), "v%dd\n", i);
			ck_assert_str_eq(bytes(i), p); /* "old\n" overwritten from 0, not cut */
		}
	}
	for (int i = 0; i < NFILES; i++)
		close(fds[i]);
}
END_TEST

START_TEST(bad_fd_fails_alone)
{
	char p[PATH_MAX + 16];
	int fds[3], res[3];
	struct iovec iov[3] = { { (void *)"a", 1 }, { (void *)"b", 1 }, { (void *)"c", 1 } };

	if (!ring)
		return; /* each_write_lands_at_offset_zero_of_its_file checks the refusal */
	path_of(p, sizeof(p), 0);
	fds[0] = open(p, O_WRONLY);
	fds[1] = 1000; /* not open */
	path_of(p, sizeof(p), 2);
	fds[2] = open(p, O_RDONLY); /* not open for writing */
	ck_assert_int_eq(pt_uring_write(3, fds, iov, res), 3);
	ck_assert_int_eq(res[0], 1);
	ck_assert_int_eq(res[1], -EBADF);
	ck_assert_int_eq(res[2], -EBADF);
	ck_assert_str_eq(bytes(0), "ald\n");
	ck_assert_str_eq(bytes(2), "old\n");
	close(fds[0]);
	close(fds[2]);
}
END_TEST

START_TEST(no_writes_or_too_many_submit_nothing)
{
	int fd = 0, res = 7;
	struct iovec iov = { (void *)"x", 1 };

	ck_assert_int_eq(pt_uring_write(0, &fd, &iov, &res), 0);
	ck_assert_int_eq(res, 7);
	/* more than one ring takes: the caller's threads, before anything is read */
	ck_assert_int_eq(pt_uring_write(4097, NULL, NULL, NULL), -EOPNOTSUPP);
}
END_TEST

START_TEST(environment_turns_io_uring_off_each_time_it_is_asked)
{
	setenv("PERFTUNE_NO_IO_URING", "1", 1);
	ck_assert(!pt_uring_available());
	unsetenv("PERFTUNE_NO_IO_URING");
	ck_assert(pt_uring_available() == ring);
}
END_TEST

START_TEST(wave_is_capped_and_takes_up_to_its_capacity)
{
	struct pt_wave w;

	ck_assert_int_eq(pt_wave_init(&w, PT_WAVE_MAX + 100), 0);
	ck_assert_uint_eq(w.cap, PT_WAVE_MAX);
	pt_wave_free(&w);
	ck_assert_int_eq(pt_wave_init(&w, 2), 0);
	ck_assert_int_eq(pt_wave_add(ctx, &w, 10, "sys/w/f0", "a"), 1);
	ck_assert_int_eq(pt_wave_add(ctx, &w, 11, "sys/w/nosuch", "b"), -ENOENT);
	ck_assert_int_eq(pt_wave_add(ctx, &w, 12, "sys/w/f1", "c"), 1);
	ck_assert_int_eq(pt_wave_add(ctx, &w, 13, "sys/w/f2", "d"), 0); /* full: the next wave */
	ck_assert_uint_eq(w.n, 2);
	ck_assert_uint_eq(w.who[0], 10);
	ck_assert_uint_eq(w.who[1], 12);
	pt_wave_free(&w);
}
END_TEST

START_TEST(wave_writes_each_file_and_closes_what_it_opened)
{
	static const char *const paths[] = { "sys/w/f0", "sys/w/f1", "sys/w/f2" };
	static const char *const values[] = { "1", "11", "1" };
	struct pt_wave w;
	int fd0;

	ck_assert_int_eq(pt_wave_init(&w, 4), 0);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		ck_assert_int_eq(pt_wave_add(ctx, &w, i, paths[i], values[i]), 1);
	ck_assert(w.own[0]); /* outside a call's file cache: its own fd */
	fd0 = w.fd[0];
	pt_wave_run(ctx, &w);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(w.res[i], 0);
	/* a fake root's plain files are cut to what was written */
	ck_assert_str_eq(bytes(0), "1");
	ck_assert_str_eq(bytes(1), "11");
	ck_assert_str_eq(bytes(3), "old\n");
	pt_wave_reset(&w);
	ck_assert_uint_eq(w.n, 0);
	ck_assert_int_eq(fcntl(fd0, F_GETFD), -1); /* closed by the reset */
	pt_wave_free(&w);
}
END_TEST

START_TEST(wave_in_a_call_uses_the_kept_files)
{
	struct pt_wave w;
	int fd;

	pt_attr_cache_begin(ctx);
	ck_assert_int_eq(pt_wave_init(&w, 4), 0);
	ck_assert_int_eq(pt_wave_add(ctx, &w, 0, "sys/w/f5", "55"), 1);
	ck_assert(!w.own[0]);
	fd = w.fd[0];
	pt_wave_run(ctx, &w);
	ck_assert_int_eq(w.res[0], 0);
	pt_wave_free(&w);
	ck_assert_int_ge(fcntl(fd, F_GETFD), 0); /* the call's, not the wave's to close */
	pt_attr_cache_end(ctx);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	ck_assert_str_eq(bytes(5), "55");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uring");
	TCase *tc = tcase_create("uring");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, each_write_lands_at_offset_zero_of_its_file);
	tcase_add_test(tc, bad_fd_fails_alone);
	tcase_add_test(tc, no_writes_or_too_many_submit_nothing);
	tcase_add_test(tc, environment_turns_io_uring_off_each_time_it_is_asked);
	tcase_add_test(tc, wave_is_capped_and_takes_up_to_its_capacity);
	tcase_add_test(tc, wave_writes_each_file_and_closes_what_it_opened);
	tcase_add_test(tc, wave_in_a_call_uses_the_kept_files);
	suite_add_tcase(s, tc);
	return plain_main(s);
}
